import Foundation
import GRDB
import RunFiles

/// The saved maps of a state database (`SavedMaps`): a fold's large maps kept in `state_key`, one
/// key a row, read by key while the rules run (`SavedMapSource`) and written by key after.
extension StateDatabase {
    // MARK: - Reading

    func savedValue(rule: String, path: String, key: StateValue) throws -> StateValue? {
        guard let index = ruleIndex[rule] else { return nil }
        let text = try guarded {
            try connected { db in
                try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM state_key WHERE athlete = ? AND rule = ? AND path = ? AND key = ?"),
                                    arguments: [athlete, index, path, StateJSON.keyText(key)])
            }
        }
        return try text.map { try stateValue($0, "saved map '\(path)' of rule \(index)") }
    }

    func savedEntries(rule: String, path: String) throws -> [StateEntry] {
        guard let index = ruleIndex[rule] else { return [] }
        return try savedEntries(index: index, path: path)
    }

    func savedEntries(index: Int, path: String) throws -> [StateEntry] {
        let rows = try guarded {
            try connected { db in
                try Row.fetchAll(db.cachedStatement(sql: "SELECT key, value FROM state_key WHERE athlete = ? AND rule = ? AND path = ?"), arguments: [athlete, index, path])
                    .map { (try column($0, 0, "key", String.self), try column($0, 1, "value", String.self)) }
            }
        }
        return try rows.map { StateEntry(key: try stateValue($0.0, "saved map '\(path)'"), value: try stateValue($0.1, "saved map '\(path)'")) }
            .sorted { FoldStates.keyPrecedes($0.key, $1.key) }
    }

    func stateValue(_ text: String, _ what: String) throws -> StateValue {
        do { return try StateJSON.state(in: Data(text.utf8), source: path) } catch let error as ActivityError {
            throw RulesError.state(path: path, reason: "damaged: \(what): \(error.reason): \(rebuildAdvice)")
        }
    }

    // MARK: - Writing

    func insertMaps(_ db: Database, rule: Int, _ maps: [String: [StateEntry]]) throws {
        guard !maps.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO state_key VALUES (?, ?, ?, ?, ?)")
        for (path, entries) in maps.sorted(by: { $0.key < $1.key }) {
            for entry in entries { try insert.execute(arguments: [athlete, rule, path, StateJSON.keyText(entry.key), StateJSON.text(entry.value)]) }
        }
    }

    /// An addition's saved maps of rule `index`: the keys written (a string key that is a saved
    /// run's id puts the whole map back into the state), the maps gone from the state deleted, and
    /// any map of the state grown past `SavedMaps.threshold` moved to rows. Updates `rule.split`.
    func updateMaps(_ db: Database, rule index: Int, _ rule: inout RuleState, before: RuleState?) throws {
        guard rule.failure == nil else {
            if before.map({ !$0.split.isEmpty }) ?? false { try db.execute(sql: "DELETE FROM state_key WHERE athlete = ? AND rule = ?", arguments: [athlete, index]) }
            rule.split = []
            return
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM state_key WHERE athlete = ? AND rule = ? AND path = ? AND key = ?")
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO state_key VALUES (?, ?, ?, ?, ?)")
        for (path, writes) in rule.splitWrites.sorted(by: { $0.key < $1.key }) where rule.split.contains(path) {
            var keys = Set<String>()
            for write in writes { if case .string(let key) = write.key { keys.insert(key) } }
            if !keys.isEmpty, try !savedIDs(db, keys).isEmpty {
                var map: [StateValue: StateValue] = [:]
                for entry in try savedEntries(index: index, path: path) { map[entry.key] = entry.value }
                for write in writes { map[write.key] = write.value == .null ? nil : write.value }
                rule.state = SavedMaps.merged(rule.state, [path: map.map { StateEntry(key: $0.key, value: $0.value) }])
                rule.split.removeAll { $0 == path }
                continue
            }
            for write in writes {
                if write.value == .null {
                    try delete.execute(arguments: [athlete, index, path, StateJSON.keyText(write.key)])
                } else {
                    try upsert.execute(arguments: [athlete, index, path, StateJSON.keyText(write.key), StateJSON.text(write.value)])
                }
            }
        }
        for path in before?.split ?? [] where !rule.split.contains(path) {
            try db.execute(sql: "DELETE FROM state_key WHERE athlete = ? AND rule = ? AND path = ?", arguments: [athlete, index, path])
        }
        let (kept, maps) = try SavedMaps.split(rule.state) { try savedIDs(db, $0) }
        if !maps.isEmpty {
            for path in maps.keys { try db.execute(sql: "DELETE FROM state_key WHERE athlete = ? AND rule = ? AND path = ?", arguments: [athlete, index, path]) }
            try insertMaps(db, rule: index, maps)
            rule.state = kept
            rule.split = (rule.split + maps.keys).sorted()
        }
        rule.splitWrites = [:]
    }

    /// Which of `ids` are saved runs' ids.
    func savedIDs(_ db: Database, _ ids: Set<String>) throws -> Set<String> {
        Set(try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM run WHERE athlete = ? AND id IN (SELECT value FROM json_each(?))"),
                                arguments: [athlete, try StateDatabase.json(ids.sorted())]))
    }
}
