import Foundation
import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// `evaluate` on one run kept as FIT, TCX and GPX (as the real-data set keeps a Garmin run), plus
/// one other run: one activity counts once, its awards go to the FIT file, and `--keep-duplicates`
/// counts all three.
final class DuplicatesEndToEndTests: XCTestCase {
    func testOneActivityInThreeFormatsCountsOnce() throws {
        let folder = try TemporaryFolder()
        var generator = RunGenerator(seed: 11, distanceMeters: 5_200, paceSecondsPerKilometre: 330)
        generator.pauseCount = 0
        let track = generator.track()
        try Data(FITWriter.encode(track: track)).write(to: folder.url.appendingPathComponent("watch.fit"))
        try Data(TCXWriter.encode(track: track)).write(to: folder.url.appendingPathComponent("app.tcx"))
        try generator.writeGPX(to: folder.url.appendingPathComponent("strava.gpx").path)
        var other = RunGenerator(seed: 12, distanceMeters: 3_100, paceSecondsPerKilometre: 360)
        other.startEpochSeconds += 86_400
        try other.writeGPX(to: folder.url.appendingPathComponent("next-day.gpx").path)

        let arguments = ["evaluate", folder.path, "--format", "json", "--rules", "rules/checkpoints", "--no-cache", "--tz", "UTC"]
        let result = try CLI.run(arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let runs = try XCTUnwrap(report["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.compactMap { $0["id"] as? String }.sorted(), ["next-day.gpx", "watch.fit"])
        let duplicates = try XCTUnwrap(report["duplicates"] as? [[String: String]])
        XCTAssertEqual(duplicates, [
            ["id": "app.tcx", "same_as": "watch.fit", "reason": "same activity"],
            ["id": "strava.gpx", "same_as": "watch.fit", "reason": "same activity"],
        ])
        let awards = try XCTUnwrap(report["awards"] as? [[String: Any]])
        let fiveK = awards.filter { ($0["badge"] as? String) == "five-k" && ($0["tier"] as? String) == "earned" }
        XCTAssertEqual(fiveK.compactMap { $0["run"] as? String }, ["watch.fit"])

        let table = try CLI.run(["evaluate", folder.path, "--rules", "rules/checkpoints", "--no-cache", "--tz", "UTC"])
        XCTAssertTrue(table.stdout.contains("strava.gpx: same activity as watch.fit"), table.stdout)

        let kept = try CLI.run(arguments + ["--keep-duplicates"])
        let all = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(kept.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((all["runs"] as? [Any])?.count, 4)
        XCTAssertEqual((all["duplicates"] as? [Any])?.count, 0)
    }
}

/// `evaluate --sport swimming` on a pool swim (FIT lengths): its real distance and time.
final class PoolSwimEndToEndTests: XCTestCase {
    func testAPoolSwimCountsItsLengths() throws {
        let folder = try TemporaryFolder()
        let lengths = Array(repeating: (seconds: 40.0, active: true), count: 40)  // 40 × 25 m = 1 km
        try Data(FITWriter.encodePoolSwim(start: 1_714_545_000, poolLengthMeters: 25, lengths: lengths))
            .write(to: folder.url.appendingPathComponent("pool.fit"))
        let result = try CLI.run(["evaluate", folder.path, "--format", "json", "--sport", "swimming", "--rules", "rules/checkpoints", "--no-cache"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let run = try XCTUnwrap((report["runs"] as? [[String: Any]])?.first)
        XCTAssertEqual(run["sport"] as? String, "swimming")
        XCTAssertEqual(try XCTUnwrap(run["distance_m"] as? Double), 1000, accuracy: 1e-9)
        XCTAssertEqual(run["elapsed_s"] as? Double, 1600)
        XCTAssertEqual((report["excluded"] as? [Any])?.count, 0)
    }
}
