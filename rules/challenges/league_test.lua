-- The club challenge (lib/list.lua's club-december-1000k, for every team) through the team groups
-- `badgectl league` hands league.lua (t.team with `days`: the members' runs added up per local date).
local league = require("league")

local function kinds(awards)
  local out = {}
  for i, a in ipairs(awards) do out[i] = a.kind .. " " .. (a.athlete or "-") end
  return out
end

test("a team's December reaches 1,000 km: every member gets the challenge; days outside the window do not count", function(t)
  local group = t.team{ team = "red", members = { "ben", "ana" },
    days = { { date = "2026-12-31", distance_m = 400000 }, { date = "2026-11-30", distance_m = 900000 },
             { date = "2026-12-01", distance_m = 600000 }, { date = "2027-01-01", distance_m = 900000 } } }
  local awards = league.team(group)
  t.expect_eq(kinds(awards), { "challenge-total -", "club-december-1000k ana", "club-december-1000k ben" })
  t.expect_eq(awards[1].detail, "club-december-1000k: team red, 1000.00 km of 1000.00 km from 2026-12-01 to 2026-12-31 (met)")
  t.expect_eq(awards[2].detail, "team red: 1000.00 km of 1000.00 km from 2026-12-01 to 2026-12-31")
end)

test("short of the target: only the team's total, for every team", function(t)
  local group = t.team{ team = "blue", members = { "cai" },
    days = { { date = "2026-12-15", distance_m = 990000 }, { date = "2026-12-16", distance_m = 0 } } }
  local awards = league.team(group)
  t.expect_eq(kinds(awards), { "challenge-total -" })
  t.expect_eq(awards[1].detail, "club-december-1000k: team blue, 990.00 km of 1000.00 km from 2026-12-01 to 2026-12-31")
  t.expect_eq(kinds(league.team(t.team{ team = "empty" })), { "challenge-total -" })
end)
