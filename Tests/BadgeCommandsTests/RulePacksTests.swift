import RunFixtures
import XCTest

/// The project's own rule packs pass their own tests (`badgectl test rules/`).
final class RulePacksTests: XCTestCase {
    func testEveryShippedPackPassesItsTests() throws {
        let output = try CLI.run(["test", "rules"])
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        let counts = output.lastLine.split(separator: " ")
        XCTAssertTrue(output.lastLine.contains(" passed, 0 failed"), output.lastLine)
        XCTAssertGreaterThan(Int(counts.first ?? "") ?? 0, 0, "no test ran: \(output.lastLine)")
        XCTAssertFalse(output.stdout.contains("FAIL"), output.stdout)
    }

    func testCheckpointsPackCoversEveryTierAndRule() throws {
        let output = try CLI.run(["test", "rules/checkpoints", "--coverage"])
        XCTAssertEqual(output.status, 0, output.stdout)
        XCTAssertTrue(output.stdout.contains("every badge and tier awarded by some test"), output.stdout)
        XCTAssertTrue(output.stdout.contains("every rule ran"), output.stdout)
    }

    /// segments, lifetime and agegrade declare their badges' tiers in pack.lua; their tests award every one.
    func testSegmentsAndLifetimePacksCoverEveryDeclaredTierAndRule() throws {
        for pack in ["rules/segments", "rules/lifetime", "rules/agegrade"] {
            let output = try CLI.run(["test", pack, "--coverage"])
            XCTAssertEqual(output.status, 0, pack + ": " + output.stdout)
            XCTAssertTrue(output.stdout.contains("every badge and tier awarded by some test"), pack + ": " + output.stdout)
            XCTAssertTrue(output.stdout.contains("every rule ran"), pack + ": " + output.stdout)
            XCTAssertFalse(output.stdout.contains("not awarded by any test"), pack + ": " + output.stdout)
        }
    }

    /// goals and challenges (issue 49) declare their tiers too; their tests award every one and run every rule.
    func testGoalsAndChallengesPacksCoverEveryDeclaredTierAndRule() throws {
        for pack in ["rules/goals", "rules/challenges"] {
            let output = try CLI.run(["test", pack, "--coverage"])
            XCTAssertEqual(output.status, 0, pack + ": " + output.stdout)
            XCTAssertTrue(output.stdout.contains("every badge and tier awarded by some test"), pack + ": " + output.stdout)
            XCTAssertTrue(output.stdout.contains("every rule ran"), pack + ": " + output.stdout)
            XCTAssertFalse(output.stdout.contains("not awarded by any test"), pack + ": " + output.stdout)
        }
    }
}
