#!/usr/bin/env bash
# `badgectl add` of one run to a saved history of 1,000, 10,000 and 100,000 runs (issue 31 item 4;
# BENCHMARKS.md, "Issue F (#31) item 4: add that does not grow"), for each binary given, side by side.
#   scripts/bench/add.sh LABEL=BINARY [LABEL=BINARY...]
# Histories: scripts/bench/add-history.py (JSON summaries over 22 years, 3 to 22 km, one later run to
# add), evaluated once per binary with every pack in rules/ and badges.json, --tz UTC (the state is kept
# in $BENCH_DIR/add/LABEL-N/state and reused: the 100,000-run evaluate takes minutes). Then rounds:
# each round copies each binary's state afresh and times one `add` with every binary in turn, so load
# from elsewhere falls on all alike. CPU time of the whole process from `perf stat -e task-clock`
# (user + sys from /usr/bin/time when perf is missing), peak RSS from /usr/bin/time; medians.
# Environment: BENCH_DIR (default /tmp/badgectl-bench), BENCH_RUNS (rounds, default 5), ADD_SIZES
# (default "1000 10000 100000"), RULES (default rules), BADGES (default badges.json).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${BENCH_DIR:-/tmp/badgectl-bench}/add; rounds=${BENCH_RUNS:-5}
sizes=${ADD_SIZES:-"1000 10000 100000"}
rules=$(realpath "${RULES:-rules}"); badges=$(realpath "${BADGES:-badges.json}")
# Kept states are keyed by the packs' content too: a state made with other packs would replay every
# history (a pack changed), and the figure would be a full evaluation's.
packs_hash=$(cd "$rules" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
labels=(); bins=()
for arg in "$@"; do labels+=("${arg%%=*}"); bins+=("$(realpath "${arg#*=}")"); done
[[ ${#bins[@]} -gt 0 ]] || { echo "usage: $0 LABEL=BINARY..." >&2; exit 64; }
mkdir -p "$work"
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
cpu_ms() {  # command... : CPU ms of the whole process, then peak RSS KB on the next line
    if command -v perf >/dev/null; then
        /usr/bin/time -o "$work/time.txt" -f "%M" perf stat -x, -e task-clock -o "$work/perf.txt" "$@" >/dev/null 2>&1 || true
        awk -F, '/task-clock/ { printf "%.1f\n", $1 }' "$work/perf.txt"
    else
        /usr/bin/time -o "$work/time.txt" -f "%U %S %M" "$@" >/dev/null 2>&1 || true
        awk '{ printf "%.1f\n", ($1 + $2) * 1000 }' "$work/time.txt"
    fi
    tail -1 "$work/time.txt" | awk '{ print $NF }'
}
printf "%-8s %-10s %8s %8s %10s %9s %s\n" runs binary add_ms rss_mb state_mb min..max "(task-clock, median of $rounds; ratio to ${labels[0]})"
for n in $sizes; do
    history="$work/history-$n"
    [[ -f $work/new-$n.json ]] || { python3 scripts/bench/add-history.py "$history/h" "$n" >&2 && mv "$history/new.json" "$work/new-$n.json"; }
    for i in "${!bins[@]}"; do
        state="$work/${labels[$i]}-$n-$packs_hash/state"
        if [[ ! -d $state ]]; then
            echo "== evaluate $n runs with ${labels[$i]} (once)" >&2
            mkdir -p "$(dirname "$state")"
            "${bins[$i]}" evaluate "$history/h" --state "$state" --rules "$rules" --badges "$badges" --tz UTC --no-cache >/dev/null 2>"$work/${labels[$i]}-$n/evaluate.err" || true
        fi
    done
    declare -A times=() rss=()
    for _ in $(seq "$rounds"); do
        for i in "${!bins[@]}"; do
            copy="$work/copy"; rm -rf "$copy"; cp -r "$work/${labels[$i]}-$n/state" "$copy"
            result=$(cpu_ms "${bins[$i]}" add --state "$copy" "$work/new-$n.json" --rules "$rules" --badges "$badges" --no-cache)
            times[$i]+="$(sed -n 1p <<<"$result") "; rss[$i]+="$(sed -n 2p <<<"$result") "
        done
    done
    base=""
    for i in "${!bins[@]}"; do
        t=$(tr ' ' '\n' <<<"${times[$i]}" | grep . | median)
        r=$(tr ' ' '\n' <<<"${rss[$i]}" | grep . | median)
        range=$(tr ' ' '\n' <<<"${times[$i]}" | grep . | sort -n | sed -n '1p;$p' | paste -sd'-')
        size=$(du -sm "$work/${labels[$i]}-$n/state" | cut -f1)
        [[ -n $base ]] || base=$t
        printf "%-8s %-10s %8s %8.1f %10s %9s x%.2f\n" "$n" "${labels[$i]}" "$t" "$(awk "BEGIN { print $r / 1024 }")" "$size" "$range" "$(awk "BEGIN { print $base / $t }")"
    done
    unset times rss
done
rm -rf "$work/copy"
