-- badgectl.streak_new / streak_add by hand, the weekly streak and the Eddington number.

local function day(t, id, date, km)
  return t.run{ id = id, date = date, distance_km = km or 5, duration = "30:00" }
end

test("a daily streak: same day counts once, a gap restarts, best is kept", function(t)
  local s = badgectl.streak_new{ unit = "day" }
  t.expect_eq({ badgectl.streak_add(s, "2025-03-01") }, { 1, true })
  t.expect_eq({ badgectl.streak_add(s, "2025-03-01") }, { 1, false })     -- another run that day
  t.expect_eq({ badgectl.streak_add(s, "2025-03-02") }, { 2, true })
  t.expect_eq({ badgectl.streak_add(s, "2025-03-03") }, { 3, true })
  t.expect_eq({ badgectl.streak_add(s, "2025-03-05") }, { 1, true })      -- the 4th missed: no grace
  t.expect_eq(s.best, 3)
  t.expect_eq(s.first, "2025-03-05")
end)

test("grace days: one missed day forgiven for every 3 days run", function(t)
  local s = badgectl.streak_new{ unit = "day", grace_every = 3 }
  for d = 1, 3 do badgectl.streak_add(s, ("2025-03-%02d"):format(d)) end  -- 3 days: one grace earned
  t.expect_eq(badgectl.streak_add(s, "2025-03-05"), 4)                     -- the 4th forgiven
  t.expect_eq(s.forgiven, 1)
  t.expect_eq(badgectl.streak_add(s, "2025-03-07"), 1)                     -- 4 run, 1 used: none left
  for d = 8, 13 do badgectl.streak_add(s, ("2025-03-%02d"):format(d)) end  -- 7 days run: two graces
  t.expect_eq(badgectl.streak_add(s, "2025-03-16"), 8)                     -- the 14th and 15th forgiven
  t.expect_eq(s.forgiven, 2)
end)

test("ISO weeks and rolling windows", function(t)
  local w = badgectl.streak_new{ unit = "week" }
  -- 2025-03-02 is a Sunday, 2025-03-03 the next Monday: two weeks; 2025-03-09 is that week's Sunday.
  badgectl.streak_add(w, "2025-03-02")
  t.expect_eq(badgectl.streak_add(w, "2025-03-03"), 2)
  t.expect_eq({ badgectl.streak_add(w, "2025-03-09") }, { 2, false })
  t.expect_eq(badgectl.streak_add(w, "2025-03-17"), 1)                     -- the week of the 10th missed
  local r = badgectl.streak_new{ unit = "window", window_days = 3 }
  badgectl.streak_add(r, "2025-03-01")
  t.expect_eq(badgectl.streak_add(r, "2025-03-04"), 4)                     -- 3 days apart: still on; 4 days spanned
  t.expect_eq(badgectl.streak_add(r, "2025-03-08"), 1)                     -- 4 apart: broken
  local function problem(f) local ok, message = pcall(f); t.expect_eq(ok, false); return tostring(message) end
  t.expect_match(problem(function() badgectl.streak_new{ unit = "window" } end), "needs window_days")
  t.expect_match(problem(function() badgectl.streak_new{ unit = "month" } end), "unit must be")
  t.expect_match(problem(function() badgectl.streak_add(r, "2025-03-07") end), "before the streak's last date")
end)

test("twelve ISO weeks in a row, one missed week forgiven after six", function(t)
  local runs = {}
  -- Mondays from 2025-01-06 (week 2): weeks 2 to 8 run, week 9 missed (forgiven: 7 run), weeks 10 to 14.
  for w = 0, 12 do
    if w ~= 7 then runs[#runs + 1] = day(t, "w" .. w, badgectl.add_days("2025-01-06", 7 * w)) end
  end
  local result = t.evaluate(runs, { rule = "weeks" })
  t.expect_award(result, { badge = "week-streak-12", run = runs[12], detail = "12 weeks from 2025-01-06 (1 forgiven)" })
  t.expect_eq(#result.awards, 1)
end)

test("Eddington number: a day's runs add up; 10, 25, 50 and 100 are a family", function(t)
  local runs = {}
  -- 9 days of 10 km, then a day of two 5 km runs: the 10th day of at least 10 km.
  for d = 1, 9 do runs[#runs + 1] = day(t, "a" .. d, badgectl.add_days("2024-01-01", d), 10) end
  runs[#runs + 1] = day(t, "b1", "2024-01-11", 5)
  runs[#runs + 1] = day(t, "b2", "2024-01-11", 5.2)
  local result = t.evaluate(runs, { rule = "eddington" })
  t.expect_award(result, { badge = "eddington-10", run = runs[11], detail = "Eddington number 10: 10 days of at least 10 km" })
  t.expect_eq(#result.awards, 1)
  t.expect_eq(t.explain(result, "eddington-25").hint, "Eddington number 10; 0 of 25 days of at least 25 km")
  -- 100 days of 100 km from 2024-02-01: 25 on the 25th, 50 on the 50th, 100 on the 100th.
  for d = 0, 99 do runs[#runs + 1] = day(t, "c" .. d, badgectl.add_days("2024-02-01", d), 100) end
  result = t.evaluate(runs, { rule = "eddington" })
  t.expect_award(result, { badge = "eddington-25", run = runs[11 + 25] })
  t.expect_award(result, { badge = "eddington-50", run = runs[11 + 50], detail = "Eddington number 50: 50 days of at least 50 km" })
  t.expect_award(result, { badge = "eddington-100", run = runs[11 + 100], detail = "Eddington number 100: 100 days of at least 100 km" })
  t.expect_eq(#result.awards, 4)
end)
