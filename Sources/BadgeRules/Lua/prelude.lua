-- Trusted Lua run once per state, before any rule: it strips `string.dump`, protects the string
-- metatable, defines the `badgectl` helpers and returns `make_env(pack_name, print, loader)`, which
-- builds one pack's environment from the allow list. Rules never see the host globals it runs in.
-- Embedded at build time (Package.swift: resources .embedInCode); loaded by `Preludes.rules`.
-- The host's badgectl.zone_offset_s, and its figure texts (FigureText: what every table and the
-- report write) behind format_distance, format_duration, format_pace and format_tier_pace (Prelude.runRules).
local zone_offset_s, figure_distance, figure_duration, figure_pace, figure_tier_pace = ...
local sorted_pairs = badgectl_sorted_pairs
badgectl_sorted_pairs = nil
local fast_ipairs = badgectl_ipairs
badgectl_ipairs = nil
local max_square = badgectl_max_square
badgectl_max_square = nil
local G = _G
local real_setmetatable, rawget, rawset, type, error, ipairs, next = setmetatable, rawget, rawset, type, error, ipairs, next
local rawlen = rawlen
local tostring, tonumber, math_type, floor, huge = tostring, tonumber, math.type, math.floor, math.huge
local format, match = string.format, string.match
local string_lib, table_lib, math_lib, utf8_lib = string, table, math, utf8

string.dump = nil
getmetatable("").__metatable = false

local function copy(t, except)
  local out = {}
  for k, v in next, t do
    if not (except and except[k]) then out[k] = v end
  end
  return out
end

-- Proleptic Gregorian calendar (Howard Hinnant's algorithms), floor division throughout.
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = y // 400
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = (153 * mp + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end

local function civil_from_days(z)
  z = z + 719468
  local era = z // 146097
  local doe = z - era * 146097
  local yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
  local mp = (5 * doy + 2) // 153
  local d = doy - (153 * mp + 2) // 5 + 1
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then y = y + 1 end
  return y, m, d
end

local function parse_date(text, name)
  if type(text) ~= "string" then
    error(format("badgectl.%s: expected a date 'YYYY-MM-DD', got %s", name, type(text)), 3)
  end
  local ys, ms, ds = match(text, "^(%d%d%d%d)%-(%d%d)%-(%d%d)$")
  if not ys then
    error(format("badgectl.%s: expected a date 'YYYY-MM-DD', got '%s'", name, text), 3)
  end
  local y, m, d = tonumber(ys) // 1, tonumber(ms) // 1, tonumber(ds) // 1
  local days = days_from_civil(y, m, d)
  local cy, cm, cd = civil_from_days(days)
  if cy ~= y or cm ~= m or cd ~= d then
    error(format("badgectl.%s: '%s' is not a calendar date", name, text), 3)
  end
  return y, m, d, days
end

local function check_number(value, name, what)
  if type(value) ~= "number" or value ~= value or value == huge or value == -huge then
    error(format("badgectl.%s: expected %s (a finite number), got %s", name, what,
      type(value) == "number" and tostring(value) or type(value)), 3)
  end
end

local helpers = {}

function helpers.date_parts(date)
  local y, m, d = parse_date(date, "date_parts")
  return y, m, d
end

function helpers.days_between(a, b)
  local _, _, _, da = parse_date(a, "days_between")
  local _, _, _, db = parse_date(b, "days_between")
  return db - da
end

function helpers.add_days(date, n)
  local _, _, _, days = parse_date(date, "add_days")
  if math_type(n) ~= "integer" then
    if math_type(n) == "float" and n == floor(n) then n = floor(n) else
      error("badgectl.add_days: expected a whole number of days, got " .. tostring(n), 2)
    end
  end
  local y, m, d = civil_from_days(days + n)
  return format("%04d-%02d-%02d", y, m, d)
end

function helpers.weekday(date)
  local _, _, _, days = parse_date(date, "weekday")
  return (days + 3) % 7 + 1
end

function helpers.iso_week(date)
  local _, _, _, days = parse_date(date, "iso_week")
  local weekday = (days + 3) % 7 + 1
  local thursday = days - weekday + 4
  local year = civil_from_days(thursday)
  return year, (thursday - days_from_civil(year, 1, 1)) // 7 + 1
end

-- The figures as the command line writes them, by the host's one formatter (FigureText): a figure
-- that is not one (infinite, past 10^10) is "—", never a trap.
function helpers.format_pace(seconds_per_km)
  check_number(seconds_per_km, "format_pace", "seconds per km")
  if seconds_per_km < 0 then error("badgectl.format_pace: expected seconds per km ≥ 0, got " .. tostring(seconds_per_km), 2) end
  return figure_pace(seconds_per_km)
end

function helpers.format_duration(seconds)
  check_number(seconds, "format_duration", "seconds")
  return figure_duration(seconds)
end

function helpers.format_distance(meters)
  check_number(meters, "format_distance", "meters")
  return figure_distance(meters)
end

function helpers.format_tier_pace(target_s_per_km)
  check_number(target_s_per_km, "format_tier_pace", "seconds per km")
  if target_s_per_km <= 0 then error("badgectl.format_tier_pace: expected seconds per km > 0, got " .. tostring(target_s_per_km), 2) end
  return figure_tier_pace(target_s_per_km)
end

-- A zone's UTC offset at an instant, from the tz database (the host's TimeZone): summer time included.
helpers.zone_offset_s = zone_offset_s

-- Map tiles (the tiles measure): a key is x * 2^24 + y.
helpers.max_square = max_square

function helpers.tile_xy(key)
  if math_type(key) ~= "integer" or key < 0 then
    error("badgectl.tile_xy: expected a tile key (an integer x * 2^24 + y), got " .. tostring(key), 2)
  end
  return key // 16777216, key % 16777216
end

-- Streaks (badgectl.streak_new / badgectl.streak_add): the streak is a plain table the rule keeps in its
-- state (so it is saved with it). Periods are numbered: a day is its day number, an ISO week the number of
-- its Monday // 7; a rolling window of n days continues while runs are at most n days apart.
local STREAK_UNITS = { day = true, week = true, window = true }

local function whole(value, name, field, minimum, level)
  if value == nil then return nil end
  if math_type(value) == "float" and value == floor(value) then value = floor(value) end
  if math_type(value) ~= "integer" or value < minimum then
    error(format("badgectl.%s: %s must be a whole number ≥ %d, got %s", name, field, minimum, tostring(value)), level or 3)
  end
  return value
end

-- The sliding-window grace `grace = { days = n, per = w }` (`weeks = n` for a week streak): at most n
-- missed periods in any w periods in a row. Anything else in the table is refused by name.
local function read_grace(spec, unit)
  local grace = spec.grace
  if grace == nil then return nil, nil end
  local word = unit == "week" and "weeks" or "days"
  local usage = format("grace = { %s = n, per = w } (at most n missed %s in any w %s in a row)", word, word, word)
  if unit == "window" then error("badgectl.streak_new: grace goes with unit = \"day\" or \"week\" (a window streak already allows gaps)", 3) end
  if type(grace) ~= "table" then error("badgectl.streak_new: expected " .. usage .. ", got " .. type(grace), 3) end
  if spec.grace_every ~= nil then error("badgectl.streak_new: give grace_every (banked) or grace (a sliding window), not both", 3) end
  for key in next, grace do
    if key ~= word and key ~= "per" then
      local stem = type(key) == "string" and key:sub(1, 3) or ""
      local hint = (stem == "day" or stem == "wee" or stem == "mis") and format("; did you mean '%s'?", word) or ""
      error(format("badgectl.streak_new: unknown key '%s' in grace (expected %s)%s", tostring(key), usage, hint), 3)
    end
  end
  local missed = whole(grace[word], "streak_new", "grace." .. word, 1, 4)
  local per = whole(grace.per, "streak_new", "grace.per", 2, 4)
  if missed == nil or per == nil then error("badgectl.streak_new: expected " .. usage, 3) end
  if missed >= per then error(format("badgectl.streak_new: grace.%s (%d) must be less than grace.per (%d)", word, missed, per), 3) end
  return missed, per
end

function helpers.streak_new(spec)
  spec = spec or {}
  if type(spec) ~= "table" then error("badgectl.streak_new: expected a table { unit = \"day\" | \"week\" | \"window\", ... }", 2) end
  local unit = spec.unit or "day"
  if not STREAK_UNITS[unit] then
    error(format("badgectl.streak_new: unit must be \"day\", \"week\" or \"window\", got %s", tostring(unit)), 2)
  end
  local window = whole(spec.window_days, "streak_new", "window_days", 1)
  if unit == "window" and window == nil then error("badgectl.streak_new: a \"window\" streak needs window_days", 2) end
  if unit ~= "window" and window ~= nil then error("badgectl.streak_new: window_days goes with unit = \"window\"", 2) end
  local grace_missed, grace_per = read_grace(spec, unit)
  return { unit = unit, window_days = window, grace_every = whole(spec.grace_every, "streak_new", "grace_every", 1),
           grace_missed = grace_missed, grace_per = grace_per, missed = grace_per and {} or nil,
           length = 0, best = 0, forgiven = 0, earned_grace = 0, first = nil, last = nil, last_period = nil }
end

-- Sliding-window grace: whether the periods from `from` to `to` (both missed) can be forgiven, so that no
-- window of grace_per periods in a row holds more than grace_missed missed ones. A window whose last missed
-- period is an older one was checked when that one was added, so only windows ending at a new one are.
-- Keeps only the missed periods a later window can still reach.
local function sliding_forgives(streak, from, to)
  local missed, limit, per = streak.missed or {}, streak.grace_missed, streak.grace_per
  if to - from + 1 > limit then return false end
  local kept = {}
  for _, period in ipairs(missed) do
    if period > from - per then kept[#kept + 1] = period end
  end
  for period = from, to do kept[#kept + 1] = period end
  for i = #kept - (to - from), #kept do
    local count = 0
    for j = i, 1, -1 do
      if kept[j] <= kept[i] - per then break end
      count = count + 1
    end
    if count > limit then return false end
  end
  local reachable = {}
  for _, period in ipairs(kept) do
    if period > to - per then reachable[#reachable + 1] = period end
  end
  streak.missed = reachable
  return true
end

function helpers.streak_add(streak, date)
  if type(streak) ~= "table" or not STREAK_UNITS[streak.unit] then
    error("badgectl.streak_add: expected a streak made by badgectl.streak_new", 2)
  end
  local _, _, _, days = parse_date(date, "streak_add")
  local period = days
  if streak.unit == "week" then period = (days + 3) // 7 end   -- day 0 (1970-01-01) is a Thursday: weeks from Monday
  local last = streak.last_period
  if last ~= nil and period < last then
    error(format("badgectl.streak_add: %s is before the streak's last date %s (give runs in date order)", date, streak.last), 2)
  end
  if last ~= nil and period == last then return streak.length, false end
  local continues = false
  if last ~= nil then
    if streak.unit == "window" then
      continues = period - last <= streak.window_days
    else
      local missed = period - last - 1
      if missed == 0 then
        continues = true
      elseif streak.grace_per ~= nil then
        if sliding_forgives(streak, last + 1, period - 1) then
          continues = true
          streak.forgiven = streak.forgiven + missed
        end
      elseif streak.grace_every ~= nil then
        -- One missed period forgiven for every grace_every periods run in this streak.
        local available = streak.length // streak.grace_every - streak.earned_grace
        if missed <= available then
          continues = true
          streak.earned_grace = streak.earned_grace + missed
          streak.forgiven = streak.forgiven + missed
        end
      end
    end
  end
  if continues then
    if streak.unit == "window" then
      streak.length = period - streak.first_period + 1
    else
      streak.length = streak.length + 1
    end
  else
    streak.length, streak.first, streak.first_period, streak.forgiven, streak.earned_grace = 1, date, period, 0, 0
    if streak.grace_per ~= nil then streak.missed = {} end
  end
  streak.last, streak.last_period = date, period
  if streak.length > streak.best then streak.best = streak.length end
  return streak.length, true
end

-- A saved map (`badgectl add`): a large map of a fold's saved state (a total per day, per week) kept
-- one key a row in the state database and read by key when the rule reads it. The host makes one
-- per map with its two loaders (one key; every key) through `badgectl_saved_map`, which it takes out
-- of the globals. Rules see a table: reads, writes, nil deletes, pairs, next, #, ipairs, rawget,
-- rawset and rawlen behave as on a plain table (pairs, next and # read every key first); only
-- getmetatable differs (false). What the host saves: the keys written (`dirty`), from `cache`.
-- A proxy holds its map under MAP, a key no rule can name (rawget, next and pairs on a proxy go through
-- the functions below): nothing outlives the proxy, so a reused state ends as it was marked.
local MAP = {}
local function map_of(t)
  if type(t) == "table" then return rawget(t, MAP) end
  return nil
end

local function complete(m)
  if not m.complete then
    for k, v in next, m.load_all() do
      if not m.dirty[k] and m.cache[k] == nil then m.cache[k] = v end
    end
    m.complete = true
  end
end

badgectl_saved_map = function(load_one, load_all)
  local m = { cache = {}, dirty = {}, missing = {}, complete = false, load_all = load_all }
  local proxy = {}
  real_setmetatable(proxy, {
    __metatable = false,
    __index = function(_, k)
      local v = m.cache[k]
      if v ~= nil or k == nil or m.complete or m.dirty[k] or m.missing[k] then return v end
      v = load_one(k)
      if v == nil then m.missing[k] = true else m.cache[k] = v end
      return v
    end,
    __newindex = function(_, k, v)
      m.cache[k] = v  -- a nil or NaN key fails here, as on a plain table
      m.dirty[k] = true
    end,
    __len = function() complete(m); return #m.cache end,
    __pairs = function() complete(m); return sorted_pairs(m.cache) end,
  })
  rawset(proxy, MAP, m)
  return proxy, m
end

local function saved_next(t, k)
  local m = map_of(t)
  if m then complete(m); return next(m.cache, k) end
  return next(t, k)
end
local function saved_rawget(t, k)
  if map_of(t) then return t[k] end
  return rawget(t, k)
end
local function saved_rawset(t, k, v)
  if map_of(t) then t[k] = v; return t end
  return rawset(t, k, v)
end
local function saved_rawlen(t)
  if map_of(t) then return #t end
  return rawlen(t)
end

local allowed = { "assert", "error", "ipairs", "next", "pcall", "xpcall", "select", "tonumber", "tostring",
  "type", "rawequal", "rawget", "rawlen", "rawset", "getmetatable" }

local function safe_setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: __gc metamethods are not allowed in rules", 2)
  end
  return real_setmetatable(t, mt)
end

local LOADING = {}

return function(pack_name, print_function, loader)
  local env = {}
  for _, name in ipairs(allowed) do env[name] = G[name] end
  env.pairs = sorted_pairs
  env.ipairs = fast_ipairs
  env.next = saved_next  -- these four see through saved maps; on other tables they are Lua's
  env.rawget = saved_rawget
  env.rawset = saved_rawset
  env.rawlen = saved_rawlen
  env.setmetatable = safe_setmetatable
  env.print = print_function
  env.string = copy(string_lib)
  env.table = copy(table_lib)
  env.math = copy(math_lib, { random = true, randomseed = true })
  env.utf8 = copy(utf8_lib)
  env.badgectl = copy(helpers)
  env._G = env
  env._VERSION = _VERSION
  local cache = {}
  env.require = function(name)
    if type(name) ~= "string" then
      error("require: expected a module name (a string), got " .. type(name), 2)
    end
    local value = cache[name]
    if value == LOADING then error("require: module '" .. name .. "' requires itself", 2) end
    if value ~= nil then return value end
    local chunk = loader(name)
    cache[name] = LOADING
    local result = chunk(name)
    if result == nil then result = true end
    cache[name] = result
    return result
  end
  -- Pack globals are frozen once the pack's files are loaded (the host calls the second result):
  -- state lives only in what init/on_run return, which the host can save (evaluate --state).
  local frozen = false
  real_setmetatable(env, { __metatable = false, __newindex = function(t, k, v)
    if frozen then
      error(format("pack globals are frozen after loading: a rule cannot set '%s'; keep what changes in the state init/on_run return", tostring(k)), 2)
    end
    rawset(t, k, v)
  end })
  return env, function() frozen = true end
end
