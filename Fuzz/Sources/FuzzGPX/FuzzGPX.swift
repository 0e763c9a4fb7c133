import RunFiles

/// One GPX input, read twice: as one buffer (the fast path) and streamed in 7-byte chunks (every
/// boundary inside a tag, a number or a timestamp). Either may end with a track or a thrown error
/// (whose message is built, line number and all); both must agree on which, and on the number of
/// points.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
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
