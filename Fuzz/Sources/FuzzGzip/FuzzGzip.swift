import RunFiles

/// One `.gpx.gz` input, the way RunLoader reads it: inflated (capped at 16 MiB here, so a bomb
/// is an error rather than libFuzzer's out-of-memory), then read as GPX. Ends with a track or a
/// thrown error (whose message is built).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let inflated = try Gzip.decompress(bytes, source: "fuzz.gpx.gz", maximumBytes: 1 << 24)
        _ = try GPXReader.read(bytes: inflated, source: "fuzz.gpx.gz")
    } catch {
        _ = String(describing: error)
    }
    return 0
}
