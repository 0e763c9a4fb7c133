#!/usr/bin/env bash
# A command's whole-process time when the binary's pages are not in memory, as after a machine's
# reclaim dropped them (BENCHMARKS.md, issue F, ninth round: this VM's DAMON pageout takes the pages
# nothing touched for about a minute, and the loop of process.sh runs each binary every ~10 s):
#   scripts/bench/cold.sh ROUNDS 'ARGS...' BINARY...
#   scripts/bench/cold.sh 15 'summarize /tmp/badgectl-bench/gpx-100k.gpx --no-cache' /tmp/before/badgectl .build/release/badgectl
# Each round, for each binary in turn (the order turned by one each round): the binary's file is
# dropped from the page cache (posix_fadvise DONTNEED: clean pages, nothing is lost), then the command
# runs once under /usr/bin/time (for its major faults; the wall time, from
# the shell's clock, includes time's own start, alike for every binary) from the repository's root. Prints per binary the median wall time and
# the median of major page faults (each a read from the disk), with the interquartile range of wall.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 3 ]] || { echo "usage: scripts/bench/cold.sh ROUNDS 'ARGS...' BINARY..." >&2; exit 64; }
rounds=$1; read -r -a args <<<"$2"; shift 2
binaries=("$@")
out=$(mktemp); trap 'rm -f "$out"' EXIT
export LC_ALL=C
for ((k = 0; k < rounds; k++)); do
    for ((j = 0; j < ${#binaries[@]}; j++)); do
        i=$(((j + k) % ${#binaries[@]}))
        python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "${binaries[$i]}"
        before=$EPOCHREALTIME
        /usr/bin/time -f "%F" -o "$out.one" "${binaries[$i]}" "${args[@]}" >/dev/null 2>&1 || true
        after=$EPOCHREALTIME
        echo "$i $(awk "BEGIN { print $after - $before }") $(tail -1 "$out.one")" >>"$out"
    done
done
rm -f "$out.one"
python3 - "$out" "${binaries[@]}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
for i, b in enumerate(sys.argv[2:]):
    wall = [float(w) * 1000 for k, w, _ in rows if int(k) == i]
    major = [int(m) for k, _, m in rows if int(k) == i]
    q = statistics.quantiles(wall, n=4)
    print(f"{b}: median {statistics.median(wall):.0f} ms (interquartile {q[0]:.0f}-{q[2]:.0f}), "
          f"major faults median {statistics.median(major):.0f}, {len(wall)} rounds")
PY
