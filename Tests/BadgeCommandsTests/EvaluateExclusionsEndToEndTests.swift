import RunFixtures
import Foundation
import SyntheticRuns
import XCTest

/// `evaluate` lists the runs a pack's eligibility leaves out, with the pack and the reason, beside the
/// runs of other sports: in the table ("Left out by a pack's eligibility") and in the JSON's `excluded`
/// (entries with `pack`), as the guide's "Eligibility" says (issue 49).
final class EvaluateExclusionsEndToEndTests: XCTestCase {
    func testEvaluateListsEligibilityExclusionsWithPackAndReason() throws {
        let folder = try TemporaryFolder()
        try folder.write("outside/pack.lua", """
            return { name = "outside", version = "1", eligibility = { gps = true, indoor = false },
              badges = { { id = "outside-2k", name = "Outside 2k" } } }
            """)
        try folder.write("outside/two.lua", #"return { id = "two", badge = "outside-2k", earned = function(run) return run.distance_m > 2000 end }"#)
        try folder.write("all/pack.lua", #"return { name = "all", version = "1", badges = { { id = "any-2k", name = "Any 2k" } } }"#)
        try folder.write("all/two.lua", #"return { id = "two", badge = "any-2k", earned = function(run) return run.distance_m > 2000 end }"#)
        var road = RunGenerator(seed: 1, distanceMeters: 2500, paceSecondsPerKilometre: 330)
        road.startEpochSeconds = 1_738_400_400
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        try road.writeGPX(to: folder.path + "/runs/road.gpx")
        var mill = RunGenerator(seed: 2, distanceMeters: 2500, paceSecondsPerKilometre: 330)
        mill.sport = "treadmill"
        mill.startEpochSeconds = 1_738_400_400 + 86_400
        try mill.writeGPX(to: folder.path + "/runs/mill.gpx")
        var ride = RunGenerator(seed: 3, distanceMeters: 9000, paceSecondsPerKilometre: 150)
        ride.sport = "cycling"
        ride.startEpochSeconds = 1_738_400_400 + 2 * 86_400
        try ride.writeGPX(to: folder.path + "/runs/ride.gpx")
        try folder.write("runs/typed.json", #"{ "start": "2025-02-05T07:00:00Z", "distance_m": 5000, "duration_s": 1800 }"#)
        let rules = ["--rules", folder.path + "/outside", "--rules", folder.path + "/all", "--no-cache", "--tz", "UTC"]

        let table = try CLI.run(["evaluate", folder.path + "/runs"] + rules)
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("Not counted:\n  ride.gpx: sport 'cycling'"), table.stdout)
        XCTAssertTrue(table.stdout.contains("Left out by a pack's eligibility (the other packs count them):"), table.stdout)
        XCTAssertTrue(table.stdout.contains("  mill.gpx: indoor (outside)"), table.stdout)
        XCTAssertTrue(table.stdout.contains("  typed.json: no GPS (outside)"), table.stdout)

        let json = try CLI.run(["evaluate", folder.path + "/runs", "--format", "json"] + rules)
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let excluded = try XCTUnwrap(object["excluded"] as? [[String: Any]])
        let rows = excluded.map { "\($0["id"] ?? "") \($0["pack"] ?? "-") \($0["reason"] ?? "") \($0["sport"] ?? "")" }
        XCTAssertEqual(rows.count, 3, "\(rows)")
        XCTAssertTrue(rows[0].hasPrefix("ride.gpx - sport 'cycling'"), "\(rows)")
        XCTAssertEqual(Array(rows.dropFirst()), ["mill.gpx outside indoor running", "typed.json outside no GPS running"])
        // Both badges go to the first outdoor run; the exclusions change no exit status.
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["badge"] ?? "") \($0["run"] ?? "")" }.sorted(), ["any-2k road.gpx", "outside-2k road.gpx"])
    }
}
