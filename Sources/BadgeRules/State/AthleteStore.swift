import Crypto
import Foundation

/// Every athlete's state of a worker (`worker --state-dir DIR`), in one store: `DIR/~store/`, 16
/// shard databases (`athletes-00.sqlite` to `athletes-15.sqlite`, the state database's layout with
/// many athletes' rows, `StateDatabase`). An athlete's rows are in the shard their key
/// (`StateStore.folderName(forAthlete:)`) hashes to.
///
/// Why one store and not a state folder per athlete (as `worker --state-dir` kept them before):
/// an upload then opened the athlete's database, read its schema and prepared every statement
/// again, took a file lock and synced the journal twice; here each thread keeps a connection to each
/// shard with its statements prepared, and a commit is synced at the write-ahead log's checkpoints.
/// The shards let `--threads` threads write at once (SQLite has one writer a database).
///
/// An athlete's state is addressed as `DIR/KEY` (`badgectl explain --state DIR/KEY`, `add`,
/// `remove`, `report`: `StateStore.at(_:)`), as their folder was. A folder of the earlier layout
/// (`DIR/KEY/state.sqlite`) is moved into the store the first time the athlete is seen, and kept
/// as `DIR/~imported/KEY`.
///
/// Not thread-safe: one per thread (each keeps connections of its own).
package final class AthleteStore {
    /// How many shards a store has.
    package static let shardCount = 16
    /// The folder inside `directory` that holds the shards (a name no athlete's key can be).
    static let storeFolder = "~store"
    /// Where moved athlete folders of the earlier layout go.
    static let importedFolder = "~imported"

    /// The worker's `--state-dir`.
    package let directory: String
    private var shards: [Int: StateDatabase] = [:]

    /// The store of `directory` (made when first written).
    package init(directory: String) { self.directory = directory }

    /// Closes the connections this store opened (each database's log written into it and removed
    /// when no other connection has it open; a store let go closes them too, once no `StateStore` of
    /// it is left). The store opens them again when used.
    package func close() {
        for database in shards.values { try? database.queue.close() }
        shards = [:]
    }

    /// Whether `directory` holds a store.
    static func exists(in directory: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(storeFolder), isDirectory: &isFolder) && isFolder.boolValue
    }

    /// The shard of the athlete named `name`.
    package static func shard(ofAthlete name: String) -> Int { shard(ofKey: StateStore.folderName(forAthlete: name)) }

    /// The shard of an athlete's key: the first byte of its SHA-256, modulo `shardCount`. (Part of the
    /// store's layout: a store made with another rule would not find its athletes.)
    static func shard(ofKey key: String) -> Int {
        Int(Array(SHA256.hash(data: Array(key.utf8)))[0]) % shardCount
    }

    /// The shard database `index`, opened (and made) once.
    private func shard(_ index: Int) throws -> StateDatabase {
        if let open = shards[index] { return open }
        let folder = (directory as NSString).appendingPathComponent(AthleteStore.storeFolder)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw RulesError.state(path: folder, reason: "cannot make the folder: \(StateStore.describe(error))")
        }
        let path = (folder as NSString).appendingPathComponent(String(format: "athletes-%02d.sqlite", index))
        try StateStore.requireRegularFile(path)
        let database = try StateDatabase.openShard(path: path)
        shards[index] = database
        return database
    }

    /// The state of the athlete named `name` (a worker line's `athlete`): empty until the first
    /// save. Their folder of the earlier layout, if there is one, is moved into the store first.
    package func state(ofAthlete name: String) throws -> StateStore {
        let key = StateStore.folderName(forAthlete: name)
        let store = try state(ofKey: key)
        let folder = StateStore(directory: (directory as NSString).appendingPathComponent(key))
        if folder.exists, !store.exists { try moveIn(folder, to: store, key: key) }
        return store
    }

    /// The state of the athlete whose key is `key`.
    func state(ofKey key: String) throws -> StateStore {
        let address = (directory as NSString).appendingPathComponent(key)
        return StateStore(address: address, rows: try shard(AthleteStore.shard(ofKey: key)).scoped(to: key, name: address))
    }

    /// Moves an athlete's folder of the earlier layout into `store`: the whole state (header, rules,
    /// awards, runs, awards taken back) in one transaction, then the folder to `~imported/KEY`.
    private func moveIn(_ folder: StateStore, to store: StateStore, key: String) throws {
        try folder.locked {
            try store.locked {
                guard !store.exists else { return }
                let database = try folder.database(holdingLock: true)
                var state = try database.header()
                state.rules = try database.rules(awards: .all).rules
                let runs = try folder.summaries(try database.allRuns())
                let taken = try database.withdrawals()
                try? database.queue.close()
                try store.save(state, runs: runs)
                try store.database(holdingLock: true).record(taken)
            }
        }
        let imported = (directory as NSString).appendingPathComponent(AthleteStore.importedFolder)
        try? FileManager.default.createDirectory(atPath: imported, withIntermediateDirectories: true)
        let target = (imported as NSString).appendingPathComponent(key)
        guard rename(folder.directory, target) == 0 else {
            throw RulesError.state(path: folder.directory, reason: "moved into the store, but the folder could not be moved to \(target): \(String(cString: strerror(errno)))")
        }
    }
}

extension StateStore {
    /// Takes this athlete's whole state out of the worker's store (`{"forget": true}`), in one
    /// transaction: every row of theirs, the awards taken back included. A state folder is not
    /// forgotten this way (delete the folder).
    package func forget() throws {
        guard let shared else {
            throw RulesError.state(path: directory, reason: "a state folder is not forgotten by badgectl: delete the folder")
        }
        try shared.database.transaction { try shared.database.forget() }
    }

    /// The state `path` names: a state folder, or an athlete of a worker's store (`DIR/KEY`, where
    /// DIR holds a store and no folder `DIR/KEY` holds a state of its own; `AthleteStore`).
    package static func at(_ path: String) -> StateStore {
        let folder = StateStore(directory: path)
        let parent = (path as NSString).deletingLastPathComponent
        let key = (path as NSString).lastPathComponent
        guard !folder.exists, StateStore.isKey(key), AthleteStore.exists(in: parent.isEmpty ? "." : parent),
              let store = try? AthleteStore(directory: parent.isEmpty ? "." : parent).state(ofKey: key) else { return folder }
        return store
    }

    /// Whether `name` is an athlete's key (`folderName(forAthlete:)` gives such names only).
    static func isKey(_ name: String) -> Bool {
        if name.hasPrefix("~") {
            return name.utf8.count == 33 && name.utf8.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        }
        return folderName(forAthlete: name) == name
    }
}
