-- Hand-made tile lists for the explorer pack: a tile key is x * 2^24 + y (badgectl.tile_xy).

local FACTOR = 16777216

-- The keys of the tiles x0 .. x0 + w - 1, y0 .. y0 + h - 1.
local function block(x0, y0, w, h)
  local keys = {}
  for x = x0, x0 + w - 1 do
    for y = y0, y0 + h - 1 do keys[#keys + 1] = x * FACTOR + y end
  end
  return keys
end

local function with(t, id, date, keys)
  return t.run{ id = id, date = date, distance_km = 10, duration = "1:00:00",
                measures = { tiles = { zoom = 14, count = #keys, tiles = keys } } }
end

test("tile keys read back as x and y", function(t)
  local x, y = badgectl.tile_xy(8414 * FACTOR + 5384)
  t.expect_eq(x, 8414)
  t.expect_eq(y, 5384)
end)

test("totals: 100, 500 and 1,000 different tiles; a tile run twice counts once", function(t)
  local a = with(t, "a", "2026-05-01", block(1000, 2000, 60, 1))     -- 60 tiles
  local b = with(t, "b", "2026-05-02", block(1000, 2000, 60, 1))     -- the same 60: nothing new
  local c = with(t, "c", "2026-05-03", block(1030, 2000, 70, 1))     -- 40 new: 100
  local d = with(t, "d", "2026-05-04", block(1000, 2001, 450, 1))    -- 450 new: 550
  local e = with(t, "e", "2026-05-05", block(1000, 2002, 449, 1))    -- 449 new: 999
  local f = with(t, "f", "2026-05-06", block(1000, 2003, 1, 1))      -- 1,000
  local result = t.evaluate({ a, b, c, d, e, f }, { rule = "tiles" })
  t.expect_award(result, { badge = "explorer-100", run = c })
  t.expect_award(result, { badge = "explorer-500", run = d })
  t.expect_no_award(result, { badge = "explorer-1000", run = e })
  t.expect_award(result, { badge = "explorer-1000", run = f })
end)

test("new ground: ten tiles never run through before, in one run", function(t)
  local a = with(t, "a", "2026-05-01", block(10, 10, 9, 1))     -- 9 new
  local b = with(t, "b", "2026-05-02", block(10, 10, 18, 1))    -- 9 new again
  local c = with(t, "c", "2026-05-03", block(10, 11, 10, 1))    -- 10 new
  local result = t.evaluate({ a, b, c }, { rule = "tiles" })
  t.expect_no_award(result, { badge = "new-ground", run = a })
  t.expect_no_award(result, { badge = "new-ground", run = b })
  t.expect_award(result, { badge = "new-ground", run = c })
end)

test("squares: 5x5 and 10x10 of visited tiles, built over several runs", function(t)
  local a = with(t, "a", "2026-05-01", block(100, 100, 5, 4))     -- 5 wide, 4 high: no square of 5
  local b = with(t, "b", "2026-05-02", block(100, 104, 5, 1))     -- the fifth row: 5x5
  local c = with(t, "c", "2026-05-03", block(100, 100, 10, 9))    -- 10x9: not 10x10
  local d = with(t, "d", "2026-05-04", block(101, 109, 10, 1))    -- a row shifted by one: still 9 high under x = 100
  local e = with(t, "e", "2026-05-05", block(100, 109, 1, 1))     -- the missing corner: 10x10
  local result = t.evaluate({ a, b, c, d, e }, { rule = "tiles" })
  t.expect_no_award(result, { badge = "square-5", run = a })
  t.expect_award(result, { badge = "square-5", run = b })
  t.expect_no_award(result, { badge = "square-10", run = d })
  t.expect_award(result, { badge = "square-10", run = e })
  -- 20 + 5 + (90 - 25) + 10 + 1 tiles.
  t.expect_eq(t.explain(result, "explorer-500").hint, "101 of 500 tiles")
end)

test("max_square: size and top-left tile; false entries do not count; a non-key is an error", function(t)
  local set = {}
  for _, key in ipairs(block(7, 3, 3, 3)) do set[key] = true end
  set[7 * FACTOR + 3] = false
  -- A 3x3 block without its top-left tile: 2x2 squares at (8, 3), (7, 4) and (8, 4); the one with the
  -- smallest bottom-right key (x first) is given: (7, 4) to (8, 5).
  local size, x, y = badgectl.max_square(set)
  t.expect_eq(size, 2)
  t.expect_eq(x, 7)
  t.expect_eq(y, 4)
  t.expect_eq(badgectl.max_square({}), 0)
  local ok, message = pcall(badgectl.max_square, { a = true })
  t.expect_eq(ok, false)
  t.expect(message:find("expected a set of tile keys", 1, true) ~= nil, message)
end)
