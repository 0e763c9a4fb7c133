import RunFiles

/// One TCX input: ends with tracks or a thrown error (whose message is built, line number and all).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTCX(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    do {
        _ = try TCXReader.read(bytes: Array(UnsafeBufferPointer(start: data, count: size)), source: "fuzz.tcx")
    } catch {
        _ = String(describing: error)
    }
    return 0
}
