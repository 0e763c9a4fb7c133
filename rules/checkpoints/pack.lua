-- The MoonRunner rules, exactly: distance badges from the catalogue, silver and gold for
-- running a badge's distance faster than the day it was earned, the best run, the next badge.
--
-- Themes (`badgectl evaluate --theme moon`) rename the catalogue's distance badges and give them
-- their own story and image; ids, distances and tiers stay the catalogue's and the rules'.
return {
  name = "checkpoints",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): recorded ones, not entered by hand.
  eligibility = { manual = false },
  description = "Distance badges from the catalogue (badges.json) with MoonRunner's silver (5% faster) "
    .. "and gold (10% faster) tiers, the best run for each badge and the next badge to aim for.",
  themes = {
    -- A journey from the launch pad outwards, one stage per catalogue distance.
    moon = {
      { id = "lace-up", name = "Ignition", image = "moon-ignition.png",
        information = "Engines lit. Any run at all gets you off the pad." },
      { id = "first-kilometre", name = "Tower Cleared", image = "moon-tower.png",
        information = "A kilometre up and the launch tower is behind you." },
      { id = "the-mile", name = "Sound Barrier", image = "moon-sound-barrier.png",
        information = "A mile, and the rumble falls away behind you. Run further than 1.61 km." },
      { id = "three-k", name = "Booster Separation", image = "moon-booster.png",
        information = "Three kilometres: drop the first stage and keep climbing." },
      { id = "five-k", name = "Edge of Space", image = "moon-karman.png",
        information = "Five kilometres, and the sky turns from blue to black." },
      { id = "ten-k", name = "Orbit Insertion", image = "moon-orbit.png",
        information = "Ten kilometres: you are going round now, not up." },
      { id = "fifteen-k", name = "Station Docking", image = "moon-station.png",
        information = "Fifteen kilometres: a handshake with the crew of the orbital station." },
      { id = "ten-miler", name = "Translunar Burn", image = "moon-burn.png",
        information = "Ten miles: the long burn that points you at the Moon." },
      { id = "half-marathon", name = "Halfway Coast", image = "moon-coast.png",
        information = "A half marathon: Earth is a marble in the window." },
      { id = "thirty-k", name = "Lunar Gravity", image = "moon-gravity.png",
        information = "Thirty kilometres: the Moon pulls harder than home." },
      { id = "marathon", name = "Touchdown", image = "moon-touchdown.png",
        information = "A marathon: boots in the grey dust of the Sea of Tranquility." },
      { id = "fifty-k", name = "Far Side", image = "moon-far-side.png",
        information = "Fifty kilometres: out of radio contact, running on your own." },
      { id = "hundred-k", name = "Earthrise", image = "moon-earthrise.png",
        information = "A hundred kilometres: round the Moon and home again, watching Earth come up over the horizon." },
    },
    -- Landmarks on a long mountain trail, from the trailhead to the summit and down the far side.
    trail = {
      { id = "lace-up", name = "Trailhead", image = "trail-trailhead.png",
        information = "Sign the register at the trailhead. Any run counts." },
      { id = "first-kilometre", name = "First Waymark", image = "trail-waymark.png",
        information = "A kilometre in: the first painted blaze on a pine." },
      { id = "the-mile", name = "Footbridge", image = "trail-footbridge.png",
        information = "A mile: across the creek on the old plank bridge." },
      { id = "three-k", name = "Beaver Pond", image = "trail-pond.png",
        information = "Three kilometres to the still water where the trail levels out." },
      { id = "five-k", name = "Lookout Rock", image = "trail-lookout.png",
        information = "Five kilometres: the first view back over the valley." },
      { id = "ten-k", name = "Hut by the Spring", image = "trail-hut.png",
        information = "Ten kilometres to the shelter and the cold spring beside it." },
      { id = "fifteen-k", name = "Switchbacks", image = "trail-switchbacks.png",
        information = "Fifteen kilometres: the zigzags above the tree line." },
      { id = "ten-miler", name = "Ridge Line", image = "trail-ridge.png",
        information = "Ten miles: out onto the open ridge, wind in your face." },
      { id = "half-marathon", name = "High Saddle", image = "trail-saddle.png",
        information = "A half marathon: the pass between two peaks." },
      { id = "thirty-k", name = "Glacier Tongue", image = "trail-glacier.png",
        information = "Thirty kilometres: ice underfoot and the summit in sight." },
      { id = "marathon", name = "Summit Cairn", image = "trail-summit.png",
        information = "A marathon: add a stone to the cairn at the top." },
      { id = "fifty-k", name = "Far Valley", image = "trail-far-valley.png",
        information = "Fifty kilometres: down the far side into a valley you had only seen on maps." },
      { id = "hundred-k", name = "Trail's End", image = "trail-end.png",
        information = "A hundred kilometres: the whole trail, end to end." },
    },
  },
}
