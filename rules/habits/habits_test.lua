-- Hand-made tables for the habits pack. Measures are set by name as the pack declares them
-- (t.run{ measures = { best3k = { elapsed_s = ... } } }), or computed from a run file in tests/fixtures.

local function at(t, id, date, clock, extra)
  local spec = { id = id, start = date .. "T" .. clock .. "Z", utc_offset_s = 0, distance_km = 5, duration = "30:00" }
  for k, v in pairs(extra or {}) do spec[k] = v end
  return t.run(spec)
end

test("early bird: the tenth run starting before 07:00 local", function(t)
  local runs = {}
  for day = 1, 10 do
    runs[#runs + 1] = at(t, "early" .. day, ("2026-03-%02d"):format(day), day == 5 and "07:00:00" or "06:59:00")
  end
  runs[#runs + 1] = at(t, "early11", "2026-03-11", "05:00:00")
  local result = t.evaluate(runs, { rule = "times" })
  t.expect_no_award(result, { badge = "early-bird", run = runs[10] })   -- 07:00 on day 5 does not count
  t.expect_award(result, { badge = "early-bird", run = runs[11] })
  t.expect_eq(#result.awards, 1)
end)

test("lunch runner: weekdays only, 12:00 up to but not including 14:00", function(t)
  local runs = {}
  -- 2026-03-02 is a Monday; weekends are skipped, 14:00 does not count.
  local days = { "02", "03", "04", "05", "06", "09", "10", "11", "12", "13", "14", "16" }
  for i, day in ipairs(days) do
    local clock = (day == "04") and "14:00:00" or "12:30:00"
    runs[#runs + 1] = at(t, "lunch" .. i, "2026-03-" .. day, clock)
  end
  local result = t.evaluate(runs, { rule = "times" })
  -- Counted: every weekday but the 4th (14:00); the 14th is a Saturday. The tenth is the 16th.
  t.expect_award(result, { badge = "lunch-runner", run = runs[12] })
  t.expect_eq(#result.awards, 1)
  t.expect_eq(t.explain(result, "night-owl").hint, "0 of 10 runs starting at 21:00 or later")
end)

test("night owl: ten runs starting at 21:00 or later", function(t)
  local runs = {}
  for day = 1, 10 do runs[#runs + 1] = at(t, "owl" .. day, ("2026-04-%02d"):format(day), day == 3 and "20:59:59" or "21:00:00") end
  runs[#runs + 1] = at(t, "owl11", "2026-04-11", "23:30:00")
  local result = t.evaluate(runs, { rule = "times" })
  t.expect_award(result, { badge = "night-owl", run = runs[11] })
  t.expect_eq(#result.awards, 1)
end)

test("sunrise run and before dawn, from the sun measure", function(t)
  local sunrise = 1782011881   -- 2026-06-21T03:18:01Z at Amsterdam
  local spans = t.run{ id = "spans", start = "2026-06-21T03:05:00Z", duration = "21:40", distance_km = 3.6,
    measures = { sun = { sunrise = "2026-06-21T03:18:01", sunrise_epoch_s = sunrise, spans_sunrise = true, daylight = false } } }
  local dark = t.run{ id = "dark", start = "2026-06-22T02:30:00Z", duration = "30:00", distance_km = 5,
    measures = { sun = { sunrise = "2026-06-22T03:18:15", sunrise_epoch_s = sunrise + 86414, spans_sunrise = false, daylight = false } } }
  local polar = t.run{ id = "polar", start = "2026-06-23T02:30:00Z", duration = "30:00", distance_km = 5,
    measures = { sun = { polar = "day", daylight = true } } }
  local result = t.evaluate({ spans, dark, polar }, { rule = "sun" })
  t.expect_award(result, { badge = "sunrise-run", run = spans })
  t.expect_award(result, { badge = "before-dawn", run = dark })
  t.expect_eq(#result.awards, 2)
end)

test("a run file in tests/fixtures gets the pack's measures computed", function(t)
  local run = t.run{ file = "tests/fixtures/midsummer-sunrise.gpx" }
  local sun = run.measures.sun
  t.expect_eq(sun.spans_sunrise, true)
  t.expect_eq(sun.sunrise:sub(12, 16), "03:18")
  t.expect_eq(run.measures.stops.count, 0)
  t.expect_eq(math.floor(run.measures.best3k.elapsed_s + 0.5), 1078)
  t.expect_eq(run.measures.best_hour, nil)   -- 21:40 of running: no hour
  t.expect_eq(run.measures.zone2, nil)       -- no athlete profile in tests
  local result = t.evaluate({ run }, { rule = "sun" })
  t.expect_award(result, { badge = "sunrise-run", run = run })
end)

test("zone-two hour: 60 minutes in zone 2 within one run", function(t)
  local a = t.run{ id = "a", date = "2026-05-01", distance_km = 10, duration = "1:05:00", measures = { zone2 = { seconds = 3599 } } }
  local b = t.run{ id = "b", date = "2026-05-02", distance_km = 12, duration = "1:10:00", measures = { zone2 = { seconds = 3600 } } }
  local result = t.evaluate({ a, b }, { rule = "zone2" })
  t.expect_no_award(result, { badge = "zone-two-hour", run = a })
  t.expect_award(result, { badge = "zone-two-hour", run = b })
end)

test("no-stop 10 km: 10 km or more without a stop of 10 s", function(t)
  local ok = t.run{ id = "ok", date = "2026-05-01", distance_km = 10, duration = "55:00", measures = { stops = { count = 0 } } }
  local short = t.run{ id = "short", date = "2026-05-02", distance_km = 9.99, duration = "55:00", measures = { stops = { count = 0 } } }
  local stopped = t.run{ id = "stopped", date = "2026-05-03", distance_km = 12, duration = "1:05:00",
                         measures = { stops = { count = 1, longest_s = 12, total_s = 12 } } }
  local unknown = t.run{ id = "unknown", date = "2026-05-04", distance_km = 12, duration = "1:05:00" }
  local result = t.evaluate({ ok, short, stopped, unknown }, { rule = "nonstop" })
  t.expect_award(result, { badge = "no-stop-10k", run = ok })
  t.expect_eq(#result.awards, 1)
end)

test("best 3 km and best hour: silver 5% and gold 10% better than the earning run", function(t)
  local r1 = t.run{ id = "r1", date = "2026-05-01", distance_km = 12, duration = "1:10:00",
                    measures = { best3k = { elapsed_s = "15:00" }, best_hour = { distance_m = 10000 } } }
  local r2 = t.run{ id = "r2", date = "2026-05-02", distance_km = 5, duration = "25:00",
                    measures = { best3k = { elapsed_s = 856 } } }                 -- 900 * 0.95 = 855: not silver
  local r3 = t.run{ id = "r3", date = "2026-05-03", distance_km = 12, duration = "1:05:00",
                    measures = { best3k = { elapsed_s = 855 }, best_hour = { distance_m = 10500 } } }   -- silver, silver
  local r4 = t.run{ id = "r4", date = "2026-05-04", distance_km = 12, duration = "1:00:00",
                    measures = { best3k = { elapsed_s = 810 }, best_hour = { distance_m = 10999 } } }   -- gold; not gold
  local result = t.evaluate({ r1, r2, r3, r4 }, { rule = "records" })
  t.expect_award(result, { badge = "best-3k", tier = "earned", run = r1 })
  t.expect_award(result, { badge = "best-hour", tier = "earned", run = r1 })
  t.expect_no_award(result, { badge = "best-3k", tier = "silver", run = r2 })
  t.expect_award(result, { badge = "best-3k", tier = "silver", run = r3 })
  t.expect_award(result, { badge = "best-hour", tier = "silver", run = r3 })
  t.expect_award(result, { badge = "best-3k", tier = "gold", run = r4 })
  t.expect_no_award(result, { badge = "best-hour", tier = "gold" })
  t.expect_eq(#result.awards, 5)
  t.expect_eq(t.explain(result, "best-hour").hint, "11.00 km for gold (best 11.00 km)")
end)

test("an undeclared measure is an error with a suggestion", function(t)
  local run = t.run{ id = "x", date = "2026-05-01", distance_km = 5, duration = "25:00" }
  local ok, message = pcall(function() return run.measures.best3km end)
  t.expect_eq(ok, false)
  t.expect(message:find("no measure 'best3km' in pack 'habits'", 1, true) ~= nil, message)
  t.expect(message:find("did you mean 'best3k'?", 1, true) ~= nil, message)
end)
