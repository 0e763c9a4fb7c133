-- Segment pace: what happened INSIDE runs (the fastest 1 km / 5 km / 10 km / half of any run),
-- personal records, even pacing between catalogue checkpoints and negative splits.
-- Tiers of the pace badges are bronze, silver and gold (see docs/rules.md, "Shipped packs").
return {
  name = "segments",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): recorded ones (efforts need the points).
  eligibility = { manual = false },
  description = "Fastest efforts inside any run: pace tiers, personal records, steady pacing, negative splits.",
  badges = {
    { id = "pace-1k", name = "Quick Kilometre", tiers = { "bronze", "silver", "gold" }, image = "pace-1k.png",
      information = "Your fastest kilometre inside any run. Bronze under 5:00, silver under 4:15, gold under 3:30." },
    { id = "pace-5k", name = "Fast Five", tiers = { "bronze", "silver", "gold" }, image = "pace-5k.png",
      information = "The fastest 5 km inside any run, even the middle of a 10 km. Bronze under 30:00, silver under 25:00, gold under 20:00." },
    { id = "pace-10k", name = "Ten at Tempo", tiers = { "bronze", "silver", "gold" }, image = "pace-10k.png",
      information = "The fastest 10 km inside any run. Bronze under 1:00:00, silver under 50:00, gold under 42:00." },
    { id = "pace-half", name = "Half at Speed", tiers = { "bronze", "silver", "gold" }, image = "pace-half.png",
      information = "The fastest half marathon inside any run. Bronze under 2:15:00, silver under 1:50:00, gold under 1:30:00." },
    { id = "pr-1k", name = "Kilometre Record", tiers = { "earned" }, image = "pr-1k.png",
      information = "A new personal best over 1 km: faster than every kilometre before it. Your first ever counts; a tie does not." },
    { id = "pr-5k", name = "5K Record", tiers = { "earned" }, image = "pr-5k.png",
      information = "A new personal best over 5 km, timed from the fastest 5 km inside a run. Your first ever counts; a tie does not." },
    { id = "pr-10k", name = "10K Record", tiers = { "earned" }, image = "pr-10k.png",
      information = "A new personal best over 10 km. Your first ever counts; a tie does not." },
    { id = "pr-half", name = "Half Marathon Record", tiers = { "earned" }, image = "pr-half.png",
      information = "A new personal best over the half marathon distance. Your first ever counts; a tie does not." },
    { id = "steady", name = "Metronome", tiers = { "earned", "gold" }, image = "steady.png",
      information = "Even pacing: pass at least four catalogue checkpoints after the start with every checkpoint-to-checkpoint "
        .. "pace within 5% of your average between them (gold: within 2.5%)." },
    { id = "negative-split", name = "Negative Split", tiers = { "earned" }, image = "negative-split.png",
      information = "Run the second half of a run of 5 km or more faster than the first half. Every such run counts." },
  },
}
