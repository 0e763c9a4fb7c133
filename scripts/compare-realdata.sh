#!/bin/sh
# Prints badgectl's figures for a folder of real TCX/FIT files beside the reference values in its
# reference.json (distance vs gpxpy formulas and the WGS84 geodesic, elapsed, timer, device totals),
# and fails when a distance is off by more than 0.5 % or an elapsed time by more than 1 s.
# Usage: scripts/compare-realdata.sh /path/to/realdata
set -eu
dir="${1:?usage: $0 /path/to/realdata (a folder with reference.json)}"
[ -f "$dir/reference.json" ] || { echo "$dir/reference.json not found" >&2; exit 2; }
cd "$(dirname "$0")/.."
REALDATA_DIR="$(cd "$dir" && pwd)" swift test --filter RealdataComparisonTests 2>&1 | grep -E '\||same activity|error:|Executed .* tests'
