-- Across athletes (docs/rules.md, "Badges across athletes"): `badgectl league` calls these once per
-- group, each returning a list of awards. The park corner's crown (the fastest best effort) and its
-- Local Legend (the most efforts in the last 90 days; of equal counts, the faster athlete), and a
-- club challenge: every member of a team that ran 100 km together over the club period.

local SEGMENT = "places.park"
local CLUB_GOAL_M = 100000

return {
  segment = function(group)
    if group.segment ~= SEGMENT then return {} end
    local awards = {}
    local first = group.athletes[1]
    if first == nil then return awards end
    awards[#awards + 1] = { kind = "park-crown", athlete = first.athlete,
                            detail = ("fastest on the park corner: %s"):format(badgectl.format_duration(first.best_s)) }
    -- The athletes come fastest first, so the first of equal counts is the faster one.
    local legend = nil
    for _, entry in ipairs(group.athletes) do
      if entry.recent_efforts > 0 and (legend == nil or entry.recent_efforts > legend.recent_efforts) then legend = entry end
    end
    if legend ~= nil then
      awards[#awards + 1] = { kind = "park-legend", athlete = legend.athlete,
                              detail = ("%d efforts in 90 days"):format(legend.recent_efforts) }
    end
    return awards
  end,

  team = function(group)
    if group.distance_m < CLUB_GOAL_M then return {} end
    local awards = {}
    for _, member in ipairs(group.members) do
      awards[#awards + 1] = { kind = "park-club-100k", athlete = member,
                              detail = ("team %s ran %.1f km together from %s"):format(group.team, group.distance_m / 1000, group.from) }
    end
    return awards
  end,
}
