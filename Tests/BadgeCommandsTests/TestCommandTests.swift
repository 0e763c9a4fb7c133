import RunFixtures
import Foundation
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `badgectl test` on packs written into a temporary folder: a good pack beside four broken ones.
final class TestCommandTests: XCTestCase {
    static let packLua = #"return { name = "%@", version = "1.0.0", badges = { { id = "ten", name = "Ten" } } }"#
    static let rule = #"return { id = "ten", badge = "ten", earned = function(run) return run.distance_m > 10000 end }"#

    func makePacks() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for name in ["good", "failing", "syntaxtest", "endless", "brokenrule"] {
            try folder.write("rules/\(name)/pack.lua", TestCommandTests.packLua.replacingOccurrences(of: "%@", with: name))
            if name != "brokenrule" { try folder.write("rules/\(name)/ten.lua", TestCommandTests.rule) }
        }
        try folder.write("rules/good/ten_test.lua", """
            test("a run over 10 km earns <ten> & \\"more\\"", function(t)
              local r = t.run{ distance_km = 11, duration = "55:00" }
              t.expect_award(t.evaluate{ r }, { badge = "ten", tier = "earned", run = r })
            end)
            """)
        try folder.write("rules/failing/ten_test.lua", """
            test("expects the wrong tier", function(t)
              local r = t.run{ distance_km = 11, duration = "55:00" }
              local result = t.evaluate{ r }
              t.expect_award(result, { badge = "ten", tier = "gold" })
              t.expect_eq(#result.awards, 2, "award count")
            end)
            """)
        try folder.write("rules/syntaxtest/ten_test.lua", """
            test("never loads", function(t)
              local = 1
            end)
            """)
        try folder.write("rules/endless/ten_test.lua", """
            test("never ends", function(t)
              while true do end
            end)
            test("runs after the endless one", function(t)
              t.expect(true)
            end)
            """)
        try folder.write("rules/brokenrule/ten.lua", """
            return {
              id = "ten",
              earned = function(run) return run.distance_m >>> 10000 end,
            }
            """)
        try folder.write("rules/brokenrule/ten_test.lua", """
            test("the rule does not load", function(t)
              local r = t.run{ distance_km = 11, duration = "55:00" }
              local result = t.evaluate{ r }
              t.expect_award(result, { badge = "ten" })
            end)
            """)
        return folder
    }

    func testEachBrokenPackIsReportedAndTheOthersStillRun() throws {
        let folder = try makePacks()
        let output = try CLI.run(["test", "rules"], in: folder.url)
        let text = output.stdout
        XCTAssertEqual(output.status, 3, text)
        XCTAssertEqual(output.lastLine, "2 passed, 5 failed", text)

        // A failed expectation: the line of the expectation, expected and got; the test goes on.
        XCTAssertTrue(text.contains("FAIL  failing: expects the wrong tier  (rules/failing/ten_test.lua:1)"), text)
        XCTAssertTrue(text.contains("rules/failing/ten_test.lua:4: no award {badge=ten tier=gold}"), text)
        XCTAssertTrue(text.contains("    expected: {badge=ten tier=gold}\n    got:      ten/earned run run-1"), text)
        XCTAssertTrue(text.contains("rules/failing/ten_test.lua:5: award count\n    expected: 2\n    got:      1"), text)

        // A syntax error in a test file.
        XCTAssertTrue(text.contains("FAIL  syntaxtest: (load)"), text)
        XCTAssertTrue(text.contains("rules/syntaxtest/ten_test.lua:2: test file does not load: "), text)

        // A test that never ends is stopped by the budget; the next test of the file still runs.
        XCTAssertTrue(text.contains("FAIL  endless: never ends"), text)
        XCTAssertTrue(text.contains("rules/endless/ten_test.lua:2: instruction budget exhausted"), text)
        XCTAssertFalse(text.contains("runs after the endless one"), "it passed, so it is not listed: \(text)")

        // A syntax error in a RULE: a (load) failure at the rule's file:line (not only as a failing
        // t.evaluate), and the test's t.evaluate reports it with the rule's file:line.
        XCTAssertTrue(text.contains("FAIL  brokenrule: (load)  (rules/brokenrule/ten.lua:3)"), text)
        XCTAssertTrue(text.contains("rules/brokenrule/ten.lua:3: rule 'ten' does not load: unexpected symbol near '>'"), text)
        XCTAssertTrue(text.contains("rules/brokenrule/ten_test.lua:3: t.evaluate: a rule failed"), text)
        XCTAssertTrue(text.contains("rules/brokenrule/ten.lua:3:"), text)
        XCTAssertTrue(text.contains("rules/brokenrule/ten_test.lua:4: no award {badge=ten}"), text)
    }

    func testVerboseListsPassingTests() throws {
        let folder = try makePacks()
        let output = try CLI.run(["test", "rules/good", "rules/endless", "-v"], in: folder.url)
        XCTAssertTrue(output.stdout.contains("ok    endless: runs after the endless one"), output.stdout)
        XCTAssertEqual(output.lastLine, "2 passed, 1 failed")
    }

    func testRunFilterSelectsBySubstringOrRegex() throws {
        let folder = try makePacks()
        let substring = try CLI.run(["test", "rules", "--run", "never ends"], in: folder.url)
        // the endless test, plus the test file and the rule file that do not load (load errors always count)
        XCTAssertEqual(substring.lastLine, "0 passed, 3 failed", substring.stdout)
        let regex = try CLI.run(["test", "rules/good", "rules/failing", "--run", "^a run|wrong"], in: folder.url)
        XCTAssertEqual(regex.lastLine, "1 passed, 1 failed", regex.stdout)
        let none = try CLI.run(["test", "rules/good", "--run", "no such test"], in: folder.url)
        XCTAssertEqual(none.lastLine, "0 passed, 0 failed")
        XCTAssertEqual(none.status, 0)
    }

    func testSkippedTestsAreCounted() throws {
        let folder = try TemporaryFolder()
        try folder.write("rules/p/pack.lua", TestCommandTests.packLua.replacingOccurrences(of: "%@", with: "p"))
        try folder.write("rules/p/ten.lua", TestCommandTests.rule)
        try folder.write("rules/p/tests/more.lua", """
            test("passes", function(t) t.expect_awards(t.evaluate{}, {}) end)
            skip("later", function(t) t.expect(false) end)
            """)
        let output = try CLI.run(["test", "rules/p"], in: folder.url)
        XCTAssertEqual(output.lastLine, "1 passed, 0 failed, 1 skipped", output.stdout)
        XCTAssertEqual(output.status, 0)
    }

    func testJSONFormat() throws {
        let folder = try makePacks()
        let output = try CLI.run(["test", "rules", "--format", "json"], in: folder.url)
        XCTAssertEqual(output.status, 3)
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["passed"] as? Int, 2)
        XCTAssertEqual(object?["failed"] as? Int, 5)
        let packs = object?["packs"] as? [[String: Any]] ?? []
        XCTAssertEqual(packs.map { $0["pack"] as? String ?? "" }, ["brokenrule", "endless", "failing", "good", "syntaxtest"])
        let failing = packs.first { $0["pack"] as? String == "failing" }
        let result = (failing?["results"] as? [[String: Any]])?.first
        let failure = (result?["failures"] as? [[String: Any]])?.first
        XCTAssertEqual(failure?["line"] as? Int, 4)
        XCTAssertEqual(failure?["file"] as? String, "rules/failing/ten_test.lua")
        XCTAssertEqual(failure?["expected"] as? String, "{badge=ten tier=gold}")
        XCTAssertEqual(failure?["got"] as? String, "ten/earned run run-1\nclosest: ten/earned run run-1\n  badge         ok (\"ten\")\n  tier          expected \"gold\", got \"earned\"")
    }

    func testJUnitIsWellFormedAndEscaped() throws {
        let folder = try makePacks()
        let output = try CLI.run(["test", "rules", "--format", "junit"], in: folder.url)
        XCTAssertEqual(output.status, 3)
        let document = try XMLDocument(data: Data(output.stdout.utf8))
        let root = try XCTUnwrap(document.rootElement())
        XCTAssertEqual(root.name, "testsuites")
        XCTAssertEqual(root.attribute(forName: "failures")?.stringValue, "5")
        let suites = root.elements(forName: "testsuite")
        XCTAssertEqual(suites.count, 5)
        let good = try XCTUnwrap(suites.first { $0.attribute(forName: "name")?.stringValue == "good" })
        let testcase = try XCTUnwrap(good.elements(forName: "testcase").first)
        XCTAssertEqual(testcase.attribute(forName: "name")?.stringValue, "a run over 10 km earns <ten> & \"more\"")
        let failing = try XCTUnwrap(suites.first { $0.attribute(forName: "name")?.stringValue == "failing" })
        let failure = try XCTUnwrap(failing.elements(forName: "testcase").first?.elements(forName: "failure").first)
        XCTAssertTrue(failure.stringValue?.contains("expected: {badge=ten tier=gold}") ?? false)
    }

    /// A pack with badges ten and twenty, one rule each, and a test of ten only.
    func makeHalfTestedPack() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("rules/p/pack.lua", """
            return { name = "p", version = "1", badges = { { id = "ten", name = "Ten" }, { id = "twenty", name = "Twenty" } } }
            """)
        try folder.write("rules/p/ten.lua", TestCommandTests.rule)
        try folder.write("rules/p/twenty.lua", #"return { id = "twenty", badge = "twenty", earned = function(run) return run.distance_m > 20000 end }"#)
        try folder.write("rules/p/ten_test.lua", """
            test("ten", function(t)
              t.expect_award(t.evaluate({ t.run{ distance_km = 11, duration = "1:00:00" } }, { rule = "ten" }), { badge = "ten" })
            end)
            """)
        return folder
    }

    func testCoverageListsWhatNoTestAwardedOrRan() throws {
        let folder = try makeHalfTestedPack()
        let output = try CLI.run(["test", "rules/p", "--coverage"], in: folder.url)
        XCTAssertEqual(output.status, 0, output.stdout)
        XCTAssertTrue(output.stdout.contains("not awarded by any test: twenty/earned"), output.stdout)
        XCTAssertTrue(output.stdout.contains("rules no test ran: twenty"), output.stdout)
        XCTAssertEqual(output.lastLine, "1 passed, 0 failed")
    }

    func testNoSuchFolder() throws {
        let folder = try TemporaryFolder()
        let output = try CLI.run(["test", "nowhere"], in: folder.url)
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.stderr.contains("no such folder nowhere"), output.stderr)
    }
}

extension TestCommandTests {
    func testAPackThatDoesNotLoadIsOneFailureAndTheOthersRun() throws {
        let folder = try TemporaryFolder()
        try folder.write("rules/a/pack.lua", "return { name = \"a\" }")
        try folder.write("rules/b/pack.lua", TestCommandTests.packLua.replacingOccurrences(of: "%@", with: "b"))
        try folder.write("rules/b/ten.lua", TestCommandTests.rule)
        try folder.write("rules/b/ten_test.lua", "test(\"none\", function(t) t.expect_awards(t.evaluate{}, {}) end)")
        let output = try CLI.run(["test", "rules"], in: folder.url)
        XCTAssertEqual(output.status, 3)
        XCTAssertTrue(output.stdout.contains("FAIL  a: (load)  (rules/a/pack.lua)"), output.stdout)
        XCTAssertTrue(output.stdout.contains("rules/a/pack.lua: pack does not load: missing required field 'version'"), output.stdout)
        XCTAssertEqual(output.lastLine, "1 passed, 1 failed")
    }
}

extension TestCommandTests {
    /// Issue J-2: a rule file that does not load (syntax error, unknown `badge =` id, a top-level loop)
    /// is a `(load)` failure at the real error's file:line, and `t.evaluate{ rule = ... }` names it.
    func testRuleFilesThatDoNotLoadAreLoadFailuresAtTheirLine() throws {
        let folder = try TemporaryFolder()
        try folder.write("rules/trailhead/pack.lua", TestCommandTests.packLua.replacingOccurrences(of: "%@", with: "trailhead"))
        try folder.write("rules/trailhead/comeback.lua", """
            return { id = "comeback", badge = "ten",
              earned = function(run) return run.distance_m > 1 end
            """)
        try folder.write("rules/trailhead/loop.lua", """
            local n = 0
            while true do n = n + 1 end
            """)
        try folder.write("rules/trailhead/ten.lua", TestCommandTests.rule)
        try folder.write("rules/trailhead/comeback_test.lua", """
            test("comeback", function(t)
              t.expect_awards(t.evaluate({ t.run{ distance_km = 1 } }, { rule = "comeback" }), { { badge = "ten" } })
            end)
            """)
        let output = try CLI.run(["test", "rules"], in: folder.url)
        let text = output.stdout
        XCTAssertEqual(output.status, 3, text)
        XCTAssertEqual(output.lastLine, "0 passed, 3 failed", text)
        XCTAssertTrue(text.contains("FAIL  trailhead: (load)  (rules/trailhead/comeback.lua:2)"), text)
        XCTAssertTrue(text.contains("rules/trailhead/comeback.lua:2: rule 'comeback' does not load: '}' expected (to close '{' at line 1) near <eof>"), text)
        XCTAssertTrue(text.contains("FAIL  trailhead: (load)  (rules/trailhead/loop.lua:2)"), text)
        XCTAssertTrue(text.contains("rules/trailhead/loop.lua:2: rule 'loop' does not load: instruction budget exhausted"), text)
        XCTAssertTrue(text.contains("t.evaluate: no rule 'comeback' in pack 'trailhead' (rules: ten); files that do not load (see their (load) failure): comeback.lua, loop.lua"), text)
    }
}

extension TestCommandTests {
    /// Issue J-6: a failed award expectation shows the closest award field by field, and a
    /// `detail_match` expectation is printed with its pattern.
    func testAwardMismatchShowsTheClosestAwardFieldByField() throws {
        let folder = try TemporaryFolder()
        try folder.write("rules/owl/pack.lua", #"return { name = "owl", version = "1", badges = { { id = "night-owl", name = "Night owl" } } }"#)
        try folder.write("rules/owl/owl.lua", """
            return { id = "owl", badge = "night-owl", earned = function(run)
              local h = tonumber(run.local_start:sub(12, 13))
              if h >= 22 then return { detail = "started at " .. run.local_start:sub(12, 16) } end
              return false end }
            """)
        try folder.write("rules/owl/owl_test.lua", """
            test("detail", function(t)
              local a = t.run{ distance_km = 5, start = "2024-06-01T12:00:00Z" }
              local b = t.run{ distance_km = 5, start = "2024-06-01T22:30:00Z" }
              local r = t.evaluate{ a, b }
              t.expect_award(r, { badge = "night-owl", run = b, detail = "started at 21:00" })
              t.expect_award(r, { badge = "night-owl", detail_match = "^started at 21" })
            end)
            """)
        let output = try CLI.run(["test", "rules"], in: folder.url)
        XCTAssertTrue(output.stdout.contains("""
              rules/owl/owl_test.lua:5: no award {badge=night-owl run=run-2 detail=started at 21:00}
                expected: {badge=night-owl run=run-2 detail=started at 21:00}
                got:      night-owl/earned run run-2
                          closest: night-owl/earned run run-2
                            badge         ok ("night-owl")
                            run           ok ("run-2")
                            detail        expected "started at 21:00", got "started at 22:30"
              rules/owl/owl_test.lua:6: no award {badge=night-owl detail_match="^started at 21"}
                expected: {badge=night-owl detail_match="^started at 21"}
                got:      night-owl/earned run run-2
                          closest: night-owl/earned run run-2
                            badge         ok ("night-owl")
                            detail_match  pattern "^started at 21": detail does not match "started at 22:30"
            """), output.stdout)
    }
}

extension TestCommandTests {
    /// Issue J-9: `--threshold N` fails below N% of the declared (badge, tier) pairs plus the rules.
    func testCoverageThreshold() throws {
        let folder = try makeHalfTestedPack()
        // ten/earned and the rule ten are covered; twenty/earned and the rule twenty are not: 2 of 4.
        let enough = try CLI.run(["test", "rules/p", "--threshold", "50"], in: folder.url)
        XCTAssertEqual(enough.status, 0, enough.stdout + enough.stderr)
        XCTAssertTrue(enough.stdout.contains("coverage p: 1 test, 50.0% (2 of 4 badge/tier pairs and rules)"), enough.stdout)
        let below = try CLI.run(["test", "rules/p", "--threshold", "60"], in: folder.url)
        XCTAssertEqual(below.status, 3, below.stdout)
        XCTAssertTrue(below.stderr.contains("badgectl: coverage 50.0% is below the threshold 60% (2 of 4 badge/tier pairs and rules)"), below.stderr)
        XCTAssertEqual(below.lastLine, "1 passed, 0 failed")
        let json = try CLI.run(["test", "rules/p", "--threshold", "60", "--format", "json"], in: folder.url)
        XCTAssertTrue(json.stdout.contains("\"pairs\" : 2"), json.stdout)
        XCTAssertEqual(try CLI.run(["test", "rules/p", "--threshold", "101"], in: folder.url).status, 64)
    }
}
