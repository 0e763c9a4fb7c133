-- A run in 12 ISO weeks in a row (local dates), with grace: one missed week is forgiven for every 6
-- weeks run in the streak (badgectl.streak_new / streak_add, unit "week"). Repeatable: every new streak
-- that reaches 12 weeks earns it again.

local WEEKS = 12

return {
  id = "weeks",
  title = "Weekly streak",
  badge = "week-streak-12",
  repeatable = true,

  init = function(ctx) return { streak = badgectl.streak_new{ unit = "week", grace_every = 6 } } end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" or run.local_date == nil then return end
    local weeks, counted = badgectl.streak_add(state.streak, run.local_date)
    if counted and weeks == WEEKS then
      local streak = state.streak
      award { run = run, detail = ("%d weeks from %s (%d forgiven)"):format(weeks, streak.first, streak.forgiven),
              evidence = { weeks = weeks, first = streak.first, last = streak.last, forgiven = streak.forgiven } }
    end
  end,

  status = function(state, ctx)
    local streak = state.streak
    return { badges = { {
      badge = "week-streak-12",
      progress = { current = math.min(streak.length, WEEKS), target = WEEKS, unit = "weeks" },
      hint = streak.last == nil and "run in 12 ISO weeks in a row (a missed week forgiven for every 6 run)"
        or ("%d weeks in a row since %s (best %d)"):format(streak.length, streak.first, streak.best),
    } } }
  end,
}
