#!/usr/bin/env python3
"""JSON lines for `badgectl worker` benchmarks: ATHLETES athletes x RUNS runs, as summary lines.

    python3 scripts/bench/worker-input.py ATHLETES RUNS > input.jsonl

Deterministic: each athlete runs every day or two, 3 to 42 km at 4:30 to 7:00 per km, some runs
at night; the same arguments always give the same bytes.
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone

athletes, runs = int(sys.argv[1]), int(sys.argv[2])
zones = ["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo"]
out = sys.stdout
for a in range(athletes):
    rng = random.Random(a)
    start = datetime(2020, 1, 1, 6, 0, tzinfo=timezone.utc) + timedelta(hours=rng.randrange(0, 48))
    name = f"athlete-{a:07d}"
    tz = zones[a % len(zones)]
    for r in range(runs):
        km = rng.choice([3, 5, 5.2, 8, 10, 10.5, 12, 15, 16.2, 21.2, 25, 30, 42.3]) * rng.uniform(0.97, 1.05)
        pace = rng.uniform(270, 420)
        duration = km * pace
        summary = {"start": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "distance_m": round(km * 1000, 1),
                   "duration_s": round(duration, 1), "moving_s": round(duration * 0.97, 1)}
        out.write(json.dumps({"athlete": name, "tz": tz, "summary": summary, "id": f"r{r:05d}"}) + "\n")
        start += timedelta(hours=rng.choice([20, 24, 26, 30, 48]), minutes=rng.randrange(0, 60))
