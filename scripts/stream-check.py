"""scripts/stream-check's stream and its check (issue N, item 4).

    stream-check.py generate WORK ATHLETES SEED   writes WORK/input/*.jsonl (the uploads) and
                                                  WORK/final.jsonl (each athlete's final history)
    stream-check.py compare EXPECTED.jsonl AWARDS.sqlite LABEL

The generator keeps its own model of each athlete's history (not stream.py's code): runs uploaded in
any order, some uploaded again trimmed or extended, some re-typed as rides, some removed.
"""

import json
import os
import random
import sqlite3
import sys
from datetime import datetime, timezone


def line(athlete, run):
    start = datetime.fromtimestamp(run["start"], timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps({"athlete": athlete, "id": run["id"],
                       "summary": {"start": start, "distance_m": round(run["meters"]), "duration_s": round(run["seconds"]),
                                   "sport": run["sport"]}})


def generate(work, athletes, seed):
    rng = random.Random(seed)
    names = ["ana", "ben", "Cleo Ödön", "d/../x", "eve", "fra", "gus", "hal", "ida", "jo"]
    names = (names * (athletes // len(names) + 1))[:athletes]
    names = [n if i < len(set(names)) else f"{n}-{i}" for i, n in enumerate(names)]
    events, final = {}, {}
    for athlete in names:
        pool = []
        for index in range(12):
            meters = rng.uniform(2_000, 26_000)
            pool.append({"id": f"r{index}", "start": 1_772_366_400 + index * 86_400 + rng.randrange(30_000),
                         "meters": meters, "seconds": meters / 1000 * rng.uniform(270, 390), "sport": "running"})
        rng.shuffle(pool)
        held, out = {}, []
        for run in pool:
            run = dict(run)
            out.append(line(athlete, run))
            held[run["id"]] = run
            roll = rng.random()
            if roll < 0.15 and held:
                rid = rng.choice(sorted(held))
                out.append(json.dumps({"athlete": athlete, "remove": rid}))
                del held[rid]
            elif roll < 0.3:
                run = dict(run, meters=run["meters"] * rng.uniform(0.5, 1.5), seconds=run["seconds"] * rng.uniform(0.9, 1.2))
                out.append(line(athlete, run))
                held[run["id"]] = run
            elif roll < 0.4:
                run = dict(run, sport="cycling")
                out.append(line(athlete, run))
                held[run["id"]] = run
        events[athlete], final[athlete] = out, held
    # The athletes' uploads interleaved (each athlete's in its order), cut into files of 1 to 5 lines.
    queues = {a: list(e) for a, e in events.items()}
    stream = []
    while any(queues.values()):
        athlete = rng.choice([a for a, q in queues.items() if q])
        stream.append(queues[athlete].pop(0))
    # Lines that hold no run, each an error of its file and line; and a run badgectl cannot read, an
    # error of that run (once, however often the athlete is evaluated). None changes an award.
    bad = ['not json {', json.dumps({"no": "athlete"}), json.dumps({"athlete": 5, "summary": {"start": "2026-03-01T07:00:00Z"}}),
           json.dumps({"athlete": names[0]}), json.dumps({"athlete": names[0], "path": "/nonexistent/gone.gpx"})]
    for text in bad:
        stream.insert(rng.randrange(len(stream) + 1), text)
    with open(f"{work}/expected-errors.txt", "w") as f:
        f.write(f"{len(bad)}\n")
    os.makedirs(f"{work}/input", exist_ok=True)
    position, number = 0, 0
    while position < len(stream):
        size = rng.randint(1, 5)
        path = f"{work}/input/u{number:05d}.jsonl"
        with open(path, "w") as f:
            f.write("\n".join(stream[position:position + size]) + "\n")
        stamp = 1_780_000_000 + number
        os.utime(path, (stamp, stamp))
        position, number = position + size, number + 1
    with open(f"{work}/final.jsonl", "w") as f:
        for athlete in names:
            for run in sorted(final[athlete].values(), key=lambda r: (r["start"], r["id"])):
                f.write(line(athlete, run) + "\n")
    print(f"stream-check: {len(names)} athletes, {len(stream)} upload lines in {number} files")


def compare(expected_path, database, label, errors_expected=None):
    expected = set()
    with open(expected_path) as f:
        for text in f:
            a = json.loads(text)
            if a.get("type") == "award":
                expected.add((a["award_id"], a["athlete"], a["pack"], a["badge"], a["tier"], a["run"]))
    with sqlite3.connect(database) as db:
        got = set(db.execute("SELECT award_id, athlete, pack, badge, tier, run FROM awards WHERE withdrawn_at IS NULL"))
        withdrawn = db.execute("SELECT count(*) FROM awards WHERE withdrawn_at IS NOT NULL").fetchone()[0]
        errors = db.execute("SELECT file, line, athlete, message FROM errors ORDER BY file, line").fetchall()
    if errors_expected is not None and len(errors) != errors_expected:
        for row in errors:
            print("  error:", row)
        sys.exit(f"stream-check: {label}: {len(errors)} errors recorded, {errors_expected} bad lines and runs in the stream")
    if not expected:
        sys.exit("stream-check: the batch answer has no awards")
    if got != expected:
        for row in sorted(expected - got)[:10]:
            print("  missing:", row)
        for row in sorted(got - expected)[:10]:
            print("  extra:  ", row)
        sys.exit(f"stream-check: {label}: {len(got)} awards not withdrawn, the batch answer has {len(expected)}")
    print(f"stream-check: {label}: the {len(expected)} awards equal the batch answer ({withdrawn} withdrawn along the way; "
          f"{len(errors)} errors recorded, each once)")


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        compare(sys.argv[2], sys.argv[3], sys.argv[4], int(open(sys.argv[5]).read()) if len(sys.argv) > 5 else None)
