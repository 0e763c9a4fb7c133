import RunFixtures
import BadgeCommands
import Foundation
import XCTest

/// Replays every input committed to `Fuzz/regressions/<target>/` through the entrance its fuzz
/// target drives (`Entrances`, the functions the commands call), and compares the outcome with the
/// one committed beside it (`<input>.expected`: runs read or lines written, then each error, with
/// the scratch folder's path written `<scratch>`). An input without its outcome fails: commit both.
/// `BADGECTL_RECORD_FUZZ=1 swift test --filter FuzzRegressionTests` writes the outcomes anew (never
/// silently: review the diff).
final class FuzzRegressionTests: XCTestCase {
    static let folder = CLI.repository.appendingPathComponent("Fuzz/regressions")
    static let recording = ProcessInfo.processInfo.environment["BADGECTL_RECORD_FUZZ"] == "1"

    /// The outcome of one input through the target's entrance.
    static func outcome(target: String, bytes: [UInt8]) -> Entrances.Outcome? {
        switch target {
        case "FuzzGPX": return Entrances.runFile(bytes, named: "fuzz.gpx")
        case "FuzzTCX": return Entrances.runFile(bytes, named: "fuzz.tcx")
        case "FuzzFIT": return Entrances.runFile(bytes, named: "fuzz.fit")
        case "FuzzJSON": return Entrances.runFile(bytes, named: "fuzz.json")
        case "FuzzGzip":
            let all = ["fuzz.gpx.gz", "fuzz.tcx.gz", "fuzz.fit.gz"].map { Entrances.runFile(bytes, named: $0) }
            return Entrances.Outcome(count: all.map(\.count).reduce(0, +), errors: all.flatMap(\.errors))
        case "FuzzZip":
            let all = ["fuzz.zip", "export.xml"].map { Entrances.runFile(bytes, named: $0) }
            return Entrances.Outcome(count: all.map(\.count).reduce(0, +), errors: all.flatMap(\.errors))
        case "FuzzDevice":
            let all = ["fuzz.sml", "fuzz.json"].map { Entrances.runFile(bytes, named: $0) }
            return Entrances.Outcome(count: all.map(\.count).reduce(0, +), errors: all.flatMap(\.errors))
        case "FuzzFacts": return Entrances.leagueFacts(bytes, packs: [CLI.repository.appendingPathComponent("rules/places").path])
        case "FuzzCache": return Entrances.cacheBlob(bytes)
        case "FuzzWorker": return Entrances.workerLines(bytes, root: CLI.repository.path)
        case "FuzzState":
            let parts = Entrances.split(bytes)
            return Entrances.state(stateJSON: parts.count > 0 ? parts[0] : nil, index: parts.count > 1 ? parts[1] : nil,
                                   runs: parts.count > 2 ? parts[2] : nil)
        case "FuzzPack": return Entrances.pack(Entrances.packFiles(Entrances.split(bytes)), runs: Entrances.sampleRuns)
        default: return nil
        }
    }

    /// The outcome as committed: the count, then one error a line, the scratch path hidden.
    static func text(_ outcome: Entrances.Outcome) -> String {
        let scratch = Entrances.scratchPath
        let lines = ["count: \(outcome.count)"] + outcome.errors.map { $0.replacingOccurrences(of: scratch, with: "<scratch>") }
        return lines.joined(separator: "\n") + "\n"
    }

    func testEveryCommittedRegression() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        XCTAssertEqual(Set(targets), ["FuzzGPX", "FuzzTCX", "FuzzFIT", "FuzzJSON", "FuzzGzip", "FuzzZip", "FuzzDevice", "FuzzWorker", "FuzzState", "FuzzPack",
                                    "FuzzFacts", "FuzzCache"])
        var replayed = 0
        for target in targets {
            let dir = Self.folder.appendingPathComponent(target)
            let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
                .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".expected") }.sorted()
            for name in names {
                let input = dir.appendingPathComponent(name)
                let bytes = Array(try Data(contentsOf: input))
                guard let outcome = Self.outcome(target: target, bytes: bytes) else { return XCTFail("unknown target \(target)") }
                let got = Self.text(outcome)
                let expectedURL = dir.appendingPathComponent(name + ".expected")
                if Self.recording {
                    try Data(got.utf8).write(to: expectedURL)
                } else if let expected = try? String(contentsOf: expectedURL, encoding: .utf8) {
                    XCTAssertEqual(got, expected, "\(target)/\(name)")
                } else {
                    XCTFail("\(target)/\(name) has no \(name).expected: commit the outcome beside the input (BADGECTL_RECORD_FUZZ=1)")
                }
                replayed += 1
            }
        }
        // The crashers of issue S at least: a test that replays nothing asserts nothing.
        XCTAssertGreaterThanOrEqual(replayed, 4)
    }
}
