import Foundation
import RunFiles

/// One JSON summary input, with and without a zone for a start that has no offset: each ends
/// with a summary or a thrown error (whose message is built).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Data(bytes: data, count: size)
    for zone in [nil, 3600] {
        do {
            _ = try SummaryReader.read(data: input, source: "fuzz.json", id: "fuzz.json", zoneOffsetSeconds: zone)
        } catch {
            _ = String(describing: error)
        }
    }
    return 0
}
