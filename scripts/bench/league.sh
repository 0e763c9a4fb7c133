#!/usr/bin/env bash
# `badgectl league`, whole process: the generated league population (`badgectl generate --league N`:
# athletes lapping the places pack's park loop, their worker lines), evaluated, mapped to facts,
# sorted and reduced (BENCHMARKS.md, "League").
#   scripts/bench/league.sh [BINARY...]      (default .build/release/badgectl; several alternate run by run)
# ATHLETES athletes (default 3000); BENCH_RUNS runs each (default 7); SORT_KIB the sort buffer
# (default 32768: in memory; 64 spills); CACHE=1: the runs' summaries from a cache warmed by one
# run first (the reading left out: the rules and the league stage), else --no-cache. Prints, per binary, the median CPU time (user + sys), the
# median wall time and the largest peak RSS of its runs; the binaries' outputs must be the same bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."
athletes=${ATHLETES:-3000}; repeat=${BENCH_RUNS:-7}; sort_kib=${SORT_KIB:-32768}
binaries=("$@"); [[ ${#binaries[@]} -eq 0 ]] && binaries=(.build/release/badgectl)
dir=${BENCH_DIR:-/tmp/badgectl-bench}/league-$athletes
[[ -s $dir/league.jsonl ]] || { rm -rf "$dir"; "${binaries[0]}" generate "$dir" --league "$athletes" >/dev/null; }
options=(--root "$dir" --rules rules/places --tz UTC --by sex age team --club distance=100000 --sort-buffer-kib "$sort_kib")
if [[ ${CACHE:-0} == 1 ]]; then
    options+=(--cache "$dir/cache.sqlite")
    "${binaries[0]}" league "${options[@]}" <"$dir/league.jsonl" >/dev/null
else
    options+=(--no-cache)
fi
declare -A cpu wall rss
for ((k = 0; k < repeat; k++)); do
    for b in "${binaries[@]}"; do
        out=$dir/out-$(echo "$b" | md5sum | cut -c1-8).jsonl
        t=$( { /usr/bin/time -f "%U %S %e %M" "$b" league "${options[@]}" <"$dir/league.jsonl" >"$out"; } 2>&1 | tail -1)
        read -r user sys elapsed peak <<<"$t"
        cpu[$b]+="$(awk "BEGIN { print $user + $sys }") "
        wall[$b]+="$elapsed "
        rss[$b]+="$peak "
    done
done
first=$dir/out-$(echo "${binaries[0]}" | md5sum | cut -c1-8).jsonl
for b in "${binaries[@]}"; do
    cmp -s "$first" "$dir/out-$(echo "$b" | md5sum | cut -c1-8).jsonl" || { echo "league.sh: $b's output differs from ${binaries[0]}'s" >&2; exit 1; }
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%-40s %10s %10s %12s %12s\n' binary cpu_s wall_s lines peak_rss_mb
for b in "${binaries[@]}"; do
    c=$(echo "${cpu[$b]}" | median); w=$(echo "${wall[$b]}" | median)
    m=$(echo "${rss[$b]}" | tr ' ' '\n' | sed '/^$/d' | sort -g | tail -1)
    printf '%-40s %10s %10s %12s %12.1f\n' "$b" "$c" "$w" "$(wc -l <"$first")" "$(awk "BEGIN { print $m / 1000 }")"
done
