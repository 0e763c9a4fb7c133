import Foundation
import GRDB
import GRDBSQLite

#if canImport(Glibc)
import Glibc
#endif
import RunFiles
import RunAnalysis

/// A run-summary cache in an embedded SQLite database (GRDB over the system libsqlite3).
///
/// A row holds the summaries one file gave, keyed by the file's absolute path, size and modification
/// time (nanoseconds) and by `key`: the summary version plus the checkpoint targets (checkpoints depend
/// on them). A lookup by path, size and modification time costs one `stat` and no reading; only when it
/// misses is the file hashed (`RunCache.hash`), so a moved or renamed file is still recognised by its
/// content hash and size. Files that fail to read are not cached: a failure is cheap to reproduce, may be
/// transient (a file still being written, a permission) and must show again on every evaluation.
///
/// A file that SQLite says is not a database when it is opened is moved aside to `<path>.corrupt`
/// (never trusted, never deleted) and a new cache is made. A database damaged inside is found where
/// SQLite finds it, when a lookup or a write reads a damaged page (`SQLITE_CORRUPT`): that lookup is
/// a miss (the file is read), the cache is closed and moved aside the same way, and the next run
/// makes a new one. Opening runs no integrity check: `PRAGMA quick_check` reads every page, and on
/// a cache of a few thousand runs (46 MB) that was 30 ms of a 38 ms `summarize`. A sound database without
/// our layout marker (another program's, or another layout) is never touched: like a location that
/// cannot be written, it gives `nil` from `open` and a warning, and evaluation goes on without a cache.
///
/// One connection (a GRDB `DatabaseQueue`) behind a lock: lookups from `RunFolder`'s worker threads take
/// turns on it, and the new rows are stored once, after the parallel read.
public final class RunCache: @unchecked Sendable {
    /// Bump whenever the summary code (readers, analyzer, RunSummary) changes what a summary holds:
    /// every cached row made under another version is then ignored and replaced.
    /// 7 was taken twice on parallel branches (Q: run.gps/indoor/manual/device as JSON; F: the binary
    /// form), and 8 twice again (main: both; Q: Apple Health's indoor flag): 9 is all of them.
    /// 10: summaries written by `SummaryCodec` (a field table, no `Codable`) instead of `BinaryCoder`.
    public static let summaryVersion = 11
    /// The table layout. A database with another layout is left as it is (see `open`).
    static let layout = "badgectl-run-cache/1"
    /// SQLite's application id (the file header's bytes 68-71, `PRAGMA application_id`) of every cache
    /// badgectl makes or opens as its own: 'bdgc'. A file whose header says so is badgectl's, even when
    /// SQLite reports it damaged: only such a file is ever moved aside.
    static let applicationID: Int32 = 0x6264_6763
    /// The page size of a new cache. A run's row (about 2 KB) and a file's set of measures (about 1 KB)
    /// each took a 4 KiB page of their own, the sets one more for their overflow: 1,000 runs filled
    /// 8.4 MB, which the lookups read through. At 16 KiB the same rows take 3.7 MB, and the lookups
    /// about half the time. Caches made before keep theirs.
    static let pageSize = 16_384

    public let path: String
    let queue: DatabaseQueue
    /// Guards the database, `writable`, `damaged` and `warnings` (see `locked`).
    private let lock = NSLock()
    /// Set once a write failed (e.g. the disk filled): later writes are skipped.
    private var writable = true
    /// Warnings for the user (cache moved aside, a write failed).
    public private(set) var warnings: [String] = []
    /// Set once SQLite reported the file damaged: it is closed and moved aside, and not used again.
    private var damaged = false
    /// Set while `readingTogether` holds one read transaction open for many lookups.
    private var holding = false

    /// The part of the key that depends on the code and the options: summary version, checkpoints,
    /// and whether the summaries carry their drawn routes (the report's rows), so that rows with and
    /// without routes never stand in for each other.
    public static func key(checkpoints: [RunAnalyzer.CheckpointTarget], routes: Bool = false, version: Int = summaryVersion) -> String {
        var text = "v\(version)"
        for target in checkpoints {
            text += "|\(target.badge)\u{1F}\(target.name)\u{1F}\(target.distanceMeters.bitPattern)"
        }
        return routes ? text + "|routes" : text
    }

    /// Opens (or makes) the cache at `path`. nil, with the reason in `warning`, when the location
    /// cannot hold a cache (read-only folder, not a file, ...).
    ///
    /// Several processes may open one cache at once, a new one too: the tables are made inside one
    /// immediate transaction (so one process makes them and the others find them made), a busy
    /// database is waited for and tried again, and a file is moved aside only when SQLite says it is
    /// not a database or reports it damaged — never because another process was making it at
    /// that moment, and never when it is a sound database of another program (no layout marker of
    /// ours): that one is left as it is, and nil returned with a warning.
    public static func open(path: String, warning: inout String?) -> RunCache? {
        // A file that is there and not an SQLite database is not opened at all: SQLite would take a
        // `-journal` or `-wal` beside it for its own and delete it.
        if let what = notADatabase(path) {
            warning = "the cache \(ShownName.of(path)) is not a badgectl cache (\(what)); not touching it, running without a cache "
                + "(give --cache another path, or remove the file if it is a cache you no longer need)"
            return nil
        }
        var notes: [String] = []
        var movedAside = false
        var attempts = 0
        while true {
            attempts += 1
            switch prepare(path) {
            case .ready(let queue):
                let cache = RunCache(path: path, queue: queue)
                cache.warnings = notes
                return cache
            case .busy where attempts < 20:
                usleep(UInt32(50_000 * min(attempts, 10)))
            case .busy(let reason), .failed(let reason):
                warning = "cannot create the cache \(path) (\(reason)); running without a cache"
                return nil
            case .foreign(let what):
                warning = foreignWarning(path: path, what: what)
                return nil
            case .notOurs(let reason):
                // A file badgectl did not make is never moved or deleted: only a damaged cache whose
                // header carries badgectl's application id is moved aside (once), and a new one made.
                guard Self.isOurs(path) else {
                    warning = "the cache \(ShownName.of(path)) is not a badgectl cache (\(reason)); not touching it, running without a cache "
                        + "(give --cache another path, or remove the file if it is a cache you no longer need)"
                    return nil
                }
                guard !movedAside else {
                    warning = "cannot create the cache \(ShownName.of(path)) (\(reason)); running without a cache"
                    return nil
                }
                do {
                    let aside = try moveAside(path)
                    notes.append("cache \(ShownName.of(path)) is damaged (\(reason)); moved it to \(ShownName.of(aside)) and started a new one")
                } catch {
                    warning = "cannot use the cache \(ShownName.of(path)): it is damaged (\(reason)) and cannot be moved aside (\(error.localizedDescription)); running without a cache"
                    return nil
                }
                movedAside = true
            }
        }
    }

    /// What opening the file found.
    enum Preparation {
        /// Our cache, its tables made if it was new.
        case ready(DatabaseQueue)
        /// Another connection held a lock for longer than the busy timeout: worth trying again.
        case busy(String)
        /// Not a database, or damaged: to be moved aside.
        case notOurs(String)
        /// A sound database that is not one of our caches (what it is, for the warning): never touched.
        case foreign(String)
        /// Anything else (a folder that cannot be written, ...).
        case failed(String)
    }

    /// Opens the file (making it if missing) and makes the tables if there are none.
    static func prepare(_ path: String) -> Preparation {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.foreignKeysEnabled = false
        configuration.label = "badgectl.RunCache"
        // `readingTogether` keeps one read transaction open across many accesses, and always ends it.
        configuration.allowsUnsafeTransactions = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            return verdict(error)
        }
        do {
            // Before any write makes the file (it changes nothing in a database that has pages already).
            try queue.inDatabase { try $0.execute(sql: "PRAGMA page_size = \(pageSize)") }
            let ours = try queue.inDatabase { db -> String? in
                // One process makes the tables; another waits for its lock, then finds them made.
                // Only an empty database is given tables: another program's is never written to.
                try db.inTransaction(.immediate) {
                    if try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 == 0 {
                        try db.execute(sql: """
                            PRAGMA application_id = \(applicationID);
                            CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                            INSERT OR IGNORE INTO meta VALUES ('layout', '\(layout)');
                            CREATE TABLE IF NOT EXISTS runs (
                                path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                                hash INTEGER NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL, summaries BLOB NOT NULL);
                            CREATE INDEX IF NOT EXISTS runs_by_hash ON runs (hash, size);
                            """)
                        try db.execute(sql: measuresTable)
                    }
                    return .commit
                }
                let hasMeta = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") ?? 0 > 0
                // Read only when it is ours: a `meta` table of another program may hold anything.
                let marker = hasMeta ? try? String.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'layout'") : nil
                guard marker == layout else {
                    if let marker, marker.hasPrefix("badgectl-run-cache/") { return "a badgectl cache of another layout (\(marker))" }
                    return "a SQLite database of another program"
                }
                // Caches made before the id was set get it now: from here on a damage in them can be told ours.
                if try Int32.fetchOne(db, sql: "PRAGMA application_id") != applicationID {
                    try db.execute(sql: "PRAGMA application_id = \(applicationID)")
                }
                if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" { try db.execute(sql: "PRAGMA journal_mode=WAL") }
                try upgradeMeasures(db)
                return nil
            }
            if let what = ours {
                try? queue.close()
                return .foreign(what)
            }
            return .ready(queue)
        } catch {
            try? queue.close()
            return verdict(error)
        }
    }

    /// The warning for a sound database that is not one of our caches.
    static func foreignWarning(path: String, what: String) -> String {
        "the cache \(path) is \(what); not touching it, evaluating without a cache"
    }

    /// What an SQLite error says about the file: not a database (or damaged) is to be moved aside,
    /// a lock held by another process is to be waited for, anything else stops.
    static func verdict(_ error: Error) -> Preparation {
        guard let error = error as? DatabaseError else { return .failed("\(error)") }
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return .notOurs(error.message ?? "not a database")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .busy(error.message ?? "the database is locked")
        default:
            return .failed(error.message ?? "\(error)")
        }
    }

    private init(path: String, queue: DatabaseQueue) {
        self.path = path
        self.queue = queue
    }

    // MARK: - Lookups

    /// A stored row: the summaries (as the id they were stored under) and that id.
    public struct Entry: Sendable {
        public var id: String
        public var summaries: Data
        /// The content hash of the file the row was made from (its measures are stored under it).
        public var hash: UInt64 = 0
        /// The set of measures the cache holds for that content (`MeasureCodec.encodeSet`), when the lookup
        /// asked for measures; empty when there is none.
        public var measures = Data()
    }

    /// The row for this path, if its size, modification time and key all match.
    /// With `measures`, the entry also holds its content's set of measures, fetched by the same statement
    /// (a join): a warm read with measures costs one step on the database per file, as without.
    public func lookup(path: String, sizeBytes: Int64, modifiedNanoseconds: Int64, key: String, measures: Bool = false) -> Entry? {
        entry(measures ? Self.byPathWithMeasures : Self.byPath, [.text(path), .integer(sizeBytes), .integer(modifiedNanoseconds), .text(key)])
    }

    /// Any row with this content hash, size and key (a moved or renamed file), with its content's set of
    /// measures when asked.
    public func lookup(hash: UInt64, sizeBytes: Int64, key: String, measures: Bool = false) -> Entry? {
        entry(measures ? Self.byHashWithMeasures : Self.byHash, [.integer(Int64(bitPattern: hash)), .integer(sizeBytes), .text(key)])
    }

    static let byPath = "SELECT id, summaries, hash FROM runs WHERE path = ? AND size = ? AND mtime_ns = ? AND key = ?"
    static let byHash = "SELECT id, summaries, hash FROM runs WHERE hash = ? AND size = ? AND key = ? LIMIT 1"
    static let byPathWithMeasures = """
        SELECT r.id, r.summaries, r.hash, m.measures FROM runs r LEFT JOIN measure_sets m ON m.hash = r.hash AND m.size = r.size
        WHERE r.path = ? AND r.size = ? AND r.mtime_ns = ? AND r.key = ?
        """
    static let byHashWithMeasures = """
        SELECT r.id, r.summaries, r.hash, m.measures FROM runs r LEFT JOIN measure_sets m ON m.hash = r.hash AND m.size = r.size
        WHERE r.hash = ? AND r.size = ? AND r.key = ? LIMIT 1
        """

    /// True when some row has this size and key, so a file of that size could be one the cache
    /// knows under another path (and is worth hashing before it is read). On any doubt, true; false
    /// once the cache was found damaged (nothing can be found in it, so nothing is worth hashing).
    public func hasRow(sizeBytes: Int64, key: String) -> Bool {
        reading { db -> Bool in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM runs WHERE size = ? AND key = ? LIMIT 1")
            return try GRDB.Row.fetchOne(statement, arguments: [sizeBytes, key]) != nil
        } ?? locked { !damaged }
    }

    /// A row to store.
    public struct Row: Sendable {
        public var path: String
        public var sizeBytes: Int64
        public var modifiedNanoseconds: Int64
        public var hash: UInt64
        public var key: String
        public var id: String
        public var summaries: Data

        public init(path: String, sizeBytes: Int64, modifiedNanoseconds: Int64, hash: UInt64, key: String, id: String, summaries: Data) {
            self.path = path; self.sizeBytes = sizeBytes; self.modifiedNanoseconds = modifiedNanoseconds
            self.hash = hash; self.key = key; self.id = id; self.summaries = summaries
        }
    }

    /// Stores rows (replacing any row with the same path) in one transaction. A failure rolls the
    /// transaction back, leaves a warning and stops later writes; the results stand, uncached.
    public func store(_ rows: [Row]) {
        insertAll("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)", rows.map {
            [$0.path, $0.sizeBytes, $0.modifiedNanoseconds, Int64(bitPattern: $0.hash), $0.key, $0.id, $0.summaries]
        })
    }

    /// Runs `sql` once per arguments in one transaction (nothing when there are none). A failure rolls
    /// the transaction back, leaves a warning and stops later writes.
    private func insertAll(_ sql: String, _ rows: [StatementArguments]) {
        guard !rows.isEmpty else { return }
        write { db in
            let statement = try db.makeStatement(sql: sql)
            for arguments in rows { try statement.execute(arguments: arguments) }
        }
    }

    /// Runs `body` (lookups, from any thread) inside one read transaction: SQLite takes its read lock
    /// once for all of them instead of once per lookup (two `fcntl` calls and the WAL's read mark each,
    /// about 4,000 instructions beside the system calls). The transaction reads one snapshot, as a
    /// lookup did; it ends when `body` returns, or before any write (`write` ends it first).
    public func readingTogether<T>(_ body: () -> T) -> T {
        let began = locked { () -> Bool in
            guard !damaged, !holding else { return false }
            holding = (try? queue.inDatabase { db in
                guard !db.isInsideTransaction else { return false }
                try db.execute(sql: "BEGIN DEFERRED TRANSACTION")
                return true
            }) ?? false
            return holding
        }
        defer { if began { locked { endHolding() } } }
        return body()
    }

    /// Whether a read transaction of `readingTogether` is open on this connection (SQLite's own
    /// answer, for tests: none may outlive the call).
    var isInsideTransaction: Bool {
        locked { queue.inDatabase { $0.isInsideTransaction } }
    }

    /// Ends the read transaction `readingTogether` holds, if it still does. Called under the lock.
    private func endHolding() {
        guard holding else { return }
        holding = false
        guard !damaged else { return }
        try? queue.inDatabase { db in
            if db.isInsideTransaction { try db.execute(sql: "COMMIT") }
        }
    }

    /// Runs `body` in one immediate transaction. A failure rolls the transaction back, leaves a warning
    /// and stops later writes.
    func write(_ body: (Database) throws -> Void) {
        locked {
            guard writable, !damaged else { return }
            endHolding()
            do {
                try queue.inDatabase { db in
                    try db.inTransaction(.immediate) {
                        try body(db)
                        return .commit
                    }
                }
            } catch {
                if moveAsideIfDamaged(error) { return }
                writable = false
                warnings.append("cannot write to the cache \(path) (\((error as? DatabaseError)?.message ?? "\(error)")); results were not cached")
            }
        }
    }

    /// How many rows the cache holds.
    public var count: Int {
        locked { (try? queue.inDatabase { try Int.fetchOne($0, sql: "SELECT count(*) FROM runs") }) ?? 0 }
    }

    // MARK: - Reading rows

    /// An argument of a lookup, bound straight to the statement.
    enum LookupArgument {
        case text(String)
        case integer(Int64)
    }

    /// The first row of a lookup (a prepared statement kept for the connection's life), nil on a miss
    /// or an error. Values are read as stored, through no conversion that could trap: text or a blob
    /// is taken, anything else (a number or NULL in a file made by hand) is a miss.
    /// A fourth column, when the statement has one, is the content's set of measures (NULL: none).
    ///
    /// Bound, stepped and read through SQLite's own functions on GRDB's prepared statement: GRDB's
    /// `Row.fetchOne` (a cursor, a row object, a `DatabaseValue` per column) cost about 25,000
    /// instructions a lookup beside SQLite's 11,000, a warm read makes one per file. An error of the
    /// step is thrown as GRDB's `DatabaseError`, so a damaged file is moved aside as before.
    private func entry(_ sql: String, _ arguments: [LookupArgument]) -> Entry? {
        reading { db -> Entry? in
            let statement = try db.cachedStatement(sql: sql)
            let handle = statement.sqliteStatement
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            defer { sqlite3_reset(handle) }
            for (index, argument) in zip(Int32(1)..., arguments) {
                let code: Int32
                switch argument {
                case .integer(let value): code = sqlite3_bind_int64(handle, index, value)
                case .text(let value):
                    code = value.utf8CString.withUnsafeBufferPointer { text in
                        sqlite3_bind_text(handle, index, text.baseAddress, Int32(text.count - 1), Self.transient)
                    }
                }
                guard code == SQLITE_OK else { throw Self.stepError(code, db: db, sql: sql) }
            }
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return nil }
            guard code == SQLITE_ROW else { throw Self.stepError(code, db: db, sql: sql) }
            guard let id = Self.column(handle, 0).map({ String(decoding: $0, as: UTF8.self) }),
                  let summaries = Self.column(handle, 1).map({ Data($0) }) else { return nil }
            let hash = sqlite3_column_type(handle, 2) == SQLITE_INTEGER ? UInt64(bitPattern: sqlite3_column_int64(handle, 2)) : 0
            var entry = Entry(id: id, summaries: summaries, hash: hash)
            if sqlite3_column_count(handle) > 3, let set = Self.column(handle, 3) { entry.measures = Data(set) }
            return entry
        } ?? nil
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies a bound value (the C macro is not imported).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The bytes of a text or blob column of the current row, valid until the next step; nil for
    /// any other type.
    private static func column(_ handle: OpaquePointer, _ index: Int32) -> UnsafeRawBufferPointer? {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            return UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, index), count: count)
        case SQLITE_TEXT:
            let text = sqlite3_column_text(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            return UnsafeRawBufferPointer(start: text.map(UnsafeRawPointer.init), count: count)
        default:
            return nil
        }
    }

    /// A failed bind or step as GRDB reports one (`moveAsideIfDamaged` reads its result code).
    private static func stepError(_ code: Int32, db: Database, sql: String) -> DatabaseError {
        let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    /// Runs a read under the lock; nil on any error (a miss: the file is read instead), and a
    /// damaged database (`moveAsideIfDamaged`) is not read again.
    func reading<T>(_ body: (Database) throws -> T) -> T? {
        locked {
            guard !damaged else { return nil }
            do {
                return try queue.inDatabase(body)
            } catch {
                _ = moveAsideIfDamaged(error)
                return nil
            }
        }
    }

    /// When `error` says the database is damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`): closes it, moves
    /// it aside to `<path>.corrupt` as `open` does (never deleted), leaves a warning, and returns true;
    /// the rest of the run goes on without a cache and the next one makes a new cache. Called under the lock.
    private func moveAsideIfDamaged(_ error: Error) -> Bool {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB else { return false }
        guard !damaged else { return true }
        damaged = true
        writable = false
        try? queue.close()
        do {
            let aside = try Self.moveAside(path)
            warnings.append("cache \(path) is damaged (\(error.message ?? "SQLite reports it corrupt")); moved it to \(aside): the next run starts a new one")
        } catch {
            warnings.append("cache \(path) is damaged and cannot be moved aside (\(error.localizedDescription)); results were not cached")
        }
        return true
    }

    /// Why the file at `path` is not an SQLite database (nil when there is none, it is empty, or its
    /// first 16 bytes are SQLite's magic).
    static func notADatabase(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if (info.st_mode & S_IFMT) == S_IFDIR { return "a folder" }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 16), !head.isEmpty else { return nil }
        return [UInt8](head) == Array("SQLite format 3\u{0}".utf8) ? nil : "not an SQLite database"
    }

    /// Whether the file at `path` is one of badgectl's caches by its SQLite header: the SQLite magic
    /// and badgectl's application id (`applicationID`). Read from the first 100 bytes only, so a cache
    /// damaged past its header is still known.
    static func isOurs(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100 else { return false }
        let bytes = [UInt8](header)
        let magic = Array("SQLite format 3\u{0}".utf8)
        guard Array(bytes[0..<16]) == magic else { return false }
        let id = Int32(bitPattern: UInt32(bytes[68]) << 24 | UInt32(bytes[69]) << 16 | UInt32(bytes[70]) << 8 | UInt32(bytes[71]))
        return id == applicationID
    }

    /// Moves a damaged cache of ours, with its `-wal`, `-shm` and `-journal` files, to the first of
    /// `<path>.corrupt`, `<path>.corrupt-2`, ... that does not exist; returns the new path. Nothing is
    /// deleted, and nothing already there is replaced.
    private static func moveAside(_ path: String) throws -> String {
        var aside = path + ".corrupt"
        var n = 1
        while true {
            let taken = [""] + ["-wal", "-shm", "-journal"]
            if !taken.contains(where: { FileManager.default.fileExists(atPath: aside + $0) || (try? FileManager.default.destinationOfSymbolicLink(atPath: aside + $0)) != nil }) {
                break
            }
            n += 1
            aside = path + ".corrupt-\(n)"
            if n > 1000 { throw CocoaError(.fileWriteFileExists) }
        }
        // moveItem refuses to replace an existing destination.
        try FileManager.default.moveItem(atPath: path, toPath: aside)
        for suffix in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        return aside
    }

    /// Every use of the database goes through this lock, so the queue's own `sync` is never
    /// contended: a thread of `RunFolder`'s `concurrentPerform` waiting in `DispatchQueue.sync` lets
    /// Dispatch start more worker threads (measured: cold-read memory 33 MB -> 70-220 MB), while one
    /// waiting on a mutex does not.
    func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let text): text
        case .blob(let data): String(decoding: data, as: UTF8.self)
        default: nil
        }
    }

    static func bytes(_ value: DatabaseValue) -> Data? {
        switch value.storage {
        case .blob(let data): data
        case .string(let text): Data(text.utf8)
        default: nil
        }
    }
}
