import BadgeCommands

/// One `.tcx` file as `summarize` and `evaluate` read it: `Entrances.runFile` (RunFolder.read, then
/// RunLoader.load: the whole file, unzipped when it is gzip whatever its name, then TCXReader).
func fuzzTCX(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = Entrances.runFile(Array(UnsafeBufferPointer(start: data, count: size)), named: "fuzz.tcx")
    return 0
}
