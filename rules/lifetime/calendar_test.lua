-- Weeks, months and streaks on LOCAL dates (the same tables as Tests/BadgeRulesTests/LifetimePackTests.swift).

test("ISO week across a year boundary, a month, lifetime distance", function(t)
  local sun = t.run{ id = "sun", date = "2024-12-29", distance_km = 50 }    -- Sunday: 2024-W52
  local mon = t.run{ id = "mon", date = "2024-12-30", distance_km = 40 }    -- Monday: 2025-W01
  local thu = t.run{ id = "thu", date = "2025-01-02", distance_km = 30 }
  local bike = t.run{ id = "bike", date = "2025-01-04", distance_km = 150, sport = "cycling" }
  local sun2 = t.run{ id = "sun2", date = "2025-01-05", distance_km = 30 }  -- 2025-W01: exactly 100 km
  local mon2 = t.run{ id = "mon2", date = "2025-01-06", distance_km = 60 }  -- 2025-W02
  local late = t.run{ id = "late", date = "2025-01-20", distance_km = 80 }  -- January: 200 km
  local result = t.evaluate{ sun, mon, thu, bike, sun2, mon2, late }
  t.expect_award(result, { badge = "week-100k", run = sun2 })
  t.expect_no_award(result, { badge = "week-100k", run = late })
  t.expect_award(result, { badge = "month-200k", run = late })
  t.expect_award(result, { badge = "lifetime-100k", run = thu })
  t.expect_no_award(result, { badge = "lifetime-500k" })
  local week = t.explain(result, "week-100k")
  t.expect_eq(week.hint, "20.0 km left this ISO week (2025-W04)")
  t.expect_eq(week.progress.current, 80)
  t.expect_eq(t.explain(result, "lifetime-500k").hint, "210.00 km left (290.00 km of 500.00 km)")
  t.expect_eq(result.next.badge, "lifetime-500k")
end)

test("a streak broken by one missed day restarts; 23:50 local counts on the local date", function(t)
  local runs = {}
  for day = 1, 5 do
    runs[#runs + 1] = t.run{ id = "d" .. day, start = ("2025-03-%02dT12:00:00Z"):format(day), utc_offset_s = -18000, distance_km = 5 }
  end
  runs[#runs + 1] = t.run{ id = "d3-evening", start = "2025-03-04T00:00:00Z", utc_offset_s = -18000, distance_km = 3 }  -- 19:00 on the 3rd
  local late = t.run{ id = "d6-late", start = "2025-03-07T04:50:00Z", utc_offset_s = -18000, distance_km = 5 }  -- 23:50 on the 6th
  t.expect_eq(late.local_date, "2025-03-06")
  runs[#runs + 1] = late
  local d7 = t.run{ id = "d7", start = "2025-03-07T12:00:00Z", utc_offset_s = -18000, distance_km = 5 }
  runs[#runs + 1] = d7
  -- the 8th is missed
  local d15
  for day = 9, 15 do
    local r = t.run{ id = "d" .. day, start = ("2025-03-%02dT12:00:00Z"):format(day), utc_offset_s = -18000, distance_km = 5 }
    runs[#runs + 1] = r
    d15 = r
  end
  local result = t.evaluate(runs, { rule = "streak" })
  t.expect_award(result, { badge = "streak-7", run = d7 })
  t.expect_award(result, { badge = "streak-7", run = d15 })
  t.expect_eq(#result.awards, 2, "two 7-day streaks")
  t.expect_eq(t.explain(result, "streak-30").hint, "23 more days for a 30-day streak (current streak 7, last run 2025-03-15)")
end)

test("Everest of climb and ten runs", function(t)
  local runs = {
    t.run{ id = "h1", date = "2025-04-01", distance_km = 10, elevation_gain_m = 3000 },
    t.run{ id = "ride", date = "2025-04-02", distance_km = 80, sport = "cycling", elevation_gain_m = 5000 },
    t.run{ id = "flat", date = "2025-04-03", distance_km = 10 },
    t.run{ id = "h2", date = "2025-04-04", distance_km = 10, elevation_gain_m = 3000 },
    t.run{ id = "h3", date = "2025-04-05", distance_km = 10, elevation_gain_m = 2848 },
  }
  for day = 6, 11 do runs[#runs + 1] = t.run{ id = "n" .. day, date = ("2025-04-%02d"):format(day), distance_km = 5 } end
  local result = t.evaluate(runs)
  t.expect_award(result, { badge = "everest", run = runs[5] })
  t.expect_award(result, { badge = "runs-10", run = runs[#runs] })
  t.expect_eq(t.explain(result, "runs-50").hint, "40 more runs (10 of 50)")
end)

test("Everest counts the watch's own climb where the file has one", function(t)
  -- Phone-like recounts of 5,000 m each: on their own two runs would reach 8,848 m. The watch says
  -- 3,000 m for the first, so the second does not reach it: the device's figure is the one counted.
  local runs = {
    t.run{ id = "watch", date = "2025-05-01", distance_km = 30, elevation_gain_m = 5000, device_ascent_m = 3000 },
    t.run{ id = "phone", date = "2025-05-02", distance_km = 30, elevation_gain_m = 5000 },
    t.run{ id = "more", date = "2025-05-03", distance_km = 10, device_ascent_m = 900 },
  }
  local result = t.evaluate(runs, { rule = "climb" })
  t.expect_award(result, { badge = "everest", run = runs[3] })
  t.expect_eq(#result.awards, 1, "one award")
  t.expect_eq(result.awards[1].detail, "8900 m of climb over 3 runs")
  t.expect_eq(t.explain(result, "everest").hint, "earned: 8900 m of climb in total")
end)
