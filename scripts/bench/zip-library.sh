#!/bin/sh
# Why badgectl reads zips with its own reader over zlib (RunFiles/Archive) rather than ZIPFoundation:
# measured side by side, whole process, CPU seconds (user + system; the machine is shared, wall times
# are noisy). ZIPFoundation 0.9.20 (scripts/bench/zip-peer: every entry into memory, CRC checked,
# nothing parsed) against what reading the same files from a zip costs badgectl beyond reading them from
# a folder (`evaluate runs.zip` minus `evaluate runs/`: locating, inflating and checking every entry).
#   scripts/bench/zip-library.sh BIN WORK RUNS   (after scripts/bench/archives.sh made WORK's inputs)
set -eu
bin=$1; work=$2; runs=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
(cd "$root/scripts/bench/zip-peer" && swift build -c release > /dev/null)
zf="$root/scripts/bench/zip-peer/.build/release/zipbench"
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.2f\n", $1 + $2 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > "$work/zf.txt"; : > "$work/bz.txt"; : > "$work/bf.txt"
cd "$root"
i=0
while [ $i -lt "$runs" ]; do
    cpu "$zf" "$work/fit-runs-1000.zip" >> "$work/zf.txt"
    cpu "$bin/badgectl" evaluate "$work/fit-runs-1000.zip" --format json --tz UTC --no-cache --sport all >> "$work/bz.txt"
    cpu "$bin/badgectl" evaluate "$work/fit-runs-1000" --format json --tz UTC --no-cache --sport all >> "$work/bf.txt"
    i=$((i + 1))
done
zf_s=$(median < "$work/zf.txt"); bz_s=$(median < "$work/bz.txt"); bf_s=$(median < "$work/bf.txt")
echo "zip libraries, 1,000 FIT runs in one 25 MB zip, CPU s, medians of $runs alternated runs:"
echo "  ZIPFoundation 0.9.20, extraction alone:            $zf_s"
echo "  badgectl from the zip: $bz_s, from the folder: $bf_s, the zip's cost: $(awk "BEGIN { printf \"%.2f\", $bz_s - $bf_s }")"
