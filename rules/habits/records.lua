-- Best 3 km and best hour, MoonRunner style: the first run with a 3 km effort (an hour of running)
-- earns the badge; silver goes to a later run 5% better than the run that earned it, gold to one 10%
-- better (faster over 3 km; further in an hour). Efforts span no stop longer than 2 minutes.

local RECORDS = {
  { badge = "best-3k", measure = "best3k", field = "elapsed_s", lower_is_better = true,
    show = function(value) return badgectl.format_duration(value) end },
  { badge = "best-hour", measure = "best_hour", field = "distance_m", lower_is_better = false,
    show = function(value) return badgectl.format_distance(value) end },
}

-- The value a later run must reach for a tier `share` better (0.05, 0.10) than `earned`.
local function goal(spec, earned, share)
  if spec.lower_is_better then return earned * (1 - share) end
  return earned * (1 + share)
end

local function reaches(spec, value, target)
  if spec.lower_is_better then return value <= target end
  return value >= target
end

-- The award's evidence: `fields`, the value, and where in the run the effort starts and ends (elapsed s).
local function span(spec, value, fields, measure)
  fields[spec.field] = value
  if measure.start_elapsed_s ~= nil and measure.elapsed_s ~= nil then
    fields.start_elapsed_s = measure.start_elapsed_s
    fields.end_elapsed_s = measure.start_elapsed_s + measure.elapsed_s
  end
  return fields
end

return {
  id = "records",
  title = "Best 3 km and best hour",

  init = function(ctx) return {} end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    for _, spec in ipairs(RECORDS) do
      local measure = run.measures[spec.measure]
      if measure ~= nil then
        local value = measure[spec.field]
        local mine = state[spec.badge]
        if mine == nil then
          state[spec.badge] = { earned = value, best = value, tiers = {} }
          award { badge = spec.badge, run = run, detail = ("first: %s"):format(spec.show(value)),
                  evidence = span(spec, value, { measure = spec.measure }, measure) }
        else
          if spec.lower_is_better then mine.best = math.min(mine.best, value) else mine.best = math.max(mine.best, value) end
          for _, tier in ipairs({ { name = "silver", share = 0.05 }, { name = "gold", share = 0.10 } }) do
            if not mine.tiers[tier.name] and reaches(spec, value, goal(spec, mine.earned, tier.share)) then
              mine.tiers[tier.name] = true
              award { badge = spec.badge, tier = tier.name, run = run,
                      detail = ("%s against %s when earned"):format(spec.show(value), spec.show(mine.earned)),
                      evidence = span(spec, value, { measure = spec.measure, earned = mine.earned,
                                                      target = goal(spec, mine.earned, tier.share) }, measure) }
            end
          end
        end
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    for _, spec in ipairs(RECORDS) do
      local mine = state[spec.badge]
      if mine ~= nil and not mine.tiers.gold then
        local tier = mine.tiers.silver and "gold" or "silver"
        local target = goal(spec, mine.earned, tier == "gold" and 0.10 or 0.05)
        -- The run that earns it, rounded to the qualifying side (whatif checks it): 3 km at least a second
        -- under the target; an hour at least 0.02% (and a metre) over it.
        local run
        if spec.lower_is_better then
          run = { tier = tier, distance_m = 3000, elapsed_s = math.ceil(target - 2) }
        else
          run = { tier = tier, distance_m = math.ceil(target * 1.0002 + 1), elapsed_s = 3600 }
        end
        badges[#badges + 1] = { badge = spec.badge, hint = ("%s for %s (best %s)"):format(spec.show(target), tier, spec.show(mine.best)),
                                target = run }
      end
    end
    return { badges = badges }
  end,
}
