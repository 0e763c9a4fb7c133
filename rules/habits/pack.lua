-- Habits: when and how you run, from the measures the core computes for this pack (see
-- docs/rules.md, "Measures"): times of day, the sun, heart-rate zone 2, running without a stop, and
-- records over 3 km and over one hour with MoonRunner's silver (5% better) and gold (10% better).
-- Times of day are LOCAL (run.local_start).
return {
  name = "habits",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): recorded ones, not entered by hand.
  eligibility = { manual = false },
  description = "Times of day, sunrise and dawn runs, an hour in zone 2, a 10 km without stopping, best 3 km and best hour.",
  measures = {
    sun = { kind = "sun" },
    zone2 = { kind = "time_in", channel = "heart_rate", zone = 2 },
    stops = { kind = "stops", min_s = 10 },
    best3k = { kind = "effort", distance_m = 3000 },
    best_hour = { kind = "effort", duration_s = 3600 },
  },
  badges = {
    { id = "early-bird", name = "Early Bird", tiers = { "earned" }, image = "early-bird.png",
      information = "10 runs starting before 07:00 local time." },
    { id = "lunch-runner", name = "Lunch Runner", tiers = { "earned" }, image = "lunch-runner.png",
      information = "10 runs on weekdays (Monday to Friday) starting between 12:00 and 14:00 local time." },
    { id = "night-owl", name = "Night Owl", tiers = { "earned" }, image = "night-owl.png",
      information = "10 runs starting at 21:00 local time or later." },
    { id = "sunrise-run", name = "Sunrise Run", tiers = { "earned" }, image = "sunrise-run.png",
      information = "Be out running as the sun comes up: a run that spans sunrise where it starts." },
    { id = "before-dawn", name = "Before Dawn", tiers = { "earned" }, image = "before-dawn.png",
      information = "A run finished before the sun rose where it started." },
    { id = "zone-two-hour", name = "Zone Two Hour", tiers = { "earned" }, image = "zone-two-hour.png",
      information = "60 minutes in your heart-rate zone 2 within one run (needs your profile: --athlete FILE)." },
    { id = "no-stop-10k", name = "Non-Stop Ten", tiers = { "earned" }, image = "no-stop-10k.png",
      information = "10 km or more without a single stop of 10 seconds or longer." },
    { id = "best-3k", name = "Best 3 km", tiers = { "earned", "silver", "gold" }, image = "best-3k.png",
      information = "Your fastest 3 km inside any run. Silver: a later 3 km 5% faster than the one that earned it; gold: 10% faster." },
    { id = "best-hour", name = "Best Hour", tiers = { "earned", "silver", "gold" }, image = "best-hour.png",
      information = "The furthest you ran in one hour inside any run. Silver: a later hour 5% further than the one that earned it; gold: 10% further." },
  },
}
