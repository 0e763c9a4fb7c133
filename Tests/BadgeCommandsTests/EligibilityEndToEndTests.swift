import RunFixtures
import Foundation
import SyntheticRuns
import XCTest

/// The guide's "Eligibility example", as written: its test passes under `badgectl test`; on a folder
/// `explain` lists the runs the pack leaves out with why (a JSON summary: no GPS; a treadmill GPX: indoor)
/// and only the others count.
final class EligibilityEndToEndTests: XCTestCase {
    func testTheGuidesEligibilityExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/outside", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        for name in ["pack", "five", "outside_test"] {
            let block = try AgeGradeEndToEndTests.guideBlock("-- rules/outside/\(name).lua")
            try Data(block.utf8).write(to: URL(fileURLWithPath: folder.path + "/outside/\(name).lua"))
        }
        let tested = try CLI.run(["test", folder.path + "/outside"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("1 passed, 0 failed"), tested.stdout)

        // Five outdoor GPX runs in February 2025, one on a treadmill by its sport word, a JSON summary,
        // and one in 2024.
        for day in 1...5 {
            var generator = RunGenerator(seed: UInt64(day), distanceMeters: 2000, paceSecondsPerKilometre: 330)
            generator.startEpochSeconds = 1_738_400_400 + Double(day) * 86_400  // 2025-02-01T09:00:00Z + day
            try generator.writeGPX(to: folder.path + "/runs/out\(day).gpx")
        }
        var mill = RunGenerator(seed: 9, distanceMeters: 2000, paceSecondsPerKilometre: 330)
        mill.sport = "treadmill"
        mill.startEpochSeconds = 1_738_400_400 + 2.5 * 86_400
        try mill.writeGPX(to: folder.path + "/runs/mill.gpx")
        var old = RunGenerator(seed: 10, distanceMeters: 2000, paceSecondsPerKilometre: 330)
        old.startEpochSeconds = 1_735_200_000  // 2024-12-26
        try old.writeGPX(to: folder.path + "/runs/old.gpx")
        try Data(#"{ "start": "2025-02-01T07:00:00Z", "distance_m": 5000, "duration_s": 1800, "sport": "treadmill" }"#.utf8)
            .write(to: URL(fileURLWithPath: folder.path + "/runs/summary.json"))

        let explained = try CLI.run(["explain", "outside-5", folder.path + "/runs", "--rules", folder.path + "/outside", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(explained.status, 0, explained.stderr)
        XCTAssertTrue(explained.stdout.contains("mill.gpx (outside): excluded: indoor"), explained.stdout)
        XCTAssertTrue(explained.stdout.contains("summary.json (outside): excluded: no GPS"), explained.stdout)
        XCTAssertTrue(explained.stdout.contains("old.gpx (outside): excluded: on 2024-12-26, not after 2024-12-31"), explained.stdout)
        // The fifth counted run is out5 (the treadmill run between out2 and out3 does not count).
        XCTAssertTrue(explained.stdout.contains("out5.gpx"), explained.stdout)
        let json = try CLI.run(["explain", "outside-5", folder.path + "/runs", "--rules", folder.path + "/outside", "--no-cache", "--tz", "UTC", "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { $0["run"] as? String }, ["out5.gpx"])
        let exclusions = try XCTUnwrap(object["exclusions"] as? [[String: Any]])
        XCTAssertEqual(exclusions.count, 3)
    }
}
