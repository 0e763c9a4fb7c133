-- Halves from the km splits: first = time at half the distance (interpolated), second = the rest.

test("negative split: second half strictly faster, runs of 5 km or more", function(t)
  local faster = t.run{ id = "faster", date = "2025-05-01", distance_km = 6, splits_km = { 300, 300, 300, 290, 290, 290 } }
  local tie = t.run{ id = "tie", date = "2025-05-02", distance_km = 5, splits_km = { 300, 300, 300, 300, 300 } }
  local short = t.run{ id = "short", date = "2025-05-03", distance_km = 4, splits_km = { 300, 300, 250, 250 } }
  local slower = t.run{ id = "slower", date = "2025-05-04", distance_km = 6, splits_km = { 300, 300, 300, 320, 320, 320 } }
  local result = t.evaluate({ faster, tie, short, slower }, { rule = "negative-split" })
  t.expect_award(result, { badge = "negative-split", run = faster })   -- 15:00 then 14:30
  t.expect_no_award(result, { badge = "negative-split", run = tie })   -- 12:30 and 12:30: a tie
  t.expect_no_award(result, { badge = "negative-split", run = short }) -- under 5 km
  t.expect_no_award(result, { badge = "negative-split", run = slower })
  t.expect_eq(#result.awards, 1, "one negative split")
  t.expect_match(result.awards[1].detail, "halves 15:00 then 14:30")
end)

test("negative split: the halfway time is interpolated inside a split", function(t)
  -- 7 km: half at 3.5 km = 3 x 320 + 0.5 x 300 = 1110 s; total 2070 s; second half 960 s
  local odd = t.run{ id = "odd", date = "2025-05-01", distance_km = 7, splits_km = { 320, 320, 320, 300, 280, 270, 260 } }
  local result = t.evaluate({ odd }, { rule = "negative-split" })
  t.expect_award(result, { badge = "negative-split", run = odd })
  t.expect_match(result.awards[1].detail, "halves 18:30 then 16:00: 2:30 faster")
end)
