import Foundation
import GRDB

/// The layout of a state database (`StateDatabase`): its tables, opening a state folder's
/// database (moving layout 3 to this one) or a shard of a worker's store, and what a database
/// that cannot be read says.
extension StateDatabase {
    /// Every table and index of the layout.
    static let schema = """
        CREATE TABLE header (athlete TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (athlete, key)) WITHOUT ROWID;
        CREATE TABLE rule (athlete TEXT NOT NULL, idx INTEGER NOT NULL, pack TEXT NOT NULL, rule TEXT NOT NULL, fold INTEGER NOT NULL,
            state TEXT, unsaved TEXT, earned INTEGER NOT NULL, stopped INTEGER NOT NULL, progress TEXT, failure TEXT,
            next_seq INTEGER NOT NULL, split TEXT, PRIMARY KEY (athlete, idx));
        CREATE TABLE state_key (athlete TEXT NOT NULL, rule INTEGER NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            PRIMARY KEY (athlete, rule, path, key)) WITHOUT ROWID;
        CREATE TABLE award (athlete TEXT NOT NULL, rule INTEGER NOT NULL, phase INTEGER NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
            run TEXT NOT NULL, badge TEXT NOT NULL, tier TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (athlete, rule, phase, seq));
        CREATE INDEX award_of_run ON award (athlete, run);
        CREATE TABLE held (athlete TEXT NOT NULL, rule INTEGER NOT NULL, badge TEXT NOT NULL, tier TEXT NOT NULL, seq INTEGER NOT NULL,
            PRIMARY KEY (athlete, rule, badge, tier)) WITHOUT ROWID;
        CREATE TABLE run (athlete TEXT NOT NULL, pos INTEGER NOT NULL, id TEXT NOT NULL, start REAL, elapsed REAL, distance REAL NOT NULL,
            offset INTEGER NOT NULL, length INTEGER NOT NULL, line BLOB, PRIMARY KEY (athlete, pos), UNIQUE (athlete, id));
        CREATE INDEX run_of_start ON run (athlete, start);
        CREATE TABLE withdrawn (athlete TEXT NOT NULL, at TEXT NOT NULL, why TEXT NOT NULL, json TEXT NOT NULL);
        CREATE INDEX withdrawn_of_athlete ON withdrawn (athlete);
        """

    /// A connection to `path` (GRDB's queue named `label`, waiting up to 5 s for another writer,
    /// `prepare` run on it first); a file SQLite cannot open is `damaged`, with `advice`.
    private static func connect(path: String, label: String, advice: String, prepare: (@Sendable (Database) throws -> Void)? = nil) throws -> StateDatabase {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = label
        if let prepare { configuration.prepareDatabase(prepare) }
        do {
            return StateDatabase(path: path, queue: try DatabaseQueue(path: path, configuration: configuration))
        } catch {
            throw damaged(path, error, advice: advice)
        }
    }

    /// Makes every table of the layout and its `layout` row.
    private static func createSchema(_ db: Database) throws {
        try db.execute(sql: schema)
        try db.execute(sql: "INSERT INTO header VALUES ('', 'layout', ?)", arguments: [layout])
    }

    /// Opens the database at `path`. `create`: make it (empty tables), replacing any file there.
    /// Throws `RulesError.state` naming the file when it is not a state database or is damaged.
    static func open(path: String, create: Bool) throws -> StateDatabase {
        if create {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let database = try connect(path: path, label: "badgectl.StateDatabase", advice: rebuildAdvice)
        try database.guarded {
            if create {
                try database.queue.write(createSchema)
            } else {
                var layout = try database.layout()
                if layout == StateDatabase.layout3 {
                    try database.migrate3()
                    layout = try database.layout()
                }
                guard layout == StateDatabase.layout else {
                    throw RulesError.state(path: path, reason: layout.map { "layout '\($0)'; this badgectl reads '\(StateDatabase.layout)' (evaluate with --state again)" }
                                           ?? "not a badgectl state database: \(StateDatabase.rebuildAdvice)")
                }
            }
        }
        return database
    }

    /// Opens (making it when missing) a shard of a worker's store (`AthleteStore`): write-ahead
    /// logged, synced at checkpoints rather than at each commit (a crash of the machine can lose the
    /// last commits, never the database's consistency), waiting up to 5 s for another writer.
    static func openShard(path: String) throws -> StateDatabase {
        let database = try connect(path: path, label: "badgectl.AthleteStore", advice: storeAdvice) { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            try database.queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    if try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'header'") == 0 {
                        try createSchema(db)
                    }
                    return .commit
                }
                if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" { try db.execute(sql: "PRAGMA journal_mode = WAL") }
            }
            let found = try database.layout()
            guard found == StateDatabase.layout else {
                throw RulesError.state(path: path, reason: found.map { "layout '\($0)'; this badgectl reads '\(StateDatabase.layout)'" } ?? "not a badgectl state database: \(storeAdvice)")
            }
        } catch {
            throw damaged(path, error, advice: storeAdvice)
        }
        return database
    }

    /// The layout the database says it has, nil when it is not a state database (no `header` table).
    private func layout() throws -> String? {
        try queue.inDatabase { db -> String? in
            // One statement: a database without the table is not a state database. (Layout 3's
            // header has no `athlete` column: its layout is read by key alone.)
            do { return try String.fetchOne(db, sql: "SELECT value FROM header WHERE key = 'layout'") } catch let error as DatabaseError
                where error.resultCode == .SQLITE_ERROR && (error.message ?? "").hasPrefix("no such table") { return nil }
        }
    }

    /// Moves a layout-3 database (a state folder's, made before the `athlete` column) to this layout,
    /// in one transaction: every row kept, as athlete `""`.
    private func migrate3() throws {
        try queue.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                // Another process may have moved it meanwhile.
                guard try String.fetchOne(db, sql: "SELECT value FROM header WHERE key = 'layout'") == StateDatabase.layout3 else { return .commit }
                let withdrawn = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'withdrawn'") ?? 0 > 0
                for table in ["header", "rule", "state_key", "award", "held", "run"] + (withdrawn ? ["withdrawn"] : []) {
                    try db.execute(sql: "ALTER TABLE \(table) RENAME TO old_\(table)")
                }
                try db.execute(sql: "DROP INDEX IF EXISTS award_by_run; DROP INDEX IF EXISTS run_by_start")
                try db.execute(sql: StateDatabase.schema)
                try db.execute(sql: """
                    INSERT INTO header SELECT '', key, value FROM old_header WHERE key <> 'layout';
                    INSERT INTO rule SELECT '', idx, pack, rule, fold, state, unsaved, earned, stopped, progress, failure, next_seq, split FROM old_rule;
                    INSERT INTO state_key SELECT '', rule, path, key, value FROM old_state_key;
                    INSERT INTO award SELECT '', rule, phase, seq, pos, run, badge, tier, json FROM old_award;
                    INSERT INTO held SELECT '', rule, badge, tier, seq FROM old_held;
                    INSERT INTO run SELECT '', pos, id, start, elapsed, distance, offset, length, NULL FROM old_run;
                    DROP TABLE old_header; DROP TABLE old_rule; DROP TABLE old_state_key; DROP TABLE old_award; DROP TABLE old_held; DROP TABLE old_run;
                    """)
                if withdrawn {
                    try db.execute(sql: "INSERT INTO withdrawn SELECT '', at, why, json FROM old_withdrawn ORDER BY seq; DROP TABLE old_withdrawn")
                }
                try db.execute(sql: "INSERT INTO header VALUES ('', 'layout', ?)", arguments: [StateDatabase.layout])
                return .commit
            }
        }
    }

    /// What to do with a state database that cannot be read: the runs are safe in `runs.jsonl`.
    static let rebuildAdvice = "the runs are kept apart in runs.jsonl: `badgectl add --state DIR --rebuild` makes the state again from them (or evaluate with --state again)"

    /// `rebuildAdvice`, or for an athlete of a worker's store (whose runs are in the store's rows),
    /// what to do there.
    var rebuildAdvice: String {
        athlete.isEmpty ? StateDatabase.rebuildAdvice
            : "`badgectl add --state \(path) --rebuild` makes the state again from the runs the store keeps (or send the athlete's runs again)"
    }

    /// What to do with a database of a worker's store that cannot be opened: its athletes' states are lost.
    static let storeAdvice = "a database of the worker's store (--state-dir): move it aside (the worker makes it again, empty) and send the histories of its athletes again"

    /// A database error as `RulesError.state` naming the file.
    static func damaged(_ path: String, _ error: Error, advice: String = rebuildAdvice) -> Error {
        if error is RulesError { return error }
        guard let error = error as? DatabaseError else { return RulesError.state(path: path, reason: "cannot read it: \(error)") }
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT, .SQLITE_ERROR, .SQLITE_MISMATCH, .SQLITE_CONSTRAINT:
            return RulesError.state(path: path, reason: "damaged (\(error.message ?? "\(error.resultCode)")): \(advice)")
        default:
            return RulesError.state(path: path, reason: "cannot use it: \(error.message ?? "\(error.resultCode)")")
        }
    }
}
