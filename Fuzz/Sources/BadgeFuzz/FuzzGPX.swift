import BadgeCommands
import RunFiles

/// One `.gpx` file as `summarize` and `evaluate` read it: `Entrances.runFile` (RunFolder.read, then
/// RunLoader.load, which streams the file through the GPX scanner). Then, as an oracle the loader
/// cannot give, the same bytes as one buffer and in 7-byte chunks (every boundary inside a tag, a
/// number or a timestamp) must agree on a track (its points) or an error.
func fuzzGPX(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = Entrances.runFile(Array(bytes), named: "fuzz.gpx")
    let whole = fuzzRead { try GPXReader.read(bytes: bytes, source: "fuzz.gpx") }
    let chunked = fuzzRead { try GPXReader.read(bytes: bytes, source: "fuzz.gpx", chunkSize: 7) }
    if whole?.count != chunked?.count {
        fatalError("GPX: one buffer gives \(whole.map { "\($0.count) points" } ?? "an error"), 7-byte chunks give \(chunked.map { "\($0.count) points" } ?? "an error")")
    }
    return 0
}

/// The result of `read`, nil when it throws; the error's message is built (what a user would see).
func fuzzRead<T>(_ read: () throws -> T) -> T? {
    do { return try read() } catch { _ = String(describing: error); return nil }
}
