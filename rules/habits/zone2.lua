-- An hour in zone 2: 60 minutes or more with the heart rate in the runner's own zone 2 within one
-- run (the `zone2` measure; zones come from the athlete profile, --athlete FILE). Without a profile
-- the measure is nil in every run and the badge cannot be earned (the evaluation's notes say why).

local TARGET_S = 3600

return {
  id = "zone2",
  title = "An hour in zone 2",
  badge = "zone-two-hour",

  init = function(ctx) return { best_s = 0.0, earned = false } end,

  on_run = function(state, run, award, ctx)
    local zone2 = run.measures.zone2
    if zone2 == nil then return end
    state.best_s = math.max(state.best_s, zone2.seconds)
    if not state.earned and zone2.seconds >= TARGET_S then
      state.earned = true
      award { run = run, detail = ("%s in zone 2"):format(badgectl.format_duration(zone2.seconds)),
              evidence = { zone2_s = zone2.seconds, target_s = TARGET_S } }
    end
  end,

  status = function(state, ctx)
    if state.earned then return nil end
    return { badges = { {
      badge = "zone-two-hour",
      progress = { current = math.min(state.best_s, TARGET_S) / 60, target = TARGET_S / 60, unit = "min" },
      hint = ctx.athlete == nil and "needs your heart-rate zones: give --athlete FILE"
        or ("best so far %s in zone 2 in one run"):format(badgectl.format_duration(state.best_s)),
    } } }
  end,
}
