import RunFixtures
import Foundation
import XCTest

/// The built `badgectl` binary on the sample runs the repository ships, end to end.
final class EvaluateEndToEndTests: XCTestCase {
    static let repoRoot = Repository.root

    /// Runs the built binary (see `CLI` in Support.swift).
    static func badgectl(_ arguments: [String]) throws -> CLI.Output {
        try CLI.run(arguments, in: repoRoot)
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func awards(_ report: [String: Any]) -> [String: String] {
        var result: [String: String] = [:]
        for case let award as [String: Any] in report["awards"] as? [Any] ?? [] where (award["pack"] as? String) == "checkpoints" {
            result["\(award["badge"] ?? "")/\(award["tier"] ?? "")"] = award["run"] as? String
        }
        return result
    }

    /// The sample story: the expectations follow from the plan in GenerateCommand (distances and
    /// paces), worked out by hand with the MoonRunner rules.
    func testSampleRuns() throws {
        let result = try Self.badgectl(["evaluate", "runs/", "--format", "json", "--rules", "rules/checkpoints"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try json(result.stdout)
        let runs = try XCTUnwrap(report["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 16)   // twelve, and four laps of the park loop (the places pack's segment)
        XCTAssertEqual(runs.first?["id"] as? String, "2026-08-01-first-run.gpx")
        XCTAssertEqual(report["ignored"] as? [String], ["README.txt"])
        XCTAssertEqual((report["errors"] as? [Any])?.count, 0)
        let got = awards(report)
        XCTAssertEqual(got["three-k/earned"], "2026-08-01-first-run.gpx")      // 3.2 km > 3 km
        XCTAssertEqual(got["five-k/earned"], "2026-08-04-canal.gpx")           // first run over 5 km
        XCTAssertEqual(got["five-k/silver"], "2026-08-27-tempo-5k.gpx")        // 6:20/km → 5:30/km: 15% faster
        XCTAssertEqual(got["five-k/gold"], "2026-08-27-tempo-5k.gpx")          // silver and gold from one run
        XCTAssertEqual(got["ten-k/earned"], "2026-08-20-first-10k.fit")        // FIT file, 10.4 km
        XCTAssertEqual(got["half-marathon/earned"], "2026-10-18-half.gpx")
        XCTAssertNil(got["thirty-k/earned"])
        let next = try XCTUnwrap(report["next"] as? [String: Any])
        XCTAssertEqual(next["badge"] as? String, "thirty-k")
        let longest = runs.compactMap { $0["distance_m"] as? Double }.max() ?? 0
        XCTAssertEqual(try XCTUnwrap(next["remaining_m"] as? Double), 30000 - longest, accuracy: 1e-6)
        // The treadmill JSON summary keeps its exact numbers.
        let treadmill = try XCTUnwrap(runs.first { ($0["id"] as? String) == "2026-08-12-treadmill.json" })
        XCTAssertEqual(treadmill["distance_m"] as? Double, 6000)
        XCTAssertEqual(treadmill["elapsed_s"] as? Double, 2160)
    }

    /// The JSON header names every pack with its version and content fingerprint; editing a pack
    /// changes its fingerprint and no other pack's, and `--golden` snapshots leave the header out.
    func testHeaderNamesThePacksWithTheirFingerprints() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: CLI.repository.appendingPathComponent("rules").path, toPath: folder.path + "/rules")
        let arguments = ["evaluate", "runs/", "--format", "json", "--no-cache", "--tz", "Europe/Paris", "--rules", folder.path + "/rules"]
        func header() throws -> [String: Any] {
            let result = try Self.badgectl(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            return try XCTUnwrap(try json(result.stdout)["header"] as? [String: Any])
        }
        let before = try header()
        XCTAssertEqual(before["zone"] as? String, "Europe/Paris")
        XCTAssertEqual(before["badgectl"] as? String, "0.1.0")
        let packs = try XCTUnwrap(before["packs"] as? [[String: String]])
        XCTAssertEqual(packs.map { $0["name"] }, ["agegrade", "challenges", "checkpoints", "explorer", "goals", "habits", "lifetime", "places", "segments"])
        XCTAssertEqual(packs.map { $0["version"] }, ["1.0.0", "1.0.0", "1.0.0", "1.0.0", "1.0.0", "1.0.0", "1.0.0", "1.0.0", "1.0.0"])
        for pack in packs {
            XCTAssertTrue(pack["fingerprint"]?.range(of: "^sha256:[0-9a-f]{64}$", options: .regularExpression) != nil, "\(pack)")
        }
        let lifetime = folder.path + "/rules/lifetime/pack.lua"
        try (try String(contentsOfFile: lifetime, encoding: .utf8) + "\n-- edited\n").write(toFile: lifetime, atomically: true, encoding: .utf8)
        let after = try XCTUnwrap(try header()["packs"] as? [[String: String]])
        XCTAssertEqual(zip(packs, after).map { $0["fingerprint"] == $1["fingerprint"] }, [true, true, true, true, true, true, false, true, true])

        let snapshot = folder.path + "/golden.json"
        XCTAssertEqual(try Self.badgectl(arguments + ["--golden", snapshot, "--update"]).status, 0)
        XCTAssertFalse(try String(contentsOfFile: snapshot, encoding: .utf8).contains("\"header\""))
    }

    func testJSONIsByteIdenticalAcrossRuns() throws {
        let a = try Self.badgectl(["evaluate", "runs/", "--format", "json"])
        let b = try Self.badgectl(["evaluate", "runs/", "--format", "json"])
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertEqual(a.stdout, b.stdout)
    }

    /// One bad file never loses the others' results, and the exit status says something was skipped.
    func testBadFileIsReportedAndOthersStillCount() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let temp = temporary.url
        try #"{"start": "2024-05-01T07:00:00Z", "distance_m": 5200, "duration_s": 1700}"#
            .write(to: temp.appendingPathComponent("good.json"), atomically: true, encoding: .utf8)
        try "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2024-05-02T07:00:00Z</time></trkpt>"
            .write(to: temp.appendingPathComponent("cut.GPX"), atomically: true, encoding: .utf8)
        try "hello".write(to: temp.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let result = try Self.badgectl(["evaluate", temp.path, "--format", "json",
                                        "--rules", Self.repoRoot.appendingPathComponent("rules/checkpoints").path,
                                        "--badges", Self.repoRoot.appendingPathComponent("badges.json").path])
        XCTAssertEqual(result.status, 2, result.stderr)
        let report = try json(result.stdout)
        let errors = try XCTUnwrap(report["errors"] as? [[String: Any]])
        XCTAssertEqual(errors.map { $0["path"] as? String }, ["cut.GPX"])
        XCTAssertTrue((errors.first?["message"] as? String ?? "").contains("cut.GPX"), "\(errors)")
        XCTAssertEqual(report["ignored"] as? [String], ["notes.txt"])
        XCTAssertEqual(awards(report)["five-k/earned"], "good.json")
        XCTAssertTrue(result.stderr.contains("cut.GPX"))
    }

    /// Rides earn no running badges, a "run" faster than the world record is left out, and neither
    /// changes the exit status; `--sport all` counts the ride.
    func testSportsAndImplausibleRuns() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let temp = temporary.url
        try #"{"start": "2024-05-01T07:00:00Z", "distance_m": 3200, "duration_s": 1200}"#
            .write(to: temp.appendingPathComponent("run.json"), atomically: true, encoding: .utf8)
        try #"{"start": "2024-05-02T07:00:00Z", "distance_m": 40000, "duration_s": 4800, "sport": "Ride"}"#
            .write(to: temp.appendingPathComponent("ride.json"), atomically: true, encoding: .utf8)
        try #"{"start": "2024-05-03T07:00:00Z", "distance_m": 12000, "duration_s": 1200}"#
            .write(to: temp.appendingPathComponent("car.json"), atomically: true, encoding: .utf8)
        let base = ["evaluate", temp.path, "--format", "json", "--rules", Self.repoRoot.appendingPathComponent("rules/checkpoints").path,
                    "--badges", Self.repoRoot.appendingPathComponent("badges.json").path]
        let result = try Self.badgectl(base)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try json(result.stdout)
        let excluded = try XCTUnwrap(report["excluded"] as? [[String: Any]])
        XCTAssertEqual(excluded.map { $0["id"] as? String }, ["car.json", "ride.json"])
        XCTAssertTrue((excluded[0]["reason"] as? String ?? "").contains("implausible"))
        XCTAssertEqual(excluded[1]["sport"] as? String, "cycling")
        XCTAssertEqual(awards(report)["three-k/earned"], "run.json")
        XCTAssertNil(awards(report)["ten-k/earned"])  // neither the ride nor the car
        let all = try json(try Self.badgectl(base + ["--sport", "all"]).stdout)
        XCTAssertEqual(awards(all)["thirty-k/earned"], "ride.json")
    }

    func testMissingFolderIsAFailure() throws {
        let result = try Self.badgectl(["evaluate", "/nonexistent/runs"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("/nonexistent/runs"), result.stderr)
    }

    /// `runs/` is exactly what `badgectl generate` writes: the samples are reproducible.
    func testSampleRunsAreGenerated() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let temp = temporary.url.appendingPathComponent("runs")
        let result = try Self.badgectl(["generate", temp.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let shipped = Self.repoRoot.appendingPathComponent("runs")
        let names = try FileManager.default.contentsOfDirectory(atPath: shipped.path).sorted()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.path).sorted(), names)
        for name in names {
            let a = try Data(contentsOf: shipped.appendingPathComponent(name))
            let b = try Data(contentsOf: temp.appendingPathComponent(name))
            XCTAssertEqual(a, b, "\(name) differs from what `badgectl generate` writes")
        }
    }

    func testSummarizeJSONShape() throws {
        let result = try Self.badgectl(["summarize", "runs/2026-09-19-fast-middle.fit", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try json(result.stdout)
        let run = try XCTUnwrap((report["runs"] as? [[String: Any]])?.first)
        let efforts = try XCTUnwrap(run["efforts"] as? [[String: Any]])
        let five = try XCTUnwrap(efforts.first { ($0["name"] as? String) == "5km" })
        // The plan runs 5 km from 3 km at 5:00/km inside a 5:30/km run: the fastest 5 km is that stretch.
        XCTAssertEqual(try XCTUnwrap(five["elapsed_s"] as? Double), 1500, accuracy: 45)
        XCTAssertEqual(try XCTUnwrap(five["start_distance_m"] as? Double), 3000, accuracy: 150)
        XCTAssertNotNil(run["checkpoints"] as? [Any])
    }
}
