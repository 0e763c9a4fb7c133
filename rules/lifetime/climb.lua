-- Everest: 8,848 m of cumulative climb, earned by the run that reaches it. A run's climb is the
-- device's own total where the file has one (run.device_ascent_m: a barometric watch counts climb
-- better than any recount of its records), else the climb badgectl computes (run.elevation.gain_m).

local EVEREST_M = 8848

-- The run's climb and where it comes from ("device" or "computed"); nil without either.
local function climb_of(run)
  if run.device_ascent_m ~= nil then return run.device_ascent_m, "device" end
  if run.elevation ~= nil then return run.elevation.gain_m, "computed" end
  return nil
end

return {
  id = "climb",
  title = "Everest of climb",
  badge = "everest",
  init = function(ctx) return { gain_m = 0.0, runs = 0, earned = false } end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    local gain_m, source = climb_of(run)
    if gain_m == nil then return end
    state.gain_m = state.gain_m + gain_m
    state.runs = state.runs + 1
    if not state.earned and state.gain_m >= EVEREST_M then
      state.earned = true
      award { run = run, detail = ("%.0f m of climb over %d runs"):format(state.gain_m, state.runs),
              evidence = { total_gain_m = state.gain_m, runs = state.runs, gain_m = gain_m, gain_source = source,
                           target_m = EVEREST_M } }
    end
  end,

  status = function(state, ctx)
    local entry = { badge = "everest",
                    progress = { current = math.min(state.gain_m, EVEREST_M), target = EVEREST_M, unit = "m" } }
    if state.gain_m >= EVEREST_M then
      state.earned = true
      entry.hint = ("earned: %.0f m of climb in total"):format(state.gain_m)
    else
      entry.hint = ("%.0f m of climb left (%.0f m of %d m)"):format(EVEREST_M - state.gain_m, state.gain_m, EVEREST_M)
    end
    return { badges = { entry } }
  end,
}
