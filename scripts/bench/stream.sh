#!/usr/bin/env bash
# Per-upload evaluation with kept state: `badgectl worker --state-dir` (BENCHMARKS.md, "Uploads").
#   scripts/bench/stream.sh [BINARY]          (default .build/release/badgectl)
# ATHLETES athletes (default 1000) each with a history of HISTORY runs (default 100, summary lines),
# saved once by one worker --state-dir (the "seed" row); then one new run per athlete, every
# athlete's upload in one batch, BENCH_RUNS times (default 5) on a fresh copy of the seeded states.
# Prints the median wall and CPU time of the batch, uploads per second (wall, and per CPU second),
# the peak RSS, and the state's bytes per athlete (du). ALL_PACKS=1: every pack under rules/
# instead of checkpoints, segments and lifetime (as scripts/bench/worker.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
athletes=${ATHLETES:-1000}; history=${HISTORY:-100}; repeat=${BENCH_RUNS:-5}
binary=${1:-.build/release/badgectl}
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
declare -a cpus walls peaks
for ((k = 0; k < repeat; k++)); do
    rm -rf "$work/run"; cp -a "$seeded" "$work/run"
    t=$( { /usr/bin/time -f "%U %S %e %M" "$binary" worker --state-dir "$work/run" "${packs[@]}" <"$work/uploads.jsonl" >"$work/out.jsonl"; } 2>&1 | tail -1)
    read -r user sys elapsed peak <<<"$t"
    cpus+=("$(awk "BEGIN { print $user + $sys }")"); walls+=("$elapsed"); peaks+=("$peak")
done
grep -q '"type":"award"' "$work/out.jsonl" || { echo "stream.sh: the uploads gave no award lines" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
c=$(median "${cpus[@]}"); w=$(median "${walls[@]}"); p=$(printf '%s\n' "${peaks[@]}" | sort -g | tail -1)
printf '%-9s %-8s %8s %8s %16s %18s %12s %16s\n' athletes history wall_s cpu_s uploads/s/wall uploads/s/cpu_s peak_rss_mb state_bytes/ath
printf '%-9s %-8s %8s %8s %16.0f %18.0f %12.1f %16.0f\n' "$athletes" "$history" "$w" "$c" "$(awk "BEGIN { print $athletes / $w }")" \
    "$(awk "BEGIN { print $athletes / $c }")" "$(awk "BEGIN { print $p / 1000 }")" "$(awk "BEGIN { print $bytes / $athletes }")"
