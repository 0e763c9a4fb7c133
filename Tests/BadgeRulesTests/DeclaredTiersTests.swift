import RunFixtures
import Foundation
import XCTest

@testable import BadgeRules

/// `tiers` of a pack's badges: read and checked in pack.lua, enforced on awards, used by coverage.
final class DeclaredTiersTests: XCTestCase {
    static let packLua = """
        return { name = "p", version = "1.0.0", badges = {
          { id = "pace-5k", name = "Fast Five", tiers = { "bronze", "silver", "gold" } },
          { id = "plain", name = "Plain" },
        } }
        """

    func testTiersAreRead() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("p", packLua: DeclaredTiersTests.packLua)
        let pack = try RulePack.load(directory: folder)
        XCTAssertEqual(pack.badges.map(\.tiers), [["bronze", "silver", "gold"], nil])
    }

    func testAwardOfAnUndeclaredTierFailsTheRule() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", packLua: DeclaredTiersTests.packLua, files: ["fast.lua": """
            return { id = "fast", badge = "pace-5k",
              on_run = function(state, run, award, ctx)
                award { run = run, tier = "silver" }
                award { run = run, tier = "platinum" }
              end }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures.count, 1, "\(result.failures)")
        let failure = try XCTUnwrap(result.failures.first)
        XCTAssertEqual(failure.message, "award: badge 'pace-5k' has no tier 'platinum' (declared: bronze, silver, gold)")
        XCTAssertEqual(failure.rule, "fast")
        XCTAssertEqual(failure.line, 4)
        XCTAssertTrue(failure.file.hasSuffix("rules/p/fast.lua"), failure.file)
        XCTAssertTrue(failure.description.contains("rules/p/fast.lua:4: pack 'p' rule 'fast': award: badge 'pace-5k' has no tier 'platinum'"), failure.description)
    }

    func testPredicateEarnedDefaultsToATierTheBadgeMayNotHave() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", packLua: DeclaredTiersTests.packLua, files: [
            "yes.lua": "return { id = \"yes\", badge = \"pace-5k\", earned = function(run) return true end }",
            "ok.lua": "return { id = \"ok\", badge = \"pace-5k\", earned = function(run) return { tier = \"gold\" } end }",
            "cat.lua": "return { id = \"cat\", badge = \"5k\", earned = function(run) return { tier = \"platinum\" } end }",
        ])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures.map(\.rule), ["yes"], "\(result.failures)")
        XCTAssertEqual(result.failures.first?.message, "earned: badge 'pace-5k' has no tier 'earned' (declared: bronze, silver, gold)")
        // a declared tier, and any tier of a catalogue badge, are awarded as before; a declared tier
        // implies the declared ones below it
        XCTAssertEqual(Set(result.awards.map { "\($0.badge)/\($0.tier)" }), ["pace-5k/bronze", "pace-5k/silver", "pace-5k/gold", "5k/platinum"])
    }

    func testABadgeWithoutTiersTakesAnyTier() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", packLua: DeclaredTiersTests.packLua, files: [
            "any.lua": "return { id = \"any\", badge = \"plain\", earned = function(run) return { tier = \"silver\" } end }",
        ])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        // silver implies earned (earned < silver < gold without declared tiers)
        XCTAssertEqual(Set(result.awards.map { "\($0.badge)/\($0.tier)" }), ["plain/earned", "plain/silver"])
    }

    func testBadTiersNamePackLuaAndTheField() throws {
        let cases: [(String, String)] = [
            ("tiers = \"gold\"", "badges[1]: field 'tiers' must be a list of tier names such as { \"bronze\", \"silver\", \"gold\" }, got string"),
            ("tiers = {}", "badges[1]: field 'tiers' must be a list of tier names such as { \"bronze\", \"silver\", \"gold\" }, got an empty table"),
            ("tiers = { \"gold\", 3 }", "badges[1]: tiers[2] must be a string, got number"),
            ("tiers = { \"\" }", "badges[1]: tiers[1] must be a short non-empty string"),
            ("tiers = { \"gold\", \"gold\" }", "badges[1]: tiers: duplicate tier 'gold'"),
        ]
        for (field, reason) in cases {
            let fixture = try PackFixture()
            let folder = try fixture.pack("p", packLua: "return { name = \"p\", version = \"1\", badges = { { id = \"b\", name = \"B\", \(field) } } }")
            XCTAssertThrowsError(try RulePack.load(directory: folder), field) { error in
                guard case .pack(let file, _, let message)? = error as? RulesError else { return XCTFail("\(error)") }
                XCTAssertTrue(file.hasSuffix("rules/p/pack.lua"), file)
                XCTAssertEqual(message, reason)
            }
        }
    }

    func testCoverageExpectsExactlyTheDeclaredTiers() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("p", packLua: DeclaredTiersTests.packLua, files: [
            "fast.lua": """
                return { id = "fast", badge = "pace-5k",
                  on_run = function(state, run, award, ctx)
                    if run.distance_m >= 10000 then award { run = run, tier = "gold" } end
                    if run.distance_m >= 5000 then award { run = run, tier = "bronze" } end
                    if run.distance_m >= 5000 then award { badge = "5k", run = run, tier = "silver" } end
                    if run.distance_m >= 5000 then award { badge = "plain", run = run, tier = "best" } end
                  end }
                """,
            "fast_test.lua": """
                test("gold and bronze", function(t)
                  local r = t.run{ distance_km = 12 }
                  local result = t.evaluate{ r }
                  t.expect_award(result, { badge = "pace-5k", tier = "gold", run = r })
                end)
                """,
        ])
        let report = PackTester(catalogue: testCatalogue).run(packDirectory: folder)
        XCTAssertEqual(report.failed, 0, "\(report.results)")
        // pace-5k: only silver missing (declared tiers, so no `earned`); plain (no `tiers`) and the
        // catalogue's 5k: `earned` (best and silver were awarded); no badge is asked another's tiers.
        XCTAssertEqual(report.coverage?.notAwarded, ["5k/earned", "pace-5k/silver", "plain/earned"])
    }
}
