-- The runner's own goals, from the athlete profile (`--athlete FILE`, its "goals" list): a distance,
-- a number of runs or a time per ISO week, calendar month or year, by LOCAL date (run.local_date).
-- Each period a goal is met earns its badge again, with the period's tier. Without goals in the
-- profile the rule does nothing but say how to set one. Only runs with sport "running" count.
return {
  name = "goals",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): every run, entered by hand or indoors too.
  eligibility = {},
  description = "The runner's own goals from the athlete profile: distance, runs or time per week, month or year, with progress.",
  badges = {
    { id = "goal-distance", name = "Distance Goal Met", tiers = { "week", "month", "year" },
      information = "You ran the distance you set yourself for a week, month or year (\"goals\" in your athlete profile). "
        .. "Earned again every period you meet it." },
    { id = "goal-runs", name = "Runs Goal Met", tiers = { "week", "month", "year" },
      information = "You ran as many times as you set yourself for a week, month or year. Earned again every period you meet it." },
    { id = "goal-time", name = "Time Goal Met", tiers = { "week", "month", "year" },
      information = "You ran for as long as you set yourself in a week, month or year (moving time, else elapsed). Earned again every period you meet it." },
  },
}
