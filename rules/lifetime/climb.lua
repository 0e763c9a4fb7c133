-- Everest: 8,848 m of cumulative climb (run.elevation.gain_m), earned by the run that reaches it.

local EVEREST_M = 8848

return {
  id = "climb",
  title = "Everest of climb",
  badge = "everest",
  init = function(ctx) return { gain_m = 0.0, runs = 0, earned = false } end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" or run.elevation == nil then return end
    state.gain_m = state.gain_m + run.elevation.gain_m
    state.runs = state.runs + 1
    if not state.earned and state.gain_m >= EVEREST_M then
      state.earned = true
      award { run = run, detail = ("%.0f m of climb over %d runs"):format(state.gain_m, state.runs),
              evidence = { total_gain_m = state.gain_m, runs = state.runs, gain_m = run.elevation.gain_m, target_m = EVEREST_M } }
    end
  end,

  status = function(state, ctx)
    local entry = { badge = "everest",
                    progress = { current = math.min(state.gain_m, EVEREST_M), target = EVEREST_M, unit = "m" } }
    if not state.earned and state.gain_m >= EVEREST_M then
      state.earned = true
      entry.hint = "earned"
    else
      entry.hint = ("%.0f m of climb left (%.0f m of %d m)"):format(EVEREST_M - state.gain_m, state.gain_m, EVEREST_M)
    end
    return { badges = { entry } }
  end,
}
