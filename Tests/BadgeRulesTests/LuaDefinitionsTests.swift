import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// The editor files are generated from the declarations and cover them; the shipped ones are that output.
final class LuaDefinitionsTests: XCTestCase {
    static let rules = Repository.root.appendingPathComponent("rules")

    func testTheDefinitionsCoverEveryFieldOfTheSchema() {
        let text = LuaDefinitions.definitions()
        XCTAssertEqual(LuaDefinitions.missing(in: text), [])
        XCTAssertTrue(text.hasPrefix("---@meta"))
        XCTAssertTrue(text.contains("---@field gps boolean whether the run has positions"), "a run field, typed, with its doc")
        XCTAssertTrue(text.contains("---@field indoor boolean? "), "an optional one")
        XCTAssertTrue(text.contains("---@field splits_km badgectl.Split[] "), "an array of records")
        XCTAssertTrue(text.contains("---@class badgectl.MeasureAgeGrade"))
        XCTAssertTrue(text.contains("---@field streak_new function"), "a helper")
        XCTAssertTrue(text.contains("---@field expect_award function"), "the test API")
        XCTAssertTrue(text.contains("function test(name, fn) end"))
        // The helpers and test functions come from the preludes themselves.
        XCTAssertTrue(LuaDefinitions.helpers.contains("format_pace") && LuaDefinitions.helpers.contains("max_square"))
        XCTAssertTrue(LuaDefinitions.testFunctions.contains("evaluate"))
        XCTAssertEqual(Set(["string", "table", "math", "utf8", "badgectl", "require", "pairs", "print"]).subtracting(LuaDefinitions.sandboxGlobals), [])
        XCTAssertFalse(LuaDefinitions.sandboxGlobals.contains("os"))
    }

    /// The check itself: a field missing from the definitions is named.
    func testAMissingFieldIsCaught() {
        let lines = LuaDefinitions.definitions().split(separator: "\n", omittingEmptySubsequences: false)
        func without(_ prefix: String) -> String { lines.filter { !$0.hasPrefix(prefix) }.joined(separator: "\n") }
        XCTAssertEqual(LuaDefinitions.missing(in: without("---@field device_laps ")), ["run.device_laps"])
        XCTAssertEqual(LuaDefinitions.missing(in: without("---@field best_percent ")), ["measure age_grade.best_percent"])
        XCTAssertEqual(LuaDefinitions.missing(in: without("---@field note ")), ["ctx.note"])
        XCTAssertEqual(LuaDefinitions.missing(in: without("---@field iso_week ")), ["badgectl.iso_week"])
    }

    /// rules/badgectl.d.lua and rules/.luacheckrc are `badgectl editor`'s output, unedited.
    func testTheShippedFilesAreTheGeneratedOnes() throws {
        let definitions = try String(contentsOf: Self.rules.appendingPathComponent(LuaDefinitions.fileName), encoding: .utf8)
        XCTAssertEqual(definitions, LuaDefinitions.definitions(), "run `badgectl editor --dir rules`")
        let luacheck = try String(contentsOf: Self.rules.appendingPathComponent(".luacheckrc"), encoding: .utf8)
        XCTAssertEqual(luacheck, LuaDefinitions.luacheckrc(), "run `badgectl editor --dir rules`")
    }
}
