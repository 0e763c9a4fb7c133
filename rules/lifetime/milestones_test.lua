-- Milestones that need many runs, built in loops; every expectation computed by hand.

-- `count` daily runs of `km` km from `first` (one per local day, 07:00), ids d1, d2, ...
local function daily(t, first, count, km, prefix)
  local runs = {}
  for i = 1, count do
    runs[i] = t.run{ id = (prefix or "d") .. i, date = badgectl.add_days(first, i - 1), distance_km = km }
  end
  return runs
end

test("100 daily runs of 50 km: lifetime distance, run counts, a 30-day streak", function(t)
  local runs = daily(t, "2025-01-01", 100, 50)   -- 2025-01-01 .. 2025-04-10
  t.expect_eq(runs[30].local_date, "2025-01-30")
  t.expect_eq(runs[100].local_date, "2025-04-10")   -- Jan 31 + Feb 28 + Mar 31 = 90 days, then Apr 1..10

  -- totals: run n has 50 n km. 100 km at run 2, 500 km at run 10, 1,000 km at run 20, 5,000 km at run 100 (>=).
  local distance = t.evaluate(runs, { rule = "distance" })
  t.expect_award(distance, { badge = "lifetime-100k", run = runs[2] })
  t.expect_award(distance, { badge = "lifetime-500k", run = runs[10] })
  t.expect_no_award(distance, { badge = "lifetime-1000k", run = runs[19] })   -- 950 km
  t.expect_award(distance, { badge = "lifetime-1000k", run = runs[20], detail = "1000.00 km in 20 runs" })
  t.expect_award(distance, { badge = "lifetime-5000k", run = runs[100], detail = "5000.00 km in 100 runs" })
  t.expect_eq(#distance.awards, 4, "each milestone once")
  t.expect(distance.next == nil, "nothing left to reach")

  local counts = t.evaluate(runs, { rule = "runs" })
  t.expect_award(counts, { badge = "runs-10", run = runs[10] })
  t.expect_award(counts, { badge = "runs-50", run = runs[50], detail = "run number 50" })
  t.expect_award(counts, { badge = "runs-100", run = runs[100], detail = "run number 100" })
  t.expect_eq(#counts.awards, 3, "three run counts")

  -- one unbroken streak of 100 days: streak-7 on day 7, streak-30 on day 30, once each
  local streak = t.evaluate(runs, { rule = "streak" })
  t.expect_award(streak, { badge = "streak-7", run = runs[7], detail = "7 days: 2025-01-01 to 2025-01-07" })
  t.expect_award(streak, { badge = "streak-30", run = runs[30], detail = "30 days: 2025-01-01 to 2025-01-30" })
  t.expect_eq(#streak.awards, 2, "one streak, two lengths")
  t.expect_eq(t.explain(streak, "streak-30").hint, "streak of 100 days since 2025-01-01; keep it going")
end)

test("a 30-day streak broken on day 30 by one missed day starts again", function(t)
  local first = daily(t, "2025-01-01", 29, 5, "a")   -- 2025-01-01 .. 2025-01-29; the 30th is missed
  local second = daily(t, "2025-01-31", 30, 5, "b")  -- 2025-01-31 .. 2025-03-01 (Jan 31 + 29 days, February has 28)
  t.expect_eq(second[30].local_date, "2025-03-01")
  local runs = {}
  for _, r in ipairs(first) do runs[#runs + 1] = r end
  for _, r in ipairs(second) do runs[#runs + 1] = r end
  local result = t.evaluate(runs, { rule = "streak" })
  t.expect_no_award(result, { badge = "streak-30", run = first[29] })   -- 29 days only
  t.expect_award(result, { badge = "streak-30", run = second[30], detail = "30 days: 2025-01-31 to 2025-03-01" })
  t.expect_award(result, { badge = "streak-7", run = first[7] })        -- 2025-01-07
  t.expect_award(result, { badge = "streak-7", run = second[7], detail = "7 days: 2025-01-31 to 2025-02-06" })
  t.expect_eq(#result.awards, 3, "streak-7 twice, streak-30 once")
end)

test("23:50 local on Sunday (Monday in UTC) counts in ISO week 2025-W01, which starts in 2024", function(t)
  -- Monday 2024-12-30 is in 2025-W01 (the week of the year's first Thursday, 2025-01-02).
  local mon = t.run{ id = "mon", date = "2024-12-30", distance_km = 60 }
  -- Sunday 2025-01-05 23:50 at UTC-5 is 2025-01-06T04:50Z, Monday of 2025-W02 in UTC.
  local sun = t.run{ id = "sun", start = "2025-01-06T04:50:00Z", utc_offset_s = -18000, distance_km = 40 }
  t.expect_eq(sun.local_date, "2025-01-05")
  local nextmon = t.run{ id = "nextmon", date = "2025-01-06", distance_km = 99 }  -- 2025-W02: 99 km, short of 100
  local result = t.evaluate({ mon, sun, nextmon }, { rule = "week" })
  t.expect_award(result, { badge = "week-100k", run = sun, detail = "2025-W01: 100.00 km" })
  t.expect_eq(#result.awards, 1, "only 2025-W01 reaches 100 km")
  t.expect_eq(t.explain(result, "week-100k").hint, "1.0 km left this ISO week (2025-W02)")
end)

test("23:50 local on 31 January (1 February in UTC) counts in January", function(t)
  local early = t.run{ id = "early", date = "2025-01-10", distance_km = 150 }
  -- 2025-01-31 23:50 at UTC-5 = 2025-02-01T04:50Z: January locally, 150 + 50 = 200 km (>=)
  local late = t.run{ id = "late", start = "2025-02-01T04:50:00Z", utc_offset_s = -18000, distance_km = 50 }
  local feb = t.run{ id = "feb", date = "2025-02-02", distance_km = 10 }   -- February: 10 km
  local result = t.evaluate({ early, late, feb }, { rule = "month" })
  t.expect_award(result, { badge = "month-200k", run = late, detail = "2025-01: 200.00 km" })
  t.expect_eq(#result.awards, 1, "January only")
  t.expect_eq(t.explain(result, "month-200k").hint, "190.0 km left this month (2025-02)")
end)
