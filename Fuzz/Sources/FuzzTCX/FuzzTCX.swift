import RunFiles

/// One TCX input: ends with tracks or a thrown error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTCX(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = try? TCXReader.read(bytes: Array(UnsafeBufferPointer(start: data, count: size)), source: "fuzz.tcx")
    return 0
}
