import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// `eligibility` in pack.lua: read and checked at load, applied by the core before the pack's rules (a
/// predicate, a fold and `progress` never see a run it leaves out), and each left-out run listed with why.
final class EligibilityTests: XCTestCase {
    static let rules: [String: String] = [
        "every.lua": """
            return { id = "every", badge = "any-run", earned = function(run) return { detail = run.id } end }
            """,
        "count.lua": """
            return { id = "count", badge = "counted", repeatable = true,
              init = function(ctx) return { n = 0 } end,
              on_run = function(state, run, award, ctx)
                state.n = state.n + 1
                award { run = run, detail = ("%d: %s"):format(state.n, run.id) }
              end }
            """,
    ]

    func pack(_ fixture: PackFixture, eligibility: String) throws {
        try fixture.pack("p", packLua: """
            return { name = "p", version = "1.0.0",
              eligibility = \(eligibility),
              badges = { { id = "any-run", name = "Any" }, { id = "counted", name = "Counted" } } }
            """, files: Self.rules)
    }

    /// Six runs, one day apart from 2024-03-04: each fails one criterion but the first.
    func runs() -> [RunSummary] {
        var good = makeRun("good", day: 0, distance: 5000); good.gps = true
        var noGPS = makeRun("treadmill", day: 1, distance: 5000); noGPS.gps = false
        var indoor = makeRun("indoor", day: 2, distance: 5000); indoor.gps = true; indoor.indoor = true
        var manual = makeRun("manual", day: 3, distance: 5000); manual.gps = true; manual.manual = true
        var walk = makeRun("walk", day: 4, distance: 5000); walk.gps = true; walk.sport = "walking"
        var short = makeRun("short", day: 5, distance: 900); short.gps = true
        return [good, noGPS, indoor, manual, walk, short]
    }

    func testLeftOutRunsReachNoRuleAndSayWhy() throws {
        let fixture = try PackFixture()
        try pack(fixture, eligibility: #"{ gps = true, indoor = false, manual = false, sports = { "Run" }, min_distance_m = 1000 }"#)
        let engine = fixture.engine(["p"])
        XCTAssertEqual(engine.packs.first?.eligibility,
                       Eligibility(gps: true, indoor: false, manual: false, sports: ["running"], minDistanceMeters: 1000))
        let result = engine.evaluate(runs: runs())
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map { "\($0.badge) \($0.detail)" }, ["counted 1: good", "any-run good"])
        XCTAssertEqual(result.exclusions.map { "\($0.run): \($0.reason)" },
                       ["treadmill: no GPS", "indoor: indoor", "manual: manual", "walk: sport walking", "short: under 1.00 km"])
        XCTAssertTrue(result.exclusions.allSatisfy { $0.pack == "p" })
    }

    func testDurationAndDate() throws {
        let fixture = try PackFixture()
        // 2024-03-05 itself is left out; runs of at least 20 minutes (makeRun: 0.3 s/m, 5 km is 25:00).
        try pack(fixture, eligibility: #"{ after = "2024-03-05", min_duration_s = 1200 }"#)
        let result = fixture.engine(["p"]).evaluate(runs: runs())
        XCTAssertEqual(result.awards.filter { $0.badge == "counted" }.map(\.detail), ["1: indoor", "2: manual", "3: walk"])
        // The predicate's badge goes to the first run it sees: the first run counted.
        XCTAssertEqual(result.awards.filter { $0.badge == "any-run" }.map(\.detail), ["indoor"])
        XCTAssertEqual(result.exclusions.map { "\($0.run): \($0.reason)" },
                       ["good: on 2024-03-04, not after 2024-03-05", "treadmill: on 2024-03-05, not after 2024-03-05", "short: under 20:00"])
    }

    func testAnEmptyEligibilityCountsEveryRunAndNoneIsEncoded() throws {
        let fixture = try PackFixture()
        try pack(fixture, eligibility: "{}")
        let result = fixture.engine(["p"]).evaluate(runs: runs())
        XCTAssertEqual(result.awards.filter { $0.badge == "counted" }.count, 6)
        XCTAssertEqual(result.exclusions, [])
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        XCTAssertFalse(json.contains("exclusions"), json)
    }

    func testMistakesAreRefusedWithTheKey() throws {
        for (text, message) in [
            (#"{ indor = false }"#, "eligibility: unknown key 'indor' (known: gps, indoor, manual, sports, min_distance_m, min_duration_s, after); did you mean 'indoor'?"),
            (#"{ gps = "yes" }"#, "eligibility.gps must be true or false, got string"),
            (#"{ min_distance_m = -1 }"#, "eligibility.min_distance_m must be a number ≥ 0"),
            (#"{ sports = "running" }"#, "eligibility.sports must be a list of sports"),
            (#"{ after = "2024-02-30" }"#, "eligibility.after must be a date YYYY-MM-DD, got '2024-02-30'"),
            (#""outdoors""#, "field 'eligibility' must be a table"),
        ] {
            let fixture = try PackFixture()
            try pack(fixture, eligibility: text)
            let failures = fixture.engine(["p"]).loadProblems()
            XCTAssertTrue(failures.contains { "\($0)".contains(message) && "\($0)".contains("rules/p/pack.lua") }, "\(text): \(failures)")
        }
    }
}
