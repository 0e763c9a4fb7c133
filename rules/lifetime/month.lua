-- 200 km within one calendar month, by local date. Repeatable: the run that takes a month to
-- 200 km or more earns it, with the month ("2025-03") as the detail.

local TARGET_M = 200000

return {
  id = "month",
  title = "200 km in a calendar month",
  badge = "month-200k",
  repeatable = true,
  init = function(ctx) return { totals = {}, last = nil, months = 0 } end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    if run.local_date == nil then
      ctx.note(("run %s left out: no start date"):format(run.id))
      return
    end
    local year, month = badgectl.date_parts(run.local_date)
    local key = ("%04d-%02d"):format(year, month)
    local before = state.totals[key] or 0.0
    local after = before + run.distance_m
    state.totals[key] = after
    state.last = key
    if before < TARGET_M and after >= TARGET_M then
      state.months = state.months + 1
      award { run = run, detail = ("%s: %s"):format(key, badgectl.format_distance(after)) }
    end
  end,

  status = function(state, ctx)
    local total = state.last and state.totals[state.last] or 0.0
    local entry = { badge = "month-200k",
                    progress = { current = math.min(total, TARGET_M) / 1000, target = TARGET_M / 1000, unit = "km" } }
    if state.last == nil then
      entry.hint = "run 200 km within one calendar month"
    elseif total >= TARGET_M then
      entry.hint = ("%s reached 200 km (months with 200 km: %d)"):format(state.last, state.months)
    else
      entry.hint = ("%.1f km left this month (%s)"):format((TARGET_M - total) / 1000, state.last)
    end
    return { badges = { entry } }
  end,
}
