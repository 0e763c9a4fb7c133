import BadgeCommands
import RunFiles

/// One `.fit` file as `summarize` and `evaluate` read it: `Entrances.runFile` (RunFolder.read, then
/// RunLoader.load, which checks the CRCs), twice: the input as it is, and the input with its header
/// and file CRCs made right (what a device writes), so that a mutation reaches the decoder past
/// the CRC check the loader always makes.
func fuzzFIT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = Entrances.runFile(bytes, named: "fuzz.fit")
    let fixed = withCRCs(bytes)
    if fixed != bytes { _ = Entrances.runFile(fixed, named: "fuzz.fit") }
    return 0
}

/// `bytes` with the first FIT file's header CRC (14-byte header) and file CRC set from its bytes.
func withCRCs(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.count >= 12 else { return bytes }
    var out = bytes
    let header = Int(out[0])
    if header == 14, out.count >= 14 {
        let crc = FITProfile.crc16(Array(out[0..<12]))
        out[12] = UInt8(crc & 0xFF)
        out[13] = UInt8(crc >> 8)
    }
    let dataSize = Int(out[4]) | Int(out[5]) << 8 | Int(out[6]) << 16 | Int(out[7]) << 24
    let end = header + dataSize
    if header >= 12, end >= header, end + 2 <= out.count {
        let crc = FITProfile.crc16(Array(out[0..<end]))
        out[end] = UInt8(crc & 0xFF)
        out[end + 1] = UInt8(crc >> 8)
    }
    return out
}
