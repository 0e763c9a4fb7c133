-- Personal records over the standard efforts (1 km, 5 km, 10 km, half): every run whose fastest
-- effort is STRICTLY faster than the best before it earns the record badge again (repeatable).
-- A tie is not a record. The first effort ever at a distance is the first record (there is nothing
-- to beat yet, and the runner gets a time to chase): its detail says "first".

local EFFORTS = {
  { badge = "pr-1k",   effort = "1km",  label = "1 km",  m = 1000 },
  { badge = "pr-5k",   effort = "5km",  label = "5 km",  m = 5000 },
  { badge = "pr-10k",  effort = "10km", label = "10 km", m = 10000 },
  { badge = "pr-half", effort = "half", label = "half marathon", m = 21097.5 },
}

local clock = badgectl.format_duration

return {
  id = "records",
  title = "Personal records",
  repeatable = true,

  init = function(ctx)
    local best = {}
    for _, spec in ipairs(EFFORTS) do best[spec.badge] = { count = 0 } end
    return { best = best }
  end,

  on_run = function(state, run, award, ctx)
    for _, spec in ipairs(EFFORTS) do
      local effort = run.fastest[spec.effort]
      local mine = state.best[spec.badge]
      mine.longest_m = math.max(mine.longest_m or 0.0, run.distance_m)
      if effort ~= nil then
        local elapsed_s = effort.elapsed_s
        mine.last_s = elapsed_s
        if mine.elapsed_s == nil then
          mine.elapsed_s, mine.count = elapsed_s, 1
          award { badge = spec.badge, run = run,
                  detail = ("first %s: %s"):format(spec.label, clock(elapsed_s)),
                  evidence = { effort = spec.effort, elapsed_s = elapsed_s, start_elapsed_s = effort.start_elapsed_s,
                               end_elapsed_s = effort.start_elapsed_s and effort.start_elapsed_s + elapsed_s, start_distance_m = effort.start_distance_m } }
        elseif elapsed_s < mine.elapsed_s then
          local before = mine.elapsed_s
          mine.elapsed_s, mine.count = elapsed_s, mine.count + 1
          award { badge = spec.badge, run = run,
                  detail = ("%s in %s, %s faster than %s"):format(spec.label, clock(elapsed_s),
                    clock(before - elapsed_s), clock(before)),
                  evidence = { effort = spec.effort, elapsed_s = elapsed_s, previous_s = before, start_elapsed_s = effort.start_elapsed_s,
                               end_elapsed_s = effort.start_elapsed_s and effort.start_elapsed_s + elapsed_s, start_distance_m = effort.start_distance_m } }
        end
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    for _, spec in ipairs(EFFORTS) do
      local mine = state.best[spec.badge]
      local entry = { badge = spec.badge }
      -- The run that sets the next record: the distance, at least a second under the record (whatif checks it).
      entry.target = { distance_m = spec.m, elapsed_s = mine.elapsed_s and math.ceil(mine.elapsed_s - 2) }
      if mine.elapsed_s == nil then
        entry.progress = { current = math.min(mine.longest_m or 0.0, spec.m) / 1000, target = spec.m / 1000, unit = "km" }
        entry.hint = ("run at least %s to set your first %s record"):format(badgectl.format_distance(spec.m), spec.label)
      else
        -- the latest effort against the record: current == target when the latest run set it
        entry.progress = { current = mine.last_s, target = mine.elapsed_s, unit = "s" }
        entry.hint = ("beat %s over %s for a new record (%d so far)"):format(clock(mine.elapsed_s), spec.label, mine.count)
      end
      badges[#badges + 1] = entry
    end
    return { badges = badges }
  end,
}
