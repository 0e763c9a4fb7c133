#!/usr/bin/env bash
# Writes scripts/release-link-order.txt: the functions of badgectl that its common command lines run,
# for the release link to lay out together at the start of .text (scripts/release-flags.sh,
# --symbol-ordering-file). What is paged out of a 110 MB binary then comes back in two or three
# read-arounds instead of 17-19 (BENCHMARKS.md, issue F, ninth round).
#   scripts/bench/link-order.sh [BINARY]     (default .build/release/badgectl)
# Runs each command once under valgrind's callgrind on a copy without debug info (valgrind cannot
# read the static runtime's), and keeps every function of the binary that ran, in the order the
# profiles name them. A file out of date costs only speed: the linker skips names it does not find.
# Re-run it when the start-up or one-file path changes much; BENCH_DIR as in process.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-.build/release/badgectl}
work=${BENCH_DIR:-/tmp/badgectl-bench}
bench=$(dirname "$binary")/BadgeBench
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
mkdir -p "$work"
[[ -f $work/gpx-100k.gpx ]] || "$bench" gen-gpx 100000 "$work/gpx-100k.gpx"
[[ -f $work/fit-100k.fit ]] || "$bench" gen-fit 100000 "$work/fit-100k.fit"
profiles=$(mktemp -d); trap 'rm -rf "$profiles"' EXIT
strip -g -o "$profiles/badgectl" "$binary"
run() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$profiles/out.%p" "$profiles/badgectl" "$@" >/dev/null 2>&1 || true; }
run --version
run summarize "$work/gpx-100k.gpx" --no-cache
run summarize "$work/fit-100k.fit" --no-cache
run summarize "$work/fit-100k.fit" --cache "$profiles/cache.sqlite"
run summarize "$work/fit-100k.fit" --cache "$profiles/cache.sqlite"
run evaluate runs/ --cache "$profiles/cache.sqlite"
run evaluate runs/ --cache "$profiles/cache.sqlite"
python3 - "$profiles" scripts/release-link-order.txt <<'PY'
import glob, os, re, sys
profiles, target = sys.argv[1], sys.argv[2]
ours = os.path.join(profiles, "badgectl")
order, seen = [], set()
# callgrind names an object or function once with its text, then by number: "fn=(12) name", "fn=(12)".
entry = re.compile(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$")
for path in sorted(glob.glob(os.path.join(profiles, "out.*")), key=os.path.getmtime):
    objects, functions = {}, {}
    current = called = None
    for line in open(path, errors="replace"):
        m = entry.match(line.rstrip("\n"))
        if not m:
            continue
        kind, number, name = m.groups()
        if kind in ("ob", "cob"):
            if name:
                objects[number] = name
            if kind == "ob":
                current = objects.get(number)
            else:
                called = objects.get(number)
            continue
        if name:
            functions[number] = name
        function = functions.get(number)
        obj = current if kind == "fn" else (called or current)
        if kind == "cfn":
            called = None
        if function and obj == ours and function not in seen:
            seen.add(function)
            order.append(function)
if len(order) < 500:
    sys.exit(f"scripts/bench/link-order.sh: only {len(order)} functions in the profiles: did the commands run?")
with open(target, "w") as f:
    f.write("\n".join(order) + "\n")
print(f"scripts/bench/link-order.sh: {len(order)} functions written to {target}")
PY
