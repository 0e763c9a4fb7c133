-- Explorer: the map tiles you have run through (zoom 14, about 1.5 km a side in northern Europe), from
-- the tiles measure (docs/rules.md, "Measures"). New tiles per run, the total, and the largest square of
-- visited tiles (badgectl.max_square), as the explorer-tiles hobby counts them.
return {
  name = "explorer",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): outdoors with GPS.
  eligibility = { gps = true, indoor = false },
  description = "Map tiles run through at zoom 14: 100, 500 and 1,000 tiles, ten new tiles in one run, a 5x5 and a 10x10 square.",
  measures = {
    tiles = { kind = "tiles", zoom = 14 },
  },
  badges = {
    { id = "explorer-100", name = "Explorer 100", tiers = { "earned" }, image = "explorer-100.png",
      information = "100 different zoom-14 map tiles run through." },
    { id = "explorer-500", name = "Explorer 500", tiers = { "earned" }, image = "explorer-500.png",
      information = "500 different zoom-14 map tiles run through." },
    { id = "explorer-1000", name = "Explorer 1000", tiers = { "earned" }, image = "explorer-1000.png",
      information = "1,000 different zoom-14 map tiles run through." },
    { id = "new-ground", name = "New Ground", tiers = { "earned" }, image = "new-ground.png",
      information = "Ten tiles you had never run through, in one run." },
    { id = "square-5", name = "Square 5x5", tiers = { "earned" }, image = "square-5.png",
      information = "A 5 by 5 square of visited zoom-14 tiles." },
    { id = "square-10", name = "Square 10x10", tiers = { "earned" }, image = "square-10.png",
      information = "A 10 by 10 square of visited zoom-14 tiles." },
  },
}
