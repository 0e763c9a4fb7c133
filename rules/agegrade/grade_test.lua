-- Age grades computed by the core from runs: t.run's `athlete` (the profile's birth_date and sex, as
-- --athlete gives them) grades an even-paced run of its distance and time, and every stretch of it at a
-- table distance, with the 2025 road tables (docs/rules.md, "Age grade"). By hand:
-- age standard = open standard / age factor; grade = age standard / time (the best of the whole run and
-- its stretches at the tables' distances).
--   man born 1970-05-01, 54 in March 2025, 10 km (open standard 1584 s, factor 0.8586):
--     1584 / 0.8586 = 1844.86 s; in 42:25 (2545 s): 1844.86 / 2545 = 72.49%  -> regional
--     its stretches are lower: 5 km in 1272.5 s: 769 / 0.8495 = 905.24, 905.24 / 1272.5 = 71.14%;
--     5 mi in 2047.9 s: 1264 / 0.8557 = 1477.15, 72.13%; 8 km: 1255 / 0.8557 / 2036 = 72.04%
--     in 38:00 (2280 s): 1844.86 / 2280 = 80.91%                          -> national
--     in 40:00 (2400 s): 1844.86 / 2400 = 76.87%                          -> nothing new
--     in 34:00 (2040 s): 1844.86 / 2040 = 90.43%                          -> world class
--   woman born 1984-06-01, 40 in March 2025, 5 km (open 834 s, factor 0.9499):
--     834 / 0.9499 = 877.99 s; in 25:00 (1500 s): 877.99 / 1500 = 58.53%   -> nothing
--     (its mile, 482.8 s: 253 / 0.9748 = 259.54, 53.76%)

local MAN = { birth_date = "1970-05-01", sex = "male" }
local WOMAN = { birth_date = "1984-06-01", sex = "F" }

local function run(t, id, date, km, duration, athlete)
  return t.run{ id = id, date = date, distance_km = km, duration = duration, athlete = athlete }
end

test("the core grades the run: the best of the whole run and its stretches at table distances", function(t)
  local m54 = run(t, "m54", "2025-03-08", 10, "42:25", MAN)
  local grade = m54.measures.grade
  t.expect_eq(grade.age, 54)
  t.expect(math.abs(grade.percent - 72.49) < 0.01, ("10 km in 42:25 at 54: 72.49%%, got %.4f"):format(grade.percent))
  t.expect(math.abs(grade.age_standard_s - 1844.86) < 0.01, "1584 / 0.8586")
  t.expect(math.abs(grade.best_percent - 72.49) < 0.01, "no stretch grades higher than the whole 10 km")
  t.expect_eq(grade.best_distance_m, 10000)
  local w40 = run(t, "w40", "2025-03-01", 5, "25:00", WOMAN)
  t.expect_eq(w40.measures.grade.age, 40)
  t.expect(math.abs(w40.measures.grade.best_percent - 58.53) < 0.01, ("58.53%%, got %.4f"):format(w40.measures.grade.best_percent))
end)

test("tiers at 60, 70, 80 and 90%: each earned once, by the first run at or above it", function(t)
  local runs = {
    run(t, "w40", "2025-03-01", 5, "25:00", WOMAN),    -- 58.53%
    run(t, "m54", "2025-03-08", 10, "42:25", MAN),     -- 72.49%
    run(t, "m54b", "2025-03-15", 10, "38:00", MAN),    -- 80.91%
    run(t, "m54c", "2025-03-22", 10, "40:00", MAN),    -- 76.87%
  }
  local result = t.evaluate(runs, { rule = "grade" })
  t.expect_no_award(result, { run = runs[1] })
  t.expect_award(result, { badge = "age-grade", tier = "local", run = runs[2] })
  t.expect_award(result, { badge = "age-grade", tier = "regional", run = runs[2],
                           detail = "72.5% age grade: 10.00 km in 42:25 at 54" })
  t.expect_award(result, { badge = "age-grade", tier = "national", run = runs[3] })
  t.expect_eq(#result.awards, 3)
  local status = t.explain(result, "age-grade")
  t.expect_eq(status.hint, "best age grade so far 80.9%; 90% for world-class")
  runs[#runs + 1] = run(t, "m54d", "2025-03-29", 10, "34:00", MAN)  -- 90.43%
  result = t.evaluate(runs, { rule = "grade" })
  t.expect_award(result, { badge = "age-grade", tier = "world-class", run = runs[5], detail = "90.4% age grade: 10.00 km in 34:00 at 54" })
  t.expect_eq(#result.awards, 4)
end)

test("a year older on the birthday: the same 42:25 grades higher at 55", function(t)
  -- 55 on 2025-05-01: factor 0.8511 (the table's row 55, 10 km): 1584 / 0.8511 = 1861.12 s, / 2545 = 73.13%.
  local before = run(t, "before", "2025-04-30", 10, "42:25", MAN)
  local on = run(t, "on", "2025-05-01", 10, "42:25", MAN)
  t.expect_eq(before.measures.grade.age, 54)
  t.expect_eq(on.measures.grade.age, 55)
  t.expect(math.abs(before.measures.grade.percent - 72.49) < 0.01, "54: 72.49%")
  t.expect(math.abs(on.measures.grade.percent - 73.13) < 0.01, ("55: 73.13%%, got %.4f"):format(on.measures.grade.percent))
end)

test("without a profile the measure is nil: no award, and the hint says what to give", function(t)
  local result = t.evaluate({ t.run{ id = "plain", date = "2025-03-01", distance_km = 10, duration = "35:00" } }, { rule = "grade" })
  t.expect_eq(#result.awards, 0)
  t.expect_eq(t.explain(result, "age-grade").hint, "needs your birth date and sex: give --athlete FILE")
end)
