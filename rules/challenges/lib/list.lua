-- The challenges this pack ships: a window of local dates (`from` and `to`, both included), a
-- target of a measure (`distance` in metres, `runs`, `time` in seconds: moving time, else elapsed)
-- and, for a club challenge, `club`: a team's name as `badgectl league`'s input lines give it, or
-- `true` for every team. A personal challenge (no `club`) is a badge of this pack (its id),
-- earned by the run that takes the runner's own total in the window to the target; a club
-- challenge is for `badgectl league` (league.lua): every member of a team whose runs in the window
-- add up to the target. Runs outside the window never count.
--
-- Add one: an entry here (ids are badge ids: unique, lower case); pack.lua declares the badges of
-- the personal ones, and the rule and league.lua pick them up.
return {
  { id = "december-100k", name = "December 100", from = "2026-12-01", to = "2026-12-31",
    measure = "distance", target = 100000,
    information = "100 km between the 1st and the 31st of December 2026 (local dates)." },
  { id = "winter-30-runs", name = "Thirty Winter Runs", from = "2026-12-21", to = "2027-03-19",
    measure = "runs", target = 30,
    information = "30 runs between the winter solstice and the spring equinox (2026-12-21 to 2027-03-19)." },
  { id = "january-20h", name = "Twenty Hours in January", from = "2027-01-01", to = "2027-01-31",
    measure = "time", target = 72000,
    information = "20 hours of running in January 2027 (moving time, else elapsed)." },
  { id = "club-december-1000k", name = "Club December 1000", from = "2026-12-01", to = "2026-12-31",
    measure = "distance", target = 1000000, club = true,
    information = "A club challenge (badgectl league): every team whose members run 1,000 km together in December 2026." },
}
