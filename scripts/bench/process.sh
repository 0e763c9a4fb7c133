#!/usr/bin/env bash
# Whole processes side by side (BENCHMARKS.md, "Whole process"): `badgectl --version`, `summarize` of
# the 100k-point GPX and the 100k-record FIT, and a warm `evaluate` of a folder, for each binary given,
# paired in the same run with the peers as processes: a bare XMLParser scan (BadgeBench xmlscan),
# gpxpy and fitdecode (scripts/bench/peers.py, one parse each, Python's start-up included).
#   scripts/bench/process.sh [BINARY...]     (default .build/release/badgectl; several alternate run by run)
# `summarize` runs twice per file: as a user runs it (the run cache: a hit after the first round) and
# with --no-cache (the reader and the analyzer on every round).
# Environment: BENCH_DIR (inputs, default /tmp/badgectl-bench; made with BadgeBench gen-gpx/gen-fit when
# missing), BENCH_RUNS (repetitions, default 7), EVALUATE_DIR (a folder for the warm evaluate, default
# none), SUMMARIZE_CACHE (a cache the cached summarize starts from, default none: each binary gets its
# own cache in BENCH_DIR, a copy of this one or else empty, filled by its first round, so that binaries
# with different summary versions do not replace each other's rows; until December 2026 without it
# they shared the user's cache, and their cached rows were misses), BADGEBENCH (the BadgeBench binary,
# default next to the first binary, else .build/release), PEERS=0 to leave the peers out, HYPERFINE=1
# to check the no-cache figures with hyperfine (below). Each command runs once per round, binaries and peers alternating (the binaries'
# order turning by one each round), so load from elsewhere falls on all alike; prints median wall and
# CPU (user + sys) seconds per command and, per binary, the ratios to the peers (peer time / ours:
# higher is better).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${BENCH_DIR:-/tmp/badgectl-bench}; repeat=${BENCH_RUNS:-7}
binaries=("$@"); [[ ${#binaries[@]} -eq 0 ]] && binaries=(.build/release/badgectl)
bench=${BADGEBENCH:-$(dirname "${binaries[0]}")/BadgeBench}
[[ -x $bench ]] || bench=.build/release/BadgeBench
[[ -x $bench ]] || { echo "scripts/bench/process.sh: no BadgeBench (the XMLParser peer) next to ${binaries[0]} nor in .build/release: give BADGEBENCH=PATH" >&2; exit 64; }
mkdir -p "$work"
[[ -f $work/gpx-100k.gpx ]] || "$bench" gen-gpx 100000 "$work/gpx-100k.gpx"
[[ -f $work/fit-100k.fit ]] || "$bench" gen-fit 100000 "$work/fit-100k.fit"
# The peers' commands, once: the loop runs them, HYPERFINE=1 quotes them for hyperfine.
xmlscan=("$bench" xmlscan "$work/gpx-100k.gpx")
gpxpy=(python3 scripts/bench/peers.py gpxpy "$work/gpx-100k.gpx" 1)
fitdecode=(python3 scripts/bench/peers.py fitdecode "$work/fit-100k.fit" 1)
declare -A wall cpu
names=()
# Wall and CPU of the command's own process, with no process in between: CPU (user + sys, in
# milliseconds) from bash's `time` keyword, which reads it from wait4; wall from the shell's
# microsecond clock around it. Until November 2026 a /usr/bin/time wrapper ran around each command, and
# its own exec and start-up (2.7-4.9 ms measured, BENCHMARKS.md "sixth round") counted as the command's.
# The C locale: `time` prints the locale's decimal point, and awk reads a dot.
export LC_ALL=C
TIMEFORMAT='%3U %3S'
measure() {  # name command...
    local name=$1; shift
    [[ " ${names[*]} " == *" $name "* ]] || names+=("$name")
    local before=$EPOCHREALTIME
    { time "$@" >/dev/null 2>&1; } 2>"$work/process-time.txt" || true
    local after=$EPOCHREALTIME
    read -r u s < <(tail -1 "$work/process-time.txt")
    wall[$name]+="$(awk "BEGIN { printf \"%.4f\", $after - $before }") "; cpu[$name]+="$(awk "BEGIN { print $u + $s }") "
}
for ((k = 0; k < repeat; k++)); do
    # The binaries' order turns by one each round: the first after the peers measured up to 25 %
    # slower than the one after it, with the same code (BENCHMARKS.md, issue F, ninth round).
    order=()
    for ((j = 0; j < ${#binaries[@]}; j++)); do order+=("${binaries[$(((j + k) % ${#binaries[@]}))]}"); done
    for b in "${order[@]}"; do
        measure "$b --version" "$b" --version
        own=$work/process-summarize-$(echo "$b" | md5sum | cut -c1-8).sqlite
        if ((k == 0)); then
            rm -f "$own" "$own-wal" "$own-shm"
            if [[ -n ${SUMMARIZE_CACHE:-} && -f $SUMMARIZE_CACHE ]]; then cp "$SUMMARIZE_CACHE" "$own"; fi
        fi
        cached=(--cache "$own")
        measure "$b summarize gpx-100k" "$b" summarize "$work/gpx-100k.gpx" "${cached[@]}"
        measure "$b summarize fit-100k" "$b" summarize "$work/fit-100k.fit" "${cached[@]}"
        measure "$b summarize --no-cache gpx-100k" "$b" summarize "$work/gpx-100k.gpx" --no-cache
        measure "$b summarize --no-cache fit-100k" "$b" summarize "$work/fit-100k.fit" --no-cache
        if [[ -n ${EVALUATE_DIR:-} ]]; then
            cache=$work/process-$(echo "$b" | md5sum | cut -c1-8).sqlite
            [[ -f $cache ]] || "$b" evaluate "$EVALUATE_DIR" --cache "$cache" >/dev/null 2>&1 || true
            measure "$b evaluate warm" "$b" evaluate "$EVALUATE_DIR" --cache "$cache"
        fi
    done
    if [[ ${PEERS:-1} == 1 ]]; then
        measure "XMLParser scan gpx-100k" "${xmlscan[@]}"
        measure "gpxpy gpx-100k" "${gpxpy[@]}"
        measure "fitdecode fit-100k" "${fitdecode[@]}"
    fi
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
declare -A mw
printf '%-60s %10s %10s\n' command wall_s cpu_s
for n in "${names[@]}"; do
    mw[$n]=$(echo "${wall[$n]}" | median)
    printf '%-60s %10s %10s\n' "$n" "${mw[$n]}" "$(echo "${cpu[$n]}" | median)"
done
if [[ ${PEERS:-1} == 1 ]]; then
    for b in "${binaries[@]}"; do
        ratio() { awk "BEGIN { o = $2; printf \"%.1fx\", (o > 0 ? $1 / o : 0) }"; }
        for how in "" "--no-cache "; do
            echo "$b ${how:-cached }: GPX 100k vs XMLParser scan $(ratio "${mw[XMLParser scan gpx-100k]}" "${mw[$b summarize ${how}gpx-100k]}"), vs gpxpy $(ratio "${mw[gpxpy gpx-100k]}" "${mw[$b summarize ${how}gpx-100k]}"); FIT 100k vs fitdecode $(ratio "${mw[fitdecode fit-100k]}" "${mw[$b summarize ${how}fit-100k]}")"
        done
    done
fi
# HYPERFINE=1: the same `summarize --no-cache` commands and peers once more with `hyperfine -N` (no
# shell, BENCH_RUNS runs each after 2 warm-ups, one command after another rather than alternating),
# medians and ratios, as a check on the loop above.
if [[ ${HYPERFINE:-0} == 1 ]]; then
    command -v hyperfine >/dev/null || { echo "scripts/bench/process.sh: HYPERFINE=1 needs hyperfine (apt-get install hyperfine)" >&2; exit 64; }
    # hyperfine splits each command into words (no shell): every word quoted with %q. Ours first, two a
    # binary (GPX, FIT), then the peers in this order; the report reads them by position.
    quoted() { local q; printf -v q '%q ' "$@"; commands+=("${q% }"); }
    commands=()
    for b in "${binaries[@]}"; do
        quoted "$b" summarize "$work/gpx-100k.gpx" --no-cache
        quoted "$b" summarize "$work/fit-100k.fit" --no-cache
    done
    if [[ ${PEERS:-1} == 1 ]]; then
        quoted "${xmlscan[@]}"; quoted "${gpxpy[@]}"; quoted "${fitdecode[@]}"
    fi
    # -i: a command that fails is still timed (as in the loop); the report names it.
    hyperfine -N -i --style none -w 2 -r "$repeat" --export-json "$work/process-hyperfine.json" "${commands[@]}" >/dev/null
    python3 - "$work/process-hyperfine.json" "${binaries[@]}" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
binaries = sys.argv[2:]
print("hyperfine -N medians (s):")
for r in rows:
    failed = sum(1 for code in r.get("exit_codes", []) if code != 0)
    print(f"  {r['median']:9.4f}  {r['command']}" + (f"   ({failed} runs FAILED: not a valid figure)" if failed else ""))
ours, peers = rows[:2 * len(binaries)], rows[2 * len(binaries):]
if len(peers) == 3:
    xml, gpxpy, fitdecode = (r["median"] for r in peers)
    for k, b in enumerate(binaries):
        gpx, fit = ours[2 * k]["median"], ours[2 * k + 1]["median"]
        print(f"  {b}: GPX 100k vs XMLParser scan {xml / gpx:.1f}x, vs gpxpy {gpxpy / gpx:.1f}x; FIT 100k vs fitdecode {fitdecode / fit:.1f}x")
PY
fi
