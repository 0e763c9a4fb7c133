import RunFixtures
import Foundation
import GRDB
import RunAnalysis
import RunFiles
import RunLibrary
import SyntheticRuns
import XCTest

@testable import BadgeRules

/// `evaluate --state` / `badgectl add`: saved fold states, `finish` on a copy, withdrawals, replays.
final class IncrementalStateTests: XCTestCase {
    static let root = CheckpointsPackTests.repoRoot.path

    /// Every shipped pack with the shipped catalogue.
    static func shippedEngine() throws -> RuleEngine {
        let catalogue = try Catalogue.load(path: root + "/badges.json")
        let packs = ["checkpoints", "segments", "lifetime", "habits"].map { root + "/rules/" + $0 }
        return RuleEngine(packDirectories: packs, catalogue: catalogue)
    }

    /// A path for a state folder (not made yet: the store makes it), removed when the test ends.
    func temporaryFolder() throws -> String {
        let folder = try TemporaryFolder()
        addTeardownBlock { folder.remove() }
        return folder.path + "/state"
    }

    /// A random history: runs of 1 to 22 km at 4:00 to 7:00 /km, a few hours to three days apart.
    static func history(seed: UInt64, count: Int, engine: RuleEngine, prefix: String) -> [RunSummary] {
        var random = SplitMix64(seed: seed)
        var analyzer = RunAnalyzer(checkpoints: engine.catalogue.checkpointTargets, measures: engine.measureDefinitions)
        analyzer.zone = TimeZone(identifier: "UTC")
        var start = 1_714_545_000.0
        return (0..<count).map { i in
            var generator = RunGenerator(seed: random.next(), distanceMeters: 1000 + Double(random.next() % 21_000),
                                         paceSecondsPerKilometre: 240 + Double(random.next() % 180))
            generator.sampling = .every(5)
            generator.startEpochSeconds = start
            start += 3 * 3600 + Double(random.next() % (3 * 86_400))
            let run = analyzer.summarize(generator.track(), id: "\(prefix)-\(i).gpx", zoneOffsetSeconds: nil)
            return RunAnalyzer.localise(run, zone: TimeZone(identifier: "UTC") ?? .current)
        }
    }

    /// Awards as a saved state keeps them (the measures read are not saved).
    func plain(_ awards: [Award]) -> [Award] { awards.map { var a = $0; a.measures = []; return a } }

    /// The property: for random histories split at random points, the state saved after the first
    /// part plus the remaining runs (added in random batches) gives at every step exactly the awards,
    /// statuses and next of a full evaluation, and the awards new and withdrawn are exactly the
    /// difference between the full evaluations before and after the step.
    func testSavedStatePlusRemainingRunsEqualsFullReplay() throws {
        let engine = try Self.shippedEngine()
        XCTAssertEqual(engine.loadFailures, [])
        var random = SplitMix64(seed: 19)
        var withdrawals = 0
        var steps = 0
        for trial in 0..<4 {
            let runs = Self.history(seed: random.next(), count: 10 + Int(random.next() % 10), engine: engine, prefix: "t\(trial)")
            let split = Int(random.next() % UInt64(runs.count))
            let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: try temporaryFolder()), zone: "UTC")
            let first = try evaluator.start(Array(runs[..<split]))
            var previous = engine.evaluate(runs: Array(runs[..<split]))
            XCTAssertEqual(plain(first.evaluation.awards), plain(previous.awards))
            var done = split
            while done < runs.count {
                let batch = min(runs.count - done, 1 + Int(random.next() % 3))
                let update = try evaluator.add(Array(runs[done..<(done + batch)]))
                done += batch
                steps += 1
                let full = engine.evaluate(runs: Array(runs[..<done]))
                let label = "trial \(trial), split \(split), after \(done) runs"
                XCTAssertNil(update.replayed, label)
                XCTAssertEqual(update.runCount, done, label)
                // The whole list is read from the state database; an addition reads and writes only what changed.
                XCTAssertEqual(plain(try evaluator.store.awards()), plain(full.awards), label)
                XCTAssertEqual(update.awardCount, full.awards.count, label)
                XCTAssertEqual(update.evaluation.statuses, full.statuses, label)
                XCTAssertEqual(update.evaluation.next, full.next, label)
                XCTAssertEqual(update.evaluation.failures, full.failures, label)
                let expected = IncrementalEvaluator.difference(before: previous.awards, after: full.awards)
                XCTAssertEqual(update.added.map(IncrementalEvaluator.identity), expected.added.map(IncrementalEvaluator.identity), label)
                XCTAssertEqual(update.withdrawn.map(IncrementalEvaluator.identity), expected.withdrawn.map(IncrementalEvaluator.identity), label)
                // Whole, as they were given (time, detail, evidence): `finish` awards are read as keys and
                // only those taken back are decoded.
                XCTAssertEqual(plain(update.withdrawn), plain(expected.withdrawn), label)
                withdrawals += update.withdrawn.count
                previous = full
            }
            // Adding a saved run again replays the history from the saved summaries: the same awards.
            if let last = runs.last {
                let replayed = try evaluator.add([last])
                XCTAssertEqual(replayed.replayed, "run '\(last.id)' is already saved")
                XCTAssertEqual(plain(replayed.evaluation.awards), plain(previous.awards), "trial \(trial): replay")
                XCTAssertEqual(replayed.withdrawn, [])
                XCTAssertEqual(replayed.added, [])
            }
        }
        XCTAssertGreaterThan(steps, 10)
        // `best` moved at least once: the withdrawals were really exercised.
        XCTAssertGreaterThan(withdrawals, 0)
    }

    func testChangedPackOlderRunAndDuplicateReplay() throws {
        let fixture = try PackFixture()
        try fixture.pack("count", files: ["total.lua": """
            return { id = "total", badge = "lifetime-20k",
              init = function() return { total_m = 0, longest = nil } end,
              on_run = function(state, run, award)
                state.total_m = state.total_m + run.distance_m
                if state.longest == nil or run.distance_m > state.longest.distance_m then state.longest = run end
              end,
              finish = function(state, award)
                if state.longest then award { run = state.longest, tier = "best", detail = state.longest.id } end
              end }
            """])
        let engine = fixture.engine(["count"])
        let folder = try temporaryFolder()
        let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: folder), zone: "UTC")
        _ = try evaluator.start([makeRun("a", day: 0, distance: 3000), makeRun("b", day: 1, distance: 6000)])
        // The longest run is kept by id and comes back as the run: a longer one moves `best`.
        let longer = try evaluator.add([makeRun("c", day: 2, distance: 9000)])
        XCTAssertNil(longer.replayed)
        XCTAssertEqual(longer.withdrawn.map(\.run), ["b"])
        XCTAssertEqual(longer.added.map(\.run), ["c"])
        XCTAssertEqual(longer.added.first?.detail, "c")
        let shorter = try evaluator.add([makeRun("d", day: 3, distance: 1000)])
        XCTAssertEqual(shorter.added, [])
        XCTAssertEqual(shorter.withdrawn, [])
        XCTAssertEqual(shorter.evaluation.awards.map(\.run), ["c"])

        let older = try evaluator.add([makeRun("e", day: -1, distance: 500)])
        XCTAssertEqual(older.replayed, "run 'e' starts before the last saved run 'd'")
        XCTAssertEqual(older.runCount, 5)
        let again = try evaluator.add([makeRun("d", day: 3, distance: 1000)])
        XCTAssertEqual(again.replayed, "run 'd' is already saved")
        XCTAssertEqual(again.runCount, 5)

        try fixture.pack("count", files: ["total.lua": """
            return { id = "total", badge = "lifetime-20k",
              on_run = function(state, run, award) if run.distance_m > 8000 then award { run = run } end end }
            """])
        let changed = IncrementalEvaluator(engine: fixture.engine(["count"]), store: StateStore(directory: folder), zone: "UTC")
        let replayed = try changed.add([makeRun("f", day: 9, distance: 2000)])
        XCTAssertEqual(replayed.replayed, "pack 'count' changed")
        XCTAssertEqual(replayed.withdrawn.map(\.tier), ["best"])
        XCTAssertEqual(replayed.added.map(\.tier), ["earned"])
        XCTAssertThrowsError(try IncrementalEvaluator(engine: engine, store: StateStore(directory: folder), zone: "Europe/Paris").add([])) { error in
            XCTAssertTrue("\(error)".contains("made with the time zone UTC"), "\(error)")
        }
    }

    func testStateThatIsNotPlainDataIsNamedAndReplays() throws {
        let fixture = try PackFixture()
        try fixture.pack("keep", files: ["split.lua": """
            return { id = "split", badge = "5k",
              on_run = function(state, run, award)
                state.runs = (state.runs or 0) + 1
                state.first = state.first or run.splits_km[1]
              end }
            """])
        let engine = fixture.engine(["keep"])
        let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: try temporaryFolder()), zone: "UTC")
        _ = try evaluator.start([makeRun("a", day: 0, distance: 3000)])
        let saved = try evaluator.store.loadState()
        XCTAssertEqual(saved.rules.first?.unsaved, "state.first: a split (a record of a run; keep the run, or the numbers you need)")
        let added = try evaluator.add([makeRun("b", day: 1, distance: 3000)])
        XCTAssertEqual(added.replayed, "rule 'split' of pack 'keep' has no saved state (state.first: a split (a record of a run; keep the run, or the numbers you need))")
    }

    /// A rule that fails on an added run takes back every award it gave, each once, whole: its
    /// `on_run` awards and its `finish` awards (read as keys for the addition).
    func testARuleThatFailsOnAnAddedRunTakesEachAwardBackOnce() throws {
        let fixture = try PackFixture()
        try fixture.pack("fragile", files: ["longest.lua": """
            return { id = "longest", badge = "5k",
              on_run = function(state, run, award)
                if run.distance_m > 9000 then error("too long for this rule") end
                state.count = (state.count or 0) + 1
                if state.count == 1 then award { run = run, detail = "first" } end
                if not state.best or run.distance_m > state.best.distance_m then state.best = run end
                return state
              end,
              finish = function(state, award)
                if state.best then award { run = state.best, tier = "best", detail = "longest so far" } end
              end }
            """])
        let engine = fixture.engine(["fragile"])
        let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: try temporaryFolder()), zone: "UTC")
        let started = try evaluator.start([makeRun("a", day: 0, distance: 3000), makeRun("b", day: 1, distance: 5000)])
        XCTAssertEqual(started.evaluation.awards.map { "\($0.tier) \($0.run)" }, ["earned a", "best b"])
        let failed = try evaluator.add([makeRun("c", day: 2, distance: 10000)])
        XCTAssertNil(failed.replayed)
        // (In any order: run a is not among the runs the state names, so the addition has no position for it.)
        XCTAssertEqual(failed.withdrawn.map { "\($0.tier) \($0.run) \($0.detail)" }.sorted(), ["best b longest so far", "earned a first"])
        XCTAssertEqual(try evaluator.store.awards(), [])
    }

    /// A rule that keeps a count in a file-level local, outside its state: its state cannot be saved.
    static let counterRule = """
        local seen = { count = 0 }
        local function remember() seen.count = seen.count + 1 end
        return { id = "counter", badge = "5k",
          on_run = function(state, run, award) remember(); if seen.count == 2 then award { run = run } end end }
        """

    /// In a loaded state reused over athletes (`worker --state-dir`), the rules' outside values are
    /// not compared rule by rule: the reset's check stands in, and an evaluation whose reset finds a
    /// change is made again fresh. The saved states are the fresh path's, for a pack that keeps a
    /// counter outside its state and for one that does not, athlete after athlete.
    func testFileLevelLocalsAreCaughtInAReusedState() throws {
        let fixture = try PackFixture()
        try fixture.pack("outside", files: [
            "counter.lua": Self.counterRule,
        ])
        try fixture.pack("clean", files: [
            "total.lua": """
                local TIERS = { "earned" }
                return { id = "total", badge = "marathon",
                  on_run = function(state, run, award) state.n = (state.n or 0) + #TIERS; if state.n == 2 then award { run = run } end end }
                """,
        ])
        for packs in [["outside"], ["clean"], ["outside", "clean"]] {
            let engine = fixture.engine(packs)
            let reused = ReusedEvaluator(engine: engine)
            for athlete in 0..<3 {
                let runs = (0...athlete + 1).map { makeRun("r\($0)", day: $0, distance: 3000) }
                let fresh = IncrementalEvaluator(engine: engine, store: StateStore(directory: try temporaryFolder()), zone: "UTC")
                let kept = IncrementalEvaluator(engine: engine, store: StateStore(directory: try temporaryFolder()), zone: "UTC")
                let a = try fresh.start(runs), b = try kept.start(runs, reusing: reused)
                XCTAssertEqual(b.evaluation.awards, a.evaluation.awards, "\(packs) athlete \(athlete)")
                XCTAssertEqual(try kept.store.loadState().rules, try fresh.store.loadState().rules, "\(packs) athlete \(athlete)")
                XCTAssertEqual(b.evaluation.notes, a.evaluation.notes, "\(packs) athlete \(athlete)")
                let more = makeRun("r9", day: 9, distance: 3000)
                let c = try fresh.add([more]), d = try kept.add([more], reusing: reused)
                XCTAssertEqual(d.added, c.added, "\(packs) athlete \(athlete)")
                XCTAssertEqual(d.replayed, c.replayed, "\(packs) athlete \(athlete)")
            }
            if packs == ["clean"] { XCTAssertEqual(reused.statesLoaded, 1, "a pack that keeps nothing outside reuses one state") }
        }
        let counter = try fixture.engine(["outside"])
        let kept = IncrementalEvaluator(engine: counter, store: StateStore(directory: try temporaryFolder()), zone: "UTC")
        _ = try kept.start([makeRun("a", day: 0, distance: 3000)], reusing: ReusedEvaluator(engine: counter))
        XCTAssertEqual(try kept.store.loadState().rules.first?.unsaved,
                       "its file-level local 'seen' (of on_run > remember) changed while it ran: only what init/on_run return is saved; keep it in the state")
    }

    func testFileLevelLocalsAndGlobalsAreCaught() throws {
        let fixture = try PackFixture()
        try fixture.pack("outside", files: [
            "counter.lua": Self.counterRule,
            "global.lua": """
                LIMIT = 3
                return { id = "global", badge = "10k",
                  on_run = function(state, run, award) FOUND = run.id end }
                """,
            "fine.lua": """
                local TIERS = { "earned" }
                return { id = "fine", badge = "marathon",
                  on_run = function(state, run, award) state.n = (state.n or 0) + #TIERS + LIMIT end }
                """,
        ])
        let evaluator = IncrementalEvaluator(engine: fixture.engine(["outside"]), store: StateStore(directory: try temporaryFolder()), zone: "UTC")
        let started = try evaluator.start([makeRun("a", day: 0, distance: 3000)])
        XCTAssertEqual(started.evaluation.failures.map(\.rule), ["global"])
        XCTAssertTrue(started.evaluation.failures.first?.message.hasPrefix("pack globals are frozen after loading: a rule cannot set 'FOUND'") ?? false,
                      "\(started.evaluation.failures)")
        let saved = try evaluator.store.loadState()
        let counter = saved.rules.first { $0.rule == "counter" }
        XCTAssertEqual(counter?.unsaved, "its file-level local 'seen' (of on_run > remember) changed while it ran: only what init/on_run return is saved; keep it in the state")
        XCTAssertNil(saved.rules.first { $0.rule == "fine" }?.unsaved)
        XCTAssertTrue(started.evaluation.notes.contains { $0.rule == "counter" && $0.message.hasPrefix("state not saved") })
        let added = try evaluator.add([makeRun("b", day: 1, distance: 3000)])
        XCTAssertEqual(added.replayed?.hasPrefix("rule 'counter' of pack 'outside' has no saved state"), true)
        XCTAssertEqual(added.evaluation.awards.map(\.run), ["b"])
    }

    func testStateJSONReadsWhatTheDecoderReads() throws {
        let value = StateValue.table([
            StateEntry(key: .integer(1), value: .array([.float(0.25), .float(3), .float(.infinity), .integer(-7), .null, .boolean(true)])),
            StateEntry(key: .string("we\"ek\\ \u{e9}"), value: .table([StateEntry(key: .string("2024-W01"), value: .float(1234.5))])),
            StateEntry(key: .string("run"), value: .run("a/b.gpx")),
            StateEntry(key: .boolean(false), value: .string("")),
        ])
        var rule = RuleState(pack: "p", rule: "r", fold: true)
        rule.state = value
        let state = SavedState(format: 1, zone: "UTC", folder: nil, packs: [], runCount: 0, lastRun: nil, runsBytes: 0, indexBytes: 0,
                               rules: [rule, RuleState(pack: "p", rule: "q", fold: false)])
        let data = try StateStore.encode(state)
        XCTAssertEqual(try StateJSON.ruleStates(in: data, source: "state.json"), [value, nil])
        XCTAssertEqual(try StateStore.decoder().decode(SavedState.self, from: data, source: "state.json").rules.first?.state, value)
        XCTAssertThrowsError(try StateJSON.ruleStates(in: Data(#"{"rules":[{"state":{"id":1}}]}"#.utf8), source: "state.json"))
        // Lua integers past 2^53 keep every digit.
        XCTAssertEqual(try StateJSON.ruleStates(in: Data(#"{"rules":[{"state":[9007199254740993, -0.5]}]}"#.utf8), source: "s"),
                       [.array([.integer(9_007_199_254_740_993), .float(-0.5)])])
    }

    /// A format-1 `state.json` is read through the one JSON parser (JSONText's) when it is moved to
    /// the database: a key written twice, in a state's map or anywhere else in the file, and invalid
    /// UTF-8 are refused naming the file and the byte (JSONDecoder and the old reader kept both keys
    /// of a map, or the last one).
    func testStateRefusesRepeatedKeysAndInvalidUTF8SayingWhere() throws {
        let folder = try temporaryFolder()
        let store = StateStore(directory: folder)
        _ = try IncrementalEvaluator(engine: try Self.shippedEngine(), store: store, zone: "UTC").start([makeRun("a", day: 0, distance: 3000)])
        try Self.downgrade(store)
        let path = store.legacyStatePath
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let brace = text.firstIndex(of: "{") else { return XCTFail(text) }
        let offset = text.utf8.distance(from: text.utf8.startIndex, to: brace) + 1
        try (#"{"zone":"UTC","# + text.dropFirst(offset)).write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try store.loadState()) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains(path), message)
            XCTAssertTrue(message.contains("byte "), message)
            XCTAssertTrue(message.contains("duplicate key 'zone' in an object"), message)
        }
        XCTAssertThrowsError(try StateJSON.ruleStates(in: Data(#"{"rules":[{"state":{"map":{"a":1,"a":2}}}]}"#.utf8), source: "state.json")) { error in
            XCTAssertEqual("\(error)", "state.json (byte 33): duplicate key 'a' in an object")
        }
        XCTAssertThrowsError(try StateJSON.ruleStates(in: Data([UInt8](#"{"rules":[{"state":""#.utf8) + [0xC3, 0x28] + [UInt8](#""}]}"#.utf8)), source: "state.json")) { error in
            XCTAssertEqual("\(error)", "state.json (byte 20): a string that is not valid UTF-8")
        }
    }

    /// Turns a state folder back into format 1 (`state.json` and `runs.index`, written as badgectl
    /// wrote them before the state database: `StateStore.encode`, one index line per run), for the
    /// migration tests.
    static func downgrade(_ store: StateStore) throws {
        var state = try store.loadState()
        var index = Data()
        for entry in try store.database().allRuns() {
            func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "-" }
            let fields = [number(entry.startSeconds), number(entry.elapsedSeconds), number(entry.distanceMeters),
                          String(entry.offset), String(entry.length), StateStore.escape(entry.id)]
            index.append(contentsOf: Array((fields.joined(separator: "\t") + "\n").utf8))
        }
        state.format = StateStore.legacyFormat
        state.indexBytes = index.count
        try index.write(to: URL(fileURLWithPath: store.indexPath))
        try StateStore.encode(state).write(to: URL(fileURLWithPath: store.legacyStatePath))
        try FileManager.default.removeItem(atPath: store.statePath)
    }

    /// Run ids are found in the state by any bytes they hold (quotes, backslashes, control
    /// characters, non-ASCII: the id lists an addition hands SQLite are JSON), and an addition after
    /// such runs follows the history as it would after plain ids.
    func testRunIdsWithAnyCharactersAreFoundInTheState() throws {
        let engine = try Self.shippedEngine()
        let odd = ["quote\"d", "back\\slash", "tab\there", "line\nbreak", "bell\u{07}", "Ödön ☃", "\u{1F3C3} run", "[\"a\",1]", "plain"]
        var runs = Self.history(seed: 23, count: odd.count + 1, engine: engine, prefix: "o")
        for (i, id) in odd.enumerated() { runs[i].id = id }
        let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: try temporaryFolder()), zone: "UTC")
        _ = try evaluator.start(Array(runs[..<odd.count]))
        XCTAssertEqual(try evaluator.store.holds(Set(odd + ["missing", "quote"])), Set(odd))
        let added = try evaluator.add([runs[odd.count]])
        XCTAssertNil(added.replayed)
        XCTAssertEqual(plain(try evaluator.store.awards()), plain(engine.evaluate(runs: runs).awards))
        // Each odd id given again is found as saved: a replay, not a second copy.
        for id in odd {
            var again = runs[odd.firstIndex(of: id)!]
            again.id = id
            XCTAssertEqual(try evaluator.add([again]).replayed, "run '\(id)' is already saved", id)
        }
        XCTAssertEqual(try evaluator.store.loadHeader().runCount, runs.count)
    }

    func testConcurrentAdditionsTakeTurns() throws {
        let engine = try Self.shippedEngine()
        let runs = Self.history(seed: 5, count: 10, engine: engine, prefix: "c")
        let folder = try temporaryFolder()
        let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: folder), zone: "UTC")
        _ = try evaluator.start(Array(runs[..<4]))
        final class Failures: @unchecked Sendable {
            let lock = NSLock()
            var messages: [String] = []
            func add(_ text: String) { lock.lock(); messages.append(text); lock.unlock() }
        }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 6) { i in
            do { _ = try evaluator.add([runs[4 + i]]) } catch { failures.add("\(error)") }
        }
        XCTAssertEqual(failures.messages, [])
        let state = try evaluator.store.loadState()
        XCTAssertEqual(state.runCount, 10)
        XCTAssertEqual(try evaluator.store.database().allRuns().map(\.id), runs.map(\.id))
        let final = try evaluator.add([runs[9]])  // a saved id: a replay from what was saved
        XCTAssertEqual(plain(final.evaluation.awards), plain(engine.evaluate(runs: runs).awards))
    }

    func testPlainValuesRoundTrip() throws {
        let fixture = try PackFixture()
        try fixture.pack("values", files: ["all.lua": """
            return { id = "all", badge = "5k",
              init = function() return { n = 0 } end,
              on_run = function(state, run, award)
                if state.n == 0 then
                  state.float = 3.0
                  state.half = 0.5
                  state.big = 2^70
                  state.list = { 1, "two", true, { deep = { run } } }
                  state[7] = "seven"
                  state[true] = false
                end
                state.n = state.n + 1
                state.last = run
                if state.n == 3 then
                  assert(math.type(state.float) == "float" and math.type(state.n) == "integer" and state.half == 0.5)
                  assert(state.list[4].deep[1].id == "a" and state.list[2] == "two" and state[7] == "seven" and state[true] == false)
                  award { run = run, detail = ("%s %s %s"):format(state.n, state.float, state.big) }
                end
              end }
            """])
        let evaluator = IncrementalEvaluator(engine: fixture.engine(["values"]), store: StateStore(directory: try temporaryFolder()), zone: "UTC")
        _ = try evaluator.start([makeRun("a", day: 0, distance: 3000), makeRun("b", day: 1, distance: 3000)])
        let update = try evaluator.add([makeRun("c", day: 2, distance: 3000)])
        XCTAssertEqual(update.evaluation.failures, [])
        XCTAssertEqual(update.added.map(\.detail), ["3 3.0 1.1805916207174e+21"])
        let text = try evaluator.store.database().queue.read { try String.fetchOne($0, sql: "SELECT state FROM rule WHERE rule = 'all'") } ?? ""
        XCTAssertTrue(text.contains(#"["float",{"float":"3.0"}]"#), text)
        XCTAssertTrue(text.contains(#"["last",{"run":"c"}]"#), text)
        XCTAssertTrue(text.contains(#"[1,"two",true,{"map":{"deep":[{"run":"a"}]}}]"#), text)
    }
}
