-- Age-grade tiers: the first run whose best age grade (run.measures.grade.best_percent: the whole run
-- or its fastest stretch at a table distance) reaches a tier's percentage earns it; a run at 80% earns
-- local, regional and national at once if they were not held before.

local TIERS = {   -- an array: tiers in order
  { tier = "local", percent = 60 },
  { tier = "regional", percent = 70 },
  { tier = "national", percent = 80 },
  { tier = "world-class", percent = 90 },
}

local function distance(m)
  return badgectl.format_distance(m)
end

return {
  id = "grade",
  title = "Age-grade tiers",
  badge = "age-grade",

  init = function(ctx) return { best = 0.0, earned = {} } end,

  on_run = function(state, run, award, ctx)
    local grade = run.measures.grade     -- nil: no --athlete, no times, or shorter than a mile
    if grade == nil then return end
    local percent = grade.best_percent
    state.best = math.max(state.best, percent)
    for _, spec in ipairs(TIERS) do
      if state.earned[spec.tier] == nil and percent >= spec.percent then
        state.earned[spec.tier] = run.id
        award { tier = spec.tier, run = run,
                detail = ("%.1f%% age grade: %s in %s at %d"):format(percent, distance(grade.best_distance_m),
                  badgectl.format_duration(grade.best_elapsed_s), grade.age),
                progress = { current = percent, target = spec.percent, unit = "%" },
                evidence = { percent = percent, distance_m = grade.best_distance_m, elapsed_s = grade.best_elapsed_s,
                             age = grade.age, threshold = spec.percent } }
      end
    end
  end,

  status = function(state, ctx)
    for _, spec in ipairs(TIERS) do
      if state.earned[spec.tier] == nil then
        return { badges = { {
          badge = "age-grade",
          progress = { current = state.best, target = spec.percent, unit = "%" },
          hint = state.best > 0 and ("best age grade so far %.1f%%; %d%% for %s"):format(state.best, spec.percent, spec.tier)
            or ctx.athlete == nil and "needs your birth date and sex: give --athlete FILE"
            or "no age-graded run yet: a run of a mile or more, with times",
        } } }
      end
    end
    return nil
  end,
}
