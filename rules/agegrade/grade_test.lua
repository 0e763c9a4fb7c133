-- Hand-computed age grades from the 2025 road tables (docs/rules.md, "Age grade"). Tests have no athlete
-- profile, so the measure is set as the core computes it (the core's own figures are checked in
-- Tests/RunAnalysisTests/AgeGradeTests.swift and, end to end with --athlete, in Tests/BadgeCommandsTests/FairMeasuresEndToEndTests.swift).
--   man of 54, 10 km in 42:25 (2545 s): 1584 / 0.8586 = 1844.86 s, 1844.86 / 2545 = 72.49%  -> regional
--   man of 54, 10 km in 38:00 (2280 s): 1844.86 / 2280 = 80.91%                          -> national
--   man of 54, 10 km in 34:00 (2040 s): 1844.86 / 2040 = 90.43%                          -> world class
--   woman of 40, 5 km in 25:00 (1500 s): 834 / 0.9499 = 877.99 s, 877.99 / 1500 = 58.53% -> nothing

local function graded(t, id, date, percent, m, s, age)
  return t.run{ id = id, date = date, distance_km = m / 1000, duration = s,
                measures = { grade = { best_percent = percent, best_distance_m = m, best_elapsed_s = s, age = age,
                                       percent = percent, distance_m = m, elapsed_s = s } } }
end

test("tiers at 60, 70, 80 and 90%: each earned once, by the first run at or above it", function(t)
  local runs = {
    graded(t, "w40", "2025-03-01", 877.99 / 1500 * 100, 5000, 1500, 40),
    graded(t, "m54", "2025-03-08", 1844.86 / 2545 * 100, 10000, 2545, 54),
    graded(t, "m54b", "2025-03-15", 1844.86 / 2280 * 100, 10000, 2280, 54),
    graded(t, "m54c", "2025-03-22", 1844.86 / 2400 * 100, 10000, 2400, 54),
  }
  local result = t.evaluate(runs, { rule = "grade" })
  t.expect_no_award(result, { run = runs[1] })                                   -- 58.53%
  t.expect_award(result, { badge = "age-grade", tier = "local", run = runs[2] })
  t.expect_award(result, { badge = "age-grade", tier = "regional", run = runs[2],
                           detail = "72.5% age grade: 10.00 km in 42:25 at 54" })
  t.expect_award(result, { badge = "age-grade", tier = "national", run = runs[3] })  -- 80.91%
  t.expect_eq(#result.awards, 3)
  local status = t.explain(result, "age-grade")
  t.expect_eq(status.hint, "best age grade so far 80.9%; 90% for world-class")
  runs[#runs + 1] = graded(t, "m54d", "2025-03-29", 1844.86 / 2040 * 100, 10000, 2040, 54)
  result = t.evaluate(runs, { rule = "grade" })
  t.expect_award(result, { badge = "age-grade", tier = "world-class", run = runs[5], detail = "90.4% age grade: 10.00 km in 34:00 at 54" })
  t.expect_eq(#result.awards, 4)
end)

test("without a profile the measure is nil: no award, and the hint says what to give", function(t)
  local result = t.evaluate({ t.run{ id = "plain", date = "2025-03-01", distance_km = 10, duration = "35:00" } }, { rule = "grade" })
  t.expect_eq(#result.awards, 0)
  t.expect_eq(t.explain(result, "age-grade").hint, "needs your birth date and sex: give --athlete FILE")
end)
