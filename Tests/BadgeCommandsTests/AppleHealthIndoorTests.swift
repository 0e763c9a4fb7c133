import Foundation
import RunFixtures
import XCTest

/// Apple Health's `HKIndoorWorkout` metadata through the built binary: a workout the watch recorded
/// indoors is `run.indoor = true` (and a pack that wants outdoor runs leaves it out, saying why), one
/// marked `0` is `false`, one that says nothing stays nil.
final class AppleHealthIndoorTests: XCTestCase {
    func testIndoorWorkoutsOfAnExportAreIndoorRuns() throws {
        let folder = try TemporaryFolder()
        let start = 1_767_250_800.0  // 2026-01-01T07:00:00Z
        var xml = AppleHealthFixture.header
        xml += AppleHealthFixture.workout(.init(start: start, minutes: 30, kilometres: 6, indoor: true), offset: 0)
        xml += AppleHealthFixture.workout(.init(start: start + 86_400, minutes: 30, kilometres: 6, indoor: false), offset: 0)
        xml += AppleHealthFixture.workout(.init(start: start + 2 * 86_400, minutes: 30, kilometres: 6), offset: 0)
        xml += "</HealthData>\n"
        try folder.write("health/export.xml", xml)
        try folder.write("outside/pack.lua", """
            return { name = "outside", version = "1", eligibility = { indoor = false },
              badges = { { id = "outside-5k", name = "Outside 5k" } } }
            """)
        try folder.write("outside/five.lua", """
            return { id = "five", badge = "outside-5k", earned = function(run) return run.distance_m > 5000 end }
            """)
        let output = try CLI.run(["evaluate", folder.path + "/health", "--rules", folder.path + "/outside", "--format", "json",
                                  "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let runs = try XCTUnwrap(report["runs"] as? [[String: Any]])
        let indoor = Dictionary(uniqueKeysWithValues: runs.map { ($0["id"] as? String ?? "", $0["indoor"] is NSNull ? "nil" : "\($0["indoor"] ?? "absent")") })
        XCTAssertEqual(indoor, ["export.xml#1": "1", "export.xml#2": "0", "export.xml#3": "nil"], "\(runs)")
        // The outdoor pack's badge goes to the first run not recorded indoors.
        let awards = try XCTUnwrap(report["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.filter { $0["badge"] as? String == "outside-5k" }.map { $0["run"] as? String }, ["export.xml#2"])
        let explained = try CLI.run(["explain", "outside-5k", folder.path + "/health", "--rules", folder.path + "/outside",
                                     "--tz", "UTC", "--no-cache"])
        XCTAssertTrue(explained.stdout.contains("export.xml#1") && explained.stdout.contains("excluded: indoor"), explained.stdout)
    }
}
