import BadgeCommands

/// One `.json` summary file as `summarize` and `evaluate` read it: `Entrances.runFile`
/// (RunFolder.read, then RunLoader.load and SummaryReader, the local date from the zone).
func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = Entrances.runFile(Array(UnsafeBufferPointer(start: data, count: size)), named: "fuzz.json")
    return 0
}
