-- Legs between consecutive checkpoints (from the start); every leg within 5% of the legs' average
-- pace earns the badge, within 2.5% gold; at least 4 legs.

local function steady_run(t, id, date, paces)
  local checkpoints, at = {}, 0
  for i, pace in ipairs(paces) do
    at = at + pace
    checkpoints[i] = { badge = "five-k", name = "km " .. i, distance_m = i * 1000.0, elapsed_s = at * 1.0 }
  end
  return t.run{ id = id, date = date, distance_km = #paces + 0.5, elapsed_s = at + 150, checkpoints = checkpoints }
end

test("steady: 4.9% earns, 9.7% does not, three legs are too few", function(t)
  local uneven = steady_run(t, "uneven", "2025-05-01", { 300, 300, 300, 340 })   -- 30/310 = 9.7%
  local three = steady_run(t, "three", "2025-05-02", { 300, 300, 300 })
  local within = steady_run(t, "within", "2025-05-03", { 300, 300, 300, 320 })   -- 15/305 = 4.9%
  local result = t.evaluate({ uneven, three, within }, { rule = "steady" })
  t.expect_award(result, { badge = "steady", tier = "earned", run = within })
  t.expect_no_award(result, { badge = "steady", tier = "gold" })
  t.expect_eq(#result.awards, 1, "one award")
  t.expect_eq(t.explain(result, "steady").hint, "steadiest run so far: legs within 4.9% of the average; within 2.5% for gold")
end)

test("steady: within 2.5% is gold", function(t)
  local even = steady_run(t, "even", "2025-05-04", { 300, 300, 306, 306 })       -- 3/303 = 1.0%
  local result = t.evaluate({ even }, { rule = "steady" })
  t.expect_award(result, { badge = "steady", tier = "earned", run = even })
  t.expect_award(result, { badge = "steady", tier = "gold", run = even })
end)
