# The one set of flags every release build of the scripts uses (scripts/run, scripts/install, scripts/bench.sh),
# so that they share one build in .build/release. Sourced, not run.
#
# --static-swift-stdlib: the Swift runtime and Foundation linked in: the binary runs where Swift is not installed,
#   and a process starts faster (--version 13 -> 8.5 ms; BENCHMARKS.md, "Start-up").
# --no-export-dynamic: the static runtime's link flags would export every symbol of the executable's own objects
#   (17,351), and at each start the runtime's backtracer set-up walks that table (--version 2.7 -> 2.4 ms). Nothing
#   looks the executable's symbols up by name. A flag, no code.
# The executable is position-independent (the toolchain's default): its code and data are randomized by ASLR, as
# they should be for a tool that parses files people upload and runs as a worker.
RELEASE_FLAGS=(-c release --static-swift-stdlib -Xlinker --no-export-dynamic)
