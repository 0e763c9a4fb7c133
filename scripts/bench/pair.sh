#!/usr/bin/env bash
# Two or more binaries side by side on one command line, alternating run by run (BENCHMARKS.md,
# "Measured changes": the before/after rows of issue F's rounds):
#   scripts/bench/pair.sh ROUNDS 'ARGS...' BINARY BINARY...
#   scripts/bench/pair.sh 80 'summarize /tmp/badgectl-bench/fit-100k.fit --no-cache' /tmp/before/badgectl .build/release/badgectl
# Each round runs every binary once, in turn (the first binary's order swapped every other round, so
# neither always follows the other), from the repository's root (where badges.json is found, as
# process.sh runs them). Prints each binary's median and interquartile wall time (ms), and, for every
# binary after the first, the median of the per-round ratios first / this (above 1: faster than the
# first), which pairs each run with its neighbour in time and so leaves out most of the load that
# moves between rounds.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 3 ]] || { echo "usage: scripts/bench/pair.sh ROUNDS 'ARGS...' BINARY BINARY..." >&2; exit 64; }
rounds=$1; read -r -a args <<<"$2"; shift 2
binaries=("$@")
out=$(mktemp); trap 'rm -f "$out"' EXIT
for ((k = 0; k < rounds; k++)); do
    order=("${!binaries[@]}")
    if ((k % 2 == 1)); then order=($(printf '%s\n' "${order[@]}" | tac)); fi
    for i in "${order[@]}"; do
        before=$EPOCHREALTIME
        "${binaries[$i]}" "${args[@]}" >/dev/null 2>&1 || true
        after=$EPOCHREALTIME
        echo "$k $i $after $before" >>"$out"
    done
done
python3 - "$out" "${binaries[@]}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
binaries = sys.argv[2:]
wall = {}  # (round, binary) -> ms
for k, i, after, before in rows:
    wall[(int(k), int(i))] = (float(after) - float(before)) * 1000
rounds = sorted({k for k, _ in wall})
def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]
for i, b in enumerate(binaries):
    lo, med, hi = quartiles([wall[(k, i)] for k in rounds])
    line = f"{b}: median {med:.2f} ms (interquartile {lo:.2f}-{hi:.2f}), {len(rounds)} rounds"
    if i > 0:
        ratio = statistics.median(wall[(k, 0)] / wall[(k, i)] for k in rounds)
        line += f"; median per-round ratio {binaries[0]} / this: {ratio:.3f}"
    print(line)
PY
