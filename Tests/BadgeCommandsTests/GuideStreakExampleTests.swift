import RunFixtures
import Foundation
import XCTest

/// The guide's "Streak example" (badgectl.streak_new with a rolling window), as written: its test passes
/// under `badgectl test`, and through `evaluate` runs every other day earn it on the 15th while a three-day
/// gap starts the streak again.
final class GuideStreakExampleTests: XCTestCase {
    func testTheGuidesStreakExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/often", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        for name in ["pack", "often", "often_test"] {
            let block = try AgeGradeEndToEndTests.guideBlock("-- rules/often/\(name).lua")
            try Data(block.utf8).write(to: URL(fileURLWithPath: folder.path + "/often/\(name).lua"))
        }
        let tested = try CLI.run(["test", folder.path + "/often"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("1 passed, 0 failed"), tested.stdout)
        // Summaries: the 1st, 4th (a three-day gap: start again), then every other day to the 18th.
        for day in [1, 4, 6, 8, 10, 12, 14, 16, 18] {
            let summary = #"{ "start": "2025-05-\#(String(format: "%02d", day))T07:00:00Z", "distance_m": 5000, "duration_s": 1800 }"#
            try Data(summary.utf8).write(to: URL(fileURLWithPath: folder.path + "/runs/d\(day).json"))
        }
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/often", "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["run"] ?? "") \($0["detail"] ?? "")" }, ["d18.json 15 days from 2025-05-04"])
    }
}
