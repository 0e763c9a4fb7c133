import Foundation

/// Every fuzz target in one libFuzzer binary, so that they share one build and one link:
/// `BADGECTL_FUZZ_TARGET=FuzzGPX BadgeFuzz CORPUS...` runs the GPX target (scripts/fuzz sets it).
/// Each target is a function of its own file, calling `Entrances`, the functions the commands call.
let fuzzTargets: [String: @Sendable (UnsafePointer<UInt8>, Int) -> Int32] = [
    "FuzzGPX": fuzzGPX, "FuzzTCX": fuzzTCX, "FuzzFIT": fuzzFIT, "FuzzJSON": fuzzJSON, "FuzzGzip": fuzzGzip,
    "FuzzZip": fuzzZip, "FuzzDevice": fuzzDevice, "FuzzWorker": fuzzWorker, "FuzzState": fuzzState, "FuzzPack": fuzzPack,
    "FuzzFacts": fuzzFacts, "FuzzCache": fuzzCache,
]

/// The target `BADGECTL_FUZZ_TARGET` names, looked up once (libFuzzer calls the entry point per input).
let selectedTarget: @Sendable (UnsafePointer<UInt8>, Int) -> Int32 = {
    let name = ProcessInfo.processInfo.environment["BADGECTL_FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets[name] else {
        let known = fuzzTargets.keys.sorted().joined(separator: " ")
        FileHandle.standardError.write(Data("BadgeFuzz: set BADGECTL_FUZZ_TARGET to one of: \(known) (it is '\(name)')\n".utf8))
        exit(64)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func badgeFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    selectedTarget(data, size)
}
