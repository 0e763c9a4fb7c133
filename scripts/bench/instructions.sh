#!/bin/bash
# Instruction counts (valgrind callgrind) of the benchmark's hot paths, for two checkouts side by side:
#   scripts/bench/instructions.sh BEFORE_DIR AFTER_DIR
# Each DIR is a checkout with a release build of BadgeBench (swift build -c release --product BadgeBench)
# and the inputs of scripts/bench.sh in BENCH_DIR (default /tmp/badgectl-bench). Counts do not depend on
# what else the machine is doing, so a change of a few percent shows where wall-clock medians on a
# shared machine cannot. valgrind 3.19 cannot read the toolchain's DWARF 5, so a copy of each binary
# without debug information is counted.
set -eu
work=${BENCH_DIR:-/tmp/badgectl-bench}
command -v valgrind > /dev/null || { apt-get update -qq && apt-get install -y -qq valgrind; }
printf '%-28s %16s %16s %8s\n' figure before after ratio
declare -A counts
for side in before after; do
    dir=$1; [ "$side" = after ] && dir=$2
    bin=$(mktemp); cp "$dir/.build/release/BadgeBench" "$bin"; chmod +x "$bin"; strip -g "$bin"
    count() {
        name=$1; shift
        out=$(mktemp)
        (cd "$dir" && valgrind --tool=callgrind --callgrind-out-file="$out" ${toggle:+--toggle-collect="$toggle"} "$@" > /dev/null 2>&1)
        counts[$side.$name]=$(sed -n 's/^summary: //p' "$out"); rm -f "$out"
    }
    count gpx100k_read_summary "$bin" ours-gpx "$work/gpx-100k.gpx" 1 both
    count fit100k_read_summary "$bin" fit "$work/fit-100k.fit" 1
    BENCH_RUNS=1 count rules_1000_summaries "$bin" rules 1000 badges.json rules
    cache=$(mktemp -u); count folder_200_runs_all_modes "$bin" folder "$work/runs-200-60" "$cache" 1; rm -f "$cache"*
    # Three warm reads of the folder alone (the cache primed first, uncounted), with every measure the
    # shipped packs declare and without: the with/without ratio is G1's warm figure. Trees from before
    # BadgeBench had warm-measures count "-".
    for mode in with without; do
        counts[$side.warm_3_reads_$mode]=-
        if "$bin" warm-measures 2>&1 | grep -q "usage: warm-measures"; then
            cache=$(mktemp -u)
            (cd "$dir" && "$bin" warm-measures "$work/runs-200-60" "$cache" $mode 1 rules > /dev/null)
            toggle='*warmReads*' count warm_3_reads_$mode "$bin" warm-measures "$work/runs-200-60" "$cache" $mode 3 rules
            rm -f "$cache"*
        fi
    done
    rm -f "$bin"
done
for name in gpx100k_read_summary fit100k_read_summary rules_1000_summaries folder_200_runs_all_modes warm_3_reads_with warm_3_reads_without; do
    b=${counts[before.$name]}; a=${counts[after.$name]}
    ratio=-; [ "$a" != - ] && [ "$b" != - ] && ratio=$(awk "BEGIN { printf \"%.3f\", $a / $b }")
    printf '%-28s %16s %16s %8s\n' "$name" "$b" "$a" "$ratio"
done
for side in before after; do
    w=${counts[$side.warm_3_reads_with]}; o=${counts[$side.warm_3_reads_without]}
    if [ "$w" != - ]; then printf '%-28s %16s\n' "warm_measures_ratio_$side" "$(awk "BEGIN { printf \"%.3f\", $w / $o }")"; fi
done
