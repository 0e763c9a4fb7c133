import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// One suggester: the C shim's. A name misspelt in Lua (`run.distanse_m`, whose error is raised inside
/// a C call) and the same name misspelt where Swift checks it (a pack declaration, a command argument)
/// get the same suggestion.
final class SuggestionTests: XCTestCase {
    static let typos = ["distanse_m", "dist", "distance", "elapsd", "local_dat", "pace", "zzz", "heart", "fastes", "x", "splits"]

    func testLuaFieldErrorsAndSwiftCallersSuggestAlike() throws {
        let names = RunSchema.fields.map(\.name)
        let fixture = try PackFixture()
        var files: [String: String] = [:]
        for (i, typo) in Self.typos.enumerated() {
            files["t\(i).lua"] = "return { id = \"t\(i)\", badge = \"5k\", earned = function(run) return run.\(typo) ~= nil end }"
        }
        try fixture.pack("p", files: files)
        let result = fixture.engine(["p"]).evaluate(runs: [makeRun("r1", day: 1, distance: 5000)])
        var suggested = 0
        for (i, typo) in Self.typos.enumerated() where !names.contains(typo) {
            let failure = try XCTUnwrap(result.failures.first { $0.rule == "t\(i)" }, typo)
            let expected = Suggestion.closest(to: typo, in: names)
            XCTAssertEqual(failure.message, "no field '\(typo)' in run" + (expected.map { "; did you mean '\($0)'?" } ?? ""), typo)
            if expected != nil { suggested += 1 }
        }
        XCTAssertGreaterThan(suggested, 4)
        // The prefix rule, which the Swift suggester did not have: `dist` is the start of `distance_m`.
        XCTAssertEqual(Suggestion.closest(to: "dist", in: names), "distance_m")
        XCTAssertNil(Suggestion.closest(to: "zzz", in: names))
    }

    /// The limit and the tie rule, and a distance limit given by the caller (explain's: none).
    func testLimitsAndTies() {
        XCTAssertEqual(Suggestion.closest(to: "efort", in: ["effort", "time_in"]), "effort")
        XCTAssertNil(Suggestion.closest(to: "abc", in: ["xyz"]))
        XCTAssertEqual(Suggestion.closest(to: "abc", in: ["xyz"], maxDistance: Int.max), "xyz")
        XCTAssertEqual(Suggestion.closest(to: "ab", in: ["ac", "ad"]), "ac")
        XCTAssertEqual(Suggestion.closest(to: "nigth-owl", in: ["night-owl", "comeback"]), "night-owl")
        XCTAssertNil(Suggestion.closest(to: "a", in: []))
        let long = String(repeating: "a", count: 100)
        XCTAssertEqual(Suggestion.closest(to: long + "b", in: [long + "c", "b"]), long + "c")
    }
}
