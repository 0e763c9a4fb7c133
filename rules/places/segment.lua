-- The park corner segment, MoonRunner style: your first effort earns the badge; silver goes to a later
-- effort 5% faster than that first one, gold to one 10% faster. Every effort counts (two laps of the
-- park are two efforts). A regular: ten efforts within 90 days (the effort's local date).

local SEGMENT = "park"
local TIERS = { { name = "silver", share = 0.05 }, { name = "gold", share = 0.10 } }
local WINDOW_DAYS, REGULAR = 90, 10

local function gates(effort)
  return { start_elapsed_s = effort.start_elapsed_s, end_elapsed_s = effort.end_elapsed_s,
           start_gate = { lat = effort.start_lat, lon = effort.start_lon },
           end_gate = { lat = effort.end_lat, lon = effort.end_lon } }
end

local function evidence(run, effort, number, extra)
  local e = gates(effort)
  e.run = run.id
  e.effort = number
  e.elapsed_s = effort.elapsed_s
  e.pace_s_per_km = effort.pace_s_per_km
  for k, v in pairs(extra or {}) do e[k] = v end
  return e
end

return {
  id = "segment",
  title = "Park corner: record and regular",

  init = function(ctx) return { dates = {}, tiers = {} } end,

  on_run = function(state, run, award, ctx)
    local park = run.measures[SEGMENT]
    if park == nil or park.count == 0 then return end
    for number, effort in ipairs(park.efforts) do
      if effort.elapsed_s ~= nil then
        if state.first == nil then
          state.first = effort.elapsed_s
          state.best = effort.elapsed_s
          award { badge = "park-corner-record", run = run,
                  detail = ("effort %d: %s (%s/km), the first"):format(number, badgectl.format_duration(effort.elapsed_s),
                    badgectl.format_pace(effort.pace_s_per_km)),
                  evidence = evidence(run, effort, number) }
        else
          state.best = math.min(state.best, effort.elapsed_s)
          for _, tier in ipairs(TIERS) do
            local target = state.first * (1 - tier.share)
            if not state.tiers[tier.name] and effort.elapsed_s <= target then
              state.tiers[tier.name] = true
              award { badge = "park-corner-record", tier = tier.name, run = run,
                      detail = ("effort %d: %s (%s/km) against %s the first time"):format(number, badgectl.format_duration(effort.elapsed_s),
                        badgectl.format_pace(effort.pace_s_per_km), badgectl.format_duration(state.first)),
                      evidence = evidence(run, effort, number, { first_elapsed_s = state.first, target_elapsed_s = target }) }
            end
          end
        end
      end
      -- Ten efforts within 90 days: the dates of the efforts in the window, oldest first.
      local dates = state.dates
      dates[#dates + 1] = run.local_date
      while #dates > 0 and badgectl.days_between(dates[1], run.local_date) >= WINDOW_DAYS do table.remove(dates, 1) end
      if not state.regular and #dates >= REGULAR then
        state.regular = true
        award { badge = "park-corner-regular", run = run,
                detail = ("effort %d: the %dth since %s"):format(number, #dates, dates[1]),
                evidence = evidence(run, effort, number, { efforts_in_window = #dates, window_start = dates[1], window_days = WINDOW_DAYS }) }
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    if state.first ~= nil and not state.tiers.gold then
      local tier = state.tiers.silver and "gold" or "silver"
      local target = state.first * (1 - (tier == "gold" and 0.10 or 0.05))
      badges[#badges + 1] = { badge = "park-corner-record",
        hint = ("%s for %s (best %s)"):format(badgectl.format_duration(target), tier, badgectl.format_duration(state.best)) }
    end
    if not state.regular then
      badges[#badges + 1] = { badge = "park-corner-regular", hint = ("%d of %d efforts within %d days"):format(#state.dates, REGULAR, WINDOW_DAYS) }
    end
    return { badges = badges }
  end,
}
