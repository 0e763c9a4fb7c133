-- Lifetime distance milestones: earned by the run that takes the running total to the milestone
-- or past it (>=). Only sport "running" counts.

local MILESTONES = {
  { badge = "lifetime-100k", m = 100000 },
  { badge = "lifetime-500k", m = 500000 },
  { badge = "lifetime-1000k", m = 1000000 },
  { badge = "lifetime-5000k", m = 5000000 },
}

return {
  id = "distance",
  title = "Lifetime distance",
  init = function(ctx) return { total_m = 0.0, runs = 0, earned = {} } end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    state.total_m = state.total_m + run.distance_m
    state.runs = state.runs + 1
    for _, milestone in ipairs(MILESTONES) do
      if not state.earned[milestone.badge] and state.total_m >= milestone.m then
        state.earned[milestone.badge] = true
        award { badge = milestone.badge, run = run,
                detail = ("%s in %d run%s"):format(badgectl.format_distance(state.total_m), state.runs,
                  state.runs == 1 and "" or "s"),
                evidence = { total_m = state.total_m, runs = state.runs, milestone_m = milestone.m } }
      end
    end
  end,

  status = function(state, ctx)
    local badges, next_badge = {}, nil
    for _, milestone in ipairs(MILESTONES) do
      local entry = { badge = milestone.badge,
                      progress = { current = math.min(state.total_m, milestone.m) / 1000, target = milestone.m / 1000, unit = "km" } }
      if state.total_m < milestone.m then
        entry.hint = ("%s left (%s of %s)"):format(badgectl.format_distance(milestone.m - state.total_m),
          badgectl.format_distance(state.total_m), badgectl.format_distance(milestone.m))
        if next_badge == nil then
          next_badge = { badge = milestone.badge, remaining_m = milestone.m - state.total_m }
          -- One run of what is left, rounded up to 10 m and at least 100 m, when one run can cover it:
          -- up to 250 km, the runs `badgectl whatif` makes (it checks the target).
          local left = math.max(100, math.ceil((milestone.m - state.total_m) / 10) * 10)
          if left <= 250000 then entry.target = { distance_m = left } end
        end
      else
        entry.hint = "earned"
      end
      badges[#badges + 1] = entry
    end
    return { badges = badges, next = next_badge }
  end,
}
