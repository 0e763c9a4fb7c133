import RunFixtures
import Foundation
import BadgeRules
import XCTest

@testable import BadgeCommands

/// `badgectl worker` (docs/worker.md): JSON lines in, header + awards + status lines out; the same
/// awards as `evaluate` per athlete; stable award ids; bad lines cost only themselves.
final class WorkerEndToEndTests: XCTestCase {
    static let rules = ["--rules", "rules", "--badges", "badges.json", "--tz", "UTC"]

    /// The sample runs split between two athletes: ana's by path, ben's as summaries (the JSON run
    /// summary lines hold what each GPX/FIT run's file-level numbers are).
    static let anaFiles = ["2026-08-01-first-run.gpx", "2026-08-04-canal.gpx", "2026-08-08-park-loop.gpx",
                           "2026-08-12-treadmill.json", "2026-08-15-hills.gpx.gz", "2026-08-20-first-10k.fit"]

    func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
    }

    func pathLine(_ athlete: String, _ file: String) -> String {
        #"{"athlete": "\#(athlete)", "tz": "UTC", "path": "runs/\#(file)"}"#
    }

    func summaryLine(_ athlete: String, start: String, km: Double, minutes: Double, id: String? = nil) -> String {
        let idField = id.map { #", "id": "\#($0)""# } ?? ""
        return #"{"athlete": "\#(athlete)", "tz": "UTC", "summary": {"start": "\#(start)", "distance_m": \#(km * 1000), "duration_s": \#(minutes * 60)}\#(idField)}"#
    }

    /// Award keys as `evaluate` gives them, to compare with the worker's.
    func awardKeys(_ awards: [[String: Any]]) -> [String] {
        awards.map { a in
            ["badge", "tier", "run", "at", "pack", "rule", "detail"].map { "\(a[$0] ?? "nil")" }.joined(separator: "|")
        }
    }

    func testAwardsAreEvaluatesPerAthleteWithStableIDs() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("ana"), withIntermediateDirectories: true)
        for file in Self.anaFiles {
            try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/" + file), to: folder.url.appendingPathComponent("ana/" + file))
        }
        let benSummaries = [("2026-01-03T07:00:00Z", 5.2, 27.0), ("2026-01-10T07:00:00Z", 10.3, 55.0), ("2026-01-17T07:00:00Z", 21.2, 118.0)]
        for (index, (start, km, minutes)) in benSummaries.enumerated() {
            try folder.write("ben/run-\(index).json", #"{"start": "\#(start)", "distance_m": \#(km * 1000), "duration_s": \#(minutes * 60)}"#)
        }
        var input = Self.anaFiles.map { pathLine("ana", $0) }
        input += benSummaries.enumerated().map { summaryLine("ben", start: $1.0, km: $1.1, minutes: $1.2, id: "run-\($0).json") }
        let result = try CLI.run(["worker"] + Self.rules, stdin: input.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try lines(result.stdout)
        let header = try XCTUnwrap(output.first)
        XCTAssertEqual(header["type"] as? String, "header")
        let packs = try XCTUnwrap(header["packs"] as? [[String: Any]])
        XCTAssertEqual(packs.compactMap { $0["name"] as? String }, ["agegrade", "challenges", "checkpoints", "explorer", "goals", "habits", "lifetime", "places", "segments"])
        XCTAssertTrue(packs.allSatisfy { ($0["fingerprint"] as? String)?.hasPrefix("sha256:") == true })

        for (athlete, path) in [("ana", folder.path + "/ana"), ("ben", folder.path + "/ben")] {
            let evaluated = try CLI.run(["evaluate", path, "--format", "json", "--no-cache"] + Self.rules)
            XCTAssertEqual(evaluated.status, 0, evaluated.stderr)
            let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(evaluated.stdout.utf8)) as? [String: Any])
            let expected = try XCTUnwrap(report["awards"] as? [[String: Any]])
            let awards = output.filter { $0["type"] as? String == "award" && $0["athlete"] as? String == athlete }
            XCTAssertFalse(expected.isEmpty)
            XCTAssertEqual(awardKeys(awards), awardKeys(expected), athlete)
            let status = try XCTUnwrap(output.first { $0["type"] as? String == "status" && $0["athlete"] as? String == athlete })
            XCTAssertEqual(status["awards"] as? Int, expected.count)
            XCTAssertEqual(status["runs"] as? Int, (report["runs"] as? [Any])?.count)
            // The status line comes after the athlete's awards.
            let statusIndex = try XCTUnwrap(output.firstIndex { $0["type"] as? String == "status" && $0["athlete"] as? String == athlete })
            let lastAward = try XCTUnwrap(output.lastIndex { $0["type"] as? String == "award" && $0["athlete"] as? String == athlete })
            XCTAssertLessThan(lastAward, statusIndex)
        }
        let ids = output.compactMap { $0["award_id"] as? String }
        XCTAssertEqual(Set(ids).count, ids.count, "award ids are unique")
        XCTAssertTrue(ids.allSatisfy { $0.count == 32 })

        // A retried shard writes the same ids (and the same lines).
        let again = try CLI.run(["worker"] + Self.rules, stdin: input.joined(separator: "\n") + "\n")
        XCTAssertEqual(again.stdout, result.stdout)
    }

    /// The id is the documented hash (docs/worker.md; the Python there gives this value).
    /// The worker keeps one loaded state for its athletes (`ReusedEvaluator`): a pack that tries to
    /// carry something from one athlete to the next (a global, a module's table, a run kept in an
    /// upvalue, a library table, the badgectl table, an iterator's position, the string metatable)
    /// shows each athlete what a worker given that athlete alone shows it,
    /// next to the shipped packs.
    func testNothingOneAthletesRulesLeaveIsSeenByTheNext() throws {
        let folder = try TemporaryFolder()
        try folder.write("leaky/pack.lua", #"return { name = "leaky", version = "1.0.0", description = "tries to leak", badges = { { id = "seen", name = "Seen" } } }"#)
        try folder.write("leaky/lib/memo.lua", "return { runs = 0 }")
        try folder.write("leaky/leak.lua", """
            local memo = require("lib.memo")
            local kept
            local step, over = pairs({ "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" })
            return { id = "leak", badge = "seen", repeatable = true,
              earned = function(run)
                memo.runs = memo.runs + 1
                local before = rawget(_G, "last")
                rawset(_G, "last", run.id)
                local library = string.last
                string.last = run.id
                local previous = kept and kept.id
                kept = run
                local helper = badgectl.kept
                badgectl.kept = run.id
                local position = step(over, nil)
                pcall(function() getmetatable("").__index.last = run.id end)
                local through_strings = ("").last
                return { detail = table.concat({ memo.runs, tostring(before), tostring(library), tostring(previous), tostring(helper),
                                                 tostring(position), tostring(through_strings) }, " ") }
              end }
            """)
        let rules = ["--rules", folder.path + "/leaky"] + Self.rules
        let athletes = ["ana", "ben", "cy"]
        var input: [String] = []
        for (a, athlete) in athletes.enumerated() {
            for day in 1...(a + 2) {
                input.append(summaryLine(athlete, start: "2026-01-\(String(format: "%02d", day + a))T07:00:00Z", km: 5.5 + Double(day), minutes: 33 + Double(day)))
            }
        }
        let together = try CLI.run(["worker"] + rules, stdin: input.joined(separator: "\n") + "\n")
        XCTAssertEqual(together.status, 0, together.stderr)
        let output = try lines(together.stdout)
        for athlete in athletes {
            let alone = try CLI.run(["worker"] + rules, stdin: input.filter { $0.contains(#""athlete": "\#(athlete)""#) }.joined(separator: "\n") + "\n")
            XCTAssertEqual(alone.status, 0, alone.stderr)
            let expected = try lines(alone.stdout).dropFirst().map { NSDictionary(dictionary: $0) }
            let got = output.filter { $0["athlete"] as? String == athlete }.map { NSDictionary(dictionary: $0) }
            XCTAssertEqual(got, Array(expected), athlete)
            let details = got.filter { $0["type"] as? String == "award" && $0["pack"] as? String == "leaky" }.compactMap { $0["detail"] as? String }
            XCTAssertEqual(details.first, "1 nil nil nil nil 1 nil", athlete)
        }
    }

    func testAwardIDIsTheDocumentedHash() throws {
        XCTAssertEqual(AwardID.make(pack: "checkpoints", athlete: "ana", badge: "five-k", tier: "earned", run: "run.gpx"),
                       "b0e7773a8822797c05741489515cd8e2")
        XCTAssertNotEqual(AwardID.make(pack: "checkpoints", athlete: "ana", badge: "five-k", tier: "earned", run: "run.gpx", occurrence: 2),
                          "b0e7773a8822797c05741489515cd8e2")
        // Fields do not run together: ("ab", "c") is not ("a", "bc").
        XCTAssertNotEqual(AwardID.make(pack: "ab", athlete: "c", badge: "x", tier: "y", run: "z"),
                          AwardID.make(pack: "a", athlete: "bc", badge: "x", tier: "y", run: "z"))
    }

    func testBadLinesCostOnlyThemselves() throws {
        let clean = [
            summaryLine("ana", start: "2026-01-03T07:00:00Z", km: 5.2, minutes: 27),
            summaryLine("ana", start: "2026-01-10T07:00:00Z", km: 10.3, minutes: 55),
            summaryLine("ben", start: "2026-01-04T07:00:00Z", km: 3.1, minutes: 20),
            summaryLine("ben", start: "2026-01-11T07:00:00Z", km: 5.1, minutes: 30),
            summaryLine("cleo", start: "2026-01-05T07:00:00Z", km: 8.0, minutes: 45),
        ]
        let reference = try CLI.run(["worker"] + Self.rules, stdin: clean.joined(separator: "\n"))
        XCTAssertEqual(reference.status, 0, reference.stderr)

        let hostile = [
            clean[0],
            #"{"athlete": "ana", "tz": "UTC", "summary": {"start": "2026-01-05T07:00:00Z", "distance_m": -1, "duration_s": 60}}"#,  // 2
            summaryLine("ana", start: "2026-01-01T07:00:00Z", km: 3, minutes: 20),  // 3: out of order
            clean[1],
            "{\"athlete\": \"ben\", \"tz\": \"UTC\", \"summary\": {\"start\": \"2026-01-04T07:00:00Z\" x}}",  // 5: not JSON
            clean[2],
            #"{"athlete": "ben", "tz": "Mars/Olympus", "path": "runs/2026-08-01-first-run.gpx"}"#,  // 7: unknown zone
            #"{"athlete": "ben", "tz": "UTC", "path": "runs/no-such-file.gpx"}"#,  // 8: no file
            "",  // 9: blank, skipped
            clean[3],
            summaryLine("ana", start: "2026-02-01T07:00:00Z", km: 3, minutes: 20),  // 11: ana again
            #"["not an object"]"#,  // 12
            #"{"tz": "UTC", "summary": {}}"#,  // 13: no athlete
            #"{"athlete": "cleo", "tz": "UTC", "path": "runs/x.gpx", "summary": {}}"#,  // 14: both
            clean[4],
            summaryLine("cleo", start: "2026-01-05T07:00:00Z", km: 8.0, minutes: 45),  // 16: same id (the start)
        ]
        let result = try CLI.run(["worker"] + Self.rules, stdin: hostile.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, ExitStatus.partial.rawValue, result.stderr)
        let output = try lines(result.stdout)
        let errors = output.filter { $0["type"] as? String == "error" }
        XCTAssertEqual(errors.compactMap { $0["line"] as? Int }, [2, 3, 5, 7, 8, 11, 12, 13, 14, 16])
        func message(_ line: Int) -> String { errors.first { $0["line"] as? Int == line }?["message"] as? String ?? "" }
        XCTAssertTrue(message(2).contains("field 'distance_m'"), message(2))
        XCTAssertTrue(message(3).contains("before the run of line 1"), message(3))
        XCTAssertTrue(message(5).contains("invalid JSON at byte"), message(5))
        XCTAssertTrue(message(7).contains("unknown time zone 'Mars/Olympus'"), message(7))
        XCTAssertTrue(message(8).contains("no-such-file.gpx"), message(8))
        XCTAssertTrue(message(11).contains("athlete 'ana' already ended"), message(11))
        XCTAssertTrue(message(13).contains("\"athlete\""), message(13))
        XCTAssertTrue(message(14).contains("not both"), message(14))
        XCTAssertTrue(message(16).contains("already given on line 15"), message(16))
        XCTAssertTrue(result.stderr.contains("badgectl: line 8: "), result.stderr)
        // The reader's own "line 2 summary: ..." is not prefixed with the line again.
        XCTAssertTrue(result.stderr.contains("badgectl: line 2 summary: field 'distance_m'"), result.stderr)
        XCTAssertFalse(result.stderr.contains("line 2: line 2"), result.stderr)
        // Every athlete's awards are those of its good lines.
        let awards = { (text: String) throws -> [String] in
            try self.lines(text).filter { $0["type"] as? String == "award" }.map { "\($0["athlete"] ?? "")|\($0["award_id"] ?? "")" }
        }
        XCTAssertEqual(try awards(result.stdout), try awards(reference.stdout))
        let statuses = output.filter { $0["type"] as? String == "status" }
        XCTAssertEqual(statuses.compactMap { $0["athlete"] as? String }, ["ana", "ben", "cleo"])
        XCTAssertEqual(statuses.compactMap { $0["errors"] as? Int }, [2, 2, 2])
    }

    /// Issue S: a summary dated 2024-02-30 (read as 1 March) or with the offset +25:00 (90,000 s) was
    /// accepted; each is an error line naming the field, and the athlete's other runs go on.
    func testSummariesAtTimesThatDoNotExistAreErrorLines() throws {
        let input = [
            summaryLine("ana", start: "2024-02-28T07:00:00Z", km: 5.2, minutes: 27),
            summaryLine("ana", start: "2024-02-30T07:00:00Z", km: 5.2, minutes: 27),
            summaryLine("ana", start: "2024-03-02T07:00:00+25:00", km: 5.2, minutes: 27),
            summaryLine("ana", start: "2024-03-03T07:00:00+14:00", km: 5.2, minutes: 27),
        ]
        let result = try CLI.run(["worker"] + Self.rules, stdin: input.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, ExitStatus.partial.rawValue, result.stderr)
        let output = try lines(result.stdout)
        let errors = output.filter { $0["type"] as? String == "error" }
        XCTAssertEqual(errors.compactMap { $0["line"] as? Int }, [2, 3])
        XCTAssertEqual(errors.compactMap { $0["message"] as? String }, [
            "line 2 summary: field 'start': '2024-02-30T07:00:00Z' is not a real time: February 2024 has no day 30 (it has 29 days)",
            "line 3 summary: field 'start': '2024-03-02T07:00:00+25:00' is not a real time: the UTC offset +25:00 is beyond ±14:00, the widest any time zone uses",
        ])
        let status = try XCTUnwrap(output.first { $0["type"] as? String == "status" })
        XCTAssertEqual(status["runs"] as? Int, 2)
    }

    func testMaxErrorsStopsTheWorker() throws {
        let input = [
            summaryLine("ana", start: "2026-01-03T07:00:00Z", km: 5.2, minutes: 27),
            "nope",
            summaryLine("ben", start: "2026-01-04T07:00:00Z", km: 3.1, minutes: 20),
            "nope again",
            summaryLine("cleo", start: "2026-01-05T07:00:00Z", km: 8.0, minutes: 45),
        ]
        let tolerant = try CLI.run(["worker", "--max-errors", "2"] + Self.rules, stdin: input.joined(separator: "\n"))
        XCTAssertEqual(tolerant.status, ExitStatus.partial.rawValue)
        XCTAssertEqual(try lines(tolerant.stdout).filter { $0["type"] as? String == "status" }.count, 3)

        let strict = try CLI.run(["worker", "--max-errors", "1"] + Self.rules, stdin: input.joined(separator: "\n"))
        XCTAssertEqual(strict.status, ExitStatus.failure.rawValue)
        let output = try lines(strict.stdout)
        XCTAssertEqual(output.filter { $0["type"] as? String == "status" }.compactMap { $0["athlete"] as? String }, ["ana"])
        XCTAssertTrue((output.last?["message"] as? String)?.contains("more than 1 error (--max-errors)") == true, strict.stdout)
        XCTAssertEqual(output.last?["line"] as? Int, 4)
    }
}
