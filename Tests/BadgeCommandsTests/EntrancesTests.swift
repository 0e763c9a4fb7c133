import RunFixtures
import BadgeCommands
import Foundation
import XCTest

/// The fuzz targets drive `Entrances`; these tests hold the commands to the same functions: the
/// binary, given the same bytes, says what the entrance says. If a command stops going through
/// its entrance (reads run files, worker lines, a state or a pack another way), one fails here.
final class EntrancesTests: XCTestCase {
    /// The message of an error without the path it names (the entrance writes in its scratch folder).
    static func reason(_ message: String, file: String) -> String {
        guard let range = message.range(of: file) else { return message }
        return String(message[range.upperBound...])
    }

    func testSummarizeReadsRunFilesThroughTheEntrance() throws {
        let folder = try TemporaryFolder()
        let cases: [(String, [UInt8])] = [
            ("notes.gpx.gz", Array("just some notes\n".utf8)), ("half.gpx.gz", [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]),
            ("text.fit", Array("not a fit file at all".utf8)), ("broken.gpx", Array("<gpx><trk><trkseg><trkpt lat=\"x\"".utf8)),
            ("bad.json", Array("{\"start\": 3}".utf8)), ("root.tcx", Array("<gpx/>".utf8)),
        ]
        for (name, bytes) in cases {
            let entrance = Entrances.runFile(bytes, named: name)
            XCTAssertEqual(entrance.errors.count, 1, name)
            let path = folder.url.appendingPathComponent(name).path
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let out = try CLI.run(["summarize", path])
            XCTAssertEqual(out.status, 2, name)
            let expected = Self.reason(entrance.errors.first ?? "", file: name)
            XCTAssertFalse(expected.isEmpty, name)
            XCTAssertTrue(out.stderr.contains(name + expected), "\(name): the command says \(out.stderr), the entrance \(expected)")
        }
    }

    func testWorkerReadsLinesThroughTheEntrance() throws {
        let lines = [
            "{\"athlete\": \"a\", \"summary\": {\"start\": \"2026-01-01T08:00:00Z\", \"distance_m\": 5000, \"duration_s\": 1500}}",
            "{not json", "{\"athlete\": 3}", "[1, 2]", "{\"athlete\": \"b\", \"athlete\": \"c\"}",
            "{\"athlete\": \"b\", \"summary\": {\"start\": \"yesterday\", \"distance_m\": 5000, \"duration_s\": 1500}}",
        ].joined(separator: "\n") + "\n"
        let entrance = Entrances.workerLines(Array(lines.utf8))
        XCTAssertGreaterThanOrEqual(entrance.errors.count, 5)
        let out = try CLI.run(["worker", "--rules", "rules/checkpoints"], stdin: lines)
        let errorLines = out.stdout.split(separator: "\n").map(String.init).filter { $0.contains("\"type\":\"error\"") }
        XCTAssertEqual(errorLines, entrance.errors)
    }

    /// `league --from-facts` and `Entrances.leagueFacts` read the same facts alike: the lines the
    /// entrance reduces are the command's, and a line the command refuses is refused there too.
    func testLeagueReadsFactsThroughTheEntrance() throws {
        let folder = try TemporaryFolder()
        let lines = try LeagueEndToEndTests.population.write(to: folder.path)
        let options = ["--rules", "rules/places", "--no-cache", "--tz", "UTC"]
        let map = try CLI.run(["league", "--facts", "--root", folder.path] + options, stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(map.status, 0, map.stderr)
        let facts = map.stdout + "seg nowhere\tnot json\n"
        let entrance = Entrances.leagueFacts(Array(facts.utf8), packs: [CLI.repository.appendingPathComponent("rules/places").path])
        let out = try CLI.run(["league", "--from-facts", "--by", "sex", "team", "--club", "distance=20000", "--min-athletes", "1"] + options, stdin: facts)
        XCTAssertEqual(out.status, 2, out.stderr)
        XCTAssertEqual(out.stdout.split(separator: "\n").count, entrance.count)
        XCTAssertGreaterThan(entrance.count, 5)
    }

    /// A cache row whose blob is not summaries: the entrance, like `evaluate`, reads the file again.
    func testACacheBlobIsReadThroughTheEntrance() throws {
        XCTAssertEqual(Entrances.cacheBlob(Array("not summaries".utf8)).count, 1)
        XCTAssertEqual(Entrances.cacheBlob([]).count, 1)
    }

    func testAddReadsTheStateThroughTheEntrance() throws {
        let folder = try TemporaryFolder()
        let state = "{\"format\": 1, \"zone\": \"UTC\", \"run_count\": 1000000000000}"
        try folder.write("state/state.json", state)
        let entrance = Entrances.state(stateJSON: Array(state.utf8), index: nil, runs: nil)
        XCTAssertEqual(entrance.errors.count, 1)
        try folder.write("run.json", "{\"start\": \"2026-01-01T08:00:00Z\", \"distance_m\": 5000, \"duration_s\": 1500}")
        let out = try CLI.run(["add", "--state", folder.url.appendingPathComponent("state").path, folder.url.appendingPathComponent("run.json").path,
                               "--rules", "rules/checkpoints"])
        XCTAssertNotEqual(out.status, 0)
        let expected = Self.reason(entrance.errors.first ?? "", file: "state.json")
        XCTAssertFalse(expected.isEmpty)
        XCTAssertTrue(out.stderr.contains("state.json" + expected), "the command says \(out.stderr), the entrance \(expected)")
    }

    func testEvaluateLoadsPacksThroughTheEntrance() throws {
        let files: [String: [UInt8]] = [
            "pack.lua": Array("return { name = \"fuzzed\", version = \"1\", badges = { { id = \"x\", name = \"X\" } } }".utf8),
            "rule.lua": Array("return { id = \"x\", badge = \"x\", earned = function(run) return run.distance_m > end }".utf8),
        ]
        let entrance = Entrances.pack(files, runs: Entrances.sampleRuns)
        XCTAssertEqual(entrance.errors.count, 1, "\(entrance.errors)")
        let folder = try TemporaryFolder()
        for (name, bytes) in files { try folder.write("fuzzed/" + name, String(decoding: bytes, as: UTF8.self)) }
        try folder.write("runs/run.json", "{\"start\": \"2026-01-01T08:00:00Z\", \"distance_m\": 5000, \"duration_s\": 1500}")
        let out = try CLI.run(["evaluate", folder.url.appendingPathComponent("runs").path, "--rules", folder.url.appendingPathComponent("fuzzed").path,
                               "--no-cache"])
        XCTAssertEqual(out.status, 2, out.stderr)
        let expected = Self.reason(entrance.errors.first ?? "", file: "fuzzed/rule.lua")
        XCTAssertFalse(expected.isEmpty)
        XCTAssertTrue(out.stderr.contains("rule.lua" + expected), "the command says \(out.stderr), the entrance \(expected)")
    }
}
