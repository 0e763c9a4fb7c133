import RunFixtures
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
        XCTAssertTrue(lines.contains { $0.hasPrefix("  measure    habits.zone2  nil (zone 2 needs your heart-rate zones") }, output.stdout)

        let json = try CLI.run(["summarize", "runs/2026-08-20-first-10k.fit", "--rules", "rules/habits", "--tz", "UTC", "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let measures = try XCTUnwrap((object["measures"] as? [String: Any])?["2026-08-20-first-10k.fit"] as? [String: Any])
        let habits = try XCTUnwrap(measures["habits"] as? [String: Any])
        XCTAssertEqual(Set(habits.keys), ["best3k", "best_hour", "stops", "sun", "zone2"])
        XCTAssertTrue(habits["zone2"] is NSNull)
        XCTAssertEqual((habits["stops"] as? [String: Any])?["count"] as? Int, 0)
    }

    /// A misspelt field of a measure value is an error with a suggestion, at the rule's line, for every
    /// kind (the newcomer's `corner.pased` read as nil and the badge silently never came); a field of
    /// the kind that this run's value lacks (`first_elapsed_s` of a place not passed) reads as nil.
    func testAMisspeltMeasureFieldIsAnErrorNotNil() throws {
        let folder = try TemporaryFolder()
        try folder.write("rules/strict/pack.lua", """
            return { name = "strict", version = "1",
              badges = { { id = "far", name = "Far" }, { id = "typo", name = "Typo" }, { id = "deep", name = "Deep" } },
              measures = { far = { kind = "place", lat = 10, lon = 10, radius_m = 50 },
                           best = { kind = "effort", distance_m = 1000 } } }
            """)
        try folder.write("rules/strict/far.lua", """
            return { id = "far", badge = "far", earned = function(run)
              local m = run.measures.far
              return m ~= nil and m.passed == false and m.first_elapsed_s == nil
            end }
            """)
        try folder.write("rules/strict/typo.lua", """
            return { id = "typo", badge = "typo", earned = function(run)
              local m = run.measures.far
              return m ~= nil and m.pased
            end }
            """)
        try folder.write("rules/strict/deep.lua", """
            return { id = "deep", badge = "deep", earned = function(run)
              local b = run.measures.best
              return b ~= nil and b.elapsd_s < 400
            end }
            """)
        let output = try CLI.run(["evaluate", "runs/", "--rules", folder.path + "/rules/strict", "--no-cache", "--format", "json"])
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stdout.contains(#""badge" : "far""#), output.stdout)
        XCTAssertTrue(output.stderr.contains("strict/typo.lua:3: pack 'strict' rule 'typo': a place measure has no field 'pased' "
            + "(fields: passed, visits, first_elapsed_s, last_elapsed_s, closest_m); did you mean 'passed'?"), output.stderr)
        XCTAssertTrue(output.stderr.contains("strict/deep.lua:3: pack 'strict' rule 'deep': an effort measure has no field 'elapsd_s' "
            + "(fields: elapsed_s, distance_m, pace_s_per_km, start_elapsed_s, start_distance_m); did you mean 'elapsed_s'?"), output.stderr)
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
        XCTAssertTrue(without.stdout.contains("Note: habits: zone 2 needs your heart-rate zones: give your profile with --athlete FILE (max_hr and resting_hr, or zones); until then, measure 'zone2' has no value and its badges cannot be earned"), without.stdout)
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
