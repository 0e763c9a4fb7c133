-- Eddington numbers per calendar year and per sport (lib/eddington_groups.lua), built in loops; every
-- expectation worked by hand.

-- `count` daily runs of `km` km from `first` (07:00 local), ids <prefix>1, <prefix>2, ...
local function daily(t, runs, first, count, km, prefix, sport)
  for i = 1, count do
    runs[#runs + 1] = t.run{ id = prefix .. i, date = badgectl.add_days(first, i - 1), distance_km = km, sport = sport }
  end
  return runs
end

test("a year's Eddington number counts only that year's days, and is earned again the next year", function(t)
  -- 2025-12-22 .. 2025-12-31: 10 days of 12 km (2025: E = 10 on the 31st). 2026-01-01 .. 2026-01-09:
  -- 9 days of 30 km: 2026 has E = 9 (the lifetime number is 19 by then, but each year starts at 0).
  local runs = daily(t, {}, "2025-12-22", 10, 12, "a")
  daily(t, runs, "2026-01-01", 9, 30, "b")
  local result = t.evaluate(runs, { rule = "eddington-years" })
  t.expect_awards(result, { { badge = "eddington-year-10", run = runs[10], detail = "2025: Eddington number 10, 10 days of at least 10 km" } })
  t.expect_eq(t.explain(result, "eddington-year-10").hint, "2026: Eddington number 9; 9 of 10 days of at least 10 km")
  t.expect_eq(t.explain(result, "eddington-year-10").progress, { current = 9, target = 10, unit = "days" })

  -- A tenth day in 2026: the badge again, for 2026.
  daily(t, runs, "2026-01-10", 1, 30, "c")
  local again = t.evaluate(runs, { rule = "eddington-years" })
  t.expect_awards(again, {
    { badge = "eddington-year-10", run = runs[10] },
    { badge = "eddington-year-10", run = runs[20], detail = "2026: Eddington number 10, 10 days of at least 10 km" },
  })
end)

test("a year of 50 days of 50 km gives 10, 25 and 50; runs of the same day add up", function(t)
  -- Two runs of 25 km a day from 2026-02-01: each day's second run makes 50 km.
  local runs = {}
  for i = 1, 50 do
    local date = badgectl.add_days("2026-02-01", i - 1)
    runs[#runs + 1] = t.run{ id = "am" .. i, start = date .. "T07:00:00Z", distance_km = 25 }
    runs[#runs + 1] = t.run{ id = "pm" .. i, start = date .. "T18:00:00Z", distance_km = 25 }
  end
  -- A morning's 25 km is a day of 25 km: 10 and 25 come with the mornings of days 10 and 25 (runs 19
  -- and 49); 50 needs the 50th day's evening run (run 100).
  local result = t.evaluate(runs, { rule = "eddington-years" })
  t.expect_awards(result, {
    { badge = "eddington-year-10", run = runs[19] },
    { badge = "eddington-year-25", run = runs[49] },
    { badge = "eddington-year-50", run = runs[100], detail = "2026: Eddington number 50, 50 days of at least 50 km" },
  })
  t.expect(t.explain(result, "eddington-year-50").hint == nil, "every badge of the year held: no hint")
end)

test("other sports have their own number; running is left to the lifetime one", function(t)
  -- 25 days of 30 km of cycling, 12 days of 11 km walking, 30 days of 40 km running.
  local runs = daily(t, {}, "2026-04-01", 25, 30, "ride", "cycling")
  daily(t, runs, "2026-05-01", 12, 11, "walk", "walking")
  daily(t, runs, "2026-06-01", 30, 40, "run", "running")
  local result = t.evaluate(runs, { rule = "eddington-sports" })
  t.expect_awards(result, {
    { badge = "eddington-sport-10", run = runs[10], detail = "cycling: Eddington number 10, 10 days of at least 10 km" },
    { badge = "eddington-sport-25", run = runs[25], detail = "cycling: Eddington number 25, 25 days of at least 25 km" },
    { badge = "eddington-sport-10", run = runs[35], detail = "walking: Eddington number 10, 10 days of at least 10 km" },
  })
  -- The latest group with a run is walking's (running is no group here).
  t.expect_eq(t.explain(result, "eddington-sport-25").hint, "walking: Eddington number 11; 0 of 25 days of at least 25 km")
end)

test("fifty days of a 50 km ride", function(t)
  local runs = daily(t, {}, "2026-01-01", 50, 50, "ride", "cycling")
  local result = t.evaluate(runs, { rule = "eddington-sports" })
  t.expect_award(result, { badge = "eddington-sport-50", run = runs[50], detail = "cycling: Eddington number 50, 50 days of at least 50 km" })
  t.expect_eq(#result.awards, 3)
end)

test("no run yet: the hint says so", function(t)
  local result = t.evaluate({}, { rule = "eddington-sports" })
  t.expect_eq(t.explain(result, "eddington-sport-10").hint, "no sport with a run yet")
end)
