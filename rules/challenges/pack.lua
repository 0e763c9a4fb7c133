-- Dated challenges: a window with a start and an end date, a target of distance, runs or time, for
-- one runner (a badge of this pack) or for a club (`badgectl league`, league.lua). The challenges are
-- the entries of lib/list.lua; this file declares a badge for each personal one.
local challenge = require("lib.challenge")

local badges = {}
for i, c in ipairs(challenge.personal) do
  badges[i] = { id = c.id, name = c.name or c.id, tiers = { "earned" },
                information = c.information or ("%s to %s"):format(c.from, c.to) }
end

return {
  name = "challenges",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): every run, entered by hand or indoors too.
  eligibility = {},
  description = "Dated challenges: a target of distance, runs or time between two dates, personal or for a club (badgectl league).",
  badges = badges,
}
