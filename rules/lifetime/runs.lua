-- Number of runs: 10, 50, 100. Every run with sport "running" counts, whatever its length.

local COUNTS = {
  { badge = "runs-10", runs = 10 },
  { badge = "runs-50", runs = 50 },
  { badge = "runs-100", runs = 100 },
}

return {
  id = "runs",
  title = "Number of runs",
  init = function(ctx) return 0 end,

  on_run = function(count, run, award, ctx)
    if run.sport ~= "running" then return count end
    count = count + 1
    for _, goal in ipairs(COUNTS) do
      if count == goal.runs then award { badge = goal.badge, run = run, detail = ("run number %d"):format(count), evidence = { count = count } } end
    end
    return count
  end,

  status = function(count, ctx)
    local badges = {}
    for _, goal in ipairs(COUNTS) do
      badges[#badges + 1] = {
        badge = goal.badge,
        progress = { current = math.min(count, goal.runs), target = goal.runs, unit = "runs" },
        hint = count >= goal.runs and "earned" or ("%d more runs (%d of %d)"):format(goal.runs - count, count, goal.runs),
      }
    end
    return { badges = badges }
  end,
}
