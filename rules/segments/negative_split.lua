-- Negative split: the second half of the distance run faster than the first.
-- Precisely: with D = the run's distance and T(d) the elapsed time at distance d, interpolated
-- linearly on the cumulative times of run.splits_km (T(0) = 0; each split ends at the sum of the
-- split distances so far, at its cumulative_s), first = T(D/2) and second = T(D) - T(D/2), where
-- T(D) is the last split's cumulative_s. A negative split is second < first (a tie is not).
-- Only runs of at least 5 km with splits count. Repeatable: every such run earns it.

local MIN_DISTANCE_M = 5000

-- Elapsed time at `target_m` along the splits, or nil.
local function time_at(splits, target_m)
  local covered_m, covered_s = 0.0, 0.0
  for _, split in ipairs(splits) do
    local distance_m, cumulative_s = split.distance_m, split.cumulative_s
    local end_m = covered_m + distance_m
    if end_m >= target_m and distance_m > 0 then
      local fraction = (target_m - covered_m) / distance_m
      return covered_s + fraction * (cumulative_s - covered_s)
    end
    covered_m, covered_s = end_m, cumulative_s
  end
  return nil
end

local function halves(run)
  local splits = run.splits_km
  local count = #splits
  if count == 0 or run.distance_m < MIN_DISTANCE_M then return nil end
  local total_m = 0.0
  for _, split in ipairs(splits) do total_m = total_m + split.distance_m end
  local total_s = splits[count].cumulative_s
  local half_s = time_at(splits, total_m / 2)
  if half_s == nil then return nil end
  return half_s, total_s - half_s
end

return {
  id = "negative-split",
  title = "Negative split",
  badge = "negative-split",
  repeatable = true,

  init = function(ctx) return { count = 0, closest = nil } end,

  on_run = function(state, run, award, ctx)
    local first, second = halves(run)
    if first == nil then return end
    local clock = badgectl.format_duration
    if second < first then
      state.count = state.count + 1
      award { run = run, detail = ("halves %s then %s: %s faster"):format(clock(first), clock(second), clock(first - second)),
              evidence = { first_half_s = first, second_half_s = second, splits = #run.splits_km } }
    elseif state.closest == nil or second - first < state.closest then
      state.closest, state.closest_first, state.closest_second = second - first, first, second
    end
  end,

  status = function(state, ctx)
    local entry = { badge = "negative-split" }
    if state.count > 0 then
      entry.hint = ("%d negative-split runs; run the second half faster again"):format(state.count)
    elseif state.closest ~= nil then
      -- the closest run's second half against its first: under the target is a negative split
      entry.progress = { current = state.closest_second, target = state.closest_first, unit = "s" }
      entry.hint = ("closest so far: second half %s slower than the first"):format(badgectl.format_duration(state.closest))
    else
      entry.hint = "run 5 km or more with the second half faster than the first"
    end
    return { badges = { entry } }
  end,
}
