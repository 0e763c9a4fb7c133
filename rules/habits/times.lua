-- Times of day: early bird (before 07:00), lunch runner (weekdays, 12:00 to 14:00, 14:00 left out),
-- night owl (21:00 or later). Ten runs each, by the run's local start (run.local_start). Runs
-- without a start are left out.

local HABITS = {
  { badge = "early-bird", runs = 10, label = "runs starting before 07:00",
    fits = function(hour, minute, weekday) return hour < 7 end },
  { badge = "lunch-runner", runs = 10, label = "weekday runs starting 12:00-14:00",
    fits = function(hour, minute, weekday) return weekday <= 5 and hour >= 12 and hour < 14 end },
  { badge = "night-owl", runs = 10, label = "runs starting at 21:00 or later",
    fits = function(hour, minute, weekday) return hour >= 21 end },
}

return {
  id = "times",
  title = "Times of day",
  init = function(ctx)
    local counts = {}
    for _, habit in ipairs(HABITS) do counts[habit.badge] = 0 end
    return counts
  end,

  on_run = function(counts, run, award, ctx)
    if run.sport ~= "running" or run.local_start == nil then return end
    local hour = tonumber(run.local_start:sub(12, 13))
    local minute = tonumber(run.local_start:sub(15, 16))
    local weekday = badgectl.weekday(run.local_date)
    for _, habit in ipairs(HABITS) do
      if habit.fits(hour, minute, weekday) then
        counts[habit.badge] = counts[habit.badge] + 1
        if counts[habit.badge] == habit.runs then
          award { badge = habit.badge, run = run,
                  detail = ("%d %s; this one at %s"):format(habit.runs, habit.label, run.local_start:sub(12, 16)),
                  evidence = { count = counts[habit.badge], local_start = run.local_start, weekday = weekday } }
        end
      end
    end
  end,

  status = function(counts, ctx)
    local badges = {}
    for _, habit in ipairs(HABITS) do
      local count = counts[habit.badge]
      badges[#badges + 1] = {
        badge = habit.badge,
        progress = { current = math.min(count, habit.runs), target = habit.runs, unit = "runs" },
        hint = count >= habit.runs and "earned" or ("%d of %d %s"):format(count, habit.runs, habit.label),
      }
    end
    return { badges = badges }
  end,
}
