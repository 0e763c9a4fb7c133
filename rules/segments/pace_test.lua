-- Hand-computed tables for pace.lua and records.lua (the same as Tests/BadgeRulesTests/SegmentsPackTests.swift).
-- 1 km: bronze < 5:00, silver < 4:15, gold < 3:30; 5 km: 30:00, 25:00, 20:00; 10 km: 1:00:00, 50:00, 42:00;
-- half: 2:15:00, 1:50:00, 1:30:00. Strictly under.

local function runs(t)
  return {
    t.run{ id = "r1", date = "2025-05-01", distance_km = 10, duration = "1:02:00",
           efforts = { ["1km"] = 290, ["5km"] = "29:50", ["10km"] = "1:01:40" } },
    t.run{ id = "r2", date = "2025-05-02", distance_km = 5, duration = "25:00",
           efforts = { ["1km"] = "4:15", ["5km"] = "25:00" } },          -- exactly silver's times: not silver
    t.run{ id = "r3", date = "2025-05-03", distance_km = 21.2, duration = "2:14:00",
           efforts = { ["1km"] = "4:15", ["5km"] = "19:59", ["10km"] = "59:59", half = "2:13:20" } },
    t.run{ id = "r4", date = "2025-05-04", distance_km = 5, duration = "19:50",
           efforts = { ["1km"] = "5:00", ["5km"] = "19:50" } },
    t.run{ id = "r5", date = "2025-05-05", distance_km = 5, duration = "19:50",
           efforts = { ["5km"] = "19:50" } },                             -- ties r4: no record
  }
end

test("pace tiers: first run strictly under each tier time", function(t)
  local r = runs(t)
  local result = t.evaluate(r, { rule = "pace" })
  t.expect_award(result, { badge = "pace-1k", tier = "bronze", run = r[1] })
  t.expect_no_award(result, { badge = "pace-1k", tier = "silver" })      -- 4:15 is not under 4:15
  t.expect_award(result, { badge = "pace-5k", tier = "bronze", run = r[1] })
  t.expect_award(result, { badge = "pace-5k", tier = "silver", run = r[3] })
  t.expect_award(result, { badge = "pace-5k", tier = "gold", run = r[3] })  -- 19:59: silver and gold at once
  t.expect_award(result, { badge = "pace-10k", tier = "bronze", run = r[3] })
  t.expect_no_award(result, { badge = "pace-10k", tier = "silver" })
  t.expect_award(result, { badge = "pace-half", tier = "bronze", run = r[3] })
  t.expect_eq(#result.awards, 6, "six pace awards")
  local why = t.explain(result, "pace-1k")
  t.expect_eq(why.hint, "1 km in 4:15 so far; under 4:15 for silver")
  t.expect_eq(why.progress.current, 255)
  t.expect_eq(t.explain(result, "pace-5k").hint, "bronze, silver and gold earned; best 5 km 19:50")
  t.expect_eq(t.explain(result, "pace-10k").hint, "10 km in 59:59 so far; under 50:00 for silver")
end)

test("records: first effort is the first record, a tie is not a record", function(t)
  local r = runs(t)
  local result = t.evaluate(r, { rule = "records" })
  t.expect_award(result, { badge = "pr-1k", run = r[1] })
  t.expect_award(result, { badge = "pr-1k", run = r[2] })
  t.expect_no_award(result, { badge = "pr-1k", run = r[3] })   -- 4:15 ties r2
  t.expect_no_award(result, { badge = "pr-1k", run = r[4] })   -- 5:00 is slower
  t.expect_award(result, { badge = "pr-5k", run = r[1] })
  t.expect_award(result, { badge = "pr-5k", run = r[2] })
  t.expect_award(result, { badge = "pr-5k", run = r[3] })
  t.expect_award(result, { badge = "pr-5k", run = r[4] })
  t.expect_no_award(result, { badge = "pr-5k", run = r[5] })   -- 19:50 ties r4
  t.expect_award(result, { badge = "pr-10k", run = r[1] })
  t.expect_award(result, { badge = "pr-10k", run = r[3] })
  t.expect_award(result, { badge = "pr-half", run = r[3] })
  t.expect_eq(#result.awards, 9, "nine records")
  t.expect_eq(t.explain(result, "pr-5k").hint, "beat 19:50 over 5 km for a new record (4 so far)")
end)
