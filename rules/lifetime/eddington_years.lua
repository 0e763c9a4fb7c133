-- The Eddington number of each calendar year (local dates): on n days of that year you ran at least
-- n km. Earned again in every year that reaches 10, 25, 50. Only runs with sport "running" count,
-- as for the lifetime number (eddington.lua).
return require("lib.eddington_groups") {
  id = "eddington-years",
  title = "Eddington number of a year",
  word = "year",
  family = {
    { badge = "eddington-year-10", n = 10 },
    { badge = "eddington-year-25", n = 25 },
    { badge = "eddington-year-50", n = 50 },
  },
  group = function(run, date)
    if run.sport ~= "running" then return nil end
    return date:sub(1, 4)
  end,
}
