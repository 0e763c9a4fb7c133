-- Tiles over history: each run's tiles not seen before are new; the total counts every tile once; the
-- largest square of visited tiles comes from badgectl.max_square (in C, charged to the instruction
-- budget), computed only after a run that added tiles.

local TOTALS = { { badge = "explorer-100", tiles = 100 }, { badge = "explorer-500", tiles = 500 }, { badge = "explorer-1000", tiles = 1000 } }
local SQUARES = { { badge = "square-5", size = 5 }, { badge = "square-10", size = 10 } }
local NEW_IN_ONE_RUN = 10

return {
  id = "tiles",
  title = "Explorer tiles",

  init = function(ctx) return { visited = {}, total = 0, square = 0, earned = {} } end,

  on_run = function(state, run, award, ctx)
    local measure = run.measures.tiles
    if measure == nil then return end
    local new = 0
    for _, key in ipairs(measure.tiles) do
      if not state.visited[key] then
        state.visited[key] = true
        new = new + 1
      end
    end
    if new == 0 then return end
    state.total = state.total + new
    local earned = state.earned
    if not earned["new-ground"] and new >= NEW_IN_ONE_RUN then
      earned["new-ground"] = true
      award { badge = "new-ground", run = run, detail = ("%d new tiles"):format(new),
              evidence = { new_tiles = new, run_tiles = measure.count, total_tiles = state.total, zoom = measure.zoom } }
    end
    for _, goal in ipairs(TOTALS) do
      if not earned[goal.badge] and state.total >= goal.tiles then
        earned[goal.badge] = true
        award { badge = goal.badge, run = run, detail = ("%d tiles (%d new)"):format(state.total, new),
                evidence = { total_tiles = state.total, new_tiles = new, goal_tiles = goal.tiles, zoom = measure.zoom } }
      end
    end
    if earned["square-10"] then return end
    local size, x, y = badgectl.max_square(state.visited)
    state.square = size
    for _, goal in ipairs(SQUARES) do
      if not earned[goal.badge] and size >= goal.size then
        earned[goal.badge] = true
        award { badge = goal.badge, run = run, detail = ("%dx%d square from tile %d/%d"):format(size, size, x, y),
                evidence = { square = size, x = x, y = y, zoom = measure.zoom, total_tiles = state.total } }
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    for _, goal in ipairs(TOTALS) do
      if not state.earned[goal.badge] then
        badges[#badges + 1] = { badge = goal.badge, hint = ("%d of %d tiles"):format(state.total, goal.tiles) }
      end
    end
    for _, goal in ipairs(SQUARES) do
      if not state.earned[goal.badge] then
        badges[#badges + 1] = { badge = goal.badge, hint = ("largest square %dx%d of %dx%d"):format(state.square, state.square, goal.size, goal.size) }
      end
    end
    return { badges = badges }
  end,
}
