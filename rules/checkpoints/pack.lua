-- The MoonRunner rules, exactly: distance badges from the catalogue, silver and gold for
-- running a badge's distance faster than the day it was earned, the best run, the next badge.
return {
  name = "checkpoints",
  version = "1.0.0",
  description = "Distance badges from the catalogue (badges.json) with MoonRunner's silver (5% faster) "
    .. "and gold (10% faster) tiers, the best run for each badge and the next badge to aim for.",
}
