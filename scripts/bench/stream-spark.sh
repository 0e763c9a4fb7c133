#!/usr/bin/env bash
# Per-upload evaluation on Spark Structured Streaming (examples/spark/stream.py) on local[2]
# (BENCHMARKS.md, "Uploads"): uploads per second end to end and the time from a file landing in
# the input folder to its micro-batch committed (its awards in the table), p50 and p95.
#   scripts/bench/stream-spark.sh [BINARY]        (default .build/release/badgectl)
# ATHLETES athletes (default 1000) with HISTORY runs each (default 100) are streamed in first (a
# file per 1,000 athletes, four files a micro-batch; the "seed" line); then the job runs with a
# trigger a second while FILES files of one-run uploads (default 20, ATHLETES/FILES uploads each,
# one athlete once) land every INTERVAL seconds (default 0.5). Packs: checkpoints, segments,
# lifetime (as scripts/bench/stream.sh). Needs the venv scripts/stream-check makes (SPARK_VENV,
# default .build/spark-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
athletes=${ATHLETES:-1000}; history=${HISTORY:-100}; files=${FILES:-20}; interval=${INTERVAL:-0.5}
binary=$(realpath "${1:-.build/release/badgectl}")
python=${SPARK_VENV:-$root/.build/spark-venv}/bin/python
work=${BENCH_DIR:-/tmp/badgectl-bench}/stream-spark-$athletes-$history
rm -rf "$work"; mkdir -p "$work/input" "$work/uploads"
options=(--rules "$root/rules/checkpoints" --rules "$root/rules/segments" --rules "$root/rules/lifetime" --badges "$root/badges.json" --tz UTC --no-cache)
"$python" - "$athletes" "$history" "$files" "$work" <<'PY'
import datetime, json, random, sys
athletes, history, files, work = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(7)
base = 1_735_718_400
def line(a, i, day):
    km = rng.uniform(3, 22)
    start = datetime.datetime.fromtimestamp(base + day * 86_400 + rng.randrange(0, 36_000), datetime.timezone.utc)
    return json.dumps({"athlete": f"a{a:06d}", "id": f"r{i}", "summary": {"start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "distance_m": round(km * 1000), "duration_s": round(km * rng.uniform(270, 400))}})
# The histories in files of at most 1,000 athletes (each athlete in one): a file is read whole, as
# one string, and 10,000 athletes' in one would not fit the driver's default heap.
for first in range(0, athletes, 1000):
    with open(f"{work}/input/history-{first // 1000:04d}.jsonl", "w") as h:
        for a in range(first, min(athletes, first + 1000)):
            for i in range(history):
                h.write(line(a, i, i * 2) + "\n")
per = athletes // files
for f in range(files):
    with open(f"{work}/uploads/u{f:04d}.jsonl", "w") as u:
        for a in range(f * per, (f + 1) * per):
            u.write(line(a, history, history * 2 + 1) + "\n")
PY
job() { "$python" "$root/examples/spark/stream.py" --badgectl "$binary" --input "$work/input" --checkpoint "$work/checkpoint" \
    --output "$work/awards.sqlite" "$@" -- "${options[@]}"; }
start=$(date +%s.%N)
job --available-now --files-per-trigger 4 >"$work/seed.log" 2>&1 || { tail -30 "$work/seed.log"; exit 1; }
echo "seed: $athletes athletes x $history runs in $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s (job start included)"
setsid bash -c "$(declare -f job); $(declare -p python root binary work options); job --trigger-seconds 1" >"$work/job.log" 2>&1 &
pid=$!
trap 'kill -9 -- -$pid 2>/dev/null || true' EXIT
sleep 20   # the job started and idle
for f in "$work"/uploads/*.jsonl; do
    cp "$f" "$work/input/.tmp" && mv "$work/input/.tmp" "$work/input/$(basename "$f")"   # lands whole
    sleep "$interval"
done
# Wait until every upload file is in a committed batch.
"$python" - "$work" "$files" "$athletes" <<'PY'
import glob, json, os, statistics, sys, time
work, files, athletes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
deadline = time.time() + 1800
while True:
    batch_of = {}
    # Every tenth log is compacted (`N.compact` holds the entries of the batches before it): each
    # entry says its batch.
    for path in glob.glob(f"{work}/checkpoint/sources/0/*"):
        name = os.path.basename(path)
        if not name.split(".")[0].isdigit():
            continue
        try:
            entries = [json.loads(text) for text in open(path).read().splitlines()[1:]]
        except (OSError, ValueError):
            continue  # being written or compacted away: read on the next round
        for entry in entries:
            if "/u" in entry["path"]:
                batch_of[os.path.basename(entry["path"])] = int(entry["batchId"])
    committed = {int(os.path.basename(p)) for p in glob.glob(f"{work}/checkpoint/commits/*") if os.path.basename(p).isdigit()}
    done = {f: b for f, b in batch_of.items() if b in committed}
    if len(done) == files or time.time() > deadline:
        break
    time.sleep(0.5)
landed = {os.path.basename(p): os.stat(p).st_mtime for p in glob.glob(f"{work}/input/u*.jsonl")}
commit_time = {b: os.stat(f"{work}/checkpoint/commits/{b}").st_mtime for b in set(done.values())}
latency = sorted(commit_time[done[f]] - landed[f] for f in done)
span = max(commit_time.values()) - min(landed.values())
uploads = athletes // files * len(done)
q = lambda p: latency[min(len(latency) - 1, int(round(p * (len(latency) - 1))))]
print(f"uploads: {uploads} in {len(done)} files of {athletes // files}, {span:.1f} s from the first landing to the last commit: "
      f"{uploads / span:.0f} uploads/s; landing to committed p50 {q(0.5):.2f} s, p95 {q(0.95):.2f} s, "
      f"{len(commit_time)} micro-batches")
if len(done) != files:
    sys.exit(f"stream-spark: only {len(done)} of {files} files committed")
PY
