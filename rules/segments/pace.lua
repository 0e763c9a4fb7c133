-- Pace tiers from the fastest effort inside any run (run.fastest[...]): the fastest 5 km inside a
-- 10 km counts. A tier is earned by the first run whose effort is STRICTLY under the tier's time;
-- a run under the gold time also earns silver and bronze if they were not earned before.
-- Status: the best effort so far and the time the next tier needs.

local EFFORTS = {   -- an array: badges are listed in this order
  { badge = "pace-1k",   effort = "1km",  label = "1 km",  m = 1000, bronze = 300,  silver = 255,  gold = 210 },
  { badge = "pace-5k",   effort = "5km",  label = "5 km",  m = 5000, bronze = 1800, silver = 1500, gold = 1200 },
  { badge = "pace-10k",  effort = "10km", label = "10 km", m = 10000, bronze = 3600, silver = 3000, gold = 2520 },
  { badge = "pace-half", effort = "half", label = "half marathon", m = 21097.5, bronze = 8100, silver = 6600, gold = 5400 },
}
local TIERS = { "bronze", "silver", "gold" }

local clock = badgectl.format_duration

return {
  id = "pace",
  title = "Segment pace tiers",
  description = "Bronze, silver and gold for the fastest 1 km, 5 km, 10 km and half marathon inside any run.",

  init = function(ctx)
    local best = {}
    for _, spec in ipairs(EFFORTS) do best[spec.badge] = { earned = {} } end
    return { best = best, longest_m = 0.0 }
  end,

  on_run = function(state, run, award, ctx)
    state.longest_m = math.max(state.longest_m, run.distance_m)
    for _, spec in ipairs(EFFORTS) do
      local effort = run.fastest[spec.effort]
      if effort ~= nil then
        local elapsed_s = effort.elapsed_s
        local mine = state.best[spec.badge]
        if mine.elapsed_s == nil or elapsed_s < mine.elapsed_s then
          mine.elapsed_s, mine.run = elapsed_s, run.id
        end
        for _, tier in ipairs(TIERS) do
          if mine.earned[tier] == nil and elapsed_s < spec[tier] then
            mine.earned[tier] = run.id
            award { badge = spec.badge, tier = tier, run = run,
                    detail = ("%s in %s (%s/km), under %s"):format(spec.label, clock(elapsed_s),
                      badgectl.format_pace(effort.pace_s_per_km), clock(spec[tier])),
                    progress = { current = elapsed_s, target = spec[tier], unit = "s" },
                    evidence = { effort = spec.effort, elapsed_s = elapsed_s, limit_s = spec[tier],
                                 start_elapsed_s = effort.start_elapsed_s, end_elapsed_s = effort.start_elapsed_s and effort.start_elapsed_s + elapsed_s,
                                 start_distance_m = effort.start_distance_m } }
          end
        end
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    for _, spec in ipairs(EFFORTS) do
      local mine = state.best[spec.badge]
      local entry = { badge = spec.badge }
      local next_tier = nil
      for _, tier in ipairs(TIERS) do
        if mine.earned[tier] == nil then next_tier = tier; break end
      end
      -- The run that earns the next tier: its distance, a second under the tier's time (whatif checks it).
      if next_tier ~= nil then entry.target = { tier = next_tier, distance_m = spec.m, elapsed_s = spec[next_tier] - 1 } end
      if next_tier == nil then
        entry.hint = ("bronze, silver and gold earned; best %s %s"):format(spec.label, clock(mine.elapsed_s))
      elseif mine.elapsed_s == nil then
        entry.progress = { current = math.min(state.longest_m, spec.m) / 1000, target = spec.m / 1000, unit = "km" }
        entry.hint = ("no %s effort yet: run at least %s, the effort under %s for %s"):format(spec.label,
          badgectl.format_distance(spec.m), clock(spec[next_tier]), next_tier)
      else
        -- progress as target time over best time: 1.0 means the tier is reached
        entry.progress = { current = mine.elapsed_s, target = spec[next_tier], unit = "s" }
        entry.hint = ("%s in %s so far; under %s for %s"):format(spec.label, clock(mine.elapsed_s),
          clock(spec[next_tier]), next_tier)
      end
      badges[#badges + 1] = entry
    end
    return { badges = badges }
  end,
}
