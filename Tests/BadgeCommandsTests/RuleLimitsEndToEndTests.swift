import RunFixtures
import Foundation
import XCTest

@testable import BadgeCommands

/// The built `badgectl` with a hostile pack beside a good one (issue H items 1 and 5): the process
/// ends within seconds with exit status 2, the good pack keeps exactly its awards, each hostile rule
/// is named with pack, rule, file:line and the limit; the JSON never holds a non-finite number.
final class RuleLimitsEndToEndTests: XCTestCase {
    static let hostileRules: [String: String] = [
        "xpcall.lua": """
            return { id = "xpcall", badge = "five-k",
              earned = function(run)
                while true do xpcall(function() while true do end end, function(e) while true do end end) end
              end }
            """,
        "rep.lua": """
            return { id = "rep", badge = "five-k",
              earned = function(run)
                for i = 1, 1e6 do local x = string.rep("x", 3e7) end
              end }
            """,
        "sort.lua": """
            return { id = "sort", badge = "five-k",
              earned = function(run)
                local t = {} for i = 1, 1e6 do t[i] = -i end for i = 1, 1e6 do table.sort(t) end
              end }
            """,
        "pattern.lua": """
            return { id = "pattern", badge = "five-k",
              earned = function(run)
                return string.find(string.rep("a", 30) .. "b", string.rep("a*", 30) .. "c")
              end }
            """,
        "guide.lua": """
            return { id = "guide", badge = "five-k",
              earned = function(run)
                return ("a"):rep(1e6):find(".-.-.-.-b")
              end }
            """,
    ]

    func awards(_ report: [String: Any]) -> [String] {
        (report["awards"] as? [[String: Any]] ?? []).map { "\($0["pack"] ?? "")/\($0["badge"] ?? "")/\($0["tier"] ?? "")@\($0["run"] ?? "")" }
    }

    func testHostilePackBesideAGoodOne() throws {
        let folder = try TemporaryFolder()
        try folder.write("hostile/pack.lua", "return { name = \"hostile\", version = \"1.0.0\" }")
        for (file, text) in Self.hostileRules { try folder.write("hostile/" + file, text) }
        let alone = try CLI.run(["evaluate", "runs/", "--format", "json", "--rules", "rules/checkpoints"])
        XCTAssertEqual(alone.status, 0, alone.stderr)
        let started = Date()
        let result = try CLI.run(["evaluate", "runs/", "--format", "json", "--rules", folder.path + "/hostile", "--rules", "rules/checkpoints"])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertLessThan(seconds, 60, "evaluate took \(seconds) s")  // about 3 s in a debug build; before, no end at all
        XCTAssertEqual(result.status, 2, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let expected = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(alone.stdout.utf8)) as? [String: Any])
        XCTAssertFalse(awards(expected).isEmpty)
        XCTAssertEqual(awards(report), awards(expected))
        let failures = try XCTUnwrap(report["rule_errors"] as? [[String: Any]])
        let lines = failures.map { "\($0["pack"] ?? "")/\($0["rule"] ?? "") \(($0["file"] as? String).map { ($0 as NSString).lastPathComponent } ?? ""):\($0["line"] ?? ""): \($0["message"] ?? "")" }
        XCTAssertEqual(lines, [
            "hostile/guide guide.lua:3: instruction budget exhausted (20000000 instructions per call) in pattern matching",
            "hostile/pattern pattern.lua:3: instruction budget exhausted (20000000 instructions per call) in pattern matching",
            "hostile/rep rep.lua:3: allocation budget exhausted (1024 MB allocated per call)",
            "hostile/sort sort.lua:3: instruction budget exhausted (20000000 instructions per call) in table.sort",
            "hostile/xpcall xpcall.lua:3: instruction budget exhausted (20000000 instructions per call)",
        ])
        XCTAssertTrue(result.stderr.contains("rule failed: \(folder.path)/hostile/xpcall.lua:3: pack 'hostile' rule 'xpcall': instruction budget exhausted"), result.stderr)
        XCTAssertTrue(failures.allSatisfy { ($0["file"] as? String)?.hasPrefix(folder.path + "/hostile/") ?? false }, "\(failures)")

        // The same again: the same stops, byte for byte.
        let again = try CLI.run(["evaluate", "runs/", "--format", "json", "--rules", folder.path + "/hostile", "--rules", "rules/checkpoints"])
        XCTAssertEqual(again.stdout, result.stdout)
    }

    func testLimitFlags() throws {
        let folder = try TemporaryFolder()
        try folder.write("slow/pack.lua", "return { name = \"slow\", version = \"1.0.0\" }")
        try folder.write("slow/count.lua", """
            return { id = "count", badge = "five-k",
              earned = function(run)
                local n = 0
                for i = 1, 300000 do n = n + i end
                return n > 0
              end }
            """)
        try folder.write("slow/count_test.lua", """
            test("counts", function(t)
              local n = 0
              for i = 1, 300000 do n = n + i end
            end)
            """)
        let fits = try CLI.run(["evaluate", "runs/", "--format", "json", "--rules", folder.path + "/slow"])
        XCTAssertEqual(fits.status, 0, fits.stderr)
        let tight = try CLI.run(["evaluate", "runs/", "--format", "json", "--rules", folder.path + "/slow", "--max-instructions", "100000"])
        XCTAssertEqual(tight.status, 2)
        XCTAssertTrue(tight.stderr.contains("count.lua:4: pack 'slow' rule 'count': instruction budget exhausted (100000 instructions per call)"), tight.stderr)
        let test = try CLI.run(["test", folder.path + "/slow", "--max-instructions", "100000"])
        XCTAssertNotEqual(test.status, 0)
        XCTAssertTrue(test.stdout.contains("instruction budget exhausted (100000 instructions per test)"), test.stdout)
        let bad = try CLI.run(["evaluate", "runs/", "--max-memory", "0"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--max-memory must be from 1 to 1048576 (MB)"), bad.stderr)
        let help = try CLI.run(["evaluate", "--help"])
        for flag in ["--max-instructions", "--max-memory", "--max-allocation", "--max-call-seconds"] {
            XCTAssertTrue(help.stdout.contains(flag), flag)
        }
    }

    /// Item 5: a rule that hands back non-finite numbers is refused with its pack, rule and line; a
    /// progress with target 0 is written as it is; the JSON parses strictly and holds no inf or nan.
    func testNoNonFiniteNumberInTheJSON() throws {
        let folder = try TemporaryFolder()
        try folder.write("numbers/pack.lua", """
            return { name = "numbers", version = "1.0.0",
              badges = { { id = "zero-target", name = "Zero target" }, { id = "no-number", name = "No number" } } }
            """)
        try folder.write("numbers/zero.lua", """
            return { id = "zero", badge = "zero-target",
              earned = function(run) return false end,
              progress = function(run) return { current = run.distance_m, target = 0, unit = "m" } end }
            """)
        try folder.write("numbers/inf.lua", """
            return { id = "infinite", badge = "no-number",
              earned = function(run) return false end,
              progress = function(run) return { current = run.distance_m / 0, target = 1, unit = "m" } end }
            """)
        try folder.write("numbers/nan.lua", """
            return { id = "not-a-number", badge = "no-number",
              on_run = function(state, run, award)
                award { run = run, progress = { current = 0/0, target = 1 } }
              end }
            """)
        let result = try CLI.run(["evaluate", "runs/", "--format", "json", "--rules", folder.path + "/numbers"])
        XCTAssertEqual(result.status, 2, result.stderr)
        for token in ["\"inf\"", "\"-inf\"", "\"nan\"", ": inf", ": nan", ": -inf"] {
            XCTAssertFalse(result.stdout.contains(token), result.stdout)
        }
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let failures = (report["rule_errors"] as? [[String: Any]] ?? []).map { "\($0["rule"] ?? ""):\($0["line"] ?? ""): \($0["message"] ?? "")" }
        XCTAssertEqual(failures, [
            "infinite:3: progress: field 'current' must be a finite number, got inf",
            "not-a-number:3: award: progress: field 'current' must be a finite number, got nan",
        ])
        let zero = (report["badges"] as? [[String: Any]] ?? []).first { ($0["id"] as? String) == "zero-target" }
        let progress = try XCTUnwrap(zero?["progress"] as? [String: Any])
        XCTAssertEqual(progress["target"] as? Double, 0)
    }

    /// Every writer goes through JSONOutput: a NaN or an infinity is `null`, never a string or a bare token.
    func testJSONOutputWritesNullForNonFiniteNumbers() throws {
        struct Numbers: Encodable {
            var finite = 1.5
            var infinite = Double.infinity
            var negative = -Double.infinity
            var notANumber = Double.nan
            var list = [1.0, .nan]
            var text = "inf"
        }
        let text = try JSONOutput.encode(Numbers())
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["finite"] as? Double, 1.5)
        XCTAssertTrue(object["infinite"] is NSNull, text)
        XCTAssertTrue(object["negative"] is NSNull, text)
        XCTAssertTrue(object["notANumber"] is NSNull, text)
        XCTAssertTrue((object["list"] as? [Any])?.last is NSNull, text)
        XCTAssertEqual(object["text"] as? String, "inf")
        XCTAssertFalse(text.contains("badgectl-non-finite"), text)
    }
}

/// A rule's error message is kept to 4 KiB with "… (N bytes cut)" (issue S): `error(string.rep("H", 30e6))`
/// wrote 31 MB to stderr and 31 MB into the JSON, and the worker 94 MB for three athletes.
final class LongErrorMessageEndToEndTests: XCTestCase {
    static let length = 30_000_000

    /// A pack whose rule raises a 30 MB error, one whose rule file does not load (a syntax error
    /// quoting a 5 MB unfinished string) and a test file raising the same 30 MB error.
    func shoutingPacks() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("shouty/pack.lua", "return { name = \"shouty\", version = \"1.0.0\" }")
        try folder.write("shouty/shout.lua", """
            return { id = "shout", badge = "five-k",
              earned = function(run)
                error(string.rep("H", \(Self.length)))
              end }
            """)
        try folder.write("shouty/shout_test.lua", """
            test("shouts", function(t)
              error(string.rep("T", \(Self.length)))
            end)
            """)
        try folder.write("broken/pack.lua", "return { name = \"broken\", version = \"1.0.0\" }")
        try folder.write("broken/unfinished.lua", "return \"" + String(repeating: "U", count: 5_000_000) + "\nend\n")
        return folder
    }

    /// "HHH…H… (N bytes cut)": at most 4 KiB of the rule's text, and N the bytes left out of it.
    func assertCut(_ message: String, letter: Character, total: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(message.utf8.count, 4096 + 40, file: file, line: line)
        let kept = message.prefix { $0 == letter }.count
        XCTAssertGreaterThan(kept, 3000, message.prefix(200) + "", file: file, line: line)
        XCTAssertEqual(String(message.dropFirst(kept)), "… (\(total - kept) bytes cut)", file: file, line: line)
    }

    func testEvaluateKeepsFourKiBOfAnErrorInTheJSONAndOnStderr() throws {
        let folder = try shoutingPacks()
        let result = try CLI.run(["evaluate", "runs/", "--format", "json", "--no-cache", "--rules", folder.path + "/shouty",
                                  "--rules", folder.path + "/broken", "--rules", "rules/checkpoints"])
        XCTAssertEqual(result.status, 2, String(result.stderr.prefix(2000)))
        XCTAssertLessThan(result.stdout.utf8.count, 1 << 20)
        XCTAssertLessThan(result.stderr.utf8.count, 20_000)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let failures = try XCTUnwrap(report["rule_errors"] as? [[String: Any]])
        let shout = try XCTUnwrap(failures.first { $0["rule"] as? String == "shout" })
        XCTAssertEqual(shout["line"] as? Int, 3)
        assertCut(try XCTUnwrap(shout["message"] as? String), letter: "H", total: Self.length)
        let unfinished = try XCTUnwrap(failures.first { $0["rule"] as? String == "unfinished" })
        XCTAssertEqual(unfinished["line"] as? Int, 1)
        let text = try XCTUnwrap(unfinished["message"] as? String)
        XCTAssertTrue(text.hasPrefix("unfinished string near '\"UUU"), String(text.prefix(100)))
        XCTAssertTrue(text.hasSuffix(" bytes cut)"), String(text.suffix(100)))
        XCTAssertLessThanOrEqual(text.utf8.count, 4096 + 40)
        XCTAssertTrue(result.stderr.contains("rule 'shout': HHHH"), String(result.stderr.prefix(300)))
        XCTAssertTrue(result.stderr.contains(" bytes cut)"))
    }

    func testWorkerLinesStaySmall() throws {
        let folder = try shoutingPacks()
        let input = ["ana", "ben", "cy"].map {
            #"{"athlete": "\#($0)", "tz": "UTC", "summary": {"start": "2026-01-03T07:00:00Z", "distance_m": 5200, "duration_s": 1600}}"#
        }
        let result = try CLI.run(["worker", "--rules", folder.path + "/shouty", "--badges", "badges.json", "--tz", "UTC"],
                                 stdin: input.joined(separator: "\n") + "\n")
        XCTAssertLessThan(result.stdout.utf8.count, 64_000, String(result.stdout.prefix(500)))
        XCTAssertLessThan(result.stderr.utf8.count, 64_000, String(result.stderr.prefix(500)))
        XCTAssertTrue(result.stdout.contains(" bytes cut)"), String(result.stdout.prefix(2000)))
        for line in result.stdout.split(separator: "\n") {
            XCTAssertLessThan(line.utf8.count, 16_000, String(line.prefix(200)))
        }
    }

    func testTestCommandCutsTheFailure() throws {
        let folder = try shoutingPacks()
        let result = try CLI.run(["test", folder.path + "/shouty"])
        XCTAssertEqual(result.status, 3, String(result.stderr.prefix(2000)))
        XCTAssertLessThan(result.stdout.utf8.count + result.stderr.utf8.count, 30_000)
        XCTAssertTrue((result.stdout + result.stderr).contains("TTTT"), result.stdout + result.stderr)
        XCTAssertTrue((result.stdout + result.stderr).contains(" bytes cut)"), result.stdout + result.stderr)
    }
}
