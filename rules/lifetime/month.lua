-- 200 km within one calendar month, by local date. Repeatable: the run that takes a month to
-- 200 km or more earns it, with the month ("2025-03") as the detail.

return require("lib.period") {
  id = "month",
  title = "200 km in a calendar month",
  badge = "month-200k",
  target_m = 200000,
  key = function(date)
    local year, month = badgectl.date_parts(date)
    return ("%04d-%02d"):format(year, month)
  end,
  first_hint = "run 200 km within one calendar month",
  plural = "months",
  this = "this month",
}
