import BadgeCommands

/// One archive as `summarize` and `evaluate` read it: `Entrances.runFile` (RunFolder.read, then
/// RunArchive) under `fuzz.zip` (ZipArchive: the end record, zip64, the central directory, local
/// headers, inflation, CRC, entries read as run files, zips inside it, an Apple Health export in it)
/// and under `export.xml` (the Apple Health export's streamed scanner, both passes). Any bytes.
func fuzzZip(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for name in ["fuzz.zip", "export.xml"] { _ = Entrances.runFile(bytes, named: name) }
    return 0
}
