#!/usr/bin/env bash
# Worker throughput, whole process: JSON-lines summaries in, awards out, with the checkpoints,
# segments and lifetime packs (BENCHMARKS.md, "Worker").
#   scripts/bench/worker.sh [BINARY...]      (default .build/release/badgectl; several alternate run by run)
# ATHLETES x RUNS summary lines (default 100 x 1000, scripts/bench/worker-input.py); BENCH_RUNS
# runs each (default 5). Prints, per binary, the median CPU time (user + sys), wall time, runs and
# athletes per second per core (per CPU second: the figure that does not depend on other load), and
# the largest peak RSS of its runs.
# ALL_PACKS=1: every pack under rules/ instead of the three.
set -euo pipefail
cd "$(dirname "$0")/../.."
athletes=${ATHLETES:-100}; runs=${RUNS:-1000}; repeat=${BENCH_RUNS:-5}
binaries=("$@"); [[ ${#binaries[@]} -eq 0 ]] && binaries=(.build/release/badgectl)
input=${BENCH_DIR:-/tmp/badgectl-bench}/worker-$athletes-$runs.jsonl
mkdir -p "$(dirname "$input")"
[[ -s $input ]] || python3 scripts/bench/worker-input.py "$athletes" "$runs" >"$input"
packs=(--rules rules/checkpoints --rules rules/segments --rules rules/lifetime --badges badges.json --tz UTC)
if [[ ${ALL_PACKS:-0} == 1 ]]; then
    packs=(--badges badges.json --tz UTC)
    for pack in rules/*/; do packs+=(--rules "${pack%/}"); done
fi
declare -A cpu wall rss
for ((k = 0; k < repeat; k++)); do
    for b in "${binaries[@]}"; do
        t=$( { /usr/bin/time -f "%U %S %e %M" "$b" worker "${packs[@]}" <"$input" >/dev/null; } 2>&1 | tail -1)
        read -r user sys elapsed peak <<<"$t"
        cpu[$b]+="$(awk "BEGIN { print $user + $sys }") "
        wall[$b]+="$elapsed "
        rss[$b]+="$peak "
    done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
total=$((athletes * runs))
printf '%-40s %10s %10s %14s %14s %18s %12s\n' binary cpu_s wall_s runs/s/core runs/s/wall athletes/s/core peak_rss_mb
for b in "${binaries[@]}"; do
    c=$(echo "${cpu[$b]}" | median); w=$(echo "${wall[$b]}" | median)
    m=$(echo "${rss[$b]}" | tr ' ' '\n' | sed '/^$/d' | sort -g | tail -1)
    printf '%-40s %10s %10s %14.0f %14.0f %18.0f %12.1f\n' "$b" "$c" "$w" "$(awk "BEGIN { print $total / $c }")" "$(awk "BEGIN { print $total / $w }")" \
        "$(awk "BEGIN { print $athletes / $c }")" "$(awk "BEGIN { print $m / 1000 }")"
done
