-- What the rule and league.lua share: the challenges checked once (a mistake in lib/list.lua fails
-- the pack with the entry and field), what a run adds and how a total reads.
local list = require("lib.list")

local MEASURES = { distance = true, runs = true, time = true }

local function date_ok(text)
  if type(text) ~= "string" or not text:match("^%d%d%d%d%-%d%d%-%d%d$") then return false end
  return pcall(badgectl.weekday, text)   -- a real calendar date
end

local seen = {}
for i, c in ipairs(list) do
  local where = ("lib/list.lua: challenges[%d]"):format(i)
  assert(type(c.id) == "string" and c.id:match("^[a-z0-9][a-z0-9%-]*$"), where .. ": 'id' must be a lower-case id (a-z, 0-9, -)")
  assert(not seen[c.id], where .. ": id '" .. c.id .. "' is used twice")
  seen[c.id] = true
  assert(date_ok(c.from), where .. " (" .. c.id .. "): 'from' must be a date YYYY-MM-DD")
  assert(date_ok(c.to), where .. " (" .. c.id .. "): 'to' must be a date YYYY-MM-DD")
  assert(c.from <= c.to, where .. " (" .. c.id .. "): 'from' must not be after 'to'")
  assert(MEASURES[c.measure], where .. " (" .. c.id .. "): 'measure' must be distance, runs or time")
  assert(type(c.target) == "number" and c.target > 0, where .. " (" .. c.id .. "): 'target' must be a number above 0")
  assert(c.club == nil or c.club == true or (type(c.club) == "string" and c.club ~= ""),
    where .. " (" .. c.id .. "): 'club' must be a team's name or true (every team)")
end

local M = { list = list }

-- The personal challenges (no club), in the list's order.
M.personal = {}
for _, c in ipairs(list) do if c.club == nil then M.personal[#M.personal + 1] = c end end

function M.within(c, date) return date >= c.from and date <= c.to end

-- What a run adds to a challenge of `measure`: metres, one run, seconds.
function M.amount(measure, run)
  if measure == "distance" then return run.distance_m end
  if measure == "runs" then return 1 end
  return run.moving_s or run.elapsed_s or 0.0
end

-- A day of a team (league.lua's group.days) for `measure`.
function M.day_amount(measure, day)
  if measure == "distance" then return day.distance_m end
  if measure == "runs" then return day.runs end
  return day.time_s
end

function M.shown(measure, value)
  if measure == "distance" then return badgectl.format_distance(value) end
  if measure == "runs" then return ("%d %s"):format(value, value == 1 and "run" or "runs") end
  return badgectl.format_duration(value)
end

function M.progress(measure, total, target)
  if measure == "distance" then return { current = math.min(total, target) / 1000, target = target / 1000, unit = "km" } end
  if measure == "runs" then return { current = math.min(total, target), target = target, unit = "runs" } end
  return { current = math.min(total, target) / 3600, target = target / 3600, unit = "h" }
end

return M
