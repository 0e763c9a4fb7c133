import BadgeCommands

/// One gzip'd run file as `summarize` and `evaluate` read it: `Entrances.runFile` (RunFolder.read,
/// then RunLoader.load) under each `.gz` name: `.gpx.gz` streams through `GzipInflater` (the code
/// whose double free issue S found, which the old target, on `Gzip.decompress`, never ran);
/// `.tcx.gz` and `.fit.gz` inflate whole. Any bytes: gzip or not, truncated, a zip, text.
func fuzzGzip(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for name in ["fuzz.gpx.gz", "fuzz.tcx.gz", "fuzz.fit.gz"] { _ = Entrances.runFile(bytes, named: name) }
    return 0
}
