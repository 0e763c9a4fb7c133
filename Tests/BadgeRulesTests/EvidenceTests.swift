import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// `award { evidence = ... }` and `earned`'s `{ evidence = ... }`: plain data, kept as given, bounded.
final class EvidenceTests: XCTestCase {
    func testFoldAndPredicateEvidenceIsKeptAsPlainData() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: [
            "fold.lua": """
                return { id = "fold", badge = "5k",
                  on_run = function(state, run, award)
                    if run.id == "r2.gpx" then
                      award { run = run, evidence = { distance_m = run.distance_m, split = 2, ok = true, name = "x",
                                                      legs = { 1.5, 2, 3 }, inner = { a = { b = "c" } } } }
                    end
                  end }
                """,
            "pred.lua": """
                return { id = "pred", badge = "10k",
                  earned = function(run)
                    if run.distance_m > 10000 then return { evidence = { km = run.distance_m / 1000 } } end
                  end }
                """,
        ])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        let fold = try XCTUnwrap(result.awards.first { $0.rule == "fold" })
        XCTAssertEqual(fold.evidence, .record([
            "distance_m": .number(6000), "split": .number(2), "ok": .bool(true), "name": .string("x"),
            "legs": .list([.number(1.5), .number(2), .number(3)]),
            "inner": .record(["a": .record(["b": .string("c")])]),
        ]))
        XCTAssertEqual(try XCTUnwrap(result.awards.first { $0.rule == "pred" }).evidence, .record(["km": .number(12)]))
        // JSON round trip.
        let data = try JSONEncoder().encode(fold)
        XCTAssertEqual(try JSONDecoder().decode(Award.self, from: data).evidence, fold.evidence)
    }

    func testEvidenceThatIsNotPlainDataOrTooBigFailsTheRuleNamingWhere() throws {
        let cases: [(String, String)] = [
            ("{ run = run }", "award: evidence.run: evidence is plain data (numbers, strings, booleans, tables of those), got run"),
            ("{ f = print }", "award: evidence.f: evidence is plain data"),
            ("{ 1, 2, x = 3 }", "award: evidence: a table mixes array items and named fields"),
            ("{ [1] = 1, [3] = 3 }", "award: evidence: an array with holes"),
            ("{ a = { b = { c = { d = {} } } } }", "award: evidence.a.b.c.d: tables nested deeper than 4"),
            ("{ x = 0/0 }", "award: evidence.x: the number is not finite"),
            ("{ s = string.rep('x', 300) }", "award: evidence.s: a string longer than 256 bytes"),
            ("(function() local t = {} for i = 1, 100 do t[i] = i end return t end)()", "more than 64 values"),
        ]
        for (evidence, message) in cases {
            let fixture = try PackFixture()
            try fixture.pack("p", files: ["bad.lua": """
                return { id = "bad", badge = "5k",
                  on_run = function(state, run, award) award { run = run, evidence = \(evidence) } end }
                """])
            let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
            XCTAssertEqual(result.awards, [], evidence)
            XCTAssertTrue(result.failures.first?.message.contains(message) ?? false, "\(evidence): \(result.failures)")
        }
    }
}
