import RunFixtures
import Foundation
import XCTest

/// Issue J-7, the smaller things a new author tripped over: messages with a line and a suggestion,
/// the scaffold, the table's detail column and the "every distance badge" line.
final class AuthoringMessagesTests: XCTestCase {
    func makeFolder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("rules/trail/pack.lua", """
            return { name = "trail", version = "1", badges = { { id = "comeback", name = "Comeback" }, { id = "night-owl", name = "Night owl" } } }
            """)
        try folder.write("runs/a.json", #"{ "start": "2024-05-01T23:00:00Z", "distance_m": 5200, "duration_s": 1800 }"#)
        try folder.write("badges.json", #"[ { "id": "five-k", "name": "5K", "distance_m": 5000 } ]"#)
        return folder
    }

    func evaluate(_ folder: TemporaryFolder) throws -> CLI.Output {
        try CLI.run(["evaluate", "runs", "--no-cache", "--tz", "UTC"], in: folder.url)
    }

    func testMisspeltRuleFunctionsGetADidYouMean() throws {
        let folder = try makeFolder()
        try folder.write("rules/trail/a.lua", """
            return { id = "a", badge = "comeback",
              onrun = function(state, run, award) end }
            """)
        try folder.write("rules/trail/b.lua", """
            return { id = "b", badge = "comeback",
              init = function() return {} end,
              onrun = function(state, run, award) end }
            """)
        try folder.write("rules/trail/c.lua", """
            return { id = "c", badge = "comeback",
              earn = function(run) return true end }
            """)
        let output = try evaluate(folder)
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("rules/trail/a.lua:2: pack 'trail' rule 'a': missing required field 'earned' (a per-run predicate) or 'on_run' (a fold over runs); did you mean 'on_run' (not 'onrun')?"), output.stderr)
        XCTAssertTrue(output.stderr.contains("rules/trail/b.lua:3: pack 'trail' rule 'b': missing required field 'on_run' (a fold is on_run, called for each run; init is optional); did you mean 'on_run' (not 'onrun')?"), output.stderr)
        XCTAssertTrue(output.stderr.contains("rules/trail/c.lua:2: pack 'trail' rule 'c': missing required field 'earned' (a per-run predicate) or 'on_run' (a fold over runs); did you mean 'earned' (not 'earn')?"), output.stderr)
    }

    func testAnUnknownBadgeIdHasItsLineAndASuggestion() throws {
        let folder = try makeFolder()
        try folder.write("rules/trail/owl.lua", """
            return {
              id = "owl",
              badge = "nigth-owl",
              earned = function(run) return true end,
            }
            """)
        let output = try evaluate(folder)
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("rules/trail/owl.lua:3: pack 'trail' rule 'owl': field 'badge': unknown badge 'nigth-owl'; did you mean 'night-owl'?"), output.stderr)
    }

    func testAnUnknownBadgeInAnAwardHasASuggestion() throws {
        let folder = try makeFolder()
        try folder.write("rules/trail/back.lua", """
            return {
              id = "back",
              on_run = function(state, run, award)
                award { badge = "comebak", run = run }
              end,
            }
            """)
        let output = try evaluate(folder)
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("rules/trail/back.lua:4: pack 'trail' rule 'back': award: unknown badge 'comebak'; did you mean 'comeback'?"), output.stderr)
    }

    func testTheTableHasADetailColumnAndNoFalseNextLine() throws {
        let folder = try makeFolder()
        try folder.write("rules/trail/owl.lua", """
            return { id = "owl", badge = "night-owl",
              earned = function(run) return { detail = "started at " .. run.local_start:sub(12, 16) } end }
            """)
        let output = try evaluate(folder)
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("PACK   DETAIL"), output.stdout)
        XCTAssertTrue(output.stdout.contains("trail  started at 23:00"), output.stdout)
        // The catalogue's distance badge is not earned (no pack awards it): no "every distance badge is earned".
        XCTAssertFalse(output.stdout.contains("every distance badge is earned"), output.stdout)
    }

    func testNewPackDeclaresItsBadgeInBadgesAndNewRuleHelpSaysItEditsPackLua() throws {
        let folder = try TemporaryFolder()
        XCTAssertEqual(try CLI.run(["new", "pack", "hills"], in: folder.url).status, 0)
        let pack = try String(contentsOf: folder.url.appendingPathComponent("rules/hills/pack.lua"), encoding: .utf8)
        XCTAssertFalse(pack.contains("themes"), pack)
        XCTAssertTrue(pack.contains("badges = {\n    { id = \"hills-first-10k\""), pack)
        XCTAssertEqual(try CLI.run(["new", "rule", "climb", "--pack", "hills"], in: folder.url).status, 0)
        let tested = try CLI.run(["test", "rules/hills", "--coverage"], in: folder.url)
        XCTAssertEqual(tested.status, 0, tested.stdout)
        XCTAssertEqual(tested.lastLine, "4 passed, 0 failed", tested.stdout)
        let help = try CLI.run(["new", "rule", "--help"], in: folder.url)
        XCTAssertTrue(help.stdout.contains("declares"), help.stdout)
        XCTAssertTrue(help.stdout.contains("(it edits pack.lua)"), help.stdout)
    }

    func testAWrongReturnTypePointsAtTheReturn() throws {
        let folder = try makeFolder()
        try folder.write("rules/trail/owl.lua", """
            return { id = "owl", badge = "night-owl",
              earned = function(run)
                local hour = run.local_start:sub(12, 13)
                return "started at " .. hour   -- a string, not a table
              end }
            """)
        try folder.write("rules/trail/two.lua", """
            return { id = "two", badge = "comeback",
              earned = function(run)
                if run.distance_m > 1 then return 1 end
                return false
              end }
            """)
        let output = try evaluate(folder)
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("rules/trail/owl.lua:4: pack 'trail' rule 'owl': earned must return true, false/nil or a table { detail = ..., tier = ... }, got string"), output.stderr)
        XCTAssertTrue(output.stderr.contains("rules/trail/two.lua:2: pack 'trail' rule 'two': earned must return true, false/nil or a table { detail = ..., tier = ... }, got number (from one of its returns, lines 3, 4)"), output.stderr)
    }
}
