import RunFixtures
import BadgeRules
import Foundation
import RunFiles
import XCTest

/// The MoonRunner rules in `rules/checkpoints`, checked against a hand-written table of awards.
final class CheckpointsPackTests: XCTestCase {
    static let repoRoot = Repository.root
    static let packPath = repoRoot.appendingPathComponent("rules/checkpoints").path

    let catalogue = Catalogue(badges: [
        CatalogueBadge(id: "start", name: "Start", distanceMeters: 0),
        CatalogueBadge(id: "five", name: "Five", distanceMeters: 5000),
        CatalogueBadge(id: "seven", name: "Seven", distanceMeters: 7000),
        CatalogueBadge(id: "ten", name: "Ten", distanceMeters: 10000),
    ])

    /// Speeds (m/s): r1 3.3333, r2 3.25, r3 3.6429, r4 3.8462, r5 4.0, r6 3.3333.
    /// Ids are chosen so that id order is not start order.
    func runs() -> [RunSummary] {
        func run(_ id: String, _ day: Int, _ meters: Double, _ seconds: Double?) -> RunSummary {
            let epoch = Double(Timestamps.daysFromCivil(year: 2024, month: 3, day: day) * 86_400 + 7 * 3600)
            return RunSummary(id: id, start: Timestamps.iso8601(epoch), startEpochSeconds: epoch, format: "json",
                              distanceMeters: meters, elapsedSeconds: seconds, timerSeconds: seconds)
        }
        // Given out of order on purpose.
        return [
            run("r6-z.json", 6, 8000, 2400),
            run("r3-c.json", 3, 5100, 1400),
            run("r1-y.json", 1, 5000, 1500),  // exactly 5 km: earns nothing at 5 km
            run("r5-a.json", 5, 2000, 500),
            run("r2-x.json", 2, 5200, 1600),
            run("r4-b.json", 4, 3000, 780),
            run("no-time.gpx", 7, 20000, nil),  // no elapsed time: left out with a note
        ]
    }

    func tiers(_ evaluation: Evaluation) -> [String: String] {
        var result: [String: String] = [:]
        for award in evaluation.awards where award.pack == "checkpoints" {
            let key = "\(award.badge)/\(award.tier)"
            XCTAssertNil(result[key], "\(key) awarded twice")
            result[key] = award.run
        }
        return result
    }

    func testMoonRunnerTable() throws {
        let engine = RuleEngine(packDirectories: [Self.packPath], catalogue: catalogue)
        let evaluation = engine.evaluate(runs: runs())
        XCTAssertEqual(evaluation.failures.count, 0, "\(evaluation.failures)")
        let expected: [String: String] = [
            "start/earned": "r1-y.json",   // the first run with distance > 0
            "start/silver": "r3-c.json",   // 3.6429 > 1.05 × 3.3333 = 3.5, not > 3.6667
            "start/gold": "r4-b.json",     // 3.8462 > 3.6667
            "start/best": "r5-a.json",     // fastest (4.0); earned neither silver nor gold
            "five/earned": "r2-x.json",    // r1 ran exactly 5000 m: not strictly greater
            "five/silver": "r3-c.json",    // 3.6429 / 3.25 = 1.121: silver and gold from one run
            "five/gold": "r3-c.json",
            "five/best": "r3-c.json",
            "seven/earned": "r6-z.json",   // the earning run is never its own silver
            "seven/best": "r6-z.json",
        ]
        XCTAssertEqual(tiers(evaluation), expected)

        let seven = try XCTUnwrap(evaluation.statuses.first { $0.badge == "seven" })
        XCTAssertEqual(try XCTUnwrap(seven.silverPaceSecondsPerKilometre), 2400 / (8 * 1.05), accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(seven.goldPaceSecondsPerKilometre), 2400 / (8 * 1.10), accuracy: 1e-9)
        let five = try XCTUnwrap(evaluation.statuses.first { $0.badge == "five" })
        XCTAssertNil(five.silverPaceSecondsPerKilometre)
        XCTAssertNil(five.goldPaceSecondsPerKilometre)
        let ten = try XCTUnwrap(evaluation.statuses.first { $0.badge == "ten" })
        XCTAssertNil(ten.silverPaceSecondsPerKilometre)

        let next = try XCTUnwrap(evaluation.next)
        XCTAssertEqual(next.badge, "ten")
        XCTAssertEqual(next.remainingMeters, 2000, accuracy: 1e-9)  // 10,000 − the longest run with a speed (8,000)
        XCTAssertTrue(evaluation.notes.contains { $0.message.contains("no-time.gpx") }, "\(evaluation.notes)")
    }

    func testOrderOfInputDoesNotMatter() {
        let engine = RuleEngine(packDirectories: [Self.packPath], catalogue: catalogue)
        XCTAssertEqual(tiers(engine.evaluate(runs: runs())), tiers(engine.evaluate(runs: runs().reversed())))
    }

    func testAllEarnedHasNoNext() {
        let small = Catalogue(badges: [CatalogueBadge(id: "start", name: "Start", distanceMeters: 0)])
        let evaluation = RuleEngine(packDirectories: [Self.packPath], catalogue: small).evaluate(runs: runs())
        XCTAssertNil(evaluation.next)
    }

    /// The multipliers live in Lua: change one in a copy of the pack and the awards change, no rebuild.
    func testMultiplierLivesInLua() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let copy = temporary.url.appendingPathComponent("checkpoints")
        try FileManager.default.copyItem(atPath: Self.packPath, toPath: copy.path)
        let rule = copy.appendingPathComponent("distance.lua")
        let source = try String(contentsOf: rule, encoding: .utf8)
        XCTAssertTrue(source.contains("local SILVER = 1.05"))
        try source.replacingOccurrences(of: "local SILVER = 1.05", with: "local SILVER = 1.15")
            .write(to: rule, atomically: true, encoding: .utf8)
        let evaluation = RuleEngine(packDirectories: [copy.path], catalogue: catalogue).evaluate(runs: runs())
        let got = tiers(evaluation)
        XCTAssertEqual(got["start/silver"], "r4-b.json")  // r3's 9.3% no longer beats 15%; r4's 15.4% does
        XCTAssertEqual(got["five/silver"], nil)            // r3's 12.1% does not beat 15%
        XCTAssertEqual(got["five/gold"], "r3-c.json")      // gold (10%) unchanged
    }

    /// MoonRunner's own catalogue format: `imageName`, distance as a string, no id.
    func testMoonRunnerBadgesTxtFormat() throws {
        let text = """
            [{"name":"Lift Off","information":"Any run at all.","imageName":"liftoff.png","distance":"0"},
             {"name":"Low Orbit","information":"Five thousand metres.","imageName":"orbit.png","distance":"5000"},
             {"name":"Far Side","information":"Ten thousand.","imageName":"farside.png","distance":10000}]
            """
        let catalogue = try Catalogue.parse(Data(text.utf8), source: "badges.txt")
        XCTAssertEqual(catalogue.badges.map(\.id), ["lift-off", "low-orbit", "far-side"])
        XCTAssertEqual(catalogue.badges.map(\.distanceMeters), [0, 5000, 10000])
        XCTAssertEqual(catalogue.badges[1].image, "orbit.png")
        let evaluation = RuleEngine(packDirectories: [Self.packPath], catalogue: catalogue).evaluate(runs: runs())
        let got = tiers(evaluation)
        XCTAssertEqual(got["low-orbit/earned"], "r2-x.json")
        XCTAssertEqual(got["lift-off/earned"], "r1-y.json")
        XCTAssertEqual(evaluation.next?.badge, "far-side")
    }

    func testBadCatalogueNamesTheEntry() {
        let text = #"[{"name":"A","distance":"0"},{"name":"B","distance":"far"}]"#
        XCTAssertThrowsError(try Catalogue.parse(Data(text.utf8), source: "badges.txt")) { error in
            XCTAssertEqual("\(error)", "badges.txt: badge 1: field 'distance' must be a number of metres or a string holding one, found a string")
        }
        XCTAssertThrowsError(try Catalogue.parse(Data(#"[{"distance":1}]"#.utf8), source: "b.json")) { error in
            XCTAssertEqual("\(error)", "b.json: badge 0: missing required field 'name' (a non-empty string)")
        }
    }

    /// The catalogue is read by JSONText, as worker lines and summaries are: a repeated key is refused
    /// (JSONSerialization kept the last one), and a broken file says at which byte.
    func testCatalogueRefusesRepeatedKeysSayingWhere() {
        XCTAssertThrowsError(try Catalogue.parse(Data(#"[{"name":"A","name":"B"}]"#.utf8), source: "b.json")) { error in
            XCTAssertEqual("\(error)", "b.json: not valid JSON: byte 13: duplicate key 'name' in an object")
        }
        XCTAssertThrowsError(try Catalogue.parse(Data([UInt8](#"[{"name":"A"#.utf8) + [0xFF] + [UInt8](#""}]"#.utf8)), source: "b.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("b.json: not valid JSON: byte 10: "), "\(error)")
        }
        XCTAssertThrowsError(try Catalogue.parse(Data(#"[{"name":"A","distance":true}]"#.utf8), source: "b.json")) { error in
            XCTAssertEqual("\(error)", "b.json: badge 0: field 'distance' must be a number of metres or a string holding one, found the boolean true")
        }
    }

}
