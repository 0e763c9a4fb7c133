-- Tests of the MoonRunner rules (distance.lua). Every expected award below was worked out by hand
-- from the rules as MoonRunner states them (see the top of distance.lua), not recorded from output.
--
-- A small catalogue keeps the numbers easy: badges at 1 km, 5 km and 10 km, and one badge without a
-- distance (the pack must ignore it).
local CATALOGUE = {
  { id = "one-k", name = "One K", distance_m = 1000 },
  { id = "five-k", name = "Five K", distance_m = 5000 },
  { id = "ten-k", name = "Ten K", distance_m = 10000 },
  { id = "club", name = "Club member" },
}

local function evaluate(t, runs)
  return t.evaluate(runs, { catalogue = CATALOGUE })
end

test("exactly the badge's distance earns nothing", function(t)
  local r = t.run{ distance_m = 1000, duration = "5:00" }
  local result = evaluate(t, { r })
  t.expect_awards(result, {})
  -- the longest run is 1000 m: 0 m remaining, but a run must still EXCEED 1 km
  t.expect_eq(result.next.badge, "one-k")
  t.expect_eq(result.next.remaining_m, 0.0)
end)

test("one metre more earns the badge and is its best", function(t)
  local r = t.run{ distance_m = 1001, duration = "5:00" }
  t.expect_awards(evaluate(t, { r }), {
    { badge = "one-k", tier = "earned", run = r },
    { badge = "one-k", tier = "best", run = r },
  })
end)

test("the earning run is never its own silver or gold", function(t)
  -- 1.2 km in 4:00 is fast, but there is nothing earlier to be faster than
  local r = t.run{ distance_km = 1.2, duration = "4:00" }
  local result = evaluate(t, { r })
  t.expect_awards(result, {
    { badge = "one-k", tier = "earned", run = r },
    { badge = "one-k", tier = "best", run = r },
  })
  t.expect_no_award(result, { tier = "silver" })
  t.expect_no_award(result, { tier = "gold" })
end)

test("silver and gold from one run", function(t)
  -- earning: 1200 m / 360 s = 3.333 m/s; then 1200 m / 300 s = 4.0 m/s, 20% faster (> 5% and > 10%)
  local earning = t.run{ distance_km = 1.2, duration = "6:00" }
  local fast = t.run{ distance_km = 1.2, duration = "5:00" }
  t.expect_awards(evaluate(t, { earning, fast }), {
    { badge = "one-k", tier = "earned", run = earning },
    { badge = "one-k", tier = "silver", run = fast },
    { badge = "one-k", tier = "gold", run = fast },
    { badge = "one-k", tier = "best", run = fast },
  })
end)

test("silver first, gold from a later run", function(t)
  -- earning 2000 m / 600 s = 3.3333 m/s
  -- 2000 m / 570 s = 3.5088 m/s: 5.26% faster -> silver, not gold
  -- 2000 m / 540 s = 3.7037 m/s: 11.1% faster -> gold (silver is taken)
  local r1 = t.run{ distance_m = 2000, duration = "10:00" }
  local r2 = t.run{ distance_m = 2000, duration = "9:30" }
  local r3 = t.run{ distance_m = 2000, duration = "9:00" }
  t.expect_awards(evaluate(t, { r1, r2, r3 }), {
    { badge = "one-k", tier = "earned", run = r1 },
    { badge = "one-k", tier = "silver", run = r2 },
    { badge = "one-k", tier = "gold", run = r3 },
    { badge = "one-k", tier = "best", run = r3 },
  })
end)

test("4% faster earns no tier", function(t)
  -- 2000 m / 600 s = 3.3333 m/s; 2000 m / 577 s = 3.4662 m/s: 3.99% faster
  local r1 = t.run{ distance_m = 2000, duration = "10:00" }
  local r2 = t.run{ distance_m = 2000, duration = "9:37" }
  local result = evaluate(t, { r1, r2 })
  t.expect_no_award(result, { tier = "silver" })
  t.expect_no_award(result, { tier = "gold" })
  t.expect_award(result, { badge = "one-k", tier = "best", run = r2 })
end)

test("best from a run that earned neither silver nor gold", function(t)
  -- 1200 m / 360 s = 3.333 m/s earns; 1200 m / 350 s = 3.4286 m/s is 2.9% faster: best only
  local earning = t.run{ distance_km = 1.2, duration = "6:00" }
  local quicker = t.run{ distance_km = 1.2, duration = "5:50" }
  local slower = t.run{ distance_km = 1.2, duration = "7:00" }
  t.expect_awards(evaluate(t, { earning, quicker, slower }), {
    { badge = "one-k", tier = "earned", run = earning },
    { badge = "one-k", tier = "best", run = quicker },
  })
end)

test("a tie for best keeps the earlier run", function(t)
  local r1 = t.run{ distance_km = 1.2, duration = "6:00" }
  local r2 = t.run{ distance_km = 1.2, duration = "6:00" }
  t.expect_awards(evaluate(t, { r1, r2 }), {
    { badge = "one-k", tier = "earned", run = r1 },
    { badge = "one-k", tier = "best", run = r1 },
  })
end)

test("runs given out of order are evaluated in start order", function(t)
  local late = t.run{ id = "late", start = "2024-05-10T07:00:00Z", distance_km = 1.2, duration = "5:00" }
  local early = t.run{ id = "early", start = "2024-05-01T07:00:00Z", distance_km = 1.2, duration = "6:00" }
  t.expect_awards(evaluate(t, { late, early }), {
    { badge = "one-k", tier = "earned", run = "early" },
    { badge = "one-k", tier = "silver", run = "late" },
    { badge = "one-k", tier = "gold", run = "late" },
    { badge = "one-k", tier = "best", run = "late" },
  })
end)

test("a run without elapsed time is left out with a note", function(t)
  local untimed = t.run{ distance_km = 6 }
  local timed = t.run{ distance_km = 1.2, duration = "6:00" }
  local result = evaluate(t, { untimed, timed })
  t.expect_awards(result, {
    { badge = "one-k", tier = "earned", run = timed },
    { badge = "one-k", tier = "best", run = timed },
  })
  t.expect_note(result, "run run%-1 left out: no elapsed time")
  -- the untimed 6 km does not count as the longest run either: 5000 - 1200
  t.expect_eq(result.next, { badge = "five-k", remaining_m = 3800.0, rule = "distance", pack = "checkpoints" })
end)

test("one history, every badge and tier (a table worked out by hand)", function(t)
  -- r1 5.5 km / 1980 s = 2.7778 m/s: earns one-k and five-k
  -- r2 12 km / 3600 s = 3.3333 m/s: earns ten-k; 20% faster than r1 -> silver and gold of one-k and five-k
  -- r3 1.5 km / 360 s = 4.1667 m/s: qualifies for one-k only; fastest there -> one-k best
  -- r4 11 km / 2700 s = 4.0741 m/s: 22% faster than r2 -> ten-k silver and gold; fastest five-k
  --    and ten-k run (one-k's best stays r3, 4.1667 > 4.0741)
  local r1 = t.run{ distance_km = 5.5, duration = "33:00" }
  local r2 = t.run{ distance_km = 12, duration = "1:00:00" }
  local r3 = t.run{ distance_km = 1.5, duration = "6:00" }
  local r4 = t.run{ distance_km = 11, duration = "45:00" }
  local expected = {
    { badge = "one-k", tier = "earned", run = r1 },
    { badge = "five-k", tier = "earned", run = r1 },
    { badge = "one-k", tier = "silver", run = r2 },
    { badge = "one-k", tier = "gold", run = r2 },
    { badge = "five-k", tier = "silver", run = r2 },
    { badge = "five-k", tier = "gold", run = r2 },
    { badge = "ten-k", tier = "earned", run = r2 },
    { badge = "ten-k", tier = "silver", run = r4 },
    { badge = "ten-k", tier = "gold", run = r4 },
    { badge = "one-k", tier = "best", run = r3 },
    { badge = "five-k", tier = "best", run = r4 },
    { badge = "ten-k", tier = "best", run = r4 },
  }
  local result = evaluate(t, { r1, r2, r3, r4 })
  t.expect_awards(result, expected)
  t.expect_no_award(result, { badge = "club" })
  t.expect(result.next == nil, "every distance badge earned: nothing next")
  t.expect_eq(t.explain(result, "one-k").status, "gold")
  t.expect_eq(t.explain(result, "one-k").hint, "silver and gold earned")
  t.expect_eq(t.explain(result, "ten-k").status, "gold")
  t.expect_eq(#t.explain(result, "ten-k").awards, 4)
end)

test("next badge and remaining metres", function(t)
  local r1 = t.run{ distance_km = 5.5, duration = "30:00" }
  local r2 = t.run{ distance_km = 3, duration = "15:00" }
  local result = evaluate(t, { r1, r2 })
  -- the longest run is 5.5 km: 10000 - 5500
  t.expect_eq(result.next.badge, "ten-k")
  t.expect_near(result.next.remaining_m, 4500, 1e-9)
  local why = t.explain(result, "ten-k")
  t.expect_eq(why.status, "not earned")
  t.expect_eq(why.progress, { current = 5500.0, target = 10000.0, unit = "m" })
  t.expect_eq(why.hint, "run more than 10.00 km to earn")
  t.expect_near(why.remaining_m, 4500, 1e-9)
  t.expect_eq(#why.awards, 0)
end)

test("no runs: the first badge is next, the whole distance to go", function(t)
  local result = evaluate(t, {})
  t.expect_awards(result, {})
  t.expect_eq(result.next.badge, "one-k")
  t.expect_eq(result.next.remaining_m, 1000.0)
end)

test("silver and gold paces", function(t)
  -- earned by 1.2 km in 360 s. A run of that distance needs 1.05 (1.10) x its speed:
  -- silver pace 360 / (1.2 * 1.05) = 285.714 s/km, gold 360 / (1.2 * 1.10) = 272.727 s/km. The hints
  -- name the whole second below (4:45, 4:32): running that pace earns the tier (4:46 would not).
  local r1 = t.run{ distance_km = 1.2, duration = "6:00" }
  local why = t.explain(evaluate(t, { r1 }), "one-k")
  t.expect_eq(why.status, "earned")
  t.expect_near(why.silver_pace_s_per_km, 360 / 1.26, 1e-9)
  t.expect_near(why.gold_pace_s_per_km, 360 / 1.32, 1e-9)
  t.expect_eq(why.hint, "run more than 1.00 km at 4:45/km or faster for silver")
  t.expect_eq(#why.awards, 2, "earned and best")

  -- after silver only (1200 m / 340 s = 3.529 m/s, 5.9% faster): the gold pace remains
  local r2 = t.run{ distance_km = 1.2, duration = "5:40" }
  why = t.explain(evaluate(t, { r1, r2 }), "one-k")
  t.expect_eq(why.status, "silver")
  t.expect(why.silver_pace_s_per_km == nil, "no silver pace once silver is earned")
  t.expect_near(why.gold_pace_s_per_km, 360 / 1.32, 1e-9)
  t.expect_eq(why.hint, "run more than 1.00 km at 4:32/km or faster for gold")
end)

test("details name the distance and pace", function(t)
  -- 1.2 km in 6:00 is 5:00/km
  local r = t.run{ distance_km = 1.2, duration = "6:00" }
  local result = evaluate(t, { r })
  t.expect_award(result, { badge = "one-k", tier = "earned", detail = "1.20 km at 5:00/km" })
end)

test("one rule at a time", function(t)
  local r = t.run{ distance_km = 1.2, duration = "6:00" }
  local result = t.evaluate({ r }, { rule = "distance", catalogue = CATALOGUE })
  t.expect_eq(#result.awards, 2)
  t.expect_eq(result.awards[1].rule, "distance")
  t.expect_eq(result.awards[1].pack, "checkpoints")
end)

test("a run read from a JSON summary by the production reader", function(t)
  -- 8000 m in 2700 s: more than 1 km and 5 km, not 10 km; local date from the +02:00 offset
  local r = t.run{ file = "tests/fixtures/treadmill.json" }
  t.expect_eq(r.id, "tests/fixtures/treadmill.json")
  t.expect_eq(r.local_date, "2024-05-01")
  t.expect_eq(r.elapsed_s, 2700.0)
  local result = evaluate(t, { r })
  t.expect_awards(result, {
    { badge = "one-k", tier = "earned", run = r },
    { badge = "five-k", tier = "earned", run = r },
    { badge = "one-k", tier = "best", run = r },
    { badge = "five-k", tier = "best", run = r },
  })
  t.expect_near(result.next.remaining_m, 2000, 1e-9)
end)
