import Foundation
import GRDB
import RunAnalysis
import RunFiles

/// The measures packs declare, cached beside the summaries: one set of entries per file content
/// (`measure_sets`), their keys, the upgrade from the earlier one-row-per-measure layout, lookups and
/// merges.
extension RunCache {
    /// The measures packs declared, one row per file content: keyed by the content hash and size (a moved
    /// file keeps its measures), `measures` holds a set (`MeasureCodec.encodeSet`) of the measure of each
    /// run of the file under each definition's `measureKey` (the summary version and the definition), so
    /// that editing a rule recomputes nothing and adding a measure to one pack adds an entry and leaves the
    /// other packs' entries as they were. One row per file lets a warm lookup fetch a file's summaries and
    /// its measures in one step of one statement (`lookup`): a row per measure cost a second query per
    /// file, 10% of a warm read of 200 files.
    static let measuresTable = """
        CREATE TABLE IF NOT EXISTS measure_sets (
            hash INTEGER NOT NULL, size INTEGER NOT NULL, measures BLOB NOT NULL,
            PRIMARY KEY (hash, size)) WITHOUT ROWID;
        """

    /// The most entries a file's set keeps: beyond it the oldest writes go (definitions edited away and
    /// never asked for again would otherwise grow every warm read). Far above what one evaluation asks for.
    static let measureSetLimit = 64

    /// Gives a cache the table of measure sets on first use (caches made before measures, or before sets,
    /// keep their layout and summaries), moving the measures of the earlier layout (`measures`: one row
    /// per file content and measure) into sets, so that an upgraded badgectl finds them still cached.
    /// Inside one immediate transaction: of two processes opening the cache at once, one moves them.
    static func upgradeMeasures(_ db: Database) throws {
        func exists(_ table: String) throws -> Bool {
            try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]) ?? 0 > 0
        }
        guard try !exists("measure_sets") || exists("measures") else { return }
        try db.inTransaction(.immediate) {
            try db.execute(sql: measuresTable)
            guard try exists("measures") else { return .commit }
            var rows: [MeasureRow] = []
            // Read as stored, through no conversion that could trap (a row of the wrong type is left out).
            let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT hash, size, key, value FROM measures")
            while let row = try cursor.next() {
                guard case .int64(let hash) = (row[0] as DatabaseValue).storage, case .int64(let size) = (row[1] as DatabaseValue).storage,
                      let key = text(row[2] as DatabaseValue), let value = bytes(row[3] as DatabaseValue) else { continue }
                rows.append(MeasureRow(hash: UInt64(bitPattern: hash), sizeBytes: size, key: key, value: value))
            }
            try mergeMeasures(rows, db: db)
            try db.execute(sql: "DROP TABLE measures")
            return .commit
        }
    }

    /// The cache key of a measure: the summary version, the measures' own version (`m1`: bump it when a
    /// measure's computation changes what it gives) and its definition.
    public static func measureKey(_ definition: MeasureDefinition, version: Int = summaryVersion) -> String {
        "v\(version)|m\(revision(of: definition.kind))|" + definition.key
    }

    /// A measure kind's revision: bumped when what a kind computes from the same parameters changes,
    /// so that values cached before are computed again (`time_in` 2: `max` is included; `age_grade`
    /// 2: a run with a stop over two minutes had every distance's effort the shortest one's; 3: JSON
    /// summaries are graded, and no effort over a stretch faster than the world record).
    static func revision(of kind: String) -> Int {
        switch kind {
        case MeasureKind.ageGrade.name: return 3
        case MeasureKind.timeIn.name: return 2
        default: return 1
        }
    }

    /// The stored measures of a file's content among `keys` (by key; a key without an entry is missing):
    /// each the bytes `MeasureCodec.encode` made.
    public func lookupMeasures(hash: UInt64, sizeBytes: Int64, keys: [String]) -> [String: Data] {
        guard !keys.isEmpty, let set = reading({ try Self.measureSet(db: $0, hash: hash, sizeBytes: sizeBytes) }) ?? nil else { return [:] }
        var found: [String: Data] = [:]
        for (key, value) in MeasureCodec.entries(ofSet: set) ?? [] where keys.contains(key) { found[key] = value }
        return found
    }

    /// The set of a file's content, nil when there is none (or it is not a blob).
    private static func measureSet(db: Database, hash: UInt64, sizeBytes: Int64) throws -> Data? {
        let statement = try db.cachedStatement(sql: "SELECT measures FROM measure_sets WHERE hash = ? AND size = ?")
        guard let row = try GRDB.Row.fetchOne(statement, arguments: [Int64(bitPattern: hash), sizeBytes]) else { return nil }
        return bytes(row[0] as DatabaseValue)
    }

    /// A measure row to store.
    public struct MeasureRow: Sendable {
        public var hash: UInt64
        public var sizeBytes: Int64
        public var key: String
        public var value: Data
        public init(hash: UInt64, sizeBytes: Int64, key: String, value: Data) {
            self.hash = hash; self.sizeBytes = sizeBytes; self.key = key; self.value = value
        }
    }

    /// Stores measures (an entry replacing any with the same content and key) in one transaction: each
    /// file's set gets the new entries and keeps its others byte for byte. A failure leaves a warning and
    /// stops later writes, as `store` does.
    public func storeMeasures(_ rows: [MeasureRow]) {
        guard !rows.isEmpty else { return }
        write { db in try Self.mergeMeasures(rows, db: db) }
    }

    /// Merges `rows` into the sets of their files (read and written inside the caller's transaction, so
    /// two processes adding measures at once both keep theirs). Entries of another summary version are
    /// dropped, and the oldest beyond `measureSetLimit`, never one being written.
    private static func mergeMeasures(_ rows: [MeasureRow], db: Database) throws {
        var files: [(hash: UInt64, sizeBytes: Int64, rows: [MeasureRow])] = []
        var index: [String: Int] = [:]
        for row in rows {
            let file = "\(row.hash)/\(row.sizeBytes)"
            if let at = index[file] { files[at].rows.append(row) } else {
                index[file] = files.count
                files.append((row.hash, row.sizeBytes, [row]))
            }
        }
        let current = "v\(summaryVersion)|"
        let insert = try db.makeStatement(sql: "INSERT OR REPLACE INTO measure_sets VALUES (?, ?, ?)")
        for file in files {
            let written = Set(file.rows.map(\.key))
            let stored = try measureSet(db: db, hash: file.hash, sizeBytes: file.sizeBytes).flatMap(MeasureCodec.entries(ofSet:)) ?? []
            var kept = stored.filter { $0.key.hasPrefix(current) && !written.contains($0.key) }
            var fresh: [(key: String, value: Data)] = []
            for row in file.rows where !fresh.contains(where: { $0.key == row.key }) { fresh.append((row.key, row.value)) }
            kept.removeFirst(max(0, kept.count - max(0, measureSetLimit - fresh.count)))
            try insert.execute(arguments: [Int64(bitPattern: file.hash), file.sizeBytes, MeasureCodec.encodeSet(kept + fresh)])
        }
    }

    /// How many measures the cache holds (a file's content and a definition count one).
    public var measureCount: Int {
        locked {
            (try? queue.inDatabase { db -> Int in
                var total = 0
                let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT measures FROM measure_sets")
                while let row = try cursor.next() {
                    if let set = Self.bytes(row[0] as DatabaseValue) { total += MeasureCodec.entries(ofSet: set)?.count ?? 0 }
                }
                return total
            }) ?? 0
        }
    }
}
