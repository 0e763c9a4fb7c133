# The one set of flags every release build of the scripts uses (scripts/run, scripts/install, scripts/bench.sh),
# so that they share one build in .build/release. Sourced, not run.
#
# Each flag is kept by issue T's rule (it moves a figure a user sees by 10% or more; measured 2026-12-07 with
# scripts/bench/pair.sh, whole processes, paired medians):
# --static-swift-stdlib: the Swift runtime and Foundation linked in: the binary runs where Swift is not installed,
#   and a process starts faster (--version 13 -> 8.5 ms when measured in issue F).
# --no-export-dynamic: the static runtime's link flags export every symbol of the executable's own objects (17,351 in
#   .dynsym), and at each start the runtime's backtracer set-up walks that table (--version 2.7 -> 2.4 ms, issue F).
#   Nothing looks the executable's symbols up by name. A flag, no code.
# -use-ld=lld and --symbol-ordering-file: the functions the common command lines run (scripts/release-link-order.txt,
#   written by scripts/bench/link-order.sh) laid out together at the start of .text, instead of spread over its 22 MB.
#   A machine that reclaims memory drops the pages of a binary nothing ran for a while; each page then read back
#   costs a read from the disk. With the binary out of memory (`COLD=1 scripts/bench/pair.sh`), `evaluate runs/`
#   37.0 -> 30.5 ms (28 -> 6 major faults). A name the file lists and the binary lacks is skipped, so an out-of-date
#   file costs only speed.
# The executable is position-independent (the toolchain's default), so ASLR randomizes it like the libraries it loads:
#   -no-pie saved 0.5 ms per start (--version 2.56 -> 2.05 ms), the wrong trade for a tool that parses files people
#   upload and runs as a worker.
release_flags_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RELEASE_FLAGS=(-c release --static-swift-stdlib -Xlinker --no-export-dynamic
    -Xswiftc -use-ld=lld -Xlinker "--symbol-ordering-file=$release_flags_root/scripts/release-link-order.txt"
    -Xlinker --no-warn-symbol-ordering)
