-- The runner's goals (docs/rules.md, "Goals and challenges"): ctx.athlete.goals, each
-- { id, measure = "distance" | "runs" | "time", target (metres, a count, seconds), per = "week" | "month" | "year" }.
-- A goal's total starts again with each period (ISO week "2026-W05", month "2026-02", year "2026" of
-- run.local_date); the run that takes it to the target or past it (>=) earns the measure's badge
-- with the period as the tier, once per period. status() gives each goal's progress in the period of
-- the latest run, and `next` the distance goal with the least left.
--
-- State: per goal id, the current period and its total (and how many periods met). The goals
-- themselves are read from ctx, so a profile edited between `evaluate --state` and `add` is used as
-- it now is (a goal new to the state starts at the next run).

local BADGES = { distance = "goal-distance", runs = "goal-runs", time = "goal-time" }
local PERIOD_WORDS = { week = "ISO week", month = "month", year = "year" }

local function period_of(per, date)
  if per == "week" then
    local year, week = badgectl.iso_week(date)
    return ("%d-W%02d"):format(year, week)
  elseif per == "month" then
    return date:sub(1, 7)
  end
  return date:sub(1, 4)
end

-- What a run adds to a goal of `measure`: metres, one run, seconds (moving time, else elapsed).
local function amount(measure, run)
  if measure == "distance" then return run.distance_m end
  if measure == "runs" then return 1 end
  return run.moving_s or run.elapsed_s or 0.0
end

local function shown(measure, value)
  if measure == "distance" then return badgectl.format_distance(value) end
  if measure == "runs" then return ("%d %s"):format(value, value == 1 and "run" or "runs") end
  return badgectl.format_duration(value)
end

-- Progress in the unit a runner reads: km, runs, hours.
local function progress(measure, total, target)
  if measure == "distance" then return { current = math.min(total, target) / 1000, target = target / 1000, unit = "km" } end
  if measure == "runs" then return { current = math.min(total, target), target = target, unit = "runs" } end
  return { current = math.min(total, target) / 3600, target = target / 3600, unit = "h" }
end

return {
  id = "goals",
  title = "Your goals",
  badge = "goal-distance",
  repeatable = true,   -- once per goal and period

  init = function(ctx)
    local athlete = ctx.athlete
    return { active = athlete ~= nil and #athlete.goals > 0, goals = {}, last_date = nil }
  end,

  on_run = function(state, run, award, ctx)
    if not state.active or run.sport ~= "running" then return end   -- no goals: nothing to do
    local date = run.local_date
    if date == nil then
      ctx.note(("run %s left out of the goals: no start date"):format(run.id))
      return
    end
    state.last_date = date
    for _, goal in ipairs(ctx.athlete.goals) do
      local key = period_of(goal.per, date)
      local kept = state.goals[goal.id]
      if kept == nil or key > kept.period then
        kept = { period = key, total = 0, met = kept and kept.met or 0 }
        state.goals[goal.id] = kept
      end
      if key == kept.period then   -- an earlier period (a run whose local date steps back across zones) is left out
        local before = kept.total
        local after = before + amount(goal.measure, run)
        kept.total = after
        if before < goal.target and after >= goal.target then
          kept.met = kept.met + 1
          award { badge = BADGES[goal.measure], tier = goal.per, run = run,
                  detail = ("%s: %s of %s in %s"):format(goal.id, shown(goal.measure, after), shown(goal.measure, goal.target), key),
                  progress = progress(goal.measure, after, goal.target),
                  evidence = { goal = goal.id, period = key, total = after, target = goal.target } }
        end
      else
        ctx.note(("run %s left out of goal %s: its local date %s is in a period before %s"):format(run.id, goal.id, date, kept.period))
      end
    end
  end,

  status = function(state, ctx)
    local athlete = ctx.athlete
    if athlete == nil or #athlete.goals == 0 then
      local hint = 'set your goals in the --athlete profile: "goals": [{ "measure": "distance", "target": 1000000, "per": "year" }]'
      return { badges = { { badge = "goal-distance", hint = hint }, { badge = "goal-runs", hint = hint },
                          { badge = "goal-time", hint = hint } } }
    end
    local badges, next = {}, nil
    for _, goal in ipairs(athlete.goals) do
      local key = state.last_date and period_of(goal.per, state.last_date)
      local kept = state.goals[goal.id]
      local total = (kept and kept.period == key) and kept.total or 0
      local entry = { badge = BADGES[goal.measure], progress = progress(goal.measure, total, goal.target) }
      if key == nil then
        entry.hint = ("%s: %s per %s; no run yet"):format(goal.id, shown(goal.measure, goal.target), goal.per)
      elseif total >= goal.target then
        entry.hint = ("%s: met in %s (%s of %s); %d %ss met in all"):format(goal.id, key, shown(goal.measure, total),
          shown(goal.measure, goal.target), kept and kept.met or 0, PERIOD_WORDS[goal.per])
      else
        local left = goal.target - total
        entry.hint = ("%s: %s of %s in %s; %s to go"):format(goal.id, shown(goal.measure, total), shown(goal.measure, goal.target),
          key, shown(goal.measure, left))
        if goal.measure == "distance" and (next == nil or left < next.remaining_m) then
          next = { badge = "goal-distance", remaining_m = left }
        end
      end
      badges[#badges + 1] = entry
    end
    return { badges = badges, next = next }
  end,
}
