import RunFiles

/// One FIT input, without the CRC check (a mutated file would rarely get past it) and with it:
/// each ends with tracks or a thrown error (whose message is built).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFIT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for checkCRC in [false, true] {
        do { _ = try FITReader.read(bytes: bytes, source: "fuzz.fit", checkCRC: checkCRC) } catch { _ = String(describing: error) }
    }
    return 0
}
