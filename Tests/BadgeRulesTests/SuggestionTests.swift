import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// One rule of suggestion, in Swift (`Suggestion`) and in the C shim (`bclua_suggest`): a name misspelt
/// in Lua (`run.distanse_m`, whose error is raised inside a C call) and the same name misspelt where
/// Swift checks it (a pack declaration, a command argument) get the same suggestion.
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

    /// The Swift suggester and the shim's pick the same candidate: for typos of every run field and
    /// command name, with the default limit, a given one and none, ties and non-ASCII names included.
    func testSwiftAndShimAgree() {
        let names = RunSchema.fields.map(\.name) + ["evaluate", "explain", "whatif", "league", "été", "ét", "a", ""]
        var words = Self.typos + ["", "e", "ex", "evalute", "expain", "leage", "ete", "été", "étè", "whatiff", "wh"]
        for (i, name) in names.enumerated() where !name.isEmpty {
            var bytes = Array(name.utf8)
            bytes[i % bytes.count] = UInt8(ascii: "q")
            words.append(String(decoding: bytes, as: UTF8.self))
            words.append(String(name.dropLast()))
            words.append(name + "x")
        }
        for word in words {
            for limit in [nil, 0, 2, Int.max] {
                let shim = LuaState.closestIndex(to: word, in: names, maxDistance: limit).map { names[$0] }
                XCTAssertEqual(Suggestion.closest(to: word, in: names, maxDistance: limit), shim, "\(word) \(String(describing: limit))")
            }
        }
        XCTAssertNil(LuaState.closestIndex(to: "a", in: [], maxDistance: nil))
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
