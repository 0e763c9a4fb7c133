-- The goals rule through t.evaluate's athlete (the profile's "goals", as --athlete gives them); every
-- expectation worked by hand.

-- `count` runs of `km` km from `first`, one a day at 07:00 local, ids <prefix>1, <prefix>2, ...
local function daily(t, runs, first, count, km, prefix, fields)
  for i = 1, count do
    local spec = { id = prefix .. i, date = badgectl.add_days(first, i - 1), distance_km = km, duration = "1:00:00" }
    for k, v in pairs(fields or {}) do spec[k] = v end
    runs[#runs + 1] = t.run(spec)
  end
  return runs
end

local YEAR_100K = { id = "year-100k", measure = "distance", target = 100000, per = "year" }

test("a distance goal per year: the run that reaches it, once a year, again the next year", function(t)
  -- 2025-12-20 .. 2026-01-08, 12 km a day: 2025 has 12 runs (144 km: 100 km passed on the 9th, 108 km),
  -- 2026 starts again at 0 and has 8 runs (96 km): not met.
  local runs = daily(t, {}, "2025-12-20", 20, 12, "d")
  local result = t.evaluate(runs, { athlete = { goals = { YEAR_100K } } })
  t.expect_awards(result, { { badge = "goal-distance", tier = "year", run = runs[9], detail = "year-100k: 108.00 km of 100.00 km in 2025" } })
  local why = t.explain(result, "goal-distance")
  t.expect_eq(why.hint, "year-100k: 96.00 km of 100.00 km in 2026; 4.00 km to go")
  t.expect_eq(why.progress, { current = 96.0, target = 100.0, unit = "km" })
  t.expect_eq(result.next, { badge = "goal-distance", remaining_m = 4000.0, rule = "goals", pack = "goals" })

  -- Two more runs in 2026: met again (2026: 108 km at the 9th run of the year).
  daily(t, runs, "2026-01-09", 2, 12, "e")
  local again = t.evaluate(runs, { athlete = { goals = { YEAR_100K } } })
  t.expect_awards(again, {
    { badge = "goal-distance", tier = "year", run = runs[9] },
    { badge = "goal-distance", tier = "year", run = runs[21], detail = "year-100k: 108.00 km of 100.00 km in 2026" },
  })
  t.expect_eq(t.explain(again, "goal-distance").hint, "year-100k: met in 2026 (120.00 km of 100.00 km); 2 years met in all")
  t.expect(again.next == nil, "every distance goal met: nothing next")
end)

test("twelve runs a month, counted by local date; other sports do not count", function(t)
  local goal = { measure = "runs", target = 12, per = "month" }          -- no id: "runs-12-month"
  -- 2026-03-20 .. 2026-04-05 daily: March has 12 (20th..31st), April 5. A ride on 2026-03-10 does not count.
  local runs = { t.run{ id = "ride", date = "2026-03-10", distance_km = 40, duration = "1:30:00", sport = "cycling" } }
  daily(t, runs, "2026-03-20", 17, 5, "d")
  local result = t.evaluate(runs, { athlete = { goals = { goal } } })
  t.expect_awards(result, { { badge = "goal-runs", tier = "month", run = runs[13], detail = "runs-12-month: 12 runs of 12 runs in 2026-03" } })
  t.expect_eq(t.explain(result, "goal-runs").hint, "runs-12-month: 5 runs of 12 runs in 2026-04; 7 runs to go")
  t.expect(result.next == nil, "no distance goal: no next")
end)

test("ten hours a week: moving time where the run has it, else elapsed; the ISO week starts on Monday", function(t)
  local goal = { id = "week-10h", measure = "time", target = 36000, per = "week" }
  -- 2026-01-05 is a Monday (2026-W02). Four runs of 2:30:00 elapsed, the second only 2:00:00 moving:
  -- 2.5 + 2 + 2.5 + 2.5 = 9.5 h on Thursday; Friday's 0:30:00 makes 10 h. Sunday 2026-01-11 ends the week;
  -- Monday 2026-01-12 (W03) starts again.
  local runs = {
    t.run{ id = "mon", date = "2026-01-05", distance_km = 25, duration = "2:30:00" },
    t.run{ id = "tue", date = "2026-01-06", distance_km = 20, duration = "2:30:00", moving_s = 7200 },
    t.run{ id = "wed", date = "2026-01-07", distance_km = 25, duration = "2:30:00" },
    t.run{ id = "thu", date = "2026-01-08", distance_km = 25, duration = "2:30:00" },
    t.run{ id = "fri", date = "2026-01-09", distance_km = 5, duration = "30:00" },
    t.run{ id = "nextmon", date = "2026-01-12", distance_km = 10, duration = "1:00:00" },
  }
  local result = t.evaluate(runs, { athlete = { goals = { goal } } })
  t.expect_awards(result, { { badge = "goal-time", tier = "week", run = runs[5], detail = "week-10h: 10:00:00 of 10:00:00 in 2026-W02" } })
  local why = t.explain(result, "goal-time")
  t.expect_eq(why.hint, "week-10h: 1:00:00 of 10:00:00 in 2026-W03; 9:00:00 to go")
  t.expect_eq(why.progress, { current = 1.0, target = 10.0, unit = "h" })
end)

test("every measure and period: nine goals, each met once", function(t)
  local goals = {}
  for _, measure in ipairs({ "distance", "runs", "time" }) do
    for _, per in ipairs({ "week", "month", "year" }) do
      local target = ({ distance = 30000, runs = 3, time = 10800 })[measure]
      goals[#goals + 1] = { id = measure .. "-" .. per, measure = measure, target = target, per = per }
    end
  end
  -- Three runs of 10 km in 1:00:00 from Monday 2026-06-01: every goal is met on the third.
  local runs = daily(t, {}, "2026-06-01", 3, 10, "d")
  local result = t.evaluate(runs, { athlete = { goals = goals } })
  local expected = {}
  for _, badge in ipairs({ "goal-distance", "goal-runs", "goal-time" }) do
    for _, per in ipairs({ "week", "month", "year" }) do expected[#expected + 1] = { badge = badge, tier = per, run = runs[3] } end
  end
  t.expect_awards(result, expected)
  t.expect_award(result, { badge = "goal-distance", tier = "month", detail = "distance-month: 30.00 km of 30.00 km in 2026-06" })
end)

test("without goals the rule awards nothing and says how to set one", function(t)
  local runs = daily(t, {}, "2026-01-01", 30, 40, "d")
  for _, opts in ipairs({ {}, { athlete = { birth_date = "1980-01-01" } }, { athlete = { goals = {} } } }) do
    local result = t.evaluate(runs, opts)
    t.expect_eq(#result.awards, 0)
    t.expect(result.next == nil, "no next without goals")
    t.expect_match(t.explain(result, "goal-runs").hint, '^set your goals in the %-%-athlete profile: "goals"')
  end
end)

test("a goal set before any run says so", function(t)
  local result = t.evaluate({}, { athlete = { goals = { YEAR_100K } } })
  t.expect_eq(t.explain(result, "goal-distance").hint, "year-100k: 100.00 km per year; no run yet")
  t.expect_eq(t.explain(result, "goal-distance").progress, { current = 0.0, target = 100.0, unit = "km" })
end)

test("the profile's goals are checked: the field and what is wrong", function(t)
  local function refused(goal)
    local ok, err = pcall(t.evaluate, {}, { athlete = { goals = { goal } } })
    t.expect(not ok, "refused")
    return tostring(err)
  end
  t.expect_match(refused({ measure = "distanse", target = 1000, per = "year" }), "goals%[1%]%.measure.*unknown measure 'distanse'")
  t.expect_match(refused({ measure = "distance", target = 1000, per = "fortnight" }), "goals%[1%]%.per.*unknown period 'fortnight'")
  t.expect_match(refused({ measure = "runs", target = 2.5, per = "week" }), "goals%[1%]%.target.*whole number")
  t.expect_match(refused({ measure = "time", target = -1, per = "week" }), "goals%[1%]%.target.*above 0")
  t.expect_match(refused({ measure = "time", target = 60, per = "week", every = 2 }), "goals%[1%]%.every.*unknown field")
  local ok, err = pcall(t.evaluate, {}, { athlete = { goals = { YEAR_100K, YEAR_100K } } })
  t.expect(not ok and tostring(err):find("goals[2].id", 1, true) ~= nil, "two goals with one id: " .. tostring(err))
end)
