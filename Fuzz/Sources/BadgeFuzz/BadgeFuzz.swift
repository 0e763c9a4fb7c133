#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every fuzz target in one libFuzzer binary, so that they share one build and one link:
/// `BADGECTL_FUZZ_TARGET=FuzzGPX BadgeFuzz CORPUS...` runs the GPX target (scripts/fuzz sets it).
/// Each target is a function of its own file, calling `Entrances`, the functions the commands call.
let fuzzTargets: [String: (UnsafePointer<UInt8>, Int) -> Int32] = [
    "FuzzGPX": fuzzGPX, "FuzzTCX": fuzzTCX, "FuzzFIT": fuzzFIT, "FuzzJSON": fuzzJSON, "FuzzGzip": fuzzGzip,
    "FuzzZip": fuzzZip, "FuzzWorker": fuzzWorker, "FuzzState": fuzzState, "FuzzPack": fuzzPack,
]

/// The target `BADGECTL_FUZZ_TARGET` names, looked up once (libFuzzer calls the entry point per input).
let selectedTarget: (UnsafePointer<UInt8>, Int) -> Int32 = {
    let name = getenv("BADGECTL_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = fuzzTargets[name] else {
        let known = fuzzTargets.keys.sorted().joined(separator: " ")
        fputs("BadgeFuzz: set BADGECTL_FUZZ_TARGET to one of: \(known) (it is '\(name)')\n", stderr)
        exit(64)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func badgeFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    selectedTarget(data, size)
}
