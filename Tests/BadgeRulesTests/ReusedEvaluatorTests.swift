import RunFixtures
import Foundation
import RunFiles
import SyntheticRuns
import XCTest

@testable import BadgeRules

/// One loaded Lua state for many athletes (`ReusedEvaluator`, the worker's): every athlete's
/// evaluation is the one a fresh state gives, whatever the previous athletes' rules left behind;
/// packs that leave nothing behind keep the one state.
final class ReusedEvaluatorTests: XCTestCase {
    /// Three athletes' runs; the second's first run is the one a leak would show in.
    static let athletes: [[RunSummary]] = [
        [makeRun("a1", day: 0, distance: 6_000), makeRun("a2", day: 1, distance: 12_000)],
        [makeRun("b1", day: 3, distance: 7_000), makeRun("b2", day: 5, distance: 3_000)],
        [makeRun("c1", day: 2, distance: 5_500)],
    ]

    /// Each athlete through the reused state, compared with a fresh state's evaluation.
    func assertSameAsFresh(_ engine: RuleEngine, athletes: [[RunSummary]] = athletes, file: StaticString = #filePath, line: UInt = #line) -> ReusedEvaluator {
        let reused = ReusedEvaluator(engine: engine)
        for (index, runs) in athletes.enumerated() {
            let fresh = engine.evaluate(runs: runs)
            let again = reused.evaluate(runs: runs)
            XCTAssertEqual(again.awards, fresh.awards, "athlete \(index)", file: file, line: line)
            XCTAssertEqual(again.notes, fresh.notes, "athlete \(index)", file: file, line: line)
            XCTAssertEqual(again.failures, fresh.failures, "athlete \(index)", file: file, line: line)
            XCTAssertEqual(again.statuses, fresh.statuses, "athlete \(index)", file: file, line: line)
            XCTAssertEqual(again.nexts, fresh.nexts, "athlete \(index)", file: file, line: line)
            XCTAssertEqual(again, fresh, "athlete \(index)", file: file, line: line)
        }
        return reused
    }

    /// Hostile rules: each tries to carry something from one athlete to the next, and awards what it
    /// found in its detail (a fresh state finds nothing: "nil", "1", "false").
    static let leaks: [(name: String, top: String, body: String)] = [
        ("global-rawset", "", "local seen = rawget(_G, 'leak'); rawset(_G, 'leak', run.id); detail = tostring(seen)"),
        ("global-existing", "", "local seen = badgectl.leak; badgectl.leak = run.id; detail = tostring(seen)"),
        ("upvalue", "local count = 0", "count = count + 1; detail = tostring(count)"),
        ("module-table", "local state = require('lib.state')", "state.n = state.n + 1; detail = tostring(state.n)"),
        ("library-table", "", "local seen = string.leak; string.leak = run.id; detail = tostring(seen)"),
        ("library-function", "", "local seen = math.abs == math.max; math.abs = math.max; detail = tostring(seen)"),
        ("metatable", "local shared = {}", "local seen = getmetatable(shared) ~= nil; setmetatable(shared, { __index = { x = 1 } }); detail = tostring(seen)"),
        ("metatable-content", "local shared = setmetatable({}, { __index = {} })",
         "local seen = shared.x; getmetatable(shared).__index.x = run.id; detail = tostring(seen)"),
        ("kept-run", "local kept", "local seen = kept and kept.id; kept = run; detail = tostring(seen)"),
        ("kept-measure-less-record", "local kept", "local seen = kept and kept[1] and kept[1].index; kept = run.splits_km; detail = tostring(seen)"),
        ("kept-ctx-note", "local notes = {}", "notes[#notes + 1] = ctx.rule.id; ctx.note('seen ' .. #notes); detail = tostring(#notes)"),
        ("string-metatable", "", "local seen = tostring(getmetatable('')); pcall(setmetatable, '', {}); detail = seen"),
        ("require-cache", "", "local seen = package; detail = tostring(seen)"),
        // A counter kept in an upvalue two closures of a module share: the module's table is unchanged.
        ("shared-upvalue", "local counter = require('lib.counter')", "counter.bump(); detail = tostring(counter.peek())"),
        // A module first required by a rule, not at load: require's cache (an upvalue's table) changes.
        ("late-require", "", "local late = require('lib.late'); late.n = late.n + 1; detail = tostring(late.n)"),
        // A C iterator made at load keeps its position in an upvalue of a C closure.
        ("kept-iterator", "local step, over = pairs({ 'x', 'y', 'z', 'w', 'v', 'u', 't', 's', 'r', 'q', 'p' })",
         "local k = step(over, nil); detail = tostring(k)"),
        // string.gmatch's iterator made at load keeps its position in a userdata (C memory).
        ("kept-gmatch", "local step = string.gmatch('a b c d e f g h i j k l m n', '%a')", "detail = tostring(step())"),
        // The badgectl library table: a helper replaced, and a field added by rawset.
        ("badgectl-function", "", "local seen = badgectl.weekday('2026-01-05'); badgectl.weekday = function() return 99 end; detail = tostring(seen)"),
        ("badgectl-rawset", "", "local seen = rawget(badgectl, 'kept'); rawset(badgectl, 'kept', run.id); detail = tostring(seen)"),
        // The string metatable, by every route a rule has: none reaches it, nothing is written.
        ("string-metatable-routes", "",
         "local seen = tostring(('').leak); pcall(function() getmetatable('').__index.leak = run.id end); pcall(rawset, getmetatable(''), '__index', { leak = run.id }); pcall(function() local s = ''; s.leak = run.id end); detail = seen"),
        // A global, by rawset on _G, and through a pack's environment table kept in an upvalue.
        ("global-through-env", "local env = _ENV", "local seen = rawget(env, 'kept'); rawset(env, 'kept', run.id); detail = tostring(seen)"),
        // A module's table grown and emptied: its contents are as marked, but not its layout, which
        // decides the order `next` gives and the border `#` finds (issue S2). The rule reads both after
        // its own inserts, then leaves the table empty again, grown.
        ("shape-next", "local t = {}",
         "t[7000] = 1; t[3000] = 2; t[5000] = 3; t[1100] = 4; detail = tostring(next(t)); t[7000], t[3000], t[5000], t[1100] = nil, nil, nil, nil; "
             + "for i = 1, 200 do t[i * 1000 + 1] = i end; for i = 1, 200 do t[i * 1000 + 1] = nil end"),
        ("shape-length", "local t = {}",
         "t[1] = 1; t[2] = 2; t[4] = 4; detail = tostring(#t); t[1], t[2], t[4] = nil, nil, nil; "
             + "for i = 1, 200 do t[i] = i end; for i = 1, 200 do t[i] = nil end"),
        // Keys removed leave their slots behind (a removed key's slot is not free for another until the
        // table is rebuilt): where the next keys land, and so their order, follows from them.
        ("shape-removed-slots", "local t = { [9] = true }",
         "t[17] = 1; t[25] = 2; detail = tostring(next(t, 9) or next(t)); t[17], t[25] = nil, nil; for i = 1, 3 do t[i * 8 + 100] = i end; "
             + "for i = 1, 3 do t[i * 8 + 100] = nil end"),
        // A write undone before the rule returns: the state is as marked, so it is kept.
        ("write-then-restore", "local t = { n = 0 }", "t.n = t.n + 1; detail = tostring(t.n); t.n = t.n - 1"),
    ]

    /// Packs that leave the shared state as they found it: their one state serves every athlete.
    static let leaveNothing: Set<String> = ["string-metatable", "require-cache", "string-metatable-routes", "write-then-restore"]

    func hostileFixture() throws -> (PackFixture, [String]) {
        let fixture = try PackFixture()
        var names: [String] = []
        for leak in Self.leaks {
            try fixture.pack(leak.name, files: [
                "leak.lua": """
                    \(leak.top)
                    return { id = "leak", badge = "5k", repeatable = true,
                      earned = function(run, ctx)
                        local detail
                        \(leak.body)
                        return { detail = detail }
                      end }
                    """,
                "lib/state.lua": "return { n = 0 }",
                "lib/late.lua": "return { n = 0 }",
                "lib/counter.lua": "local n = 0\nreturn { bump = function() n = n + 1 end, peek = function() return n end }",
            ])
            names.append(leak.name)
        }
        return (fixture, names)
    }

    func testEachHostilePackSeesNothingOfTheAthleteBefore() throws {
        let (fixture, names) = try hostileFixture()
        for name in names {
            let engine = fixture.engine([name])
            let reused = assertSameAsFresh(engine)
            let evaluation = engine.evaluate(runs: Self.athletes[1])
            XCTAssertEqual(evaluation.failures, [], name)
            // What a fresh state shows the second athlete's first run.
            XCTAssertEqual(evaluation.awards.first?.run, "b1", name)
            if ["global-rawset", "global-existing", "library-table", "kept-run", "kept-measure-less-record", "metatable-content",
                "badgectl-rawset", "string-metatable-routes", "global-through-env"].contains(name) {
                XCTAssertEqual(evaluation.awards.first?.detail, "nil", name)
            }
            if evaluation.awards.first?.rule == "leak", name == "kept-gmatch" {
                XCTAssertEqual(evaluation.awards.first?.detail, "a", name)
            }
            if ["upvalue", "module-table", "kept-ctx-note", "shared-upvalue", "late-require", "kept-iterator", "badgectl-function",
                "write-then-restore"].contains(name) {
                XCTAssertEqual(evaluation.awards.first?.detail, "1", name)
            }
            // A pack that writes shared state has its state replaced after every athlete; one that only
            // reads (the string metatable's protection, a missing `package`) or undoes its write keeps it.
            let writes = !Self.leaveNothing.contains(name)
            XCTAssertEqual(reused.statesLoaded, writes ? Self.athletes.count : 1, name)
        }
    }

    func testAllHostilePacksTogether() throws {
        let (fixture, names) = try hostileFixture()
        let engine = fixture.engine(names)
        let reused = assertSameAsFresh(engine, athletes: Self.athletes + Self.athletes.reversed())
        XCTAssertEqual(reused.statesLoaded, 6)
    }

    /// The class of the shape leaks above: random histories of one module table (integer keys in and
    /// around its array part, float and string keys, inserts and removals that end with the contents
    /// it started with, growth past a resize), each athlete's view of it (the whole `next` order and
    /// `#`) read first. Through the reused state every athlete sees what a fresh state shows it.
    /// (String keys come and go, but are never read: their order differs from state to state.)
    func testRandomTableHistoriesLeaveNoShapeBehind() throws {
        let fixture = try PackFixture()
        var names: [String] = []
        for seed in UInt64(1)...24 {
            var random = SplitMix64(seed: seed)
            func key(strings: Bool = true) -> String {
                switch random.next() % (strings ? 4 : 3) {
                case 0: return String(1 + random.next() % 12)                 // the array part and its edge
                case 1: return String(100 + random.next() % 900)              // the hash part
                case 2: return String(random.next() % 50) + ".5"              // floats
                default: return "'k" + String(random.next() % 40) + "'"       // strings
                }
            }
            // No string keys at the start: their places (so the order `next` gives) follow the state's
            // seeded string hashes, different in every state; a fresh state's view must be one view.
            let start = (0..<Int(random.next() % 6)).map { _ in key(strings: false) }
            let churn = (0..<Int(3 + random.next() % 60)).map { _ in key() }
            let table = "{ " + Set(start).sorted().map { "[\($0)] = 0" }.joined(separator: ", ") + " }"
            // Inserts then removals of keys the table did not hold at the start: its contents end as they began.
            let body = """
                local order = {}
                local k = next(t)
                while k ~= nil do order[#order + 1] = tostring(k); k = next(t, k) end
                detail = #t .. ':' .. table.concat(order, ',')
                local added = {}
                for _, key in ipairs({ \(churn.joined(separator: ", ")) }) do
                  if t[key] == nil then t[key] = 1; added[#added + 1] = key end
                end
                for i = #added, 1, -1 do if \(random.next() % 2 == 0 ? "i % 2 == 0" : "true") then t[added[i]] = nil end end
                for i = 1, #added do t[added[i]] = nil end
                """
            let name = "random-\(seed)"
            try fixture.pack(name, files: [
                "leak.lua": """
                    local t = \(table)
                    return { id = "leak", badge = "5k", repeatable = true,
                      earned = function(run, ctx)
                        local detail
                        \(body)
                        return { detail = detail }
                      end }
                    """,
            ])
            names.append(name)
        }
        // One run each, so that each athlete's view is read once, of the table as the state holds it.
        let single = Self.athletes.flatMap { $0 }.map { [$0] }
        for name in names {
            _ = assertSameAsFresh(fixture.engine([name]), athletes: single + single)
        }
    }

    /// Memory: garbage an athlete's rules made is not counted against the next (the cap is that of a
    /// fresh state), and the cap still stops a rule that holds too much after reuse; instruction
    /// budgets are per call. A pack that writes nothing shared keeps its state throughout.
    func testBudgetsAreAFreshStatesAfterReuse() throws {
        let fixture = try PackFixture()
        try fixture.pack("heavy", files: [
            "heavy.lua": """
                return { id = "heavy", badge = "5k", repeatable = true,
                  earned = function(run)
                    local parts = {}
                    local size = run.id == "big" and 80 or 5
                    for i = 1, size do parts[i] = string.rep(run.id, 100000) .. i end
                    local n = 0
                    for i = 1, 200000 do n = n + i end
                    return { detail = tostring(#parts) .. " " .. tostring(n) }
                  end }
                """,
        ])
        let engine = fixture.engine(["heavy"], limits: RuleEngine.Limits(instructionsPerCall: 2_000_000, memoryBytes: 16 << 20))
        var athletes = Array(repeating: [makeRun("x1", day: 0, distance: 6_000), makeRun("x2", day: 1, distance: 6_000)], count: 6)
        let reused = assertSameAsFresh(engine, athletes: athletes)
        XCTAssertEqual(reused.statesLoaded, 1)
        XCTAssertEqual(reused.reusedEvaluations, 5)
        athletes.append([makeRun("big", day: 0, distance: 6_000)])
        athletes.append([makeRun("x3", day: 0, distance: 6_000)])
        let stopped = engine.evaluate(runs: [makeRun("big", day: 0, distance: 6_000)])
        XCTAssertTrue(stopped.failures.first?.message.contains("memory limit exceeded") == true, "\(stopped.failures)")
        _ = assertSameAsFresh(engine, athletes: athletes)
    }

    /// Lua's heap in a reused state (sandbox.c's allocator): objects of many small sizes (strings
    /// of 0 to 300 bytes, tables that grow from nothing and shrink back, closures) made, dropped and
    /// collected athlete after athlete in one state, their contents read back after the collector
    /// ran. Each athlete's result is a fresh state's, and the memory cap still stops a rule that
    /// holds too much after the churn.
    func testChurnedObjectsHoldWhatEachObjectHeld() throws {
        let fixture = try PackFixture()
        try fixture.pack("churn", files: [
            "churn.lua": """
                return { id = "churn", badge = "5k", repeatable = true,
                  earned = function(run)
                    local seed = #run.id * 7 + math.floor(run.distance_m) % 97
                    local kept, sum = {}, 0
                    for round = 1, 6 do
                      local made = {}
                      for size = 0, 300, 3 do
                        local text = string.rep(string.char(65 + (size + seed + round) % 26), size)
                        local t = {}
                        for i = 1, size % 23 do t[i] = text:sub(i, i + size % 5) end
                        for i = 1, size % 23, 2 do t[i] = nil end
                        t.k = size; t[text] = size
                        local f = function() return size + round end
                        made[#made + 1] = { text = text, t = t, f = f }
                      end
                      kept[round] = made[(seed + round) % #made + 1]
                      -- Garbage enough for the collector to run its cycles between rounds (rules
                      -- have no collectgarbage): the dropped objects' blocks are then kept and reused.
                      made = nil
                      for g = 1, 3000 do local _ = { g, tostring(g) } end
                    end
                    for round, item in ipairs(kept) do
                      local size = #item.text
                      assert(item.t.k == size and item.t[item.text] == size and item.f() == size + round, "a kept object changed")
                      for i = 2, size % 23, 2 do assert(item.t[i] == item.text:sub(i, i + size % 5), "a kept table entry changed") end
                      sum = sum + size * round + (item.text:byte(1) or 0)
                    end
                    return { detail = tostring(sum) }
                  end }
                """,
        ])
        let engine = fixture.engine(["churn"], limits: RuleEngine.Limits(instructionsPerCall: 20_000_000, memoryBytes: 16 << 20))
        var athletes = (0..<12).map { a in
            (0..<(a % 3 + 1)).map { r in makeRun("p\(a)-\(r)" + String(repeating: "x", count: a), day: r, distance: Double(5_100 + a * 131 + r * 17)) }
        }
        let reused = assertSameAsFresh(engine, athletes: athletes)
        XCTAssertEqual(reused.statesLoaded, 1)
        let first = engine.evaluate(runs: athletes[0])
        XCTAssertEqual(first.failures, [])
        XCTAssertEqual(first.awards.count, 1)
        // Then a rule holding more than the cap, in the same kind of state: stopped, and the next
        // athlete is a fresh state's again.
        try fixture.pack("hold", files: [
            "hold.lua": """
                return { id = "hold", badge = "10k", repeatable = true,
                  earned = function(run)
                    local parts = {}
                    local count = run.id == "big" and 400000 or 10
                    for i = 1, count do parts[i] = { i } end
                    return { detail = tostring(#parts) }
                  end }
                """,
        ])
        let both = fixture.engine(["churn", "hold"], limits: RuleEngine.Limits(instructionsPerCall: 20_000_000, memoryBytes: 16 << 20))
        athletes.insert([makeRun("big", day: 0, distance: 12_000)], at: 4)
        _ = assertSameAsFresh(both, athletes: athletes)
        let stopped = both.evaluate(runs: [makeRun("big", day: 0, distance: 12_000)])
        XCTAssertTrue(stopped.failures.contains { $0.message.contains("memory limit exceeded") }, "\(stopped.failures)")
    }

    /// The shipped packs leave nothing shared behind: one state serves every athlete.
    func testShippedPacksKeepOneState() throws {
        let root = CheckpointsPackTests.repoRoot
        let catalogue = try Catalogue.load(path: root.appendingPathComponent("badges.json").path)
        // Every shipped pack, read from rules/ (a pack added later is in this test too).
        let rules = root.appendingPathComponent("rules")
        let packs = try FileManager.default.contentsOfDirectory(atPath: rules.path).sorted()
            .filter { FileManager.default.fileExists(atPath: rules.appendingPathComponent($0 + "/pack.lua").path) }
            .map { rules.appendingPathComponent($0).path }
        XCTAssertGreaterThanOrEqual(packs.count, 7)
        let engine = RuleEngine(packDirectories: packs, catalogue: catalogue)
        XCTAssertEqual(engine.loadFailures, [])
        let athletes = (0..<6).map { a in
            (0..<(a + 1) * 3).map { r in makeRun("a\(a)-\(r)", day: r * 2 + a, distance: Double(3_000 + (r * 7_919 + a * 1_013) % 40_000)) }
        }
        let reused = assertSameAsFresh(engine, athletes: athletes)
        XCTAssertEqual(reused.statesLoaded, 1)
        XCTAssertEqual(reused.reusedEvaluations, athletes.count - 1)
    }
}
