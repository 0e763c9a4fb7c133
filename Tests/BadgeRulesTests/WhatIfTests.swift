import Foundation
import RunAnalysis
import RunFiles
import XCTest

@testable import BadgeRules

/// The what-if core: an even-paced generated run, added to a history; exact boundaries resolve as
/// the rules' strict comparisons say.
final class WhatIfTests: XCTestCase {
    let pack: [String: String] = [
        "fast.lua": """
            return { id = "fast", badge = "5k",
              earned = function(run)
                local effort = run.fastest["5km"]
                if effort and effort.elapsed_s < 1500 then return { evidence = { elapsed_s = effort.elapsed_s } } end
              end }
            """,
        "far.lua": """
            return { id = "far", badge = "10k",
              earned = function(run) return run.distance_m > 10000 end }
            """,
    ]

    func run(_ meters: Double, _ seconds: Double) -> WhatIf.Run {
        WhatIf.Run(distanceMeters: meters, elapsedSeconds: seconds, startEpochSeconds: 1_740_000_000, utcOffsetSeconds: 3600)
    }

    func testTheRunHasSplitsEffortsAndTheTimeAsked() {
        let summary = WhatIf.summary(of: run(12_000, 3600), analyzer: RunAnalyzer())
        XCTAssertEqual(summary.distanceMeters, 12_000)
        XCTAssertEqual(try XCTUnwrap(summary.elapsedSeconds), 3600 * (1 + WhatIf.slowdown), accuracy: 0.01)
        // 12 whole kilometres at the pace asked (and the centimetres of rounding after them)
        XCTAssertGreaterThanOrEqual(summary.splitsKilometre.count, 12)
        for split in summary.splitsKilometre.prefix(12) { XCTAssertEqual(split.elapsedSeconds, 300, accuracy: 0.1) }
        let five = summary.efforts.first { $0.name == "5km" }
        XCTAssertEqual(try XCTUnwrap(five?.elapsedSeconds), 1500, accuracy: 0.5)
        XCTAssertEqual(summary.localDate, "2025-02-19")
        let climb = WhatIf.summary(of: WhatIf.Run(distanceMeters: 5000, elapsedSeconds: 1500, startEpochSeconds: 0, utcOffsetSeconds: 0,
                                                 elevationGainMeters: 200), analyzer: RunAnalyzer())
        XCTAssertEqual(climb.elevation?.gainMeters, 200)
    }

    func testExactBoundariesDoNotQualifyAndTheSecondBelowDoes() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: pack)
        let engine = fixture.engine(["p"])
        func earned(_ meters: Double, _ seconds: Double) -> [String] {
            WhatIf.evaluate(run(meters, seconds), history: [], engine: engine, analyzer: RunAnalyzer()).awards
                .filter { $0.run == "what-if" }.map(\.badge)
        }
        XCTAssertEqual(earned(5000, 1500), [])           // 5 km in exactly 25:00: not under 25:00
        XCTAssertEqual(earned(5000, 1499), ["5k"])       // a second faster
        XCTAssertEqual(earned(10_000, 3600), [])         // exactly 10 km: not more than 10 km
        XCTAssertEqual(earned(10_010, 3600), ["10k"])
        let outcome = WhatIf.evaluate(run(5000, 1499), history: [], engine: engine, analyzer: RunAnalyzer())
        XCTAssertEqual(outcome.awards.first?.evidence?["elapsed_s"]?.number ?? 0, 1499, accuracy: 0.5)
        XCTAssertEqual(outcome.changes.counts.gained, 1)
        XCTAssertEqual(outcome.run.id, "what-if")
    }
}
