import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// Every rule call ends, deterministically (issue H item 1): rules that defeat a plain count hook
/// (a looping xpcall handler, work inside C: string.rep, table.sort, pattern matching) stop within
/// seconds with pack, rule, file:line and the limit that stopped them; the good pack keeps its award;
/// the same rule stops at the same point with the same message on every evaluation.
final class RuleLimitsTests: XCTestCase {
    struct Case {
        var name: String
        /// The body of `earned`, on line 3 of the rule file.
        var body: String
        var message: String
    }

    /// The hostile rules, then more C library loops the VM does not count.
    static let cases: [Case] = [
        Case(name: "xpcall-looping-handler",
             body: "while true do xpcall(function() while true do end end, function(e) while true do end end) end",
             message: "instruction budget exhausted (20000000 instructions per call)"),
        Case(name: "rep-in-a-loop", body: "for i = 1, 1e6 do local x = string.rep('x', 3e7) end",
             message: "allocation budget exhausted (1024 MB allocated per call)"),
        Case(name: "sort-in-a-loop", body: "local t = {} for i = 1, 1e6 do t[i] = -i end for i = 1, 1e6 do table.sort(t) end",
             message: "instruction budget exhausted (20000000 instructions per call) in table.sort"),
        Case(name: "backtracking-pattern", body: "string.find(string.rep('a', 30) .. 'b', string.rep('a*', 30) .. 'c')",
             message: "instruction budget exhausted (20000000 instructions per call) in pattern matching"),
        Case(name: "guide-pattern", body: "return ('a'):rep(1e6):find('.-.-.-.-b')",
             message: "instruction budget exhausted (20000000 instructions per call) in pattern matching"),
        // A handler that loops on an ordinary error: the budget stops it inside the handler.
        Case(name: "looping-handler", body: "xpcall(error, function(e) while true do end end, 'boom')",
             message: "instruction budget exhausted (20000000 instructions per call)"),
        Case(name: "pcall-around-pattern", body: "while true do pcall(string.find, ('a'):rep(1e5), '.-.-.-b') end",
             message: "instruction budget exhausted (20000000 instructions per call) in pattern matching"),
        Case(name: "gsub-pattern", body: "return (('a'):rep(1e5)):gsub('.-.-.-b', '')",
             message: "instruction budget exhausted (20000000 instructions per call) in pattern matching"),
        Case(name: "gmatch-pattern", body: "for w in (('a'):rep(1e5)):gmatch('.-.-.-b') do end",
             message: "instruction budget exhausted (20000000 instructions per call) in pattern matching"),
        Case(name: "plain-find", body: "local s = ('a'):rep(1e6) local p = ('a'):rep(1e5) .. 'b' while true do s:find(p, 1, true) end",
             message: "instruction budget exhausted (20000000 instructions per call) in pattern matching"),
        Case(name: "move-huge", body: "table.move({}, 1, 1e15, 2)",
             message: "instruction budget exhausted (20000000 instructions per call) in table.move"),
        Case(name: "insert-with-len", body: "table.insert(setmetatable({}, { __len = function() return 1e15 end }), 1, 'x')",
             message: "instruction budget exhausted (20000000 instructions per call) in table.insert"),
        Case(name: "concat-with-index", body: "table.concat(setmetatable({}, { __index = rawlen }), '', 1, 1e15)",
             message: "instruction budget exhausted (20000000 instructions per call) in table.concat"),
        Case(name: "utf8-len-loop", body: "local s = ('a'):rep(1e7) while true do utf8.len(s) end",
             message: "instruction budget exhausted (20000000 instructions per call) in utf8.len"),
        Case(name: "concat-operator", body: "local s = ('a'):rep(3e7) while true do local t = s .. 'b' end",
             message: "allocation budget exhausted (1024 MB allocated per call)"),
        // lauxlib's buffers raise "not enough memory" as an ordinary error after one denied allocation
        // (no emergency collection, no retry): a pcall around them must not swallow the limit.
        Case(name: "pcall-around-a-big-buffer", body: "local ok = pcall(string.rep, 'x', 5e8) return true",
             message: "memory limit exceeded (128 MB for rules in one evaluation)"),
        Case(name: "pcall-around-a-big-concat", body: "local s = ('x'):rep(5e7) local ok = pcall(table.concat, { s, s }) return true",
             message: "memory limit exceeded (128 MB for rules in one evaluation)"),
        // A to-be-closed variable whose __close loops: the call stays stopped, so it stops at once too.
        Case(name: "close-handler",
             body: "local x <close> = setmetatable({}, { __close = function() while true do end end }) while true do end",
             message: "instruction budget exhausted (20000000 instructions per call)"),
    ]

    func hostile(_ c: Case) -> String {
        "return { id = '\(c.name)', badge = '5k',\n  earned = function(run)\n    \(c.body)\n  end }"
    }

    /// The default limits, except for a memory cap that a 30 MB string loop fits in.
    static let limits = RuleEngine.Limits(memoryBytes: 128 << 20)

    func testHostileRulesStopWithTheirLimitAndTheGoodPackKeepsItsAward() throws {
        for c in Self.cases {
            let fixture = try PackFixture()
            try fixture.pack("bad", files: ["\(c.name).lua": hostile(c)])
            try fixture.pack("good", files: goodPack)
            let started = Date()
            let result = fixture.engine(["bad", "good"], limits: Self.limits).evaluate(runs: sampleRuns)
            let seconds = Date().timeIntervalSince(started)
            let context = "\(c.name): \(result.failures) in \(seconds) s"
            XCTAssertLessThan(seconds, 60, context)  // about a second each in a debug build; before, no end at all
            XCTAssertEqual(result.awards.map { "\($0.pack)/\($0.badge)@\($0.run)" }, ["good/5k@r2.gpx"], context)
            XCTAssertEqual(result.failures.count, 1, context)
            guard let failure = result.failures.first else { continue }
            XCTAssertEqual(failure.pack, "bad", context)
            XCTAssertEqual(failure.rule, c.name, context)
            XCTAssertTrue(failure.file.hasSuffix("rules/bad/\(c.name).lua"), context)
            XCTAssertEqual(failure.line, 3, context)
            XCTAssertEqual(failure.message, c.message, context)
        }
    }

    /// The same pack on the same runs stops at the same point with the same message, every time.
    func testStopsAreDeterministic() throws {
        let fixture = try PackFixture()
        var files: [String: String] = [:]
        let chosen = ["xpcall-looping-handler", "rep-in-a-loop", "sort-in-a-loop", "guide-pattern", "close-handler"]
        for c in Self.cases where chosen.contains(c.name) { files["\(c.name).lua"] = hostile(c) }
        // A stop in the middle of a loop of many lines: the line it stops on is the same every time.
        files["many-lines.lua"] = """
            return { id = 'many-lines', badge = '5k',
              on_run = function(state, run)
                state.n = (state.n or 0) + 1
                local t = {}
                while true do
                  t[#t % 1000 + 1] = ('x'):rep(#t % 7)
                  local s = table.concat(t, ',', 1, #t % 50)
                  s = s:gsub('x+', function(m) return #m end)
                  table.sort(t)
                end
              end }
            """
        try fixture.pack("bad", files: files)
        try fixture.pack("good", files: goodPack)
        let engine = fixture.engine(["bad", "good"], limits: Self.limits)
        let first = engine.evaluate(runs: sampleRuns)
        let second = engine.evaluate(runs: sampleRuns)
        XCTAssertEqual(first.failures.count, chosen.count + 1)
        XCTAssertEqual(first.failures.map(\.description), second.failures.map(\.description))
        XCTAssertEqual(first.failures.map(\.traceback), second.failures.map(\.traceback))
        XCTAssertEqual(first.awards, second.awards)
    }

    /// What no budget counts (one VM instruction comparing two long strings) is stopped by the
    /// wall-clock backstop, and the message says so.
    func testWallClockBackstop() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", files: ["slow.lua": hostile(Case(
            name: "slow", body: "local a, b = ('a'):rep(2e7), ('a'):rep(2e7 - 1) .. 'a' while true do local same = a == b end", message: ""))])
        try fixture.pack("good", files: goodPack)
        let limits = RuleEngine.Limits(instructionsPerCall: Int(Int32.max), memoryBytes: 128 << 20, callSeconds: 0.5)
        let started = Date()
        let result = fixture.engine(["bad", "good"], limits: limits).evaluate(runs: sampleRuns)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
        XCTAssertEqual(result.awards.map(\.pack), ["good"])
        XCTAssertEqual(result.failures.map(\.line), [3])
        XCTAssertEqual(result.failures.first?.message,
                       "stopped by the wall-clock backstop (0.5 s per call): no deterministic limit stopped it first")
    }

    /// Ordinary errors still reach pcall and the xpcall handler as in plain Lua; library functions
    /// still name themselves in their argument errors (called through pcall, by their global name, as
    /// Lua 5.4 does); `string.rep` of empty pieces is the empty string at once (Lua would loop n times).
    /// There are no coroutines (no other thread whose hook could be missing).
    func testProtectedCallsAndLibraryErrorsBehaveAsInLua() throws {
        let fixture = try PackFixture()
        try fixture.pack("ok", files: ["calls.lua": """
            return { id = 'calls', badge = '5k',
              earned = function(run)
                local ok1, m1 = pcall(error, 'boom', 0)
                local ok2, m2 = xpcall(error, function(e) return 'handled ' .. e end, 'bang', 0)
                local ok3, m3 = pcall(table.sort, 42)
                local ok4, m4 = pcall(string.rep)
                local a, b = ('hello world'):find('o w')
                local n = select(2, ('a,b,c'):gsub(',', ';'))
                local words = {}
                for w in ('one two'):gmatch('%a+') do words[#words + 1] = w end
                local t = { 3, 1, 2 }
                table.sort(t)
                return { detail = table.concat({ tostring(ok1), m1, tostring(ok2), m2, m3, m4, a, b, n,
                  table.concat(words, '+'), table.concat(t), ('ab'):rep(3, '-'), #string.rep('', 1e15, ''), type(coroutine) }, '|') }
              end }
            """])
        let result = fixture.engine(["ok"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.first?.detail,
                       "false|boom|false|handled bang|bad argument #1 to 'table.sort' (table expected, got number)"
                       + "|bad argument #1 to 'string.rep' (string expected, got no value)|5|7|2|one+two|123|ab-ab-ab|0|nil")
    }

    /// Text the host keeps from a rule is cut at 4096 bytes: 1000 notes and an award of a 30 MB string
    /// cost the host a few megabytes, not 30 GB (the rules' memory cap does not cover host memory).
    func testLongTextIsCutForTheHost() throws {
        let fixture = try PackFixture()
        try fixture.pack("loud", files: ["loud.lua": """
            return { id = 'loud', badge = '5k',
              earned = function(run, ctx)
                local s = ('é'):rep(1.5e7)
                for i = 1, 5000 do print(s, s) ctx.note(s) end
                return { detail = s }
              end }
            """])
        let started = Date()
        let result = fixture.engine(["loud"], limits: Self.limits).evaluate(runs: sampleRuns)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.notes.count, 1001)
        let detail = try XCTUnwrap(result.awards.first?.detail)
        XCTAssertEqual(detail, String(repeating: "é", count: 2048) + "… (30000000 bytes)")
        XCTAssertEqual(result.notes.first?.message, detail + "\t… (1 more values)")
        XCTAssertEqual(result.notes.last?.message, "further notes left out (more than 1000)")
    }

    func testLibraryErrorsKeepTheRulesLine() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", files: ["sort.lua": "return { id = 'sort', badge = '5k',\n  earned = function(run)\n    table.sort(42)\n  end }"])
        let result = fixture.engine(["bad"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures.map(\.line), [3])
        XCTAssertEqual(result.failures.first?.message, "bad argument #1 to 'sort' (table expected, got number)")
    }
}
