-- Hand-made tables for the places pack: segment efforts and the fountain set by name
-- (t.run{ measures = { park = { count = 1, efforts = { { elapsed_s = 300 } } } } }).

local function efforts(list)
  local made = {}
  for i, elapsed in ipairs(list) do
    made[i] = { elapsed_s = elapsed, pace_s_per_km = elapsed / 0.889, start_elapsed_s = 100 * i, end_elapsed_s = 100 * i + elapsed,
                start_lat = 52.36, start_lon = 4.867, end_lat = 52.3575, end_lon = 4.876, distance_m = 889 }
  end
  return { count = #made, efforts = made }
end

local function on(t, id, date, list)
  return t.run{ id = id, date = date, distance_km = 5, duration = "30:00", measures = { park = efforts(list) } }
end

test("park corner: earned by the first effort, silver 5% and gold 10% faster than it", function(t)
  local r1 = on(t, "r1", "2026-05-01", { 300, 290 })   -- the first effort is the reference; 290 is 3% faster
  local r2 = on(t, "r2", "2026-05-02", { 285.5 })      -- 300 * 0.95 = 285: not silver
  local r3 = on(t, "r3", "2026-05-03", { 295, 285 })   -- silver on its second effort
  local r4 = on(t, "r4", "2026-05-04", { 270 })        -- gold: 300 * 0.90
  local result = t.evaluate({ r1, r2, r3, r4 }, { rule = "segment" })
  t.expect_award(result, { badge = "park-corner-record", tier = "earned", run = r1 })
  t.expect_no_award(result, { badge = "park-corner-record", tier = "silver", run = r2 })
  t.expect_award(result, { badge = "park-corner-record", tier = "silver", run = r3 })
  t.expect_award(result, { badge = "park-corner-record", tier = "gold", run = r4 })
  t.expect_eq(#result.awards, 3)
  t.expect_eq(t.explain(result, "park-corner-regular").hint, "6 of 10 efforts within 90 days")
end)

test("park corner: a run that missed the segment or has no positions counts nothing", function(t)
  local none = t.run{ id = "none", date = "2026-05-01", distance_km = 5, duration = "30:00" }
  local zero = t.run{ id = "zero", date = "2026-05-02", distance_km = 5, duration = "30:00", measures = { park = { count = 0, efforts = {} } } }
  local result = t.evaluate({ none, zero }, { rule = "segment" })
  t.expect_eq(#result.awards, 0)
  t.expect_eq(t.explain(result, "park-corner-record").hint, nil)
end)

test("park regular: ten efforts within 90 days, the window sliding", function(t)
  local runs = {}
  for i = 0, 8 do runs[#runs + 1] = on(t, "d" .. (i * 10), badgectl.add_days("2026-01-01", i * 10), { 400 }) end
  -- Day 95: day 0 has left the window (95 days back), so nine efforts: no badge yet.
  runs[#runs + 1] = on(t, "d95", badgectl.add_days("2026-01-01", 95), { 400 })
  -- Day 96, two laps: ten and eleven in the window (days 10..96); the badge goes to this run.
  runs[#runs + 1] = on(t, "d96", badgectl.add_days("2026-01-01", 96), { 400, 405 })
  local result = t.evaluate(runs, { rule = "segment" })
  t.expect_no_award(result, { badge = "park-corner-regular", run = runs[10] })
  t.expect_award(result, { badge = "park-corner-regular", run = runs[11] })
end)

test("the fountain: the first run passing within 40 m", function(t)
  local missed = t.run{ id = "missed", date = "2026-05-01", distance_km = 5, duration = "30:00",
                        measures = { fountain = { passed = false, visits = 0, closest_m = 61 } } }
  local passed = t.run{ id = "passed", date = "2026-05-02", distance_km = 5, duration = "30:00",
                        measures = { fountain = { passed = true, visits = 2, first_elapsed_s = 790, last_elapsed_s = 1790, closest_m = 3 } } }
  local again = t.run{ id = "again", date = "2026-05-03", distance_km = 5, duration = "30:00",
                       measures = { fountain = { passed = true, visits = 1, first_elapsed_s = 200, last_elapsed_s = 210, closest_m = 3 } } }
  local result = t.evaluate({ missed, passed, again }, { rule = "landmark" })
  t.expect_award(result, { badge = "fountain", run = passed })
  t.expect_eq(#result.awards, 1)
end)

test("a lap of the park read from tests/fixtures: the segment and the fountain computed", function(t)
  local lap = t.run{ file = "tests/fixtures/park-lap.gpx" }
  local park = lap.measures.park
  t.expect_eq(park.count, 1)
  t.expect_eq(park.best, 1)
  t.expect_eq(math.floor(park.length_m + 0.5), 889)
  local effort = park.efforts[1]
  t.expect_eq(math.floor(effort.elapsed_s + 0.5), 335)                      -- 5:35
  t.expect_eq(math.floor(effort.start_elapsed_s + 0.5), 251)                -- through the start gate at 4:11
  t.expect(math.abs(effort.pace_s_per_km - effort.elapsed_s / 0.889147) < 0.01, "pace over the segment's length")
  t.expect_eq(lap.measures.fountain.passed, true)
  t.expect_eq(lap.measures.fountain.visits, 1)
  local result = t.evaluate({ lap }, { rule = "segment" })
  t.expect_award(result, { badge = "park-corner-record", tier = "earned", run = lap })
end)
