-- 100 km within one ISO week (Monday to Sunday, ISO 8601 week-numbering year: 2024-12-30 is in
-- 2025-W01), by local date. Repeatable: the run that takes a week to 100 km or more earns it, with the
-- week ("2025-W01") as the detail. Runs without a local date are left out with a note.

return require("lib.period") {
  id = "week",
  title = "100 km in an ISO week",
  badge = "week-100k",
  target_m = 100000,
  key = function(date)
    local year, week = badgectl.iso_week(date)
    return ("%d-W%02d"):format(year, week)
  end,
  first_hint = "run 100 km within one ISO week",
  plural = "weeks",
  this = "this ISO week",
}
