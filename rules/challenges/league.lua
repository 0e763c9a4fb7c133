-- Club challenges across athletes (docs/rules.md, "Badges across athletes"): for each team, each club
-- challenge of lib/list.lua for that team (`club = "<team>"`, or `true` for every team) totals the
-- team's runs on the local dates of its window (group.days: every member's runs added up per date,
-- whatever --club-days says). A line `challenge-total` says where the team stands; when the total
-- reaches the target, every member gets a line of the challenge's own kind (its id).
local challenge = require("lib.challenge")

return {
  team = function(group)
    local awards = {}
    for i = 1, #challenge.list do
      local c = challenge.list[i]
      if c.club == true or c.club == group.team then
        local total = 0
        for _, day in ipairs(group.days) do
          if challenge.within(c, day.date) then total = total + challenge.day_amount(c.measure, day) end
        end
        local reached = total >= c.target
        awards[#awards + 1] = { kind = "challenge-total",
          detail = ("%s: team %s, %s of %s from %s to %s%s"):format(c.id, group.team, challenge.shown(c.measure, total),
            challenge.shown(c.measure, c.target), c.from, c.to, reached and " (met)" or "") }
        if reached then
          for _, member in ipairs(group.members) do
            awards[#awards + 1] = { kind = c.id, athlete = member,
              detail = ("team %s: %s of %s from %s to %s"):format(group.team, challenge.shown(c.measure, total),
                challenge.shown(c.measure, c.target), c.from, c.to) }
          end
        end
      end
    end
    return awards
  end,
}
