-- The shipped challenges (lib/list.lua) through the rule; every expectation worked by hand.

-- `count` daily runs of `km` km from `first` (07:00 local, 1:00:00 each), ids <prefix>1, <prefix>2, ...
local function daily(t, runs, first, count, km, prefix)
  for i = 1, count do
    runs[#runs + 1] = t.run{ id = prefix .. i, date = badgectl.add_days(first, i - 1), distance_km = km, duration = "1:00:00" }
  end
  return runs
end

test("December 100: only December's runs count, and the run that reaches 100 km earns it", function(t)
  -- Five runs of 30 km from 2026-11-28: Nov 28-30 (90 km) do not count; Dec 1 and 2 make 60 km.
  -- Then 2026-12-29 .. 2026-12-31 at 15 km: 75, 90, 105 km: the 31st earns it. 2027-01-01 is outside.
  local runs = daily(t, {}, "2026-11-28", 5, 30, "a")
  daily(t, runs, "2026-12-29", 4, 15, "b")
  local result = t.evaluate(runs)
  t.expect_award(result, { badge = "december-100k", run = runs[8], detail = "105.00 km of 100.00 km from 2026-12-01 to 2026-12-31" })
  t.expect_no_award(result, { badge = "winter-30-runs" })   -- 4 runs from the 21st: not 30
  t.expect_no_award(result, { badge = "january-20h" })      -- one hour in January
  t.expect_eq(t.explain(result, "january-20h").hint, "1:00:00 of 20:00:00 by 2027-01-31; 19:00:00 to go")
  t.expect_eq(t.explain(result, "january-20h").progress, { current = 1.0, target = 20.0, unit = "h" })
end)

test("runs outside the window never count, however far they go", function(t)
  local runs = { t.run{ id = "nov", date = "2026-11-30", distance_km = 150, duration = "15:00:00" },
                 t.run{ id = "jan", date = "2027-01-01", distance_km = 150, duration = "15:00:00" } }
  local result = t.evaluate(runs)
  t.expect_no_award(result, { badge = "december-100k" })
  t.expect_eq(t.explain(result, "december-100k").hint, "ended 2026-12-31 at 0 m of 100.00 km")
end)

test("progress and next: a distance challenge whose window holds the latest run", function(t)
  local runs = daily(t, {}, "2026-12-01", 4, 10, "d")
  local result = t.evaluate(runs)
  t.expect_eq(t.explain(result, "december-100k").hint, "40.00 km of 100.00 km by 2026-12-31; 60.00 km to go")
  t.expect_eq(t.explain(result, "december-100k").progress, { current = 40.0, target = 100.0, unit = "km" })
  t.expect_eq(result.next, { badge = "december-100k", remaining_m = 60000.0, rule = "challenges", pack = "challenges" })
  local before = t.evaluate({ t.run{ id = "early", date = "2026-06-01", distance_km = 5 } })
  t.expect_eq(t.explain(before, "december-100k").hint, "starts 2026-12-01: 100.00 km by 2026-12-31")
  t.expect(before.next == nil, "no window holds the latest run")
end)

test("thirty winter runs and twenty hours in January", function(t)
  -- Daily from 2026-12-21: the 30th run is on 2027-01-19; January's 20th hour on 2027-01-20.
  local runs = daily(t, {}, "2026-12-21", 31, 8, "d")
  local result = t.evaluate(runs)
  t.expect_award(result, { badge = "winter-30-runs", run = runs[30], detail = "30 runs of 30 runs from 2026-12-21 to 2027-03-19" })
  t.expect_award(result, { badge = "january-20h", run = runs[31], detail = "20:00:00 of 20:00:00 from 2027-01-01 to 2027-01-31" })
  t.expect_no_award(result, { badge = "december-100k" })   -- December 21 to 31: 11 × 8 km = 88 km
end)

test("a ride in December does not count", function(t)
  local runs = { t.run{ id = "ride", date = "2026-12-02", distance_km = 120, duration = "4:00:00", sport = "cycling" } }
  t.expect_no_award(t.evaluate(runs), { badge = "december-100k" })
end)
