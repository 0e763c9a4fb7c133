import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// The worked examples of docs/rules.md, run as written: the guide cannot drift from the engine.
final class GuideExamplesTests: XCTestCase {
    func luaBlocks() throws -> [String] {
        let guide = Repository.root.appendingPathComponent("docs/rules.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        guard let start = text.range(of: "## Worked examples") else { XCTFail("no worked examples"); throw CocoaError(.fileReadCorruptFile) }
        var blocks: [String] = []
        var rest = text[start.upperBound...]
        while let open = rest.range(of: "```lua\n"), let close = rest[open.upperBound...].range(of: "```") {
            blocks.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return blocks
    }

    func testWorkedExamplesRunAsWritten() throws {
        let blocks = try luaBlocks()
        XCTAssertEqual(blocks.count, 10)
        guard blocks.count == 10 else { return }
        let fixture = try PackFixture()
        try fixture.pack("speed", packLua: blocks[1], files: ["sub25.lua": blocks[0]])
        try fixture.pack("lifetime", packLua: """
            return { name = "lifetime", version = "1.0.0", badges = {
              { id = "lifetime-100k", name = "100 km" }, { id = "lifetime-500k", name = "500 km" },
              { id = "lifetime-1000k", name = "1000 km" }, { id = "three-a-week", name = "Three a week" } } }
            """, files: ["lifetime.lua": blocks[2], "week.lua": blocks[3], "pace.lua": blocks[4]])
        var runs: [RunSummary] = []
        for day in 0..<30 {
            var run = makeRun("d\(day).gpx", day: day, distance: 10_500)
            let seconds = day < 20 ? 1_600.0 : 1_450.0
            run.efforts = [Effort(name: "5km", distanceMeters: 5000, elapsedSeconds: seconds, startDistanceMeters: 0, startElapsedSeconds: 0),
                           Effort(name: "10km", distanceMeters: 10_000, elapsedSeconds: day < 10 ? 3_400 : (day < 25 ? 3_200 : 2_950),
                                  startDistanceMeters: 0, startElapsedSeconds: 0)]
            runs.append(run)
        }
        let result = fixture.engine(["speed", "lifetime"]).evaluate(runs: runs)
        XCTAssertEqual(result.failures, [])
        let summary = result.awards.map { "\($0.badge)/\($0.tier)@\($0.run)" }
        XCTAssertEqual(summary.filter { $0.hasPrefix("sub-25-5k") }, ["sub-25-5k/earned@d20.gpx"])
        XCTAssertEqual(result.awards.first { $0.badge == "sub-25-5k" }?.detail, "5 km in 24:10")
        XCTAssertEqual(summary.filter { $0.hasPrefix("lifetime-") }, ["lifetime-100k/earned@d9.gpx"])
        XCTAssertEqual(result.awards.first { $0.badge == "lifetime-100k" }?.detail, "105.00 km in 10 runs")
        // Weeks start on Monday 2024-03-04: four full weeks, then two runs in the fifth.
        XCTAssertEqual(summary.filter { $0.hasPrefix("three-a-week") }.count, 4)
        XCTAssertEqual(summary.filter { $0.hasPrefix("10k/") }, ["10k/silver@d10.gpx", "10k/gold@d25.gpx"])
        XCTAssertEqual(result.next, NextBadge(pack: "lifetime", rule: "lifetime", badge: "lifetime-500k", remainingMeters: 185_000))
        XCTAssertEqual(result.notes.map(\.message), ["lifetime: 315.0 km"])
    }

    /// "A predicate with tiers": 200 m, 350 m, 100 m, 700 m, 180 m give bronze, silver, gold to runs 1, 2, 4,
    /// and the predicate is called until all three are held (a tier already held changes nothing).
    func testTheTieredPredicateExampleAwardsEachTierOnce() throws {
        let blocks = try luaBlocks()
        guard blocks.count == 10 else { return XCTFail("expected 10 lua blocks, got \(blocks.count)") }
        let fixture = try PackFixture()
        try fixture.pack("hills", packLua: blocks[5], files: ["climber.lua": blocks[6]])
        let runs = [200.0, 350, 100, 700, 180].enumerated().map { index, gain in
            var run = makeRun("r\(index + 1).gpx", day: index, distance: 10_000)
            run.elevation = Elevation(gainMeters: gain, lossMeters: gain, minMeters: 0, maxMeters: gain)
            return run
        }
        let result = fixture.engine(["hills"]).evaluate(runs: runs)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map { "\($0.tier)@\($0.run) \($0.detail)" },
                       ["bronze@r1.gpx 200 m up", "silver@r2.gpx 350 m up", "gold@r4.gpx 700 m up"])
    }

    /// "An interval session": the pack, its rule and its test as the guide writes them. The test passes, and
    /// on summaries as the analyzer makes them (laps from a watch) five fast kilometre laps earn the badge.
    func testTheIntervalSessionExampleReadsLaps() throws {
        let blocks = try luaBlocks()
        guard blocks.count == 10 else { return XCTFail("expected 10 lua blocks, got \(blocks.count)") }
        let fixture = try PackFixture()
        let folder = try fixture.pack("sessions", packLua: blocks[7], files: ["intervals.lua": blocks[8], "intervals_test.lua": blocks[9]])
        let report = PackTester(catalogue: testCatalogue).run(packDirectory: folder)
        XCTAssertEqual(report.failed, 0, "\(report.results)")
        XCTAssertEqual(report.passed, 1)

        func lap(_ index: Int, _ metres: Double, _ seconds: Double, _ trigger: String) -> RunLap {
            RunLap(index: index, startElapsedSeconds: Double(index - 1) * 300, distanceMeters: metres, elapsedSeconds: seconds,
                   timerSeconds: seconds, trigger: trigger)
        }
        var session = makeRun("session.fit", day: 0, distance: 6_000)
        session.laps = (1...10).map { $0 % 2 == 1 ? lap($0, 1000, 235, "distance") : lap($0, 200, 90, "time") }
        var steady = makeRun("steady.fit", day: 1, distance: 10_000)
        steady.laps = (1...10).map { lap($0, 1000, 300, "distance") }
        let result = fixture.engine(["sessions"]).evaluate(runs: [session, steady])
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map { "\($0.badge)@\($0.run) \($0.detail)" }, ["five-by-1k@session.fit 5 laps of 1 km under 4:00/km"])
    }
}
