import Foundation
import RunFiles

/// One JSON summary input, with and without a zone for a start that has no offset: each ends
/// with a summary or a thrown error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(bytes: data, count: size)
    _ = try? SummaryReader.read(data: input, source: "fuzz.json", id: "fuzz.json", zoneOffsetSeconds: nil)
    _ = try? SummaryReader.read(data: input, source: "fuzz.json", id: "fuzz.json", zoneOffsetSeconds: 3600)
    return 0
}
