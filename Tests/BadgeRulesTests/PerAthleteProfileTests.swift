import RunFixtures
import Foundation
import RunAnalysis
import RunFiles
import XCTest

@testable import BadgeRules

/// Each athlete's own profile (a worker line's): handed to one evaluation only. Through one reused
/// Lua state (`ReusedEvaluator`, the worker's), athletes with different profiles, or none, each get
/// what a fresh state given that profile gives them, and the state is kept: the profile is never
/// left where the next athlete's rules can reach it.
final class PerAthleteProfileTests: XCTestCase {
    /// A rule that shows what it sees of `ctx.athlete` in its detail, and a zone measure.
    func profilePack() throws -> PackFixture {
        let fixture = try PackFixture()
        try fixture.pack("who", packLua: """
            return { name = "who", version = "1.0.0", description = "shows the athlete",
                     measures = { z2 = { kind = "time_in", channel = "heart_rate", zone = 2 } } }
            """, files: [
            "who.lua": """
                return { id = "who", badge = "5k", repeatable = true,
                  earned = function(run, ctx)
                    local a = ctx.athlete
                    if a == nil then return { detail = "nobody" } end
                    local zones = {}
                    for i, z in ipairs(a.zones) do zones[i] = tostring(z.min) .. "-" .. tostring(z.max) end
                    return { detail = table.concat({ tostring(a.sex), tostring(a.birth_date), tostring(a.max_hr),
                                                     tostring(a.resting_hr), table.concat(zones, ",") }, "|") }
                  end }
                """,
        ])
        return fixture
    }

    static let profiles: [Athlete?] = [
        Athlete(source: "line 1", maxHeartRate: 190, restingHeartRate: 50, birthDate: "1968-03-02", sex: "F",
                zones: Athlete.defaultZones(max: 190, resting: 50)),
        nil,
        Athlete(source: "line 7", birthDate: "1961-11-30", sex: "male"),
        Athlete(source: "line 9", maxHeartRate: 175, zones: [(100, 120), (120, 140), (140, nil)]),
        nil,
    ]

    func testEachEvaluationSeesItsOwnProfileOnlyThroughOneState() throws {
        let fixture = try profilePack()
        let engine = fixture.engine(["who"])
        let reused = ReusedEvaluator(engine: engine)
        let runs = [makeRun("r1", day: 0, distance: 6_000)]
        var details: [String] = []
        for (index, profile) in Self.profiles.enumerated() {
            var alone = engine
            alone.athlete = profile
            let fresh = alone.evaluate(runs: runs)
            let again = reused.evaluate(runs: runs, athlete: profile)
            XCTAssertEqual(again, fresh, "athlete \(index)")
            XCTAssertEqual(again.failures, [], "athlete \(index)")
            details.append(again.awards.first?.detail ?? "")
            // A zone measure without zones is noted as unavailable, as a fresh state notes it.
            let unavailable = again.notes.contains { RuleNote.isUnavailableMeasure($0.message) }
            XCTAssertEqual(unavailable, profile?.zone(2) == nil, "athlete \(index)")
        }
        XCTAssertEqual(details, [
            "F|1968-03-02|190.0|50.0|120.0-134.0,134.0-148.0,148.0-162.0,162.0-176.0,176.0-nil",
            "nobody",
            "male|1961-11-30|nil|nil|",
            "nil|nil|175.0|nil|100.0-120.0,120.0-140.0,140.0-nil",
            "nobody",
        ])
        XCTAssertEqual(reused.statesLoaded, 1, "the profile is not left in the shared state: the one state serves everyone")
        XCTAssertEqual(reused.reusedEvaluations, Self.profiles.count - 1)
    }

    /// The engine's own profile (`--athlete`) is the default of `evaluate(runs:)`, through the same path.
    func testTheEnginesProfileIsTheDefault() throws {
        let fixture = try profilePack()
        var engine = fixture.engine(["who"])
        engine.athlete = Athlete(source: "file", birthDate: "1990-01-01", sex: "F")
        let reused = ReusedEvaluator(engine: engine)
        let runs = [makeRun("r1", day: 0, distance: 6_000)]
        XCTAssertEqual(reused.evaluate(runs: runs).awards.first?.detail, "F|1990-01-01|nil|nil|")
        XCTAssertEqual(reused.evaluate(runs: runs, athlete: nil).awards.first?.detail, "nobody")
        XCTAssertEqual(reused.evaluate(runs: runs).awards.first?.detail, "F|1990-01-01|nil|nil|")
        XCTAssertEqual(reused.statesLoaded, 1)
    }

    /// The profile's value in the state is the evaluation's own (dropped at the reset, its slot reused
    /// by the next evaluation's values): `ctx.athlete` is taken back after each evaluation, so a next
    /// athlete without a profile, whose runs bring more values, reads nil and not one of theirs.
    func testTheNextAthleteWithoutAProfileReadsNil() throws {
        let fixture = try PackFixture()
        try fixture.pack("kind", files: [
            "kind.lua": """
                return { id = "kind", badge = "5k", repeatable = true,
                  earned = function(run, ctx)
                    local seen = tostring(run.name) .. tostring(run.local_date)
                    for _, split in ipairs(run.splits_km or {}) do seen = seen .. tostring(split.index) end
                    return { detail = type(ctx.athlete) }
                  end }
                """,
        ])
        let reused = ReusedEvaluator(engine: fixture.engine(["kind"]))
        let one = [makeRun("r1", day: 0, distance: 6_000)]
        let many = (1...6).map { makeRun("s\($0)", day: $0, distance: 6_000 + Double($0)) }
        XCTAssertEqual(reused.evaluate(runs: one, athlete: Athlete(source: "a", sex: "F")).awards.map(\.detail), ["userdata"])
        XCTAssertEqual(Set(reused.evaluate(runs: many, athlete: nil).awards.map(\.detail)), ["nil"])
        XCTAssertEqual(reused.statesLoaded, 1)

        // The mechanism itself: after an evaluation, no rule's ctx holds an athlete (its id would
        // name whatever value the next evaluation puts in that place).
        let engine = fixture.engine(["kind"])
        let session = try Session(packs: engine.packs, catalogue: engine.catalogue, limits: engine.limits, runs: one)
        let evaluation = session.evaluate(athlete: Athlete(source: "a", sex: "F"))
        XCTAssertEqual(evaluation.awards.map(\.detail), ["userdata"])
        XCTAssertFalse(session.loader.rules.isEmpty)
        for rule in session.loader.rules {
            let ctx = try XCTUnwrap(rule.ctx)
            XCTAssertEqual((ctx + 4).load(as: UInt32.self) & (1 << 4), 0, "ctx.athlete of \(rule.id) is taken back")
        }
    }

    /// A rule that keeps one athlete's `ctx.athlete` for the next: the reset sees it (the state is
    /// replaced) and the next athlete sees nothing of it.
    func testAProfileKeptByARuleDoesNotReachTheNextAthlete() throws {
        let fixture = try PackFixture()
        try fixture.pack("keeper", files: [
            "keep.lua": """
                local kept
                return { id = "keep", badge = "5k", repeatable = true,
                  earned = function(run, ctx)
                    local seen = kept and kept.sex
                    kept = ctx.athlete
                    return { detail = tostring(seen) }
                  end }
                """,
        ])
        let engine = fixture.engine(["keeper"])
        let reused = ReusedEvaluator(engine: engine)
        let runs = [makeRun("r1", day: 0, distance: 6_000)]
        XCTAssertEqual(reused.evaluate(runs: runs, athlete: Athlete(source: "a", sex: "F")).awards.first?.detail, "nil")
        XCTAssertEqual(reused.evaluate(runs: runs, athlete: Athlete(source: "b", sex: "M")).awards.first?.detail, "nil")
        XCTAssertEqual(reused.evaluate(runs: runs, athlete: nil).awards.first?.detail, "nil")
        XCTAssertEqual(reused.statesLoaded, 3)
    }

    /// One parser: a line's fields and a profile file give the same profile, and the same errors.
    func testALinesProfileIsTheFilesParser() throws {
        let fields: [String: JSONValue] = ["athlete": .string("ana"), "max_hr": .number(188), "resting_hr": .number(52),
                                           "birth_date": .string("1985-04-02"), "sex": .string("female")]
        let fromLine = try XCTUnwrap(try Athlete.profile(in: fields, source: "line 1"))
        let fromFile = try Athlete.parse(Data(#"{"max_hr": 188, "resting_hr": 52, "birth_date": "1985-04-02", "sex": "female"}"#.utf8), source: "f")
        XCTAssertNil(fromLine.differingField(from: fromFile))
        XCTAssertNil(try Athlete.profile(in: ["athlete": .string("ana"), "sex": .null], source: "line 2"))
        XCTAssertThrowsError(try Athlete.profile(in: ["birth_date": .string("1985-02-30")], source: "line 3")) { error in
            XCTAssertEqual("\(error)", "line 3: field 'birth_date': must be a date YYYY-MM-DD")
        }
        XCTAssertThrowsError(try Athlete.profile(in: ["max_hr": .number(150), "resting_hr": .number(160)], source: "line 4")) { error in
            XCTAssertEqual("\(error)", "line 4: field 'resting_hr': must be below max_hr (150)")
        }
        XCTAssertEqual(fromLine.differingField(from: Athlete(source: "x", maxHeartRate: 188, restingHeartRate: 52, birthDate: "1985-04-02",
                                                               sex: "male", zones: fromLine.zones)), "sex")
    }
}
