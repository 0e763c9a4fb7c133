#!/bin/sh
# Archive benchmarks (issue 27), run by scripts/bench.sh after its own (or alone); prints a BENCHMARKS.md
# section on stdout.
#   scripts/bench/archives.sh BIN WORK RUNS
# BIN: the release bin folder (badgectl, BadgeBench); WORK: the work folder; RUNS: repetitions (median).
# Inputs, made deterministically once: an Apple Health export.xml of 1 GB (scripts/bench/gen_health_export.py:
# mostly Record elements, 2,000 workouts, the heart-rate records inside them) and 1,000 FIT runs of 30 minutes
# (`BadgeBench gen-fit-runs`), as a folder and as one zip of the same files (Python's zipfile, deflated).
# Measured whole process (`badgectl summarize` / `evaluate`, /usr/bin/time): the export's wall time, MB/s
# and peak RSS; the zip's and the folder's wall times, alternated, and their ratio.
set -eu
bin=$1; work=$2; runs=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export_xml="$work/health-1g/export.xml"
mkdir -p "$work/health-1g"
[ -f "$export_xml" ] || python3 "$root/scripts/bench/gen_health_export.py" "$export_xml" 1000 2000
fits="$work/fit-runs-1000"
[ -d "$fits" ] || "$bin/BadgeBench" gen-fit-runs 1000 30 "$fits" > /dev/null
[ -f "$work/fit-runs-1000.zip" ] || python3 -c '
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(src)):
        z.write(os.path.join(src, name), "activities/" + name)
' "$fits" "$work/fit-runs-1000.zip"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# wall seconds, peak RSS (KB) and CPU seconds (user + system) of one command
timed() { /usr/bin/time -f "%e %M %U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'; }

bytes=$(stat -c %s "$export_xml")
: > "$work/health.txt"
i=0
while [ $i -lt "$runs" ]; do
    timed "$bin/badgectl" summarize "$export_xml" --format json --tz UTC --no-cache >> "$work/health.txt"
    i=$((i + 1))
done
health_s=$(cut -d' ' -f1 "$work/health.txt" | median)
health_rss=$(cut -d' ' -f2 "$work/health.txt" | sort -n | tail -1)
health_cpu=$(cut -d' ' -f3 "$work/health.txt" | median)
load=$(cut -d' ' -f1 /proc/loadavg)
workouts=$("$bin/badgectl" summarize "$export_xml" --format json --tz UTC --no-cache | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["runs"]))')

: > "$work/zip.txt"; : > "$work/folder.txt"
i=0
while [ $i -lt "$runs" ]; do
    timed "$bin/badgectl" evaluate "$work/fit-runs-1000.zip" --format json --tz UTC --no-cache --sport all >> "$work/zip.txt"
    timed "$bin/badgectl" evaluate "$fits" --format json --tz UTC --no-cache --sport all >> "$work/folder.txt"
    i=$((i + 1))
done
zip_s=$(cut -d' ' -f1 "$work/zip.txt" | median)
folder_s=$(cut -d' ' -f1 "$work/folder.txt" | median)
zip_mb=$(( $(stat -c %s "$work/fit-runs-1000.zip") / 1000000 ))
folder_mb=$(( $(du -sb "$fits" | cut -f1) / 1000000 ))

cat <<MD

## Archives (issue 27)

Made by \`scripts/bench/archives.sh\` (run by \`scripts/bench.sh\`), whole process, medians of $runs runs; load
average $load when it ended (2 cores: above 2, other work shares them, and wall times grow; CPU seconds do not).

| input | what | wall s | figure | peak RSS MB |
|---|---|---|---|---|
| Apple Health \`export.xml\`, $((bytes / 1000000)) MB (mostly \`Record\`s, 2,000 workouts, the heart-rate records inside them) | \`badgectl summarize export.xml\`: both passes, $workouts workouts summarised | $health_s (CPU $health_cpu) | $(awk "BEGIN { printf \"%.0f\", $bytes / 1000000 / $health_s }") MB/s wall, $(awk "BEGIN { printf \"%.0f\", $bytes / 1000000 / $health_cpu }") MB/s a CPU second (target ≥ 500) | $(awk "BEGIN { printf \"%.0f\", $health_rss / 1024 }") (target < 200) |
| 1,000 FIT runs of 30 min as a zip ($zip_mb MB, deflated) | \`badgectl evaluate runs.zip --no-cache\` | $zip_s | $(awk "BEGIN { printf \"%.2f\", $zip_s / $folder_s }")× the folder (target ≤ 1.3×) | $(cut -d' ' -f2 "$work/zip.txt" | sort -n | tail -1 | awk '{ printf "%.0f", $1 / 1024 }') |
| the same 1,000 files as a folder ($folder_mb MB) | \`badgectl evaluate runs/ --no-cache\` | $folder_s | | $(cut -d' ' -f2 "$work/folder.txt" | sort -n | tail -1 | awk '{ printf "%.0f", $1 / 1024 }') |
MD
