-- Personal records over the standard efforts (1 km, 5 km, 10 km, half): every run whose fastest
-- effort is STRICTLY faster than the best before it earns the record badge again (repeatable).
-- A tie is not a record. The first effort ever at a distance is the first record (there is nothing
-- to beat yet, and the runner gets a time to chase): its detail says "first".

local EFFORTS = {
  { badge = "pr-1k",   effort = "1km",  label = "1 km" },
  { badge = "pr-5k",   effort = "5km",  label = "5 km" },
  { badge = "pr-10k",  effort = "10km", label = "10 km" },
  { badge = "pr-half", effort = "half", label = "half marathon" },
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
      if effort ~= nil then
        local mine = state.best[spec.badge]
        if mine.elapsed_s == nil then
          mine.elapsed_s, mine.count = effort.elapsed_s, 1
          award { badge = spec.badge, run = run,
                  detail = ("first %s: %s"):format(spec.label, clock(effort.elapsed_s)) }
        elseif effort.elapsed_s < mine.elapsed_s then
          local before = mine.elapsed_s
          mine.elapsed_s, mine.count = effort.elapsed_s, mine.count + 1
          award { badge = spec.badge, run = run,
                  detail = ("%s in %s, %s faster than %s"):format(spec.label, clock(effort.elapsed_s),
                    clock(before - effort.elapsed_s), clock(before)) }
        end
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    for _, spec in ipairs(EFFORTS) do
      local mine = state.best[spec.badge]
      local entry = { badge = spec.badge }
      if mine.elapsed_s == nil then
        entry.hint = ("run %s or more to set your first record"):format(spec.label)
      else
        entry.hint = ("beat %s over %s for a new record (%d so far)"):format(clock(mine.elapsed_s), spec.label, mine.count)
      end
      badges[#badges + 1] = entry
    end
    return { badges = badges }
  end,
}
