-- A 10 km without stopping: a run of 10 km or more with no stop of 10 s or longer (the `stops`
-- measure: a stretch of at least 10 s averaging under 0.5 m/s, a pause in recording included).

return {
  id = "nonstop",
  title = "10 km without a stop",
  badge = "no-stop-10k",

  earned = function(run)
    local stops = run.measures.stops
    if run.sport == "running" and run.distance_m >= 10000 and stops ~= nil and stops.count == 0 then
      return { detail = ("%s without a stop of 10 s or longer"):format(badgectl.format_distance(run.distance_m)),
               evidence = { distance_m = run.distance_m, stops = stops.count, min_stop_s = 10 } }
    end
    return false
  end,
}
