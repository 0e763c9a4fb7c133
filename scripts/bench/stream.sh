#!/usr/bin/env bash
# Per-upload evaluation with kept state: `badgectl worker --state-dir` (BENCHMARKS.md, "Uploads").
#   scripts/bench/stream.sh [BINARY...]          (default .build/release/badgectl)
# ATHLETES athletes (default 1000) each with a history of HISTORY runs (default 100, summary lines),
# saved once by one worker --state-dir (the "seed" row, made by the first binary); then one new run
# per athlete, every athlete's upload in one batch, BENCH_RUNS times (default 5) on a fresh copy of
# the seeded states. Prints the median wall and CPU time of the batch, uploads per second (wall, and
# per CPU second), the peak RSS, and the state's bytes per athlete (du).
# Several binaries: side by side, each round running every one (the order turned by one each
# round, as pair.sh does); for every binary after the first, the median of the per-round ratios
# first / this (above 1: faster), and a check that its output lines equal the first's.
# ALL_PACKS=1: every pack under rules/ instead of checkpoints, segments and lifetime (as
# scripts/bench/worker.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
athletes=${ATHLETES:-1000}; history=${HISTORY:-100}; repeat=${BENCH_RUNS:-5}
binaries=("${@:-.build/release/badgectl}")
binary=${binaries[0]}
work=${BENCH_DIR:-/tmp/badgectl-bench}/stream-$athletes-$history-${ALL_PACKS:-0}
mkdir -p "$work"
packs=(--rules rules/checkpoints --rules rules/segments --rules rules/lifetime --badges badges.json --tz UTC --no-cache)
if [[ ${ALL_PACKS:-0} == 1 ]]; then
    packs=(--badges badges.json --tz UTC --no-cache)
    for pack in rules/*/; do packs+=(--rules "${pack%/}"); done
fi
python3 - "$athletes" "$history" "$work" <<'PY'
import json, random, sys
athletes, history, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(7)
base = 1_735_718_400  # 2025-01-01T08:00:00Z
def line(a, i, day):
    km = rng.uniform(3, 22)
    start = base + day * 86_400 + rng.randrange(0, 36_000)
    iso = __import__("datetime").datetime.utcfromtimestamp(start).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps({"athlete": f"a{a:06d}", "id": f"r{i}",
                       "summary": {"start": iso, "distance_m": round(km * 1000), "duration_s": round(km * rng.uniform(270, 400))}})
with open(f"{work}/history.jsonl", "w") as h, open(f"{work}/uploads.jsonl", "w") as u:
    for a in range(athletes):
        for i in range(history):
            h.write(line(a, i, i * 2) + "\n")
        u.write(line(a, history, history * 2 + 1) + "\n")
PY
# Seeded states are keyed by the packs' content (made with other packs, every upload would replay)
# and the store's layout (a worker's store, `~store`, since 516e04a; folders before).
seeded=$work/seeded-store-$(cd rules && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
if [[ ! -d $seeded ]]; then
    t=$( { /usr/bin/time -f "%U %S %e %M" "$binary" worker --state-dir "$seeded.tmp" "${packs[@]}" <"$work/history.jsonl" >/dev/null; } 2>&1 | tail -1)
    mv "$seeded.tmp" "$seeded"
    echo "seed: $athletes athletes x $history runs saved (user sys wall peak_kb): $t"
fi
bytes=$(du -sb "$seeded" | cut -f1)
rounds=$(mktemp); trap 'rm -f "$rounds"' EXIT
for ((k = 0; k < repeat; k++)); do
    for ((j = 0; j < ${#binaries[@]}; j++)); do
        i=$(((j + k) % ${#binaries[@]}))
        rm -rf "$work/run"; cp -a "$seeded" "$work/run"
        t=$( { /usr/bin/time -f "%U %S %e %M" "${binaries[$i]}" worker --state-dir "$work/run" "${packs[@]}" <"$work/uploads.jsonl" >"$work/out-$i.jsonl"; } 2>&1 | tail -1)
        echo "$k $i $t" >>"$rounds"
    done
done
rm -rf "$work/run"
grep -q '"type":"award"' "$work/out-0.jsonl" || { echo "stream.sh: the uploads gave no award lines" >&2; exit 1; }
for ((i = 1; i < ${#binaries[@]}; i++)); do
    cmp -s "$work/out-0.jsonl" "$work/out-$i.jsonl" || echo "stream.sh: ${binaries[$i]}'s output differs from ${binaries[0]}'s" >&2
done
python3 - "$rounds" "$athletes" "$history" "$bytes" "${binaries[@]}" <<'PY'
import statistics, sys
rounds, athletes, history, size, binaries = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5:]
runs = {}
for line in open(rounds):
    k, i, user, system, wall, peak = line.split()
    runs.setdefault(int(i), {})[int(k)] = (float(user) + float(system), float(wall), int(peak))
print(f"{'athletes':9} {'history':8} {'wall_s':>8} {'cpu_s':>8} {'uploads/s/wall':>16} {'uploads/s/cpu_s':>18} {'peak_rss_mb':>12} {'state_bytes/ath':>16}  binary")
for i, binary in enumerate(binaries):
    cpu = statistics.median(r[0] for r in runs[i].values()); wall = statistics.median(r[1] for r in runs[i].values())
    peak = max(r[2] for r in runs[i].values())
    line = f"{athletes:<9} {history:<8} {wall:8.2f} {cpu:8.2f} {athletes / wall:16.0f} {athletes / cpu:18.0f} {peak / 1000:12.1f} {size / athletes:16.0f}  {binary}"
    if i > 0:
        line += (f"  (x{statistics.median(runs[0][k][1] / runs[i][k][1] for k in runs[i]):.3f} wall,"
                 f" x{statistics.median(runs[0][k][0] / runs[i][k][0] for k in runs[i]):.3f} CPU against the first)")
    print(line)
PY
