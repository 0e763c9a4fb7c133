#!/usr/bin/env python3
"""A long history of JSON run summaries for `badgectl add` benchmarks (issue 31 item 4).

    python3 scripts/bench/add-history.py DIR [COUNT] [YEARS] [SEED]

Writes COUNT summaries (default 10,000) spread evenly over YEARS years (default 22) from 2004-01-01,
3 to 22 km each (so some weeks earn the 100 km badge), as DIR/rNNNNNN.json, and one later run as
DIR/../new.json for the `add`. The same arguments always give the same bytes. Then:

    badgectl evaluate DIR --state STATE --rules rules --badges badges.json --tz UTC
    cp -r STATE s && perf stat -e task-clock badgectl add --state s new.json --rules rules --badges badges.json
"""
import datetime
import json
import os
import random
import sys

folder = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
years = int(sys.argv[3]) if len(sys.argv) > 3 else 22
random.seed(int(sys.argv[4]) if len(sys.argv) > 4 else 7)
os.makedirs(folder, exist_ok=True)
start = datetime.datetime(2004, 1, 1, 6, 30)
span = years * 365 * 86400


def summary(at, metres, name):
    seconds = round(metres / 1000 * random.uniform(270, 360))
    return {"start": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "distance_m": round(metres, 1), "duration_s": seconds,
            "moving_s": seconds, "name": name, "sport": "running"}


for i in range(count):
    at = start + datetime.timedelta(seconds=i * span // count + random.randint(0, 3600))
    with open(os.path.join(folder, "r%06d.json" % i), "w") as out:
        json.dump(summary(at, random.uniform(3000, 22000), "Run %d" % i), out)
with open(os.path.join(os.path.dirname(os.path.abspath(folder)), "new.json"), "w") as out:
    json.dump(summary(start + datetime.timedelta(seconds=span + 86400), 8000.0, "New"), out)
