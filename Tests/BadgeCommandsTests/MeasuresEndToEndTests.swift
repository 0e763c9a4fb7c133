import Foundation
import XCTest

/// Measures through the CLI: `summarize --rules` prints them, `--athlete` gives zones (or a clear error
/// naming the file), `explain` shows the measures behind an award, and a warm cache gives the same.
final class MeasuresEndToEndTests: XCTestCase {
    func testSummarizePrintsThePacksMeasures() throws {
        let output = try CLI.run(["summarize", "runs/2026-08-20-first-10k.fit", "runs/2026-08-12-treadmill.json", "--rules", "rules/habits", "--tz", "UTC"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let lines = output.stdout.split(separator: "\n").filter { $0.contains("measure ") }.map(String.init)
        XCTAssertEqual(lines.count, 10, output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  measure    habits.best_hour  elapsed_s = 3600.0, distance_m = 9946.1") }, output.stdout)
        XCTAssertTrue(lines.contains("  measure    habits.sun  nil (the run has no position or no start time)"), output.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  measure    habits.zone2  nil (zone 2 needs the runner's heart-rate zones") }, output.stdout)

        let json = try CLI.run(["summarize", "runs/2026-08-20-first-10k.fit", "--rules", "rules/habits", "--tz", "UTC", "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let measures = try XCTUnwrap((object["measures"] as? [String: Any])?["2026-08-20-first-10k.fit"] as? [String: Any])
        let habits = try XCTUnwrap(measures["habits"] as? [String: Any])
        XCTAssertEqual(Set(habits.keys), ["best3k", "best_hour", "stops", "sun", "zone2"])
        XCTAssertTrue(habits["zone2"] is NSNull)
        XCTAssertEqual((habits["stops"] as? [String: Any])?["count"] as? Int, 0)
    }

    func testAthleteProfileZonesAndErrors() throws {
        let folder = try TemporaryFolder()
        try folder.write("me.json", #"{"max_hr": 185, "resting_hr": 55}"#)
        try folder.write("bad.json", #"{"max_hr": 185, "resting_hr": 190}"#)
        let earned = try CLI.run(["explain", "zone-two-hour", "runs/", "--rules", "rules/habits", "--no-cache", "--athlete", folder.path + "/me.json"])
        XCTAssertEqual(earned.status, 0, earned.stderr)
        XCTAssertTrue(earned.stdout.contains("Earned: 1 award."), earned.stdout)
        XCTAssertTrue(earned.stdout.contains("    measure zone2: seconds = 4338.071, longest_s = 337.0, share = 0.721"), earned.stdout)
        let without = try CLI.run(["explain", "zone-two-hour", "runs/", "--rules", "rules/habits", "--no-cache"])
        XCTAssertTrue(without.stdout.contains("Note: habits: measure 'zone2' is nil in every run: zone 2 needs the runner's heart-rate zones: give an athlete profile with --athlete FILE"), without.stdout)
        let bad = try CLI.run(["evaluate", "runs/", "--no-cache", "--athlete", folder.path + "/bad.json"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--athlete: \(folder.path)/bad.json: field 'resting_hr': must be below max_hr (185)"), bad.stderr)
        let missing = try CLI.run(["evaluate", "runs/", "--no-cache", "--athlete", folder.path + "/none.json"])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("\(folder.path)/none.json: cannot read"), missing.stderr)
    }

    func testExplainShowsTheMeasuresBehindAnAwardWarmOrCold() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path + "/runs.sqlite"
        let arguments = ["explain", "best-3k", "runs/", "--rules", "rules/habits", "--format", "json", "--tz", "UTC"]
        let fresh = try CLI.run(arguments + ["--no-cache"])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(fresh.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { $0["tier"] as? String }, ["earned", "silver", "gold"])
        let best = try XCTUnwrap((awards[0]["measures"] as? [String: Any])?["best3k"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(best["elapsed_s"] as? Double), 1160.0, accuracy: 0.01)
        let cold = try CLI.run(arguments + ["--cache", cache])
        let warm = try CLI.run(arguments + ["--cache", cache])
        XCTAssertEqual(cold.stdout, fresh.stdout)
        XCTAssertEqual(warm.stdout, fresh.stdout)
    }
}
