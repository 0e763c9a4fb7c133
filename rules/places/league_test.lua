-- The places pack's league.lua, through the groups `badgectl league` hands it (t.athletes, t.team).
local league = require("league")

test("the park crown goes to the fastest best effort; an equal time to the earlier effort", function(t)
  local group = t.athletes{ segment = "places.park",
    { athlete = "ben", best_s = 266.7, at = "2026-03-06T06:33:14Z", efforts = 1 },
    { athlete = "ana", best_s = 266.7, at = "2026-03-01T06:33:14Z", efforts = 2 },
    { athlete = "cai", best_s = 280, efforts = 12 },
  }
  local awards = league.segment(group)
  t.expect_eq(awards[1].kind, "park-crown")
  t.expect_eq(awards[1].athlete, "ana")
  t.expect_match(awards[1].detail, "4:27")
end)

test("the park legend: most efforts in 90 days; of equal counts the faster athlete", function(t)
  local group = t.athletes{ segment = "places.park",
    { athlete = "ana", best_s = 266.7, efforts = 20, recent_efforts = 2 },
    { athlete = "ben", best_s = 284.5, efforts = 12, recent_efforts = 12 },
    { athlete = "dee", best_s = 302.3, efforts = 12, recent_efforts = 12 },
  }
  local awards = league.segment(group)
  t.expect_eq(#awards, 2)
  t.expect_eq(awards[2], { kind = "park-legend", athlete = "ben", detail = "12 efforts in 90 days" })
end)

test("nobody on the board, or another segment: no award", function(t)
  t.expect_eq(league.segment(t.athletes{ segment = "places.park" }), {})
  t.expect_eq(league.segment(t.athletes{ segment = "other.hill", { athlete = "ana", best_s = 100 } }), {})
end)

test("club challenge: every member of a team that ran 100 km together", function(t)
  local awards = league.team(t.team{ team = "red", members = { "ben", "ana" }, distance_m = 100000 })
  t.expect_eq(#awards, 2)
  t.expect_eq(awards[1].athlete, "ana")
  t.expect_eq(awards[2].kind, "park-club-100k")
  t.expect_match(awards[1].detail, "team red ran 100.0 km together")
  t.expect_eq(league.team(t.team{ team = "blue", members = { "cai" }, distance_m = 99999 }), {})
end)
