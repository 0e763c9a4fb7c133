-- MoonRunner's badge rules (BadgeController in the tutorial app), as a fold over the history.
--
-- * Runs arrive in start-time order (ties by id). Runs without an elapsed time have no speed
--   and are left out of this pack, with a note.
-- * A badge is earned by the first run whose distance is STRICTLY GREATER than the badge distance.
-- * speed = distance_m / elapsed_s (wall-clock time: MoonRunner's timer never paused).
-- * Silver: the first qualifying run whose speed is strictly greater than SILVER x the earning
--   run's speed; gold likewise with GOLD. The earning run itself can never be its own silver.
-- * Best: the fastest qualifying run, the earlier one on a tie (the earning run counts).
-- * The pace that would earn silver (gold): earning elapsed_s / (earning km x SILVER (GOLD)).
-- * Next: the first badge by distance not yet earned; remaining_m = its distance - the longest
--   run so far (0 means a run must exceed it).

local SILVER = 1.05
local GOLD = 1.10

local function speed_of(run)
  local elapsed = run.elapsed_s
  if elapsed == nil or elapsed <= 0 then return nil end
  return run.distance_m / elapsed
end

local function km(m) return badgectl.format_distance(m) end
local function pace(s_per_km) return badgectl.format_pace(s_per_km) end

-- Where the route passed the badge's distance, if the run knows it.
local function passed_at(run, badge_id)
  for _, checkpoint in ipairs(run.checkpoints) do
    if checkpoint.badge == badge_id and checkpoint.elapsed_s ~= nil then
      return checkpoint.elapsed_s
    end
  end
  return nil
end

-- The pace (s/km) a run of the earning run's distance needs to beat `factor` x its speed.
local function target_pace(earning, factor)
  return earning.elapsed_s / (earning.distance_m / 1000 * factor)
end

return {
  id = "distance",
  title = "Distance badges with silver and gold",
  description = "Earn a badge by running further than its distance; silver and gold by running it 5% and 10% faster.",

  init = function(ctx)
    local badges = {}
    for _, badge in ipairs(ctx.catalogue) do
      if badge.distance_m ~= nil then
        badges[#badges + 1] = { id = badge.id, name = badge.name, distance_m = badge.distance_m }
      end
    end
    return { badges = badges, earned = {}, longest_m = 0.0, longest_run = nil }
  end,

  on_run = function(state, run, award, ctx)
    local speed = speed_of(run)
    if speed == nil then
      ctx.note(("run %s left out: no elapsed time, so no speed"):format(run.id))
      return
    end
    if run.distance_m > state.longest_m then
      state.longest_m = run.distance_m
      state.longest_run = run.id
    end
    for _, badge in ipairs(state.badges) do
      if run.distance_m > badge.distance_m then
        local status = state.earned[badge.id]
        if status == nil then
          status = { run = run, speed = speed, best = run, best_speed = speed }
          state.earned[badge.id] = status
          local at = passed_at(run, badge.id)
          award {
            badge = badge.id, tier = "earned", run = run,
            detail = ("%s at %s/km%s"):format(km(run.distance_m), pace(1000 / speed),
              -- A start badge (distance 0) is passed at the start: nothing to say.
              (at and badge.distance_m > 0) and (", passed %s at %s"):format(km(badge.distance_m), badgectl.format_duration(at)) or ""),
            evidence = { distance_m = run.distance_m, elapsed_s = run.elapsed_s, badge_distance_m = badge.distance_m,
                         checkpoint = badge.id, checkpoint_elapsed_s = at },
          }
        else
          local ratio = speed / status.speed
          if status.silver == nil and speed > SILVER * status.speed then
            status.silver = run
            award { badge = badge.id, tier = "silver", run = run,
                    detail = ("%s/km, %.1f%% faster than when earned"):format(pace(1000 / speed), (ratio - 1) * 100),
                    evidence = { speed_m_per_s = speed, earned_speed_m_per_s = status.speed, factor = SILVER,
                                 earned_run = status.run.id, distance_m = run.distance_m, elapsed_s = run.elapsed_s } }
          end
          if status.gold == nil and speed > GOLD * status.speed then
            status.gold = run
            award { badge = badge.id, tier = "gold", run = run,
                    detail = ("%s/km, %.1f%% faster than when earned"):format(pace(1000 / speed), (ratio - 1) * 100),
                    evidence = { speed_m_per_s = speed, earned_speed_m_per_s = status.speed, factor = GOLD,
                                 earned_run = status.run.id, distance_m = run.distance_m, elapsed_s = run.elapsed_s } }
          end
          if speed > status.best_speed then
            status.best, status.best_speed = run, speed
          end
        end
      end
    end
  end,

  finish = function(state, award, ctx)
    for _, badge in ipairs(state.badges) do
      local status = state.earned[badge.id]
      if status ~= nil then
        award { badge = badge.id, tier = "best", run = status.best,
                detail = ("fastest: %s at %s/km"):format(km(status.best.distance_m), pace(1000 / status.best_speed)),
                evidence = { speed_m_per_s = status.best_speed, distance_m = status.best.distance_m,
                             elapsed_s = status.best.elapsed_s } }
      end
    end
  end,

  status = function(state, ctx)
    local badges, next_badge = {}, nil
    for _, badge in ipairs(state.badges) do
      local status = state.earned[badge.id]
      local entry = { badge = badge.id }
      if status == nil then
        entry.progress = { current = state.longest_m, target = badge.distance_m, unit = "m" }
        entry.hint = ("run more than %s to earn"):format(km(badge.distance_m))
        if next_badge == nil then
          next_badge = { badge = badge.id, remaining_m = math.max(0.0, badge.distance_m - state.longest_m) }
        end
      else
        local earning = status.run
        if status.silver == nil then entry.silver_pace_s_per_km = target_pace(earning, SILVER) end
        if status.gold == nil then entry.gold_pace_s_per_km = target_pace(earning, GOLD) end
        -- The pace shown is the whole second below the target, so that running it earns the tier.
        if status.silver == nil then
          entry.hint = ("run more than %s at %s for silver"):format(km(badge.distance_m), badgectl.format_tier_pace(entry.silver_pace_s_per_km))
        elseif status.gold == nil then
          entry.hint = ("run more than %s at %s for gold"):format(km(badge.distance_m), badgectl.format_tier_pace(entry.gold_pace_s_per_km))
        else
          entry.hint = "silver and gold earned"
        end
      end
      badges[#badges + 1] = entry
    end
    return { badges = badges, next = next_badge }
  end,
}
