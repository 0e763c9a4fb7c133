-- Even pacing between catalogue checkpoints (run.checkpoints: where the route passed each catalogue
-- distance, with elapsed_s there). Legs run from one checkpoint to the next, in distance order,
-- starting from the run's start (0 m, 0 s); checkpoints without elapsed_s are skipped.
-- A run is steady when it has at least MIN_LEGS legs and every leg's pace is within 5% of the
-- average pace over all legs (total time / total distance of the legs); gold within 2.5%.
-- A runner values this: the catalogue distances (1 km, the mile, 3 km, 5 km...) are the marks they
-- already think in, and the badge rewards holding one pace through all of them.

local MIN_LEGS = 4
local EARNED = 0.05
local GOLD = 0.025

-- The pace (s/km) of each leg, and the average pace over all legs (nil without legs).
local function legs_of(run)
  local paces = {}
  local previous_m, previous_s = 0.0, 0.0
  for _, checkpoint in ipairs(run.checkpoints) do
    local at, distance_m = checkpoint.elapsed_s, checkpoint.distance_m
    if at ~= nil and distance_m > previous_m then
      paces[#paces + 1] = (at - previous_s) / ((distance_m - previous_m) / 1000)
      previous_m, previous_s = distance_m, at
    end
  end
  if #paces == 0 then return paces, nil end
  return paces, previous_s / (previous_m / 1000)
end

-- The largest relative difference between a leg's pace and the average.
local function spread(paces, average)
  local worst = 0.0
  for _, pace in ipairs(paces) do
    worst = math.max(worst, math.abs(pace - average) / average)
  end
  return worst
end

return {
  id = "steady",
  title = "Even pace between checkpoints",
  badge = "steady",

  init = function(ctx) return { best = nil, earned = {}, most_legs = 0 } end,

  on_run = function(state, run, award, ctx)
    local legs, average = legs_of(run)
    state.most_legs = math.max(state.most_legs, #legs)
    if #legs < MIN_LEGS then return end
    local worst = spread(legs, average)
    if state.best == nil or worst < state.best then state.best = worst end
    -- Each tier is earned once: skip the work for tiers already earned.
    local new_earned = worst <= EARNED and not state.earned.earned
    local new_gold = worst <= GOLD and not state.earned.gold
    if not (new_earned or new_gold) then return end
    local detail = ("%d checkpoint legs within %.1f%% of %s/km"):format(#legs, worst * 100, badgectl.format_pace(average))
    local evidence = { legs = #legs, spread = worst, average_pace_s_per_km = average, leg_paces_s_per_km = legs }
    if new_earned then award { run = run, tier = "earned", detail = detail, evidence = evidence }; state.earned.earned = true end
    if new_gold then award { run = run, tier = "gold", detail = detail, evidence = evidence }; state.earned.gold = true end
  end,

  status = function(state, ctx)
    local entry = { badge = "steady" }
    if state.earned.gold then
      entry.hint = "earned and gold"
    elseif state.best == nil then
      entry.progress = { current = state.most_legs, target = MIN_LEGS, unit = "legs" }
      entry.hint = ("pass %d catalogue checkpoints after the start in one run, every leg within 5%% of your average pace"):format(MIN_LEGS)
    else
      local target = state.earned.earned and GOLD or EARNED
      entry.progress = { current = state.best * 100, target = target * 100, unit = "%" }
      entry.hint = ("steadiest run so far: legs within %.1f%% of the average; within %.1f%% for %s"):format(
        state.best * 100, target * 100, state.earned.earned and "gold" or "the badge")
    end
    return { badges = { entry } }
  end,
}
