-- The sun where the run started (the `sun` measure): a sunrise run spans sunrise; a before-dawn
-- run ends before it. In a polar day or night the sun neither rises nor sets: neither badge.

return {
  id = "sun",
  title = "Sunrise and dawn runs",

  init = function(ctx) return {} end,

  on_run = function(earned, run, award, ctx)
    if run.sport ~= "running" then return end
    local sun = run.measures.sun
    if sun == nil or sun.sunrise_epoch_s == nil then return end
    if not earned.sunrise and sun.spans_sunrise then
      earned.sunrise = true
      award { badge = "sunrise-run", run = run, detail = ("sunrise at %s, run from %s"):format(sun.sunrise:sub(12, 16), run.local_start:sub(12, 16)),
              evidence = { sunrise = sun.sunrise, sunrise_epoch_s = sun.sunrise_epoch_s, start_epoch_s = run.start_epoch_s,
                           end_epoch_s = run.start_epoch_s + (run.elapsed_s or 0) } }
    end
    local finish = run.start_epoch_s + (run.elapsed_s or 0)
    if not earned.dawn and finish < sun.sunrise_epoch_s then
      earned.dawn = true
      award { badge = "before-dawn", run = run,
              detail = ("finished %s before sunrise (%s)"):format(badgectl.format_duration(sun.sunrise_epoch_s - finish), sun.sunrise:sub(12, 16)),
              evidence = { sunrise = sun.sunrise, sunrise_epoch_s = sun.sunrise_epoch_s, end_epoch_s = finish } }
    end
  end,
}
