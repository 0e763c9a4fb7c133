-- Every tier of every pace badge, computed by hand (pace.lua: a tier is earned by the first run whose
-- fastest effort is STRICTLY under the tier's time; a run under a higher tier also takes the lower ones
-- not yet earned). Tier times: 1 km 5:00 / 4:15 / 3:30; 10 km 1:00:00 / 50:00 / 42:00;
-- half 2:15:00 / 1:50:00 / 1:30:00.

test("pace tiers: silver, then exactly gold's times (not gold), then gold", function(t)
  -- 1 km 4:14 = 254 s < 255 (silver) and < 300 (bronze); 10 km 49:59 = 2999 s < 3000 (silver), < 3600;
  -- half 1:49:59 = 6599 s < 6600 (silver), < 8100: bronze and silver of all three on this run.
  local silver = t.run{ id = "silver", date = "2025-06-01", distance_km = 21.2, duration = "1:50:40",
                        efforts = { ["1km"] = "4:14", ["10km"] = "49:59", half = "1:49:59" } }
  -- exactly the gold times 3:30, 42:00, 1:30:00: not strictly under, and silver is taken: nothing.
  local exact = t.run{ id = "exact", date = "2025-06-08", distance_km = 21.2, duration = "1:30:40",
                       efforts = { ["1km"] = "3:30", ["10km"] = "42:00", half = "1:30:00" } }
  -- 3:29 = 209 s < 210; 41:59 = 2519 s < 2520; 1:29:59 = 5399 s < 5400: gold of all three.
  local gold = t.run{ id = "gold", date = "2025-06-15", distance_km = 21.2, duration = "1:30:30",
                      efforts = { ["1km"] = "3:29", ["10km"] = "41:59", half = "1:29:59" } }
  local result = t.evaluate({ silver, exact, gold }, { rule = "pace" })
  for _, badge in ipairs({ "pace-1k", "pace-10k", "pace-half" }) do
    t.expect_award(result, { badge = badge, tier = "bronze", run = silver })
    t.expect_award(result, { badge = badge, tier = "silver", run = silver })
    t.expect_no_award(result, { badge = badge, run = exact })
    t.expect_award(result, { badge = badge, tier = "gold", run = gold })
    t.expect_no_award(result, { badge = badge, tier = "bronze", run = gold })   -- already earned
  end
  t.expect_eq(#result.awards, 9, "3 badges x bronze, silver, gold")
  t.expect_award(result, { badge = "pace-1k", tier = "gold", detail = "1 km in 3:29 (3:29/km), under 3:30" })
  t.expect_eq(t.explain(result, "pace-half").hint, "bronze, silver and gold earned; best half marathon 1:29:59")
end)

test("pace tiers: one 5 km in 19:59 on a first run takes bronze, silver and gold at once", function(t)
  -- 19:59 = 1199 s: under 30:00 (bronze), 25:00 (silver) and 20:00 (gold).
  local fast = t.run{ id = "fast", date = "2025-06-01", distance_km = 5, duration = "19:59", efforts = { ["5km"] = "19:59" } }
  local result = t.evaluate({ fast }, { rule = "pace" })
  t.expect_award(result, { badge = "pace-5k", tier = "bronze", run = fast })
  t.expect_award(result, { badge = "pace-5k", tier = "silver", run = fast })
  t.expect_award(result, { badge = "pace-5k", tier = "gold", run = fast })
  t.expect_eq(#result.awards, 3, "three tiers, one run")
end)

test("records: a tie with the record is not a new record, a second faster is", function(t)
  -- 1 km: 4:00 (first: a record), 4:00 (tie: none), 3:59 (record), 4:10 (slower: none)
  local a = t.run{ id = "a", date = "2025-07-01", distance_km = 3, duration = "13:00", efforts = { ["1km"] = "4:00" } }
  local b = t.run{ id = "b", date = "2025-07-02", distance_km = 3, duration = "13:00", efforts = { ["1km"] = "4:00" } }
  local c = t.run{ id = "c", date = "2025-07-03", distance_km = 3, duration = "13:00", efforts = { ["1km"] = "3:59" } }
  local d = t.run{ id = "d", date = "2025-07-04", distance_km = 3, duration = "13:00", efforts = { ["1km"] = "4:10" } }
  local result = t.evaluate({ a, b, c, d }, { rule = "records" })
  t.expect_award(result, { badge = "pr-1k", tier = "earned", run = a, detail = "first 1 km: 4:00" })
  t.expect_no_award(result, { badge = "pr-1k", run = b })
  t.expect_award(result, { badge = "pr-1k", run = c, detail = "1 km in 3:59, 0:01 faster than 4:00" })
  t.expect_no_award(result, { badge = "pr-1k", run = d })
  t.expect_eq(#result.awards, 2, "two records")
end)
