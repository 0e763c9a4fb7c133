# The one set of flags every release build of the scripts uses (scripts/run, scripts/install, scripts/bench.sh),
# so that they share one build in .build/release. Sourced, not run.
#
# --static-swift-stdlib: the Swift runtime and Foundation linked in (start-up 13 -> 8.5 ms for --version, 14 fewer
#   shared libraries to load; the binary is ~117 MB instead of 42 MB).
# -no-pie: a position-dependent executable. Swift's metadata holds ~98,000 absolute pointers; in a position-independent
#   executable the dynamic loader rewrites every one at each start (7.5M cycles, ~270 fresh pages). Linked at a fixed
#   address they are written once, by the linker: --version 3.9 -> 2.9 ms of CPU (BENCHMARKS.md, issue F, fifth round).
#   The cost: the executable's own code and data sit at the same address in every process (no ASLR for them; the shared
#   libraries, the stack and the heap are still randomized).
# --no-export-dynamic: the static runtime's link flags export every symbol of the executable's own objects (17,351 in
#   .dynsym), and at each start the runtime's backtracer set-up asks dladdr for its own path, which walks that table
#   (0.26 ms of every command, 5 % of --version's samples). Nothing looks the executable's symbols up by name (the
#   Lua library is a shared library of its own; the static runtime finds no swift-backtrace to symbolicate crashes with,
#   with or without the table): 681 are left, --version 2.7 -> 2.4 ms
#   (BENCHMARKS.md, issue F, eighth round).
# -use-ld=lld and --symbol-ordering-file: linked by the toolchain's lld with the functions that the common command
#   lines run (scripts/release-link-order.txt, written by scripts/bench/link-order.sh) laid out together at the start
#   of .text, instead of spread over its 22 MB. A machine that reclaims memory drops the pages of a binary nothing ran
#   for a while (this VM's DAMON pageout, after about a minute); each page then read back costs a read-around from the
#   disk. With the binary out of memory (`COLD=1 scripts/bench/pair.sh`), `summarize --no-cache` of the 100k-point
#   GPX took 19 -> 3 major faults and 76 -> 62 ms, `evaluate runs/` 83 -> 58 ms; warm, 1.03-1.07x faster
#   (BENCHMARKS.md, issue F, ninth round). A name the
#   file lists and the binary lacks is skipped, so an out-of-date file costs only speed.
release_flags_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RELEASE_FLAGS=(-c release --static-swift-stdlib -Xlinker -no-pie -Xlinker --no-export-dynamic
    -Xswiftc -use-ld=lld -Xlinker "--symbol-ordering-file=$release_flags_root/scripts/release-link-order.txt"
    -Xlinker --no-warn-symbol-ordering)
