-- Age grade: how good a run is for the runner's age and sex, from the road-running age standards
-- (Alan Jones, USATF Masters Long Distance Running, 2025 tables; see docs/rules.md, "Age grade").
-- The grade of a run is the best of the whole run and its fastest stretches at the tables' distances
-- (1 mile, 5 km, ... 200 km). Needs the runner's birth_date and sex: --athlete FILE.
return {
  name = "agegrade",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): the tables are for road running, not treadmills.
  eligibility = { indoor = false },
  description = "Age-graded tiers: 60% (local class), 70% (regional), 80% (national), 90% (world class).",
  measures = {
    grade = { kind = "age_grade" },
  },
  badges = {
    { id = "age-grade", name = "Age Graded", tiers = { "local", "regional", "national", "world-class" },
      information = "A run (or its fastest stretch at a standard distance) age-graded at 60% or more for your age "
        .. "and sex: local class; 70% regional, 80% national, 90% world class. Needs your birth date and sex (--athlete FILE)." },
  },
}
