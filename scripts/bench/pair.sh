#!/usr/bin/env bash
# Two or more binaries side by side on one command line, alternating run by run (BENCHMARKS.md,
# "Measured changes": the before/after rows of issue F's rounds):
#   scripts/bench/pair.sh ROUNDS 'ARGS...' BINARY BINARY...
#   scripts/bench/pair.sh 80 'summarize /tmp/badgectl-bench/fit-100k.fit --no-cache' /tmp/before/badgectl .build/release/badgectl
#   COLD=1 scripts/bench/pair.sh 15 '--version' /tmp/before/badgectl .build/release/badgectl
# Each round runs every binary once, the order turned by one each round (as process.sh turns it), from
# the repository's root (where badges.json is found). Prints each binary's median and interquartile
# wall time (ms), and, for every binary after the first, the median of the per-round ratios first / this
# (above 1: faster than the first), which pairs each run with its neighbour in time and so leaves out
# most of the load that moves between rounds.
# COLD=1: before each run the binary's file is dropped from the page cache (posix_fadvise DONTNEED:
# clean pages, nothing is lost), as a machine's reclaim leaves it (this VM's DAMON pageout takes pages
# nothing touched for about a minute: BENCHMARKS.md, issue F, ninth round), and the run goes under
# /usr/bin/time, whose major faults (each a read from the disk) are printed too; the wall time then
# includes time's own start, alike for every binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 3 ]] || { echo "usage: [COLD=1] scripts/bench/pair.sh ROUNDS 'ARGS...' BINARY BINARY..." >&2; exit 64; }
rounds=$1; read -r -a args <<<"$2"; shift 2
binaries=("$@")
cold=${COLD:-0}
out=$(mktemp); trap 'rm -f "$out" "$out.one"' EXIT
export LC_ALL=C
for ((k = 0; k < rounds; k++)); do
    for ((j = 0; j < ${#binaries[@]}; j++)); do
        i=$(((j + k) % ${#binaries[@]}))
        faults=-
        if [[ $cold == 1 ]]; then
            python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "${binaries[$i]}"
            before=$EPOCHREALTIME
            /usr/bin/time -f "%F" -o "$out.one" "${binaries[$i]}" "${args[@]}" >/dev/null 2>&1 || true
            after=$EPOCHREALTIME
            faults=$(tail -1 "$out.one")
        else
            before=$EPOCHREALTIME
            "${binaries[$i]}" "${args[@]}" >/dev/null 2>&1 || true
            after=$EPOCHREALTIME
        fi
        echo "$k $i $after $before $faults" >>"$out"
    done
done
python3 - "$out" "${binaries[@]}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
binaries = sys.argv[2:]
wall, faults = {}, {}  # (round, binary) -> ms, major faults
for k, i, after, before, major in rows:
    wall[(int(k), int(i))] = (float(after) - float(before)) * 1000
    if major != "-":
        faults[(int(k), int(i))] = int(major)
rounds = sorted({k for k, _ in wall})
for i, b in enumerate(binaries):
    times = [wall[(k, i)] for k in rounds]
    q = statistics.quantiles(times, n=4)
    line = f"{b}: median {statistics.median(times):.2f} ms (interquartile {q[0]:.2f}-{q[2]:.2f}), {len(rounds)} rounds"
    if faults:
        line += f", major faults median {statistics.median(faults[(k, i)] for k in rounds):.0f}"
    if i > 0:
        ratio = statistics.median(wall[(k, 0)] / wall[(k, i)] for k in rounds)
        line += f"; median per-round ratio {binaries[0]} / this: {ratio:.3f}"
    print(line)
PY
