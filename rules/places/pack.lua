-- Places: where you run. A segment shipped with the pack (segments/park-loop.gpx, the park's north
-- side and north-east corner: draw your own in any GPX editor) and a landmark, from the place and
-- segment measures the core computes (docs/rules.md, "Measures").
return {
  name = "places",
  version = "1.0.0",
  -- Which runs count (docs/rules.md, "Eligibility"): outdoors with GPS.
  eligibility = { gps = true, indoor = false },
  description = "A park segment's personal record (silver and gold against your first effort), ten efforts within 90 days, and a landmark.",
  measures = {
    park = { kind = "segment", file = "segments/park-loop.gpx", tolerance_m = 25 },
    fountain = { kind = "place", lat = 52.3560, lon = 4.8700, radius_m = 40 },
  },
  badges = {
    { id = "park-corner-record", name = "Park Corner", tiers = { "earned", "silver", "gold" }, image = "park-corner-record.png",
      information = "Run the park corner segment. Silver: an effort 5% faster than your first one; gold: 10% faster." },
    { id = "park-corner-regular", name = "Park Regular", tiers = { "earned" }, image = "park-corner-regular.png",
      information = "Ten efforts on the park corner segment within 90 days." },
    { id = "fountain", name = "By the Fountain", tiers = { "earned" }, image = "fountain.png",
      information = "A run that passes within 40 m of the park's fountain." },
  },
}
