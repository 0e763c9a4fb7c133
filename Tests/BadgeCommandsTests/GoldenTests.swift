import RunFixtures
import Foundation
import XCTest

/// `badgectl evaluate --golden`: the MoonRunner rules over a folder of JSON-summary runs give exactly
/// the reviewed snapshot Golden/expected.json (re-record with `--update`, then review the diff).
final class GoldenTests: XCTestCase {
    static let golden = "Tests/BadgeCommandsTests/Golden"

    func arguments(snapshot: String) -> [String] {
        ["evaluate", "\(GoldenTests.golden)/runs", "--rules", "rules/checkpoints", "--badges", "\(GoldenTests.golden)/badges.json",
         "--tz", "UTC", "--golden", snapshot]
    }

    func testEvaluateMatchesTheSnapshot() throws {
        let output = try CLI.run(arguments(snapshot: "\(GoldenTests.golden)/expected.json"))
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.stdout, "\(GoldenTests.golden)/expected.json: matches\n")
    }

    func testAMismatchFailsWithTheFirstDifferingLinesAndUpdateRerecords() throws {
        let folder = try TemporaryFolder()
        let expected = try String(contentsOf: CLI.repository.appendingPathComponent("\(GoldenTests.golden)/expected.json"), encoding: .utf8)
        // A snapshot whose first award detail differs from what the rules give now.
        let changed = expected.replacingOccurrences(of: "\"detail\" : \"6.00 km at 6:00/km\"", with: "\"detail\" : \"6.00 km at 5:59/km\"")
        XCTAssertNotEqual(changed, expected)
        let snapshot = folder.url.appendingPathComponent("expected.json")
        try changed.write(to: snapshot, atomically: true, encoding: .utf8)

        let failed = try CLI.run(arguments(snapshot: snapshot.path))
        XCTAssertEqual(failed.status, 3)
        XCTAssertTrue(failed.stderr.contains("output differs from the snapshot"), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("-       \"detail\" : \"6.00 km at 5:59/km\","), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("+       \"detail\" : \"6.00 km at 6:00/km\","), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("@@ line 6 @@"), failed.stderr)

        let updated = try CLI.run(arguments(snapshot: snapshot.path) + ["--update"])
        XCTAssertEqual(updated.status, 0)
        XCTAssertEqual(updated.stdout, "updated \(snapshot.path)\n")
        XCTAssertEqual(try String(contentsOf: snapshot, encoding: .utf8), expected)
        XCTAssertEqual(try CLI.run(arguments(snapshot: snapshot.path)).status, 0)
    }

    func testAMissingSnapshotFails() throws {
        let folder = try TemporaryFolder()
        let output = try CLI.run(arguments(snapshot: folder.url.appendingPathComponent("none.json").path))
        XCTAssertEqual(output.status, 3)
        XCTAssertTrue(output.stderr.contains("no snapshot (record one with --update and review it)"), output.stderr)
    }
}
