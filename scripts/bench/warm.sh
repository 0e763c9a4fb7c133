#!/usr/bin/env bash
# A warm `badgectl evaluate` of a folder, whole processes side by side (BENCHMARKS.md, "Issue F (#31)
# item 2, second round: warm reads"):
#   scripts/bench/warm.sh BINARY...     (the first is the reference the others' ratios are to)
# Each binary gets its own cache, made by one cold run (timed once), then BENCH_RUNS rounds (default 9)
# run every binary once each, alternating, under /usr/bin/time: medians of CPU seconds (user + sys),
# wall seconds and peak RSS, and each binary's ratio to the first. The outputs of the warm runs are
# compared byte for byte with the first binary's (and, when they differ, their `--format json` awards) and with
# the binary before it in the list.
# Environment: BENCH_DIR (work folder, default /tmp/badgectl-bench), WARM_DIR (the folder of runs; default
# BENCH_DIR/runs-1000-60, made by the first binary's `generate --count 1000 --minutes 60`), WARM_TREE
# (the folder to run in: its rules/ and badges.json are what every binary evaluates; default the
# repository), BENCH_RUNS.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${BENCH_DIR:-/tmp/badgectl-bench}; rounds=${BENCH_RUNS:-9}
binaries=("$@"); [[ ${#binaries[@]} -gt 0 ]] || { echo "usage: scripts/bench/warm.sh BINARY..." >&2; exit 64; }
for b in "${binaries[@]}"; do [[ -x $b ]] || { echo "scripts/bench/warm.sh: $b is not an executable" >&2; exit 64; }; done
mkdir -p "$work"
runs=${WARM_DIR:-$work/runs-1000-60}
[[ -d $runs ]] || "${binaries[0]}" generate "$runs" --count 1000 --minutes 60 >/dev/null
cd "${WARM_TREE:-$root}"
declare -A cpu wall rss
tag() { echo "$1" | md5sum | cut -c1-8; }
for b in "${binaries[@]}"; do
    cache=$work/warm-$(tag "$b").sqlite
    rm -f "$cache" "$cache-wal" "$cache-shm"
    /usr/bin/time -o "$work/warm-time.txt" -f "%e %U %S %M" "$b" evaluate "$runs" --cache "$cache" >/dev/null 2>&1 || true
    read -r e u s m < "$work/warm-time.txt"
    echo "cold (one run, makes the cache) $b: wall ${e} s, CPU $(awk "BEGIN { print $u + $s }") s, peak RSS $((m / 1024)) MB"
done
for ((k = 0; k < rounds; k++)); do
    for b in "${binaries[@]}"; do
        t=$(tag "$b")
        /usr/bin/time -o "$work/warm-time.txt" -f "%e %U %S %M" "$b" evaluate "$runs" --cache "$work/warm-$t.sqlite" \
            >"$work/warm-out-$t.txt" 2>/dev/null || true
        read -r e u s m < "$work/warm-time.txt"
        cpu[$b]+="$(awk "BEGIN { print $u + $s }") "; wall[$b]+="$e "; rss[$b]+="$m "
    done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
first=${binaries[0]}
c0=$(echo "${cpu[$first]}" | median); w0=$(echo "${wall[$first]}" | median)
echo "warm evaluate of $(find "$runs" -type f | wc -l) files, median of $rounds alternating rounds (in $(pwd))"
printf '%-44s %8s %8s %8s %10s %10s  %s\n' binary cpu_s wall_s rss_mb cpu_ratio wall_ratio "output vs the first; vs the one before"
previous=$first
for b in "${binaries[@]}"; do
    c=$(echo "${cpu[$b]}" | median); w=$(echo "${wall[$b]}" | median); m=$(echo "${rss[$b]}" | median)
    if cmp -s "$work/warm-out-$(tag "$first").txt" "$work/warm-out-$(tag "$b").txt"; then same="identical"; else
        # Not the same bytes: are the awards the same?
        "$first" evaluate "$runs" --cache "$work/warm-$(tag "$first").sqlite" --format json 2>/dev/null |
            python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["awards"], sort_keys=True))' > "$work/warm-awards-a.json" || true
        "$b" evaluate "$runs" --cache "$work/warm-$(tag "$b").sqlite" --format json 2>/dev/null |
            python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["awards"], sort_keys=True))' > "$work/warm-awards-b.json" || true
        if cmp -s "$work/warm-awards-a.json" "$work/warm-awards-b.json"; then same="differs (same awards)"; else same="differs"; fi
    fi
    printf '%-44s %8s %8s %8.1f %10s %10s  %s\n' "$b" "$c" "$w" "$(awk "BEGIN { print $m / 1024 }")" \
        "$(awk "BEGIN { printf \"%.2f\", ($c0 > 0 ? $c / $c0 : 0) }")" "$(awk "BEGIN { printf \"%.2f\", ($w0 > 0 ? $w / $w0 : 0) }")" \
        "$same; $(cmp -s "$work/warm-out-$(tag "$previous").txt" "$work/warm-out-$(tag "$b").txt" && echo identical || echo differs)"
    previous=$b
done
