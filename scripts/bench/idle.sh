#!/usr/bin/env bash
# What this machine charges a process for memory it touches after a few seconds of idling, beside the
# same right after another process (BENCHMARKS.md, issue F, tenth round): why `process.sh`'s loop, whose
# commands each follow seconds of other work, measures slower than hyperfine's back-to-back runs.
#   scripts/bench/idle.sh [FILE]     (FILE: a file to read, default /tmp/badgectl-bench/gpx-100k.gpx)
# Three probes, each run ROUNDS times (default 6) after IDLE seconds of sleep (default 6) and once more
# straight after: 16 MiB of fresh memory touched page by page, asked for transparent huge pages and
# asked not to, and FILE read from the page cache in 1 MiB reads (it is read once first, so that it is
# cached). Prints the median ms of each, and what the kernel says about free page reporting (a
# hypervisor told of free memory may drop it, and the next touch waits for the host to back it again)
# and DAMON reclaim (which pages out, and drops from the page cache, what went untouched for a while).
set -euo pipefail
file=${1:-/tmp/badgectl-bench/gpx-100k.gpx}  # before anything else: a relative FILE is the caller's
probe=$(mktemp -d)/idle-probe; trap 'rm -rf "$(dirname "$probe")"' EXIT
cc -O2 -o "$probe" "$(dirname "$0")/idle-probe.c"  # each probe a process of its own (idle-probe.c says why in C)
[[ -r $file ]] || { echo "scripts/bench/idle.sh: cannot read $file (make it with BadgeBench gen-gpx, or name another)" >&2; exit 64; }
python3 - "$probe" "$file" "${ROUNDS:-6}" "${IDLE:-6}" <<'PY'
import os, statistics, subprocess, sys, time

probe, path, rounds, idle = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
# Each probe is a process of its own, as each command of process.sh is: within one process only the
# first huge pages it touched were slow (42.6 ms for 16 MiB, then 1.0-3.6 ms, with or without a sleep
# between), so a probe that reused its process would see nothing after its first run.
probes = {
    "16 MiB fresh, huge pages": ["touch", "huge"],
    "16 MiB fresh, 4 KiB pages": ["touch", "small"],
    f"read {os.path.getsize(path) / 1e6:.1f} MB cached": ["read", path],
}
def run(args):
    return float(subprocess.run([probe, *args], check=True, capture_output=True, text=True).stdout)
run(["read", path])  # the file in the page cache
results = {(name, state): [] for name in probes for state in ("after idle", "straight after")}
for _ in range(rounds):
    for name, args in probes.items():
        time.sleep(idle)
        results[(name, "after idle")].append(run(args))
        results[(name, "straight after")].append(run(args))
print(f"median ms of {rounds}, each probe a process of its own ({idle:g} s idle before each 'after idle' one):")
for name in probes:
    a, b = (statistics.median(results[(name, s)]) for s in ("after idle", "straight after"))
    print(f"  {name:28} after idle {a:7.2f}   straight after {b:7.2f}   ({a / b:.1f}x)")

def show(label, path):
    try:
        print(f"  {label}: {open(path).read().strip()}")
    except OSError:
        print(f"  {label}: (none)")

print("the kernel:")
show("free page reporting order (9: huge-page blocks are reported)", "/sys/module/page_reporting/parameters/page_reporting_order")
show("THP", "/sys/kernel/mm/transparent_hugepage/enabled")
damon = "/sys/kernel/mm/damon/admin/kdamonds/0"
if os.path.isdir(damon):
    show("DAMON state", f"{damon}/state")
    show("DAMON scheme action", f"{damon}/contexts/0/schemes/0/action")
else:
    print("  DAMON: (none)")
PY
