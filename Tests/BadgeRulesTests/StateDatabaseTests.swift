import RunFixtures
import Foundation
import GRDB
import XCTest

@testable import BadgeRules

/// The state database (`state.sqlite`): moving a format-1 folder to it, and additions that touch
/// only the rows that change.
final class StateDatabaseTests: XCTestCase {
    /// A path for a state folder (not made yet: the store makes it), removed when the test ends.
    func temporaryFolder() throws -> String {
        let folder = try TemporaryFolder()
        addTeardownBlock { folder.remove() }
        return folder.path + "/state"
    }

    func plain(_ awards: [Award]) -> [Award] { awards.map { var a = $0; a.measures = []; return a } }

    /// A folder saved in format 1 (`state.json` and `runs.index`, as badgectl wrote them before the
    /// database) is moved to the database on its first read, silently: the same state, the old files
    /// renamed `*.old`, and additions go on from it to the awards of a full evaluation.
    func testAFormatOneFolderIsMovedToTheDatabase() throws {
        let engine = try IncrementalStateTests.shippedEngine()
        let runs = IncrementalStateTests.history(seed: 11, count: 14, engine: engine, prefix: "m")
        let store = StateStore(directory: try temporaryFolder())
        let evaluator = IncrementalEvaluator(engine: engine, store: store, zone: "UTC")
        _ = try evaluator.start(Array(runs[..<10]))
        let before = try store.loadState()
        try IncrementalStateTests.downgrade(store)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.statePath))
        let legacy = try String(contentsOfFile: store.legacyStatePath, encoding: .utf8)
        XCTAssertTrue(legacy.contains(#""format":1"#), String(legacy.prefix(200)))

        var after = try store.loadState()
        XCTAssertEqual(after.format, StateStore.format)
        after.format = before.format
        XCTAssertEqual(after, before)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.statePath))
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.legacyStatePath))
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.legacyStatePath + ".old"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.indexPath + ".old"))

        // Straight to an addition, as `badgectl add` meets an old folder.
        try FileManager.default.removeItem(atPath: store.statePath)
        try FileManager.default.moveItem(atPath: store.legacyStatePath + ".old", toPath: store.legacyStatePath)
        try FileManager.default.moveItem(atPath: store.indexPath + ".old", toPath: store.indexPath)
        for i in 10..<runs.count {
            let update = try evaluator.add([runs[i]])
            XCTAssertNil(update.replayed)
        }
        XCTAssertEqual(plain(try store.awards()), plain(engine.evaluate(runs: runs).awards))
    }

    /// A pack whose fold keeps a total per week (a map that grows with the history), awards every
    /// third run and gives a `finish` award to the longest run.
    func weeklyPack() throws -> PackFixture {
        let fixture = try PackFixture()
        try fixture.pack("weekly", files: ["weeks.lua": """
            return { id = "weeks", badge = "lifetime-20k", repeatable = true,
              init = function() return { n = 0, totals = {}, days = {} } end,
              on_run = function(state, run, award)
                state.n = state.n + 1
                local week = run.id:sub(1, 3)
                state.totals[week] = (state.totals[week] or 0) + run.distance_m
                state.days["d" .. run.id] = run.distance_m
                if state.n % 3 == 0 then award { run = run, detail = week } end
                if state.longest == nil or run.distance_m > state.longest.distance_m then state.longest = run end
              end,
              finish = function(state, award)
                if state.longest then award { run = state.longest, tier = "best" } end
              end }
            """])
        return fixture
    }

    /// Adding one run writes the same rows whether the history holds 101 or 302 runs: the header,
    /// the run, the rule's row, the award it made (its tier is held already), the `finish` award that
    /// moved (old row deleted, new one inserted) and its withdrawal recorded, and the one key of the map
    /// of days (kept one key a row) it wrote. Counted through the database's change counter.
    func testAnAdditionTouchesOnlyTheRowsThatChange() throws {
        let fixture = try weeklyPack()
        let engine = fixture.engine(["weekly"])
        var written: [Int] = []
        for count in [101, 302] {
            let store = StateStore(directory: try temporaryFolder())
            let evaluator = IncrementalEvaluator(engine: engine, store: store, zone: "UTC")
            // Run n of week w is "w<3 digits>-n"; each run a little longer than the last.
            let history = (0..<count).map { i in makeRun(String(format: "%03d-%d", i / 7, i), day: i, distance: 1000 + Double(i)) }
            _ = try evaluator.start(history)
            // Run count + 1 is the third of a triple only when count % 3 == 2: both 101 and 302 are.
            let next = makeRun(String(format: "%03d-%d", count / 7, count), day: count, distance: 5000)
            let update = try evaluator.add([next])
            XCTAssertNil(update.replayed)
            XCTAssertEqual(update.added.map(\.tier), ["earned", "best"], "\(count)")
            XCTAssertEqual(update.withdrawn.map(\.tier), ["best"], "\(count)")
            XCTAssertEqual(plain(try store.awards()), plain(engine.evaluate(runs: history + [next]).awards))
            written.append(update.rowsWritten)
            XCTAssertEqual(try store.database().queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM state_key WHERE path = 'days'") }, count + 1)
        }
        // header 1, run 1, rule 1, award 1, held 0, finish: 1 deleted + 1 inserted, state_key 1, and the
        // best taken back recorded (withdrawn 1).
        XCTAssertEqual(written, [8, 8])
    }

    /// A rule that reads and writes a large map every way a rule can: by key, nil deletes, pairs,
    /// next, #, ipairs, rawget, rawset, rawlen; each award's detail says what it saw.
    func mapPack() throws -> PackFixture {
        let fixture = try PackFixture()
        try fixture.pack("maps", files: ["map.lua": """
            return { id = "map", badge = "lifetime-20k", repeatable = true,
              init = function()
                local m, keyed = { x = 1 }, {}
                for i = 1, 100 do m[i] = i * 2; keyed["d" .. i] = i end
                return { n = 0, m = m, keyed = keyed }
              end,
              on_run = function(state, run, award)
                local m, n = state.m, state.n + 1
                state.n = n
                m[100 + n] = n
                m["k" .. n] = n * 1.5
                if n > 3 then m["k" .. (n - 3)] = nil end
                local count, sum = 0, 0
                for k, v in pairs(m) do count = count + 1; sum = sum + v end
                local stepped, k = 0, next(m)
                while k ~= nil do stepped = stepped + 1; k = next(m, k) end
                local listed = 0
                for _, v in ipairs(m) do listed = listed + 1 end
                rawset(m, "r" .. n, n)
                -- Only by key: the other map is never read whole.
                local keyed = state.keyed
                keyed["d" .. (n % 100 + 1)] = (keyed["d" .. (n % 100 + 1)] or 0) + 1
                if n % 7 == 0 then keyed["d" .. (n % 50 + 1)] = nil end
                award { run = run, detail = string.format("%d %d %g %d %d %s %s %d %s %s", count, stepped, sum, #m, listed,
                  tostring(rawget(m, 5)), tostring(m["k" .. (n - 3)]), rawlen(m), tostring(keyed["d" .. (n % 100 + 1)]),
                  tostring(keyed["d" .. (n % 50 + 1)])) }
              end }
            """])
        return fixture
    }

    /// The saved maps behave as plain tables: a history evaluated whole (plain tables) and the
    /// same runs added one at a time to a saved state (its large maps read by key through the
    /// proxy) give the same awards, and the maps are kept one key a row.
    func testSavedMapsBehaveAsPlainTables() throws {
        let fixture = try mapPack()
        let engine = fixture.engine(["maps"])
        let runs = (0..<12).map { makeRun(String(format: "r%02d", $0), day: $0, distance: 3000) }
        let store = StateStore(directory: try temporaryFolder())
        let evaluator = IncrementalEvaluator(engine: engine, store: store, zone: "UTC")
        _ = try evaluator.start(Array(runs[..<2]))
        let rows = try store.database().queue.read { try String.fetchAll($0, sql: "SELECT DISTINCT path FROM state_key ORDER BY path") }
        XCTAssertEqual(rows, ["keyed", "m"])
        for i in 2..<runs.count {
            let update = try evaluator.add([runs[i]])
            XCTAssertNil(update.replayed)
            XCTAssertEqual(update.evaluation.failures, [])
            let full = engine.evaluate(runs: Array(runs[...i]))
            XCTAssertEqual(full.failures, [])
            XCTAssertEqual(update.added.map(\.detail), [full.awards.last?.detail ?? ""], "run \(i)")
        }
        XCTAssertEqual(plain(try store.awards()), plain(engine.evaluate(runs: runs).awards))
        // The whole state read back equals a full evaluation's.
        let whole = try store.loadState().rules.first?.state
        XCTAssertEqual(whole, engine.evaluateKeepingState(runs: runs).rules.first?.state)
    }

    /// A table written into a saved map (not a number or a boolean) puts the whole map back into the
    /// rule's state, once: the state stays saved (no replay on the next add) and equals a full evaluation's.
    func testATableWrittenIntoASavedMapSavesTheMapWhole() throws {
        let fixture = try PackFixture()
        try fixture.pack("maps", files: ["map.lua": """
            return { id = "map", badge = "lifetime-20k", repeatable = true,
              init = function()
                local m = {}
                for i = 1, 100 do m["d" .. i] = i end
                return { n = 0, m = m }
              end,
              on_run = function(state, run, award)
                state.n = state.n + 1
                if state.n == 4 then state.m.note = { first = state.n, tags = { "a", "b" } } end
                local note = state.m.note
                award { run = run, detail = string.format("%d %s", state.n, note and note.tags[2] or "-") }
              end }
            """])
        let engine = fixture.engine(["maps"])
        let runs = (0..<8).map { makeRun(String(format: "r%02d", $0), day: $0, distance: 3000) }
        let store = StateStore(directory: try temporaryFolder())
        let evaluator = IncrementalEvaluator(engine: engine, store: store, zone: "UTC")
        _ = try evaluator.start(Array(runs[..<2]))
        let split = try store.database().queue.read { try String.fetchAll($0, sql: "SELECT DISTINCT path FROM state_key") }
        XCTAssertEqual(split, ["m"], "the map is kept one key a row before the table is written")
        for i in 2..<runs.count {
            let update = try evaluator.add([runs[i]])
            XCTAssertNil(update.replayed, "run \(i)")
            XCTAssertEqual(update.evaluation.failures, [], "run \(i)")
            XCTAssertNil(try store.loadState().rules.first?.unsaved, "run \(i)")
        }
        XCTAssertEqual(plain(try store.awards()), plain(engine.evaluate(runs: runs).awards))
        XCTAssertEqual(try store.loadState().rules.first?.state, engine.evaluateKeepingState(runs: runs).rules.first?.state)
    }

    /// A rule cannot reach the state database, nor the proxy's insides, through a saved map: its
    /// metatable is hidden and cannot be replaced, no debug library, and the loaders are not reachable.
    func testASavedMapIsOpaqueToAHostileRule() throws {
        let fixture = try PackFixture()
        var keys = ""
        for i in 1...80 { keys += "m.k\(i) = \(i); " }
        try fixture.pack("hostile", files: ["probe.lua": """
            return { id = "probe", badge = "lifetime-20k", repeatable = true,
              init = function() local m = {}; \(keys) return { m = m } end,
              on_run = function(state, run, award)
                local m = state.m
                local found = {}
                found[#found + 1] = "mt=" .. tostring(getmetatable(m))
                found[#found + 1] = "set=" .. tostring((pcall(setmetatable, m, nil)))
                found[#found + 1] = "debug=" .. tostring(debug)
                found[#found + 1] = "load=" .. tostring(load) .. "," .. tostring(require == nil)
                local fields = 0
                for k, v in pairs(m) do if type(v) ~= "number" then fields = fields + 1 end end
                found[#found + 1] = "odd=" .. fields
                found[#found + 1] = "raw=" .. tostring(rawget(m, "k3"))
                m.k1 = m.k1 + 1
                award { run = run, detail = table.concat(found, " ") }
              end }
            """])
        let engine = fixture.engine(["hostile"])
        let store = StateStore(directory: try temporaryFolder())
        let evaluator = IncrementalEvaluator(engine: engine, store: store, zone: "UTC")
        _ = try evaluator.start([makeRun("a", day: 0, distance: 3000)])
        XCTAssertEqual(try store.database().queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM state_key") }, 80)
        let update = try evaluator.add([makeRun("b", day: 1, distance: 3000)])
        XCTAssertEqual(update.evaluation.failures, [])
        XCTAssertEqual(update.added.map(\.detail), ["mt=false set=false debug=nil load=nil,false odd=0 raw=3"])
        // A plain table says nil for its metatable, the only difference (docs/rules.md says so).
        XCTAssertEqual(engine.evaluate(runs: [makeRun("a", day: 0, distance: 3000)]).awards.first?.detail,
                       "mt=nil set=true debug=nil load=nil,false odd=0 raw=3")
        XCTAssertEqual(try store.loadState().rules.first?.state.flatMap { state -> StateValue? in
            if case .table(let entries) = state { return entries.first { $0.key == .string("m") }?.value } else { return nil }
        }.map { value -> Int in if case .table(let entries) = value { return entries.count } else { return 0 } }, 80)
    }
}
