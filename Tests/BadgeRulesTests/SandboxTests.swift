import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// Hostile rules, each at load time (top-level chunk) and at call time (inside `earned` or `on_run`):
/// the evaluation ends, the good pack's award is intact, and the failure names pack, rule and file:line.
final class SandboxTests: XCTestCase {
    struct Case {
        var name: String
        var body: String
        var message: String
        var line: Int? = 2
        /// The line at call time, where the body sits on line 2 (nil: any line).
        var callLine: Int? = 2
    }

    static let cases: [Case] = [
        Case(name: "endless-loop", body: "while true do end", message: "instruction budget exhausted"),
        // The budget error goes through the pcall (which re-raises a stop at once): it stops the rule on the loop's line.
        Case(name: "loop-in-pcall", body: "local ok = pcall(function() while true do end end)", message: "instruction budget exhausted"),
        Case(name: "loop-in-xpcall", body: "for i = 1, 10 do xpcall(function() while true do end end, function(m) return m end) end",
             message: "instruction budget exhausted"),
        Case(name: "huge-string", body: "local s = string.rep('x', 1e9)", message: "memory limit exceeded"),
        // Lua refuses this one itself before allocating (larger than a Lua string may be).
        Case(name: "rep-1e10", body: "local s = string.rep('x', 1e10)", message: "resulting string too large"),
        Case(name: "growing-table", body: "local t = {}\nlocal i = 0\nwhile true do i = i + 1; t[i] = string.rep('x', 1000) .. i end",
             message: "memory limit exceeded", line: 4),
        Case(name: "memory-in-pcall", body: "local t = {}\nwhile true do pcall(function() t[#t + 1] = string.rep('y', 4096) .. #t end) end",
             message: "memory limit exceeded", line: nil, callLine: nil),
        Case(name: "os-execute", body: "os.execute('touch /tmp/badgectl-pwned')", message: "attempt to index a nil value (global 'os')"),
        Case(name: "io-open", body: "io.open('/etc/passwd')", message: "attempt to index a nil value (global 'io')"),
        Case(name: "require-os", body: "local os = require('os')", message: "require: no module 'os' in pack 'bad'"),
        Case(name: "require-io", body: "local io = require('io')", message: "require: no module 'io' in pack 'bad'"),
        Case(name: "load", body: "load('return 1')()", message: "attempt to call a nil value (global 'load')"),
        Case(name: "dofile", body: "dofile('/etc/passwd')", message: "attempt to call a nil value (global 'dofile')"),
        Case(name: "collectgarbage", body: "collectgarbage()", message: "attempt to call a nil value (global 'collectgarbage')"),
        Case(name: "gc-metamethod", body: "setmetatable({}, { __gc = function() while true do end end })",
             message: "setmetatable: __gc metamethods are not allowed in rules"),
        Case(name: "string-metatable", body: "getmetatable('').__index.dump = 1", message: "attempt to index a boolean value"),
        Case(name: "boom", body: "error('boom')", message: "boom"),
    ]

    func check(_ result: Evaluation, rule: String, file: String, _ c: Case, line: Int?, phase: String) {
        let context = "\(c.name) at \(phase): \(result.failures)"
        XCTAssertEqual(result.awards.map { "\($0.pack)/\($0.badge)@\($0.run)" }, ["good/5k@r2.gpx"], context)
        XCTAssertEqual(result.failures.count, 1, context)
        guard let failure = result.failures.first else { return }
        XCTAssertEqual(failure.pack, "bad", context)
        XCTAssertEqual(failure.rule, rule, context)
        XCTAssertTrue(failure.file.hasSuffix(file), context)
        if let line { XCTAssertEqual(failure.line, line, context) } else { XCTAssertNotNil(failure.line, context) }
        XCTAssertTrue(failure.message.contains(c.message), context)
    }

    func testHostileCodeAtLoadTime() throws {
        for c in Self.cases {
            let fixture = try PackFixture()
            try fixture.pack("bad", files: ["\(c.name).lua": "-- hostile\n\(c.body)\nreturn { id = 'x', badge = '5k', earned = function() return true end }"])
            try fixture.pack("good", files: goodPack)
            let result = fixture.engine(["bad", "good"]).evaluate(runs: sampleRuns)
            check(result, rule: c.name, file: "rules/bad/\(c.name).lua", c, line: c.line, phase: "load")
        }
    }

    func testHostileCodeAtCallTime() throws {
        for c in Self.cases {
            let fixture = try PackFixture()
            let body = c.body.replacingOccurrences(of: "\n", with: " ")
            try fixture.pack("bad", files: ["\(c.name).lua": "return { id = 'hostile', badge = '5k', earned = function(run)\n  \(body)\n  return true end }"])
            try fixture.pack("good", files: goodPack)
            let result = fixture.engine(["bad", "good"]).evaluate(runs: sampleRuns)
            check(result, rule: "hostile", file: "rules/bad/\(c.name).lua", c, line: c.callLine, phase: "call")
        }
    }

    func testHostileFoldAtCallTime() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", files: ["fold.lua": "return { id = 'fold', badge = '5k',\n on_run = function(state, run)\n  state.n = (state.n or 0) + 1\n  if state.n == 2 then while true do end end\n end }"])
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["bad", "good"]).evaluate(runs: sampleRuns)
        check(result, rule: "fold", file: "rules/bad/fold.lua", Case(name: "fold", body: "", message: "instruction budget exhausted"), line: 4, phase: "on_run")
    }

    func testBytecodeIsRefused() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad")
        try fixture.writeBytes([0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00, 0x19, 0x93, 0x0D, 0x0A, 0x1A, 0x0A, 0x04, 0x08, 0x08], to: "bad/compiled.lua")
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["bad", "good"]).evaluate(runs: sampleRuns)
        check(result, rule: "compiled", file: "rules/bad/compiled.lua",
              Case(name: "bytecode", body: "", message: "binary"), line: 1, phase: "load")
    }

    func testWrongReturnTypes() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", files: [
            "number.lua": "return 42",
            "string.lua": "return { id = 'stringly', badge = '5k',\n earned = function(run) return 'yes' end }",
        ])
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["bad", "good"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.awards.map(\.pack), ["good"])
        XCTAssertEqual(result.failures.map(\.rule), ["number", "stringly"])
        XCTAssertEqual(result.failures.first?.message,
                       "a rule file must return a rule table { id = ..., earned = function ... } or { id = ..., init = ..., on_run = ... }, got number")
        XCTAssertTrue(result.failures.first?.file.hasSuffix("rules/bad/number.lua") ?? false)
        XCTAssertEqual(result.failures.last?.message, "earned must return true, false/nil or a table { detail = ..., tier = ... }, got string")
        XCTAssertEqual(result.failures.last?.line, 2)
    }

    func testBadAwardsFailTheRuleAndDiscardItsAwards() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", files: [
            "badge.lua": "return { id = 'unknown-badge', badge = '5k',\n on_run = function(state, run, award)\n  award { run = run }\n  award { badge = 'moon-walker', run = run }\n end }",
            "run.lua": "return { id = 'unknown-run', badge = '5k',\n on_run = function(state, run, award)\n\n  award { run = 'nope.gpx' }\n end }",
            "nobadge.lua": "return { id = 'missing-run', badge = '5k',\n on_run = function(state, run, award)\n\n  award { detail = 'x' }\n end }",
            "types.lua": "return { id = 'wrong-types', badge = '5k',\n on_run = function(state, run, award)\n\n  award { run = run, tier = 3 }\n end }",
        ])
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["bad", "good"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.awards.map(\.pack), ["good"])
        XCTAssertEqual(result.failures.map(\.message), [
            "award: unknown badge 'moon-walker' (not in the catalogue nor in any pack's badges or themes)",
            "award: missing field 'run' (the run that earned it: a run table or a run id)",
            "award: unknown run 'nope.gpx'",
            "award: field 'tier' must be a string, got number",
        ])
        XCTAssertEqual(result.failures.map(\.line), [4, 4, 4, 4])
        XCTAssertEqual(result.failures.map(\.rule), ["unknown-badge", "missing-run", "unknown-run", "wrong-types"])
    }

    func testNoteFloodIsCappedAndTyposAreNoted() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", files: ["flood.lua": "return { id = 'flood', badge = '5k', earn = true,\n earned = function(run, ctx) for i = 1, 5000 do ctx.note('n' .. i) end end }"])
        let result = fixture.engine(["bad"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.notes.count, 1002)
        XCTAssertTrue(result.notes[0].message.hasSuffix("flood.lua: unknown field 'earn' in the rule table is ignored; did you mean 'earned'?"), result.notes[0].message)
        XCTAssertEqual(result.notes.last?.message, "further notes left out (more than 1000)")
    }

    func testBytecodeThroughRequireIsRefused() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", files: ["req.lua": "return { id = 'req', badge = '5k',\n earned = function(run)\n  local m = require('lib.compiled')\n  return m end }"])
        try FileManager.default.createDirectory(atPath: fixture.root + "/rules/bad/lib", withIntermediateDirectories: true)
        try fixture.writeBytes([0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00], to: "bad/lib/compiled.lua")
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["bad", "good"]).evaluate(runs: sampleRuns)
        check(result, rule: "req", file: "rules/bad/req.lua", Case(name: "require-bytecode", body: "", message: "precompiled (binary) chunks are refused"),
              line: 3, phase: "call")
    }

    func testHostilePackDeclaration() throws {
        let fixture = try PackFixture()
        try fixture.pack("bad", packLua: "while true do end")
        try fixture.pack("worse", packLua: "return { name = 'worse', version = '1', badges = { { id = 'x', name = 'X', distance_m = -1 } } }")
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["bad", "worse", "good"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.awards.map(\.pack), ["good"])
        XCTAssertEqual(result.failures.map(\.pack), ["bad", "worse"])
        XCTAssertEqual(result.failures.first?.line, 1)
        XCTAssertTrue(result.failures.first?.message.contains("instruction budget exhausted") ?? false)
        XCTAssertEqual(result.failures.last?.message, "badges[1]: field 'distance_m' must be a number of metres ≥ 0")
    }
}
