import RunFixtures
import Foundation
import RunAnalysis
import RunFiles
import XCTest

@testable import BadgeRules

/// `measures = { ... }` in pack.lua: checked at load with the line and a suggestion; `run.measures`
/// answers for the reading rule's own pack; unknown names raise; a measure a run lacks is nil.
final class MeasureDeclarationTests: XCTestCase {
    func packLua(_ name: String, measures: String) -> String {
        """
        return {
          name = "\(name)", version = "1.0.0",
          badges = { { id = "\(name)-badge", name = "B" } },
          measures = {
        \(measures)
          },
        }
        """
    }

    func loadError(_ measures: String) throws -> (line: Int?, reason: String) {
        let fixture = try PackFixture()
        let folder = try fixture.pack("p", packLua: packLua("p", measures: measures))
        do {
            _ = try RulePack.load(directory: folder)
        } catch RulesError.pack(let file, let line, let reason) {
            XCTAssertTrue(file.hasSuffix("p/pack.lua"), file)
            return (line, reason)
        }
        XCTFail("the pack loaded")
        return (nil, "")
    }

    func testDeclarationsAreCheckedWithTheLineAndASuggestion() throws {
        var (line, reason) = try loadError("    best3k = { kind = \"efort\", distance_m = 3000 },")
        XCTAssertEqual(line, 5)
        XCTAssertEqual(reason, "measure 'best3k': unknown kind 'efort' (known: effort, time_in, stops, sun, place, segment, tiles, age_grade, grade_adjusted); did you mean 'effort'?")
        (line, reason) = try loadError("    ok = { kind = \"sun\" },\n    best3k = { kind = \"effort\", distanse_m = 3000 },")
        XCTAssertEqual(line, 6)
        XCTAssertEqual(reason, "measure 'best3k': unknown parameter 'distanse_m' for kind 'effort' (known: distance_m, duration_s, max_stop_s); did you mean 'distance_m'?")
        (_, reason) = try loadError("    e = { kind = \"effort\" },")
        XCTAssertEqual(reason, "measure 'e': an effort needs distance_m (fastest time over a distance) or duration_s (longest distance in a time)")
        (_, reason) = try loadError("    e = { kind = \"effort\", distance_m = 3000, duration_s = 600 },")
        XCTAssertEqual(reason, "measure 'e': an effort takes distance_m or duration_s, not both")
        (_, reason) = try loadError("    e = { kind = \"effort\", distance_m = \"3k\" },")
        XCTAssertEqual(reason, "measure 'e': 'distance_m' must be a number (the fastest time over this distance), got string")
        (_, reason) = try loadError("    hr = { kind = \"time_in\", channel = \"heartrate\", min = 120 },")
        XCTAssertEqual(reason, "measure 'hr': 'channel' must be one of heart_rate, cadence, speed, grade, elevation, got 'heartrate'; did you mean 'heart_rate'?")
        (_, reason) = try loadError("    hr = { kind = \"time_in\", channel = \"heart_rate\", min = 150, max = 120 },")
        XCTAssertEqual(reason, "measure 'hr': max (120.0) must be above min (150.0)")
        (_, reason) = try loadError("    z = { kind = \"time_in\", channel = \"cadence\", zone = 2 },")
        XCTAssertEqual(reason, "measure 'z': zone = n is a heart-rate zone: use channel = \"heart_rate\"")
        (_, reason) = try loadError("    s = { kind = \"stops\" },")
        XCTAssertEqual(reason, "measure 's': missing required parameter 'min_s' (seconds)")
        (_, reason) = try loadError("    s = { kind = \"stops\", min_s = 0 },")
        XCTAssertEqual(reason, "measure 's': 'min_s' must be at least 1.0, got 0")
        (_, reason) = try loadError("    [\"3k\"] = { kind = \"sun\" },")
        XCTAssertEqual(reason, "measure '3k': a measure's name must be letters, digits and '_', not starting with a digit")
    }

    func testADeclarationIsItsKindAndParametersNotItsName() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("p", packLua: packLua("p", measures: """
            best = { kind = "effort", distance_m = 3000 },
            same = { max_stop_s = 120, distance_m = 3000.0, kind = "effort" },
            sun = { kind = "sun" },
        """))
        let pack = try RulePack.load(directory: folder)
        XCTAssertEqual(pack.measures.map(\.name), ["best", "same", "sun"])
        XCTAssertEqual(pack.measures[0].definition.key, "effort(distance_m=3000)")
        XCTAssertEqual(pack.measures[1].definition.key, "effort(distance_m=3000,max_stop_s=120)")
        let place = MeasureDefinition(kind: "place", parameters: [
            "name": .text("Vondelpark \"west\""), "polygon": .list([.list([.number(52.36), .number(4.87)]), .list([.number(52.35), .number(4.86)])]),
        ])
        XCTAssertEqual(place.key, #"place(name="Vondelpark \"west\"",polygon={{52.36,4.87},{52.35,4.86}})"#, "lists and text for the kinds to come")
        XCTAssertEqual(PackMeasureTable.definitions(of: [pack, pack], athlete: nil).map(\.key),
                       ["effort(distance_m=3000)", "effort(distance_m=3000,max_stop_s=120)", "sun()"], "each definition once")
    }

    /// Two packs each call a different measure `best`: each rule reads its own pack's.
    func testNamesAreScopedToThePack() throws {
        let fixture = try PackFixture()
        let rule = { (pack: String) in
            """
            return { id = "r", badge = "\(pack)-badge",
              earned = function(run)
                local best = run.measures.best
                return best ~= nil and best.elapsed_s < 1000
              end }
            """
        }
        try fixture.pack("a", packLua: packLua("a", measures: "    best = { kind = \"effort\", distance_m = 3000 },"), files: ["r.lua": rule("a")])
        try fixture.pack("b", packLua: packLua("b", measures: "    best = { kind = \"effort\", distance_m = 5000 },"), files: ["r.lua": rule("b")])
        var run = makeRun("r1", day: 1, distance: 5000)
        run.measures["effort(distance_m=3000)"] = MeasureValue(["elapsed_s": .float(900)])
        run.measures["effort(distance_m=5000)"] = MeasureValue(["elapsed_s": .float(1500)])
        let evaluation = fixture.engine(["a", "b"]).evaluate(runs: [run])
        XCTAssertEqual(evaluation.failures, [])
        XCTAssertEqual(evaluation.awards.map(\.badge), ["a-badge"], "pack b's best is its 5 km: 1500 s")
        XCTAssertEqual(evaluation.awards.first?.measures, [AwardMeasure(name: "best", kind: "effort", value: MeasureValue(["elapsed_s": .float(900)]))])
    }

    func testUnknownNamesRaiseAndMissingMeasuresAreNil() throws {
        let fixture = try PackFixture()
        try fixture.pack("a", packLua: packLua("a", measures: "    best3k = { kind = \"effort\", distance_m = 3000 },"), files: [
            "nil.lua": "return { id = \"nil\", badge = \"a-badge\", earned = function(run) return run.measures.best3k == nil end }",
            "typo.lua": "return { id = \"typo\", badge = \"a-badge\", earned = function(run) return run.measures.best3km ~= nil end }",
            "write.lua": "return { id = \"write\", badge = \"a-badge\", earned = function(run) run.measures.best3k = 1 end }",
        ])
        let evaluation = fixture.engine(["a"]).evaluate(runs: [makeRun("r1", day: 1, distance: 5000)])
        XCTAssertEqual(evaluation.awards.map(\.rule), ["nil"], "a run without the measure reads nil")
        let typo = evaluation.failures.first { $0.rule == "typo" }
        XCTAssertEqual(typo?.line, 1)
        XCTAssertEqual(typo?.message, "no measure 'best3km' in pack 'a' (declared: best3k); did you mean 'best3k'?")
        XCTAssertEqual(evaluation.failures.first { $0.rule == "write" }?.message, "run.measures is read-only (copy what you need into your own table)")
    }

    func testAZoneWithoutAProfileIsNilAndSaysWhyAndCtxAthleteIsTheProfile() throws {
        let fixture = try PackFixture()
        try fixture.pack("a", packLua: packLua("a", measures: "    z2 = { kind = \"time_in\", channel = \"heart_rate\", zone = 2 },"), files: [
            "z.lua": """
                return { id = "z", badge = "a-badge", earned = function(run, ctx)
                  local athlete = ctx.athlete
                  print(athlete and athlete.max_hr, athlete and athlete.zones[2].min, athlete and athlete.zones[2].max)
                  return run.measures.z2 ~= nil
                end }
                """,
        ])
        var run = makeRun("r1", day: 1, distance: 5000)
        run.measures["time_in(below=155,channel=\"heart_rate\",min=140)"] = MeasureValue(["seconds": .float(1800)])
        var engine = fixture.engine(["a"])
        var evaluation = engine.evaluate(runs: [run])
        XCTAssertEqual(evaluation.awards.count, 0)
        XCTAssertEqual(evaluation.notes.map(\.message), [
            "zone 2 needs your heart-rate zones: give your profile with --athlete FILE (max_hr and resting_hr, or zones); until then, measure 'z2' has no value and its badges cannot be earned",
            "nil\tnil\tnil",
        ])
        engine.athlete = try Athlete.parse(Data(#"{"max_hr": 200, "resting_hr": 50}"#.utf8), source: "me.json")
        XCTAssertEqual(engine.measureDefinitions.map(\.key), ["time_in(below=155,channel=\"heart_rate\",min=140)"])
        evaluation = engine.evaluate(runs: [run])
        XCTAssertEqual(evaluation.awards.count, 1)
        XCTAssertEqual(evaluation.notes.map(\.message), ["200.0\t140.0\t155.0"])
    }
}

/// The two worked examples of the guide's "Measures" section, run as written.
final class GuideMeasureExamplesTests: XCTestCase {
    /// The lua blocks under the Measures section's headings starting with `heading`, each split into its
    /// pack.lua `measures` line(s), its rule file's name and the rule.
    static func examples(heading: String = "### Worked example") throws -> [(measures: String, file: String, rule: String)] {
        let guide = Repository.root.appendingPathComponent("docs/rules.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        guard let start = text.range(of: "## Measures\n"), let end = text[start.upperBound...].range(of: "\n## ") else {
            XCTFail("no Measures section")
            throw CocoaError(.fileReadCorruptFile)
        }
        var result: [(String, String, String)] = []
        var rest = text[start.upperBound..<end.lowerBound]
        while let found = rest.range(of: heading), let open = rest[found.upperBound...].range(of: "```lua\n"),
              let close = rest[open.upperBound...].range(of: "```") {
            let block = String(rest[open.upperBound..<close.lowerBound])
            // "-- pack.lua\nmeasures = {...},\n\n-- <file>.lua\nreturn {...}"
            let parts = block.components(separatedBy: "\n\n-- ")
            let measures = parts[0].replacingOccurrences(of: "-- pack.lua\n", with: "")
            let file = String(parts[1].prefix { $0 != "\n" })
            result.append((measures, file, String(parts[1].drop { $0 != "\n" })))
            rest = rest[close.upperBound...]
        }
        return result
    }

    func testTheMeasuresExamplesRunAsWritten() throws {
        let blocks = try Self.examples()
        XCTAssertEqual(blocks.map(\.file), ["best5k.lua", "zone2.lua"])
        guard blocks.count == 2 else { return }
        let fixture = try PackFixture()
        for (index, block) in blocks.enumerated() {
            let badge = index == 0 ? "steady-5k" : "zone-two-hour"
            try fixture.pack("p\(index)", packLua: """
                return { name = "p\(index)", version = "1.0.0", badges = { { id = "\(badge)", name = "B" } },
                \(block.measures)
                }
                """, files: [block.file: block.rule])
        }
        var fast = makeRun("fast", day: 1, distance: 6000)
        fast.measures["effort(distance_m=5000,max_stop_s=30)"] = MeasureValue(["elapsed_s": .float(1450)])
        var slow = makeRun("slow", day: 2, distance: 6000)
        slow.measures["effort(distance_m=5000,max_stop_s=30)"] = MeasureValue(["elapsed_s": .float(1550)])
        // What the analyzer computes for zone 2 of a profile with max_hr 200 and resting_hr 50: 140 to 155 bpm.
        slow.measures["time_in(below=155,channel=\"heart_rate\",min=140)"] = MeasureValue(["seconds": .float(3700)])
        var engine = fixture.engine(["p0", "p1"])
        var evaluation = engine.evaluate(runs: [fast, slow])
        XCTAssertEqual(evaluation.failures, [])
        XCTAssertEqual(evaluation.awards.map { "\($0.badge)@\($0.run)" }, ["steady-5k@fast"], "zone 2 is nil without a profile")
        XCTAssertEqual(evaluation.statuses.first { $0.badge == "zone-two-hour" }?.hint, "give --athlete FILE for your zones")
        engine.athlete = Athlete(source: "me.json", maxHeartRate: 200, restingHeartRate: 50, zones: Athlete.defaultZones(max: 200, resting: 50))
        evaluation = engine.evaluate(runs: [fast, slow])
        XCTAssertEqual(evaluation.awards.map { "\($0.badge)@\($0.run)" }, ["steady-5k@fast", "zone-two-hour@slow"])
    }
}

/// The geography examples of the guide ("Places, segments and tiles"), run as written.
final class GuideGeographyExamplesTests: XCTestCase {
    func testTheGeographyExamplesRunAsWritten() throws {
        let blocks = try GuideMeasureExamplesTests.examples(heading: "### Geography example")
        XCTAssertEqual(blocks.map(\.file), ["hill.lua", "square.lua"])
        guard blocks.count == 2 else { return }
        let fixture = try PackFixture()
        for (index, block) in blocks.enumerated() {
            let badge = index == 0 ? "hill-record" : "square-3"
            try fixture.pack("g\(index)", packLua: """
                return { name = "g\(index)", version = "1.0.0", badges = { { id = "\(badge)", name = "B" } },
                \(block.measures)
                }
                """, files: [block.file: block.rule,
                             "segments/hill.gpx": #"<gpx><rte><rtept lat="52.0" lon="5.0"/><rtept lat="52.0" lon="5.01"/></rte></gpx>"#])
        }
        let engine = fixture.engine(["g0", "g1"])
        let keys = engine.measureDefinitions.map(\.key)
        let hill = try XCTUnwrap(keys.first { $0.hasPrefix("segment(") }), tiles = try XCTUnwrap(keys.first { $0.hasPrefix("tiles(") })
        XCTAssertTrue(hill.contains("sha256=\""), hill)
        func effort(_ elapsed: Double) -> MeasureScalar { .record(["elapsed_s": .float(elapsed), "pace_s_per_km": .float(elapsed / 0.684)]) }
        func square(_ x0: Int, _ y0: Int, _ n: Int) -> MeasureScalar {
            .list((x0..<(x0 + n)).flatMap { x in (y0..<(y0 + n)).map { MeasureScalar.integer(x * 16_777_216 + $0) } })
        }
        var a = makeRun("a", day: 1, distance: 5000)
        a.measures[hill] = MeasureValue(["count": .integer(2), "best": .integer(2), "efforts": .list([effort(200), effort(190)])])
        a.measures[tiles] = MeasureValue(["tiles": square(10, 10, 2)])
        var b = makeRun("b", day: 2, distance: 5000)
        b.measures[hill] = MeasureValue(["count": .integer(1), "best": .integer(1), "efforts": .list([effort(195)])])
        b.measures[tiles] = MeasureValue(["tiles": square(10, 10, 3)])
        var c = makeRun("c", day: 3, distance: 5000)
        c.measures[hill] = MeasureValue(["count": .integer(1), "best": .integer(1), "efforts": .list([effort(180)])])
        let engine2 = engine
        let evaluation = engine2.evaluate(runs: [a, b, c])
        XCTAssertEqual(evaluation.failures, [])
        // b's best (3:15) is not under 3:15; a earned it first, c does not again.
        XCTAssertEqual(evaluation.awards.map { "\($0.badge)@\($0.run): \($0.detail)" }, [
            "hill-record@a: effort 2 of 2: 3:10 (4:38/km)",
            "square-3@b: 3x3 from tile 10/10",
        ])
    }
}
