-- The Eddington number of each sport other than running (running's is eddington.lua's): on n days you
-- rode, walked, hiked or swam at least n km of it. Earned again by every sport that reaches 10, 25, 50.
-- The sport is run.sport as the readers name it (a file without one reads as running); only runs the
-- selection lets through reach the pack (`--sport all`, `--sport running,cycling`).
return require("lib.eddington_groups") {
  id = "eddington-sports",
  title = "Eddington number of another sport",
  word = "sport",
  family = {
    { badge = "eddington-sport-10", n = 10 },
    { badge = "eddington-sport-25", n = 25 },
    { badge = "eddington-sport-50", n = 50 },
  },
  group = function(run, date)
    if run.sport == "running" then return nil end
    return run.sport
  end,
}
