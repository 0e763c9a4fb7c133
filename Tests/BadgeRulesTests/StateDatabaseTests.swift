import Foundation
import GRDB
import XCTest

@testable import BadgeRules

/// The state database (`state.sqlite`): moving a format-1 folder to it, and additions that touch
/// only the rows that change.
final class StateDatabaseTests: XCTestCase {
    func temporaryFolder() -> String {
        let folder = NSTemporaryDirectory() + "badgectl-statedb-\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func plain(_ awards: [Award]) -> [Award] { awards.map { var a = $0; a.measures = []; return a } }

    /// A folder saved in format 1 (`state.json` and `runs.index`, as badgectl wrote them before the
    /// database) is moved to the database on its first read, silently: the same state, the old files
    /// renamed `*.old`, and additions go on from it to the awards of a full evaluation.
    func testAFormatOneFolderIsMovedToTheDatabase() throws {
        let engine = try IncrementalStateTests.shippedEngine()
        let runs = IncrementalStateTests.history(seed: 11, count: 14, engine: engine, prefix: "m")
        let store = StateStore(directory: temporaryFolder())
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
              init = function() return { n = 0, totals = {} } end,
              on_run = function(state, run, award)
                state.n = state.n + 1
                local week = run.id:sub(1, 3)
                state.totals[week] = (state.totals[week] or 0) + run.distance_m
                if state.n % 3 == 0 then award { run = run, detail = week } end
                if state.longest == nil or run.distance_m > state.longest.distance_m then state.longest = run end
              end,
              finish = function(state, award)
                if state.longest then award { run = state.longest, tier = "best" } end
              end }
            """])
        return fixture
    }

    /// Adding one run writes the same rows whether the history holds 20 or 200 runs: the header,
    /// the run, the rule's row, the award it made (and its held tier), the `finish` award that moved
    /// (old row deleted, new one inserted). Counted through the database's change counter.
    func testAnAdditionTouchesOnlyTheRowsThatChange() throws {
        let fixture = try weeklyPack()
        let engine = fixture.engine(["weekly"])
        var written: [Int] = []
        for count in [20, 200] {
            let store = StateStore(directory: temporaryFolder())
            let evaluator = IncrementalEvaluator(engine: engine, store: store, zone: "UTC")
            // Run n of week w is "w<3 digits>-n"; each run a little longer than the last.
            let history = (0..<count).map { i in makeRun(String(format: "%03d-%d", i / 7, i), day: i, distance: 1000 + Double(i)) }
            _ = try evaluator.start(history)
            // Run count + 1 is the third of a triple only when count % 3 == 2: both 20 and 200 are.
            let next = makeRun(String(format: "%03d-%d", count / 7, count), day: count, distance: 5000)
            let update = try evaluator.add([next])
            XCTAssertNil(update.replayed)
            XCTAssertEqual(update.added.map(\.tier), ["earned", "best"], "\(count)")
            XCTAssertEqual(update.withdrawn.map(\.tier), ["best"], "\(count)")
            XCTAssertEqual(plain(try store.awards()), plain(engine.evaluate(runs: history + [next]).awards))
            written.append(update.rowsWritten)
        }
        // header 1, run 1, rule 1, award 1, held 0 (the tier is held already), finish: 1 deleted + 1 inserted.
        XCTAssertEqual(written, [6, 6])
    }
}
