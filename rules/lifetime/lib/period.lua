-- A repeatable "distance within one calendar period" rule (an ISO week, a month), by local date:
-- the run that takes a period's running distance to the target or past it earns the badge, with the
-- period ("2025-W01", "2025-03") as the detail. Runs without a local date are left out with a note.
--
--   return require("lib.period") {
--     id = "week", title = "...", badge = "week-100k", target_m = 100000,
--     key = function(local_date) return "2025-W01" end,
--     first_hint = "run 100 km within one ISO week", plural = "weeks", this = "this ISO week",
--   }

return function(spec)
  local target_km = spec.target_m / 1000
  return {
    id = spec.id,
    title = spec.title,
    badge = spec.badge,
    repeatable = true,
    init = function(ctx) return { totals = {}, last = nil, count = 0 } end,

    on_run = function(state, run, award, ctx)
      if run.sport ~= "running" then return end
      if run.local_date == nil then
        ctx.note(("run %s left out: no start date"):format(run.id))
        return
      end
      local key = spec.key(run.local_date)
      local before = state.totals[key] or 0.0
      local after = before + run.distance_m
      state.totals[key] = after
      state.last = key
      if before < spec.target_m and after >= spec.target_m then
        state.count = state.count + 1
        award { run = run, detail = ("%s: %s"):format(key, badgectl.format_distance(after)),
                evidence = { period = key, total_m = after, before_m = before, target_m = spec.target_m } }
      end
    end,

    status = function(state, ctx)
      local total = state.last and state.totals[state.last] or 0.0
      local entry = { badge = spec.badge,
                      progress = { current = math.min(total, spec.target_m) / 1000, target = target_km, unit = "km" } }
      if state.last == nil then
        entry.hint = spec.first_hint
      elseif total >= spec.target_m then
        entry.hint = ("%s reached %g km (%s with %g km: %d)"):format(state.last, target_km, spec.plural, target_km, state.count)
      else
        entry.hint = ("%.1f km left %s (%s)"):format((spec.target_m - total) / 1000, spec.this, state.last)
      end
      return { badges = { entry } }
    end,
  }
end
