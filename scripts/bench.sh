#!/bin/sh
# badgectl's benchmark: builds release, makes its inputs deterministically, runs ours and the peers
# side by side (medians of several runs) and writes the full report to $BENCH_DIR/bench.md (BENCHMARKS.md holds the current figures).
#   scripts/bench.sh                 the standard set (see BENCHMARKS.md)
# Environment: BENCH_DIR (work folder, default /tmp/badgectl-bench), BENCH_FOLDER_RUNS (runs in the folder
# benchmark, default 200), BENCH_FOLDER_MINUTES (default 60), BENCH_GPXPY_1M=1 to also time gpxpy on the
# 1,000,000-point file (~100 s a run), BENCH_FULL=1 to add one pass over 2,000 runs of 1 hour (~3 GB),
# BENCH_RUNS (repetitions, default 5), BENCH_OUT (default $BENCH_DIR/bench.md; BENCHMARKS.md holds the figures
# users see, whole processes side by side, each with its command: copy from here what changes them).
# BENCH_ADD_BEFORE=BINARY also times `add` of one run to 1,000, 10,000 and 100,000-run histories with that
# binary beside this one (scripts/bench/add.sh; the 100,000-run evaluate takes minutes per binary).
# Then scripts/bench/archives.sh appends its section (a 1 GB Apple Health export; a zip of 1,000 FIT runs against the folder),
# and scripts/bench/zip-library.sh the zip reader against ZIPFoundation 0.9.20 (why badgectl has its own).
# Peers: gpxpy and fitdecode (pip install gpxpy fitdecode), Foundation's XMLParser (in BadgeBench).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-/tmp/badgectl-bench}
runs=${BENCH_RUNS:-5}
folder_runs=${BENCH_FOLDER_RUNS:-200}
folder_minutes=${BENCH_FOLDER_MINUTES:-60}
out=${BENCH_OUT:-$work/bench.md}
mkdir -p "$work"
results="$work/results.txt"
: > "$results"

cd "$root"
# The flags scripts/run and scripts/install build with (scripts/release-flags.sh): one shared build.
source scripts/release-flags.sh
swift build "${RELEASE_FLAGS[@]}" --product BadgeBench >&2
swift build "${RELEASE_FLAGS[@]}" --product badgectl >&2
bin=$(swift build "${RELEASE_FLAGS[@]}" --show-bin-path)
bench="$bin/BadgeBench"
python3 -c 'import gpxpy, fitdecode' 2>/dev/null || pip install gpxpy fitdecode >&2

# Collect `name value` lines from a command under a section prefix.
record() {
    section=$1; shift
    "$@" | while read -r name value; do echo "$section.$name $value"; done >> "$results"
}
# Peak RSS (MB) of a command, from /usr/bin/time -v.
rss() {
    section=$1; shift
    /usr/bin/time -v "$@" > /dev/null 2> "$work/time.txt"
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
    echo "$section.peak_rss_mb $(awk "BEGIN { printf \"%.1f\", $kb / 1024 }")" >> "$results"
}

echo "== inputs" >&2
[ -f "$work/gpx-100k.gpx" ] || "$bench" gen-gpx 100000 "$work/gpx-100k.gpx"
[ -f "$work/gpx-1m.gpx" ] || "$bench" gen-gpx 1000000 "$work/gpx-1m.gpx"
[ -f "$work/fit-100k.fit" ] || "$bench" gen-fit 100000 "$work/fit-100k.fit"
[ -f "$work/fit-1m.fit" ] || "$bench" gen-fit 1000000 "$work/fit-1m.fit"
runs_dir="$work/runs-$folder_runs-$folder_minutes"
[ -d "$runs_dir" ] || "$bin/badgectl" generate "$runs_dir" --count "$folder_runs" --minutes "$folder_minutes" > /dev/null

echo "== GPX: ours vs XMLParser (alternating), gpxpy" >&2
record gpx100k "$bench" gpx "$work/gpx-100k.gpx" "$runs"
record gpx1m "$bench" gpx "$work/gpx-1m.gpx" "$runs"
record gpx100k python3 scripts/bench/peers.py gpxpy "$work/gpx-100k.gpx" 3
if [ "${BENCH_GPXPY_1M:-0}" = 1 ]; then record gpx1m python3 scripts/bench/peers.py gpxpy "$work/gpx-1m.gpx" 1; fi

echo "== FIT: ours, fitdecode" >&2
record fit100k "$bench" fit "$work/fit-100k.fit" "$runs"
record fit1m "$bench" fit "$work/fit-1m.fit" "$runs"
record fit100k python3 scripts/bench/peers.py fitdecode "$work/fit-100k.fit" 3

echo "== folder: one core, both cores, cache cold and warm" >&2
record folder "$bench" folder "$runs_dir" "$work/folder-cache.sqlite" "$runs"
record cacheparts "$bench" cache-parts "$runs_dir" "$work/parts-cache.sqlite"
BENCH_RUNS=$runs record measures "$bench" folder-measures "$runs_dir" "$work/measures-cache.sqlite" rules

echo "== rules over 10,000 summaries" >&2
BENCH_RUNS=$runs record rules "$bench" rules 10000 badges.json rules

echo "== peak RSS" >&2
rss rss_gpx1m "$bench" rss-gpx "$work/gpx-1m.gpx"
"$bench" rss-gpx "$work/gpx-1m.gpx" | sed -n 's/^read_max_rss_mb /rss_gpx1m_read.max_rss_mb /p' >> "$results"
rss rss_rules10k "$bench" rules 10000 badges.json rules
rm -f "$work"/evaluate-cache.sqlite*
rss rss_evaluate_cold "$bin/badgectl" evaluate "$runs_dir" --cache "$work/evaluate-cache.sqlite"
rss rss_evaluate_warm "$bin/badgectl" evaluate "$runs_dir" --cache "$work/evaluate-cache.sqlite"
for i in 1 2 3; do
    /usr/bin/time -f "%e" "$bin/badgectl" evaluate "$runs_dir" --cache "$work/evaluate-cache.sqlite" > /dev/null 2>> "$work/warm-times.txt"
done
echo "evaluate_warm.wall_s $(sort -n "$work/warm-times.txt" | sed -n 2p)" >> "$results"
rm -f "$work/warm-times.txt"

if [ "${BENCH_FULL:-0}" = 1 ]; then
    echo "== full size: 2,000 runs of 1 hour (one run of each mode)" >&2
    full_dir="$work/runs-2000-60"
    [ -d "$full_dir" ] || "$bin/badgectl" generate "$full_dir" --count 2000 --minutes 60 > /dev/null
    {
        "$bench" folder "$full_dir" "$work/full-cache.sqlite" 1
        rm -f "$work"/full-evaluate.sqlite*
        /usr/bin/time -f "evaluate_cold_wall_s %e\nevaluate_cold_peak_rss_kb %M" "$bin/badgectl" evaluate "$full_dir" --cache "$work/full-evaluate.sqlite" 2>&1 >/dev/null | tail -2
        /usr/bin/time -f "evaluate_warm_wall_s %e\nevaluate_warm_peak_rss_kb %M" "$bin/badgectl" evaluate "$full_dir" --cache "$work/full-evaluate.sqlite" 2>&1 >/dev/null | tail -2
    } > "$work/full-size.txt"
fi
echo "== whole processes side by side with the peers as processes (scripts/bench/process.sh)" >&2
# Printed next to the in-process table: start-up, reading and the warm evaluate as a user runs them,
# each round running ours and the peers once, medians and ratios (BENCHMARKS.md, "Whole process").
# With hyperfine installed, its -N figures are printed after the loop's as a check (HYPERFINE=1; about 2-3 more
# minutes, mostly the Python peers).
hyperfine=0; command -v hyperfine >/dev/null && hyperfine=1
HYPERFINE=$hyperfine BENCH_DIR="$work" BENCH_RUNS=$((runs > 7 ? runs : 7)) EVALUATE_DIR="$runs_dir" scripts/bench/process.sh "$bin/badgectl" | tee "$work/process.txt" >&2
ALL_PACKS=1 ATHLETES=2000 RUNS=1 BENCH_DIR="$work" BENCH_RUNS=$((runs > 7 ? runs : 7)) scripts/bench/worker.sh "$bin/badgectl" | tee "$work/worker-1run.txt" >&2
# A warm evaluate of 1,000 one-hour runs as a process (CPU, wall, peak RSS); give scripts/bench/warm.sh
# an earlier build as its first binary to get the before/after ratios of BENCHMARKS.md (issue F item 2).
BENCH_DIR="$work" BENCH_RUNS=$((runs > 9 ? runs : 9)) scripts/bench/warm.sh "$bin/badgectl" | tee "$work/warm.txt" >&2
echo "== add of one run to a saved history of 1,000, 10,000, 100,000 runs (scripts/bench/add.sh)" >&2
BENCH_DIR="$work" BENCH_RUNS="$runs" scripts/bench/add.sh ${BENCH_ADD_BEFORE:+before="$BENCH_ADD_BEFORE"} after="$bin/badgectl" | tee "$work/add.txt" >&2
python3 scripts/bench/report.py "$results" "$out" "$runs" "$folder_runs" "$folder_minutes"
echo "== archives: a 1 GB Apple Health export, 1,000 FIT runs zipped and not" >&2
sh scripts/bench/archives.sh "$bin" "$work" "$runs" >> "$out"
{ echo; echo '```'; sh scripts/bench/zip-library.sh "$bin" "$work" "$runs"; echo '```'; } >> "$out"
{ echo; echo '```'; echo "scripts/bench/add.sh (add of one run, task-clock ms)"; cat "$work/add.txt"; echo '```'; } >> "$out"
echo "wrote $out (whole-process figures: $work/process.txt, $work/worker-1run.txt, $work/warm.txt, $work/add.txt)" >&2
