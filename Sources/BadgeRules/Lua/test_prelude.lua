-- Trusted Lua that gives a test file its API (`test`, `skip`, the `t` object, see TESTAPI.md).
-- Run once per test state after prelude.lua, in the host globals; called with the test file's
-- environment and the host functions, it adds `test` and `skip` to that environment and returns
-- the controller Swift drives: `count()`, `info(i)` -> name, skip, where and `run(i)`.
--
-- Host functions (C trampolines into the test host): `run(spec)` -> run, `evaluate(ids, opts)`
-- -> result (opts: rule, catalogue, athlete, zone, allow_failures), `fail(level, message, expected, got)` records a failure at the Lua
-- position `level` levels above the function that called it, `where(level)`.
-- Expectation functions never tail-call `fail`, so the caller's frame is still there.
-- Embedded at build time (Package.swift: resources .embedInCode); loaded by `Preludes.tests`.
local env, h_run, h_evaluate, h_fail, h_where = ...
local type, tostring, ipairs, next, error, select = type, tostring, ipairs, next, error, select
local setmetatable, getmetatable, math_type, abs, tonumber = setmetatable, getmetatable, math.type, math.abs, tonumber
local format, find, concat, sort = string.format, string.find, table.concat, table.sort

local tests = {}

local function describe(value, depth)
  depth = depth or 0
  local kind = type(value)
  if kind == "string" then return format("%q", value) end
  if kind == "number" then
    if math_type(value) == "float" and value == value and value ~= 1/0 and value ~= -1/0 and value % 1 ~= 0 then
      -- As written: the shortest form that reads back as the same number (never 1.78198e+09).
      for digits = 15, 16 do
        local text = format("%." .. digits .. "g", value)
        if tonumber(text) == value then return text end
      end
      return format("%.17g", value)
    end
    return tostring(value)
  end
  if kind ~= "table" then return tostring(value) end
  if depth > 3 then return "{...}" end
  local parts, n = {}, #value
  for i = 1, n do parts[#parts + 1] = describe(value[i], depth + 1) end
  local keys = {}
  for k in next, value do
    if not (math_type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local key = (type(k) == "string" and find(k, "^[%a_][%w_]*$")) and k or ("[" .. describe(k) .. "]")
    parts[#parts + 1] = key .. " = " .. describe(value[k], depth + 1)
  end
  if #parts == 0 then return "{}" end
  return "{ " .. concat(parts, ", ") .. " }"
end

local function deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in next, a do
    if not deep_equal(v, b[k]) then return false end
  end
  for k in next, b do
    if a[k] == nil then return false end
  end
  return true
end

-- A run made by t.run is the real (strict) run proxy: reading a field it lacks raises, so ask safely.
local function run_id(run)
  if type(run) == "table" then return run.id end
  if type(run) == "userdata" then
    local ok, id = pcall(function() return run.id end)
    if ok and type(id) == "string" then return id end
    return nil
  end
  return run
end

local function award_text(a)
  return format("%s/%s run %s", tostring(a.badge), tostring(a.tier), tostring(a.run))
end

local function awards_text(list)
  if list == nil or #list == 0 then return "no awards" end
  local lines = {}
  for i, a in ipairs(list) do lines[i] = award_text(a) end
  return concat(lines, "; ")
end

local SPEC_KEYS = { "badge", "tier", "run", "rule", "pack", "detail" }

local function spec_text(spec)
  local parts = {}
  for _, key in ipairs(SPEC_KEYS) do
    local value = spec[key]
    if value ~= nil then
      if key == "run" then value = run_id(value) end
      parts[#parts + 1] = key .. "=" .. tostring(value)
    end
  end
  if spec.detail_match ~= nil then parts[#parts + 1] = "detail_match=" .. describe(spec.detail_match) end
  return "{" .. concat(parts, " ") .. "}"
end

-- The award of `awards` (those `skip` does not mark) that agrees with the most fields of `spec`,
-- then each field of the spec against it: "closest: <award>" and one line per field.
local function closest_text(awards, spec, skip)
  local best, best_score = nil, -1
  for i, a in ipairs(awards) do
    if not (skip and skip[i]) then
      local score = 0
      for _, key in ipairs(SPEC_KEYS) do
        local want = spec[key]
        if key == "run" then want = run_id(want) end
        if want ~= nil and a[key] == want then score = score + 1 end
      end
      if spec.detail_match ~= nil and find(a.detail or "", spec.detail_match) then score = score + 1 end
      if score > best_score then best, best_score = a, score end
    end
  end
  if best == nil then return nil end
  local lines = { "closest: " .. award_text(best) }
  for _, key in ipairs(SPEC_KEYS) do
    local want = spec[key]
    if key == "run" then want = run_id(want) end
    if want ~= nil then
      if best[key] == want then
        lines[#lines + 1] = format("  %-13s ok (%s)", key, describe(want))
      else
        lines[#lines + 1] = format("  %-13s expected %s, got %s", key, describe(want), describe(best[key]))
      end
    end
  end
  if spec.detail_match ~= nil then
    local ok = find(best.detail or "", spec.detail_match) ~= nil
    lines[#lines + 1] = format("  %-13s %s %s: detail %s", "detail_match", ok and "ok," or "pattern",
      describe(spec.detail_match), ok and describe(best.detail) or ("does not match " .. describe(best.detail)))
  end
  return concat(lines, "\n")
end

local function with_closest(got, awards, spec, skip)
  local closest = closest_text(awards, spec, skip)
  return closest and (got .. "\n" .. closest) or got
end

local function matches(award, spec)
  for _, key in ipairs(SPEC_KEYS) do
    local want = spec[key]
    if want ~= nil then
      if key == "run" then want = run_id(want) end
      if award[key] ~= want then return false end
    end
  end
  if spec.detail_match ~= nil and not find(award.detail or "", spec.detail_match) then return false end
  return true
end

local function check_result(result, name)
  if type(result) ~= "table" or type(result.awards) ~= "table" then
    error(format("t.%s: expected the result of t.evaluate as first argument, got %s", name, type(result)), 3)
  end
end

local function check_spec(spec, name)
  if type(spec) ~= "table" then
    error(format("t.%s: expected an award pattern { badge =, tier =, run = }, got %s", name, type(spec)), 3)
  end
end

local function make_t()
  local t = {}

  function t.run(spec)
    if type(spec) ~= "table" then error("t.run: expected a table { distance_km =, duration =, ... }, got " .. type(spec), 2) end
    return h_run(spec)
  end

  function t.evaluate(runs, opts)
    if type(runs) ~= "table" then error("t.evaluate: expected an array of runs, got " .. type(runs), 2) end
    if opts ~= nil and type(opts) ~= "table" then error("t.evaluate: options must be a table { rule =, catalogue =, athlete =, zone =, allow_failures = }, got " .. type(opts), 2) end
    opts = opts or {}
    local ids = {}
    for i = 1, #runs do
      local id = run_id(runs[i])
      if type(id) ~= "string" then error(format("t.evaluate: runs[%d] is not a run (made by t.run) or a run id", i), 2) end
      ids[i] = id
    end
    -- The host checks every option key (an unknown one is an error, with "did you mean").
    local result = h_evaluate(ids, opts)
    if #result.failures > 0 and not opts.allow_failures then
      local lines = {}
      for i, f in ipairs(result.failures) do lines[i] = f.text end
      h_fail(2, "t.evaluate: a rule failed (pass allow_failures = true to test failures)", "no rule failures", concat(lines, "\n"))
    end
    return result
  end

  function t.explain(result, badge)
    check_result(result, "explain")
    if type(badge) ~= "string" then error("t.explain: expected a badge id (a string), got " .. type(badge), 2) end
    local why = { badge = badge, awards = {} }
    for _, s in ipairs(result.statuses) do
      if s.badge == badge then
        why.rule, why.pack, why.hint, why.progress = s.rule, s.pack, s.hint, s.progress
        why.silver_pace_s_per_km, why.gold_pace_s_per_km = s.silver_pace_s_per_km, s.gold_pace_s_per_km
        break
      end
    end
    local tiers = {}
    for _, a in ipairs(result.awards) do
      if a.badge == badge then
        why.awards[#why.awards + 1] = a
        tiers[a.tier] = true
      end
    end
    why.status = (tiers.gold and "gold") or (tiers.silver and "silver") or (tiers.earned and "earned")
      or (why.awards[1] and why.awards[1].tier) or "not earned"
    if result.next ~= nil and result.next.badge == badge then why.remaining_m = result.next.remaining_m end
    return why
  end

  -- t.athletes{ segment = "places.park", { athlete = "ana", best_s = 260, at = "2026-03-01T06:33:14Z",
  -- efforts = 3, recent_efforts = 2 }, ... }: a segment group as `badgectl league` hands it to a pack's
  -- league.lua segment(): athletes fastest first (an equal time by the earlier `at`, then by name),
  -- each with its rank. `at` defaults to 2026-01-01T00:00:00Z, `efforts` to 1, `recent_efforts` to `efforts`.
  function t.athletes(spec)
    if type(spec) ~= "table" then error("t.athletes: expected a table { segment =, { athlete =, best_s = }, ... }, got " .. type(spec), 2) end
    local list = {}
    for i, e in ipairs(spec) do
      if type(e) ~= "table" or type(e.athlete) ~= "string" or type(e.best_s) ~= "number" then
        error(format("t.athletes: entry %d needs athlete (a string) and best_s (a number)", i), 2)
      end
      local efforts = e.efforts or 1
      list[i] = { athlete = e.athlete, best_s = e.best_s + 0.0, at = e.at or "2026-01-01T00:00:00Z", efforts = efforts,
                  recent_efforts = e.recent_efforts or efforts }
    end
    sort(list, function(a, b)
      if a.best_s ~= b.best_s then return a.best_s < b.best_s end
      if a.at ~= b.at then return a.at < b.at end
      return a.athlete < b.athlete
    end)
    for i, e in ipairs(list) do e.rank = i end
    return { segment = spec.segment or "", athletes = list }
  end

  -- t.team{ team = "red", members = { "ana", "ben" }, distance_m = 120000 }: a team group as
  -- `badgectl league` hands it to league.lua's team() (members sorted; missing totals 0, the period
  -- 2026-01-01 to 2026-01-29).
  function t.team(spec)
    if type(spec) ~= "table" or type(spec.team) ~= "string" then error("t.team: expected a table { team = <string>, members =, distance_m =, ... }", 2) end
    local members = {}
    for i, m in ipairs(spec.members or {}) do members[i] = m end
    sort(members)
    -- days = { { date = "2026-12-01", distance_m = 5000 }, ... }: sorted by date, missing totals 0.
    local days = {}
    for i, d in ipairs(spec.days or {}) do
      if type(d) ~= "table" or type(d.date) ~= "string" then error(format("t.team: days[%d] must be a table { date = \"YYYY-MM-DD\", distance_m =, ... }", i), 2) end
      days[i] = { date = d.date, distance_m = (d.distance_m or 0) + 0.0, climb_m = (d.climb_m or 0) + 0.0,
                  runs = d.runs or 1, time_s = (d.time_s or 0) + 0.0 }
    end
    sort(days, function(a, b) return a.date < b.date end)
    return { team = spec.team, members = members, distance_m = (spec.distance_m or 0) + 0.0, climb_m = (spec.climb_m or 0) + 0.0,
             runs = spec.runs or 0, time_s = (spec.time_s or 0) + 0.0, from = spec.from or "2026-01-01T00:00:00Z",
             to = spec.to or "2026-01-29T00:00:00Z", days = days }
  end

  function t.expect(condition, message)
    if not condition then
      h_fail(2, message or "expectation failed", "a true value", describe(condition))
    end
  end

  function t.expect_eq(got, expected, message)
    if not deep_equal(got, expected) then
      h_fail(2, message or "values differ", describe(expected), describe(got))
    end
  end

  function t.expect_near(got, expected, tolerance, message)
    tolerance = tolerance or 1e-9
    if type(got) ~= "number" or type(expected) ~= "number" or abs(got - expected) > tolerance then
      h_fail(2, message or "numbers differ", describe(expected) .. " ± " .. describe(tolerance), describe(got))
    end
  end

  function t.expect_match(text, pattern, message)
    if type(text) ~= "string" or not find(text, pattern) then
      h_fail(2, message or "text does not match", "text matching " .. describe(pattern), describe(text))
    end
  end

  function t.expect_award(result, spec, message)
    check_result(result, "expect_award")
    check_spec(spec, "expect_award")
    for _, a in ipairs(result.awards) do
      if matches(a, spec) then return end
    end
    h_fail(2, message or ("no award " .. spec_text(spec)), spec_text(spec),
      with_closest(awards_text(result.awards), result.awards, spec))
  end

  function t.expect_no_award(result, spec, message)
    check_result(result, "expect_no_award")
    check_spec(spec, "expect_no_award")
    local found = {}
    for _, a in ipairs(result.awards) do
      if matches(a, spec) then found[#found + 1] = a end
    end
    if #found > 0 then
      h_fail(2, message or ("unexpected award " .. spec_text(spec)), "no award " .. spec_text(spec), awards_text(found))
    end
  end

  -- Exactly these awards (any order): an array of patterns, each matching one award.
  function t.expect_awards(result, specs, message)
    check_result(result, "expect_awards")
    if type(specs) ~= "table" then error("t.expect_awards: expected an array of award patterns, got " .. type(specs), 2) end
    local used, missing, first_missing = {}, {}, nil
    for _, spec in ipairs(specs) do
      local hit = false
      for i, a in ipairs(result.awards) do
        if not used[i] and matches(a, spec) then used[i], hit = true, true; break end
      end
      if not hit then
        missing[#missing + 1] = spec_text(spec)
        first_missing = first_missing or spec
      end
    end
    local extra = {}
    for i, a in ipairs(result.awards) do
      if not used[i] then extra[#extra + 1] = award_text(a) end
    end
    if #missing > 0 or #extra > 0 then
      local expected = {}
      for i, spec in ipairs(specs) do expected[i] = spec_text(spec) end
      local what = {}
      if #missing > 0 then what[#what + 1] = "missing " .. concat(missing, ", ") end
      if #extra > 0 then what[#what + 1] = "unexpected " .. concat(extra, ", ") end
      local got = awards_text(result.awards)
      -- The first missing pattern against the closest award no other pattern took.
      if first_missing ~= nil then got = with_closest(got, result.awards, first_missing, used) end
      h_fail(2, (message and (message .. ": ") or "") .. concat(what, "; "),
        #expected > 0 and concat(expected, "; ") or "no awards", got)
    end
  end

  function t.expect_note(result, pattern, message)
    check_result(result, "expect_note")
    local texts = {}
    for i, n in ipairs(result.notes) do
      if find(n.message, pattern) then return end
      texts[i] = n.message
    end
    h_fail(2, message or "no matching note", "a note matching " .. describe(pattern),
      #texts > 0 and concat(texts, "; ") or "no notes")
  end

  return t
end

local function declare(name, fn, skipped, api)
  if type(name) ~= "string" or name == "" then error(api .. ": expected a test name (a string), got " .. type(name), 3) end
  if type(fn) ~= "function" then error(api .. ": expected a function(t) after the name, got " .. type(fn), 3) end
  tests[#tests + 1] = { name = name, fn = fn, skip = skipped, where = h_where(3) }
end

env.test = function(name, fn) declare(name, fn, false, "test") end
env.skip = function(name, fn) declare(name, fn, true, "skip") end

return {
  count = function() return #tests end,
  info = function(i) local test = tests[i]; return test.name, test.skip, test.where end,
  run = function(i) tests[i].fn(make_t()) end,
  describe = describe,
}
