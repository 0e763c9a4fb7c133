#!/bin/sh
# Measures GPX reading speed (release optimisation) against Foundation's XMLParser.
#   scripts/bench-gpx.sh                 generate a 100k-point Garmin-Connect-style file and bench it
#   scripts/bench-gpx.sh FILE...         bench the given GPX files
#   scripts/bench-gpx.sh --check DIR     accuracy table against DIR/reference.json (e.g. a realdata folder)
#   scripts/bench-gpx.sh --rss FILE      peak RSS of reading (and summarising) FILE
# Compiles Sources/Activities with the bench program in one module (-O -wmo), like `swift build -c release`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-/tmp/badgectl-bench-gpx}
mkdir -p "$work"
swiftc -O -wmo -module-name BenchGPX -I "$root/Sources/CZlib" -lz \
    "$root"/Sources/Activities/*.swift "$root/scripts/bench-gpx/main.swift" -o "$work/bench-gpx" 2>&1 \
    | grep -v -e 'warning:' -e '^ *|' -e '^ *`' || true
case "${1:-}" in
--check) "$work/bench-gpx" check "$2" ;;
--rss) "$work/bench-gpx" rss "$2" ;;
"")
    f="$work/garmin-100k.gpx"
    [ -f "$f" ] || "$work/bench-gpx" generate 100000 "$f"
    "$work/bench-gpx" bench "$f"
    ;;
*) "$work/bench-gpx" bench "$@" ;;
esac
