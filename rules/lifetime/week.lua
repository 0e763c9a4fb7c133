-- 100 km within one ISO week (Monday to Sunday, ISO 8601 week-numbering year: 2024-12-30 is in
-- 2025-W01), by local date. Repeatable: the run that takes a week to 100 km or more earns it, with the
-- week ("2025-W01") as the detail. Runs without a local date are left out with a note.

local TARGET_M = 100000

local function week_key(date)
  local year, week = badgectl.iso_week(date)
  return ("%d-W%02d"):format(year, week)
end

return {
  id = "week",
  title = "100 km in an ISO week",
  badge = "week-100k",
  repeatable = true,
  init = function(ctx) return { totals = {}, last = nil, weeks = 0 } end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    if run.local_date == nil then
      ctx.note(("run %s left out: no start date"):format(run.id))
      return
    end
    local key = week_key(run.local_date)
    local before = state.totals[key] or 0.0
    local after = before + run.distance_m
    state.totals[key] = after
    state.last = key
    if before < TARGET_M and after >= TARGET_M then
      state.weeks = state.weeks + 1
      award { run = run, detail = ("%s: %s"):format(key, badgectl.format_distance(after)) }
    end
  end,

  status = function(state, ctx)
    if state.last == nil then
      return { badges = { { badge = "week-100k", progress = { current = 0.0, target = TARGET_M / 1000, unit = "km" },
                            hint = "run 100 km within one ISO week" } } }
    end
    local total = state.totals[state.last]
    local entry = { badge = "week-100k",
                    progress = { current = math.min(total, TARGET_M) / 1000, target = TARGET_M / 1000, unit = "km" } }
    if total >= TARGET_M then
      entry.hint = ("%s reached 100 km (weeks with 100 km: %d)"):format(state.last, state.weeks)
    else
      entry.hint = ("%.1f km left this ISO week (%s)"):format((TARGET_M - total) / 1000, state.last)
    end
    return { badges = { entry } }
  end,
}
