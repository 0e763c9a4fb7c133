@testable import BadgeRules
import Foundation
import GRDB
import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// A worker's store (`AthleteStore`, `worker --state-dir`): many athletes' states in shared shard
/// databases give, step for step, what a state folder of their own gives; a folder of the earlier
/// layout moves in whole; a state database of layout 3 is moved to layout 4 where it is.
final class AthleteStoreTests: XCTestCase {
    func plain(_ awards: [Award]) -> [Award] { awards.map { var a = $0; a.measures = []; return a } }

    func temporaryFolder() throws -> String {
        let folder = try TemporaryFolder()
        addTeardownBlock { folder.remove() }
        return folder.path
    }

    /// What a step gave, to compare a folder's with the store's.
    func outcome(_ update: StateUpdate) -> [String] {
        ["runs \(update.runCount)", "awards \(update.awardCount)", "replayed \(update.replayed ?? "-")"]
            + plain(update.added).map { "+ " + IncrementalEvaluator.identity($0) } + plain(update.withdrawn).map { "- " + IncrementalEvaluator.identity($0) }
    }

    /// The property: 20 athletes (so that some share a shard), each with a random history given in
    /// random steps, under the same run ids (a start, additions of one to three runs, runs out of order, removals) to a state
    /// folder of their own and to the store, interleaved athlete by athlete: every step gives the
    /// same awards added and withdrawn, counts and replays; the final awards are the full evaluation's.
    func testTheStoreGivesWhatAFolderGives() throws {
        let engine = try IncrementalStateTests.shippedEngine()
        let root = try temporaryFolder()
        let store = AthleteStore(directory: root + "/store")
        var random = SplitMix64(seed: 77)
        let athletes = (0..<20).map { "athlete-\($0)" }
        var histories: [String: [RunSummary]] = [:]
        var given: [String: Int] = [:]
        var held: [String: [RunSummary]] = [:]
        for name in athletes {
            histories[name] = IncrementalStateTests.history(seed: random.next(), count: 6 + Int(random.next() % 5), engine: engine, prefix: "r")
        }
        var steps = 0
        while athletes.contains(where: { given[$0, default: 0] < histories[$0]!.count }) {
            for name in athletes where given[name, default: 0] < histories[name]!.count {
                let folder = IncrementalEvaluator(engine: engine, store: StateStore(directory: root + "/folders/" + name), zone: "UTC")
                let shared = IncrementalEvaluator(engine: engine, store: try store.state(ofAthlete: name), zone: "UTC")
                XCTAssertTrue(shared.store.inStore)
                let history = histories[name]!
                let start = given[name, default: 0]
                let (a, b): (StateUpdate, StateUpdate)
                if start == 0 {
                    let runs = Array(history[..<2])
                    (a, b) = (try folder.start(runs), try shared.start(runs))
                    given[name] = 2
                    held[name] = runs
                } else if random.next() % 5 == 0, let pool = held[name], !pool.isEmpty, case let victim = pool[random.below(pool.count)] {
                    (a, b) = (try folder.remove([victim.id]).update, try shared.remove([victim.id]).update)
                    held[name]!.removeAll { $0.id == victim.id }
                } else {
                    let count = min(history.count - start, 1 + Int(random.next() % 3))
                    var runs = Array(history[start..<(start + count)])
                    if random.next() % 4 == 0 { runs.reverse() }
                    (a, b) = (try folder.add(runs), try shared.add(runs))
                    given[name] = start + count
                    held[name]! += runs
                }
                XCTAssertEqual(outcome(b), outcome(a), "\(name), step \(steps)")
                steps += 1
            }
        }
        for name in athletes {
            let state = try store.state(ofAthlete: name)
            let whole = engine.evaluate(runs: RuleEngine.ordered(held[name]!))
            XCTAssertEqual(plain(try state.awards()), plain(whole.awards), name)
            XCTAssertEqual(try state.takenBack().map(\.why), try StateStore(directory: root + "/folders/" + name).takenBack().map(\.why), name)
            XCTAssertEqual(try state.loadHeader().runCount, held[name]!.count)
        }
        // Only the store was made: no folder per athlete.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/store"), ["~store"])
        XCTAssertGreaterThan(steps, 60)
    }

    /// A folder of the earlier layout (what `worker --state-dir` kept before the store, and any state
    /// folder) named as an athlete of the store moves in whole, its awards taken back with it, and goes
    /// on as the folder would.
    func testAFolderOfTheEarlierLayoutMovesIntoTheStore() throws {
        let engine = try IncrementalStateTests.shippedEngine()
        let root = try temporaryFolder()
        let runs = IncrementalStateTests.history(seed: 31, count: 9, engine: engine, prefix: "m")
        for folder in [root + "/states/ana", root + "/copy/ana"] {
            let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: folder), zone: "UTC")
            _ = try evaluator.start(Array(runs[..<7]))
            _ = try evaluator.remove([runs[2].id])
        }
        let before = try StateStore(directory: root + "/states/ana").awards()
        XCTAssertFalse(try StateStore(directory: root + "/states/ana").takenBack().isEmpty)
        let store = try AthleteStore(directory: root + "/states").state(ofAthlete: "ana")
        XCTAssertEqual(plain(try store.awards()), plain(before))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/states/ana"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/states/~imported/ana/state.sqlite"))
        // (The same awards taken back, for the same reasons; the copy's a second apart, maybe.)
        let reasons = { (state: StateStore) in try state.takenBack().map { IncrementalEvaluator.identity($0.award) + " " + $0.why } }
        XCTAssertEqual(try reasons(store), try reasons(StateStore(directory: root + "/copy/ana")))
        let folder = IncrementalEvaluator(engine: engine, store: StateStore(directory: root + "/copy/ana"), zone: "UTC")
        let shared = IncrementalEvaluator(engine: engine, store: store, zone: "UTC")
        XCTAssertEqual(outcome(try shared.add([runs[7], runs[8]])), outcome(try folder.add([runs[7], runs[8]])))
        XCTAssertEqual(outcome(try shared.remove([runs[0].id]).update), outcome(try folder.remove([runs[0].id]).update))
        // Its address names it in the store, for `add`, `remove`, `explain` and `report --state`.
        let addressed = StateStore.at(root + "/states/ana")
        XCTAssertTrue(addressed.inStore)
        XCTAssertEqual(plain(try addressed.awards()), plain(try folder.store.awards()))
        XCTAssertFalse(StateStore.at(root + "/copy/ana").inStore)
        for outside in [root + "/states/..", root + "/states/Ana", root + "/states/~imported", root + "/states/.hidden"] {
            XCTAssertFalse(StateStore.at(outside).inStore, outside)
        }
    }

    /// A state database of layout 3 (before the `athlete` column) is moved to layout 4 when opened,
    /// every row kept (with or without the table of awards taken back, which came later), and an
    /// addition to it gives what it gives to one made in layout 4.
    func testALayout3DatabaseIsMovedWhereItIs() throws {
        let engine = try IncrementalStateTests.shippedEngine()
        let root = try temporaryFolder()
        let runs = IncrementalStateTests.history(seed: 41, count: 8, engine: engine, prefix: "l")
        for withdrawn in [true, false] {
            let (old, new) = (root + "/old-\(withdrawn)", root + "/new-\(withdrawn)")
            for folder in [old, new] {
                let evaluator = IncrementalEvaluator(engine: engine, store: StateStore(directory: folder), zone: "UTC")
                _ = try evaluator.start(Array(runs[..<6]))
                if withdrawn { _ = try evaluator.remove([runs[1].id]) }
            }
            try Self.downgradeToLayout3(old + "/state.sqlite", withdrawn: withdrawn)
            let a = IncrementalEvaluator(engine: engine, store: StateStore(directory: old), zone: "UTC")
            let b = IncrementalEvaluator(engine: engine, store: StateStore(directory: new), zone: "UTC")
            XCTAssertEqual(outcome(try a.add([runs[6]])), outcome(try b.add([runs[6]])))
            XCTAssertEqual(try a.store.takenBack().map(\.why), try b.store.takenBack().map(\.why))
            XCTAssertEqual(try DatabaseQueue(path: old + "/state.sqlite").read { try String.fetchOne($0, sql: "SELECT value FROM header WHERE key = 'layout'") },
                           StateDatabase.layout)
            XCTAssertEqual(outcome(try a.remove([runs[0].id]).update), outcome(try b.remove([runs[0].id]).update))
        }
    }

    /// Writes a layout-4 database of a state folder as layout 3 had it.
    static func downgradeToLayout3(_ path: String, withdrawn: Bool) throws {
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE h3 (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT INTO h3 SELECT key, value FROM header WHERE athlete = '';
                UPDATE h3 SET value = 'badgectl-state/3' WHERE key = 'layout';
                CREATE TABLE r3 (idx INTEGER PRIMARY KEY, pack TEXT NOT NULL, rule TEXT NOT NULL, fold INTEGER NOT NULL,
                    state TEXT, unsaved TEXT, earned INTEGER NOT NULL, stopped INTEGER NOT NULL, progress TEXT, failure TEXT,
                    next_seq INTEGER NOT NULL, split TEXT);
                INSERT INTO r3 SELECT idx, pack, rule, fold, state, unsaved, earned, stopped, progress, failure, next_seq, split FROM rule;
                CREATE TABLE k3 (rule INTEGER NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
                    PRIMARY KEY (rule, path, key)) WITHOUT ROWID;
                INSERT INTO k3 SELECT rule, path, key, value FROM state_key;
                CREATE TABLE a3 (rule INTEGER NOT NULL, phase INTEGER NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
                    run TEXT NOT NULL, badge TEXT NOT NULL, tier TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (rule, phase, seq));
                INSERT INTO a3 SELECT rule, phase, seq, pos, run, badge, tier, json FROM award;
                CREATE TABLE d3 (rule INTEGER NOT NULL, badge TEXT NOT NULL, tier TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (rule, badge, tier));
                INSERT INTO d3 SELECT rule, badge, tier, seq FROM held;
                CREATE TABLE u3 (pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, start REAL, elapsed REAL, distance REAL NOT NULL,
                    offset INTEGER NOT NULL, length INTEGER NOT NULL);
                INSERT INTO u3 SELECT pos, id, start, elapsed, distance, offset, length FROM run;
                CREATE TABLE w3 (seq INTEGER PRIMARY KEY, at TEXT NOT NULL, why TEXT NOT NULL, json TEXT NOT NULL);
                INSERT INTO w3 (at, why, json) SELECT at, why, json FROM withdrawn ORDER BY rowid;
                DROP TABLE header; DROP TABLE rule; DROP TABLE state_key; DROP TABLE award; DROP TABLE held; DROP TABLE run; DROP TABLE withdrawn;
                ALTER TABLE h3 RENAME TO header; ALTER TABLE r3 RENAME TO rule; ALTER TABLE k3 RENAME TO state_key; ALTER TABLE a3 RENAME TO award;
                ALTER TABLE d3 RENAME TO held; ALTER TABLE u3 RENAME TO run;
                CREATE INDEX award_by_run ON award (run);
                CREATE INDEX run_by_start ON run (start);
                """)
            if withdrawn {
                try db.execute(sql: "ALTER TABLE w3 RENAME TO withdrawn")
            } else {
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM w3"), 0)
                try db.execute(sql: "DROP TABLE w3")
            }
        }
    }
}
