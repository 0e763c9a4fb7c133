import BadgeCommands

/// A device log as `summarize` and `evaluate` read it: `Entrances.runFile` under `fuzz.sml` (Suunto's
/// SML, a streamed XML of samples) and `fuzz.json` (a Suunto or Polar Flow log when its first bytes say
/// so, else a run summary), as a folder of them would be read. Any bytes.
func fuzzDevice(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for name in ["fuzz.sml", "fuzz.json"] { _ = Entrances.runFile(bytes, named: name) }
    return 0
}
