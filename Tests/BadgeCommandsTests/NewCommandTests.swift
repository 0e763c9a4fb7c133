import RunFixtures
import Foundation
import XCTest

/// `badgectl new pack` / `new rule` make packs whose own tests pass.
final class NewCommandTests: XCTestCase {
    func testNewPackAndRulePassTheirTests() throws {
        let folder = try TemporaryFolder()
        let pack = try CLI.run(["new", "pack", "morning-runs", "--dir", "packs"], in: folder.url)
        XCTAssertEqual(pack.status, 0, pack.stderr)
        XCTAssertTrue(pack.stdout.contains("created packs/morning-runs/pack.lua"), pack.stdout)
        var tested = try CLI.run(["test", "packs/morning-runs", "--coverage"], in: folder.url)
        XCTAssertEqual(tested.status, 0, tested.stdout)
        XCTAssertEqual(tested.lastLine, "2 passed, 0 failed")
        XCTAssertTrue(tested.stdout.contains("every badge and tier awarded by some test"), tested.stdout)

        let rule = try CLI.run(["new", "rule", "long-run", "--pack", "morning-runs", "--dir", "packs"], in: folder.url)
        XCTAssertEqual(rule.status, 0, rule.stderr)
        XCTAssertTrue(rule.stdout.contains("declared badge morning-runs-long-run"), rule.stdout)
        tested = try CLI.run(["test", "packs"], in: folder.url)
        XCTAssertEqual(tested.status, 0, tested.stdout)
        XCTAssertEqual(tested.lastLine, "4 passed, 0 failed")

        // The scaffolded test can fail: make the rule wrong and the test says so.
        let rulePath = folder.url.appendingPathComponent("packs/morning-runs/long-run.lua")
        let text = try String(contentsOf: rulePath, encoding: .utf8)
        try text.replacingOccurrences(of: "> 10000", with: ">= 10000").write(to: rulePath, atomically: true, encoding: .utf8)
        tested = try CLI.run(["test", "packs"], in: folder.url)
        XCTAssertEqual(tested.status, 3)
        XCTAssertEqual(tested.lastLine, "3 passed, 1 failed", tested.stdout)
        XCTAssertTrue(tested.stdout.contains("packs/morning-runs/long-run_test.lua:12: "), tested.stdout)
    }

    func testNewRefusesToOverwriteAndBadNames() throws {
        let folder = try TemporaryFolder()
        XCTAssertEqual(try CLI.run(["new", "pack", "p"], in: folder.url).status, 0)
        let again = try CLI.run(["new", "pack", "p"], in: folder.url)
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.stderr.contains("rules/p already exists; not overwritten"), again.stderr)
        let bad = try CLI.run(["new", "pack", "Bad_Name"], in: folder.url)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("must be lower-case letters"), bad.stderr)
        let noPack = try CLI.run(["new", "rule", "x", "--pack", "missing"], in: folder.url)
        XCTAssertNotEqual(noPack.status, 0)
        XCTAssertTrue(noPack.stderr.contains("no pack at rules/missing"), noPack.stderr)
    }
}
