import RunFiles

/// Where a resumed fold's saved maps are read from (the state database): a large map of a fold's
/// state (a total per day, per week) kept one key a row, so that an addition reads and writes only
/// the keys the rules touch. `rule` is `RuleState.key`, `path` the state's field holding the map.
protocol SavedMapSource: AnyObject {
    /// The value saved under `key`, nil when there is none.
    func savedValue(rule: String, path: String, key: StateValue) throws -> StateValue?
    /// Every saved key and value.
    func savedEntries(rule: String, path: String) throws -> [StateEntry]
}

/// Which maps of a fold state are saved one key a row, and how: the rule's state keeps the rest.
enum SavedMaps {
    /// A map with more entries than this is saved one key a row.
    static let threshold = 64

    /// The fields of `state` (a table with string keys) to save one key a row: maps of more than
    /// `threshold` entries whose keys are numbers, strings or booleans and whose values are numbers
    /// or booleans (no run, string or table, so that reading one key never needs a run), and whose
    /// string keys are not the ids of saved runs (`runIDs` says which are: such a key is read as a
    /// run by `IncrementalEvaluator`). Returns the state without them, and them.
    static func split(_ state: StateValue?, runIDs: (Set<String>) throws -> Set<String>) rethrows -> (kept: StateValue?, maps: [String: [StateEntry]]) {
        guard case .table(let entries)? = state else { return (state, [:]) }
        var kept: [StateEntry] = []
        var maps: [String: [StateEntry]] = [:]
        for entry in entries {
            guard case .string(let name) = entry.key, case .table(let map) = entry.value, map.count > threshold, map.allSatisfy(isSplittable) else {
                kept.append(entry)
                continue
            }
            var keys = Set<String>()
            for item in map { if case .string(let key) = item.key { keys.insert(key) } }
            if !keys.isEmpty, try !runIDs(keys).isEmpty {
                kept.append(entry)
                continue
            }
            maps[name] = map
        }
        return maps.isEmpty ? (state, [:]) : (.table(kept), maps)
    }

    static func isSplittable(_ entry: StateEntry) -> Bool {
        switch entry.value {
        case .integer, .float, .boolean: break
        default: return false
        }
        switch entry.key {
        case .integer, .float, .string, .boolean: return true
        default: return false
        }
    }

    /// `state` with the maps put back (for a whole state: `StateStore.loadState`, a replay).
    static func merged(_ state: StateValue?, _ maps: [String: [StateEntry]]) -> StateValue? {
        guard !maps.isEmpty else { return state }
        var entries: [StateEntry]
        switch state {
        case .table(let fields)?: entries = fields
        case .array(let values)?:  // the rest of the state was empty, or keys 1...n
            entries = values.enumerated().map { StateEntry(key: .integer(Int64($0.offset + 1)), value: $0.element) }
        default: return state
        }
        for (name, map) in maps {
            entries.removeAll { $0.key == .string(name) }
            entries.append(StateEntry(key: .string(name), value: .table(map.sorted { FoldStates.keyPrecedes($0.key, $1.key) })))
        }
        entries.sort { FoldStates.keyPrecedes($0.key, $1.key) }
        return .table(entries)
    }
}

/// The Lua side of saved maps: each is a proxy the prelude makes (`badgectl_saved_map`), handed to
/// the rule in its state; what the rule wrote is read back when the state is saved.
extension FoldStates {
    /// One saved map handed to a rule.
    struct SavedMapHandle {
        /// `RuleState.key` of the rule, the state's field.
        var rule: String
        var path: String
        /// The prelude's record of the map (`cache`, `dirty`), in the registry.
        var record: Int32
        /// The proxy table's identity.
        var proxy: UnsafeRawPointer?
    }

    /// Puts a proxy for each of `paths` into the state table on top of the stack (`rule`: its key).
    func attachSavedMaps(_ paths: [String], rule: String) throws {
        guard !paths.isEmpty else { return }
        guard savedMaps != nil, sandbox.savedMapRef != LuaState.noRef else {
            throw RulesError.field("the state keeps maps apart, and nothing here reads them")
        }
        let table = lua.top
        for path in paths {
            lua.ensureStack()
            let handle = savedMapHandles.count
            lua.push(ref: sandbox.savedMapRef)
            lua.pushHostFunction(.savedMapKey, token: handle)
            lua.pushHostFunction(.savedMapAll, token: handle)
            if let error = lua.call(nargs: 2, nresults: 2) { throw RulesError.field("cannot make the saved map '\(path)': \(error.message)") }
            let record = lua.ref()
            savedMapHandles.append(SavedMapHandle(rule: rule, path: path, record: record, proxy: lua.identity(at: -1)))
            lua.setField(table, path)
        }
    }

    /// Lets go of the saved maps' proxies once the evaluation is over (in a reused state, an
    /// evaluation must end holding no registry slot: `ReusedEvaluator`).
    func releaseSavedMaps() {
        for handle in savedMapHandles { lua.unref(handle.record) }
        savedMapHandles.removeAll()
    }

    /// The handle of the proxy at `index`, nil when it is not one.
    func savedMapHandle(at index: Int32) -> Int? {
        guard !savedMapHandles.isEmpty, let identity = lua.identity(at: index) else { return nil }
        return savedMapHandles.firstIndex { $0.proxy == identity }
    }

    /// Host function: the value of the key at stack index 1 of map `handle`, or nil.
    func loadSavedKey(handle: Int) -> Int32 {
        guard handle >= 0, handle < savedMapHandles.count, let source = savedMaps else { lua.pushNil(); return 1 }
        let map = savedMapHandles[handle]
        guard let key = stateKey(at: 1) else { lua.pushNil(); return 1 }
        do {
            guard let value = try source.savedValue(rule: map.rule, path: map.path, key: key) else { lua.pushNil(); return 1 }
            try push(value)
            return 1
        } catch {
            return lua.raise("saved state '\(map.path)': \(error)")
        }
    }

    /// Host function: every saved key and value of map `handle`, as a new table.
    func loadSavedMap(handle: Int) -> Int32 {
        guard handle >= 0, handle < savedMapHandles.count, let source = savedMaps else { lua.newTable(); return 1 }
        let map = savedMapHandles[handle]
        do {
            let entries = try source.savedEntries(rule: map.rule, path: map.path)
            lua.newTable(record: Int32(min(entries.count, 1 << 20)))
            for entry in entries {
                try push(entry.key)
                try push(entry.value)
                lua.rawSet(-3)
            }
            return 1
        } catch {
            return lua.raise("saved state '\(map.path)': \(error)")
        }
    }

    /// What map `handle` holds now, as plain data: the saved entries with the rule's `writes`
    /// (`savedWrites`) over them.
    func materializedMap(_ handle: Int, writes: [StateEntry]) throws -> StateValue {
        let map = savedMapHandles[handle]
        var entries: [StateValue: StateValue] = [:]
        if let source = savedMaps {
            for entry in try source.savedEntries(rule: map.rule, path: map.path) { entries[entry.key] = entry.value }
        }
        for write in writes {
            if case .null = write.value { entries[write.key] = nil } else { entries[write.key] = write.value }
        }
        return .table(entries.map { StateEntry(key: $0.key, value: $0.value) }.sorted { FoldStates.keyPrecedes($0.key, $1.key) })
    }

    /// The keys map `handle`'s rule wrote, with their values now (`.null`: deleted).
    func savedWrites(_ handle: Int, path: () -> String, depth: Int, seen: inout Set<UnsafeRawPointer>, count: inout Int) throws -> [StateEntry] {
        lua.ensureStack()
        lua.push(ref: savedMapHandles[handle].record)
        let record = lua.top
        defer { lua.setTop(record - 1) }
        lua.getField(record, "dirty")
        let dirty = lua.top
        lua.getField(record, "cache")
        let cache = lua.top
        var writes: [StateEntry] = []
        lua.pushNil()
        while lua.next(dirty) {
            lua.pop()  // the flag
            guard let key = stateKey(at: -1) else {
                let problem = lua.type(at: -1) == .string ? "a key that is not UTF-8 text"
                    : "a key that is a \(lua.typeName(at: -1)) (keys must be numbers, strings or booleans)"
                lua.pop()
                throw RulesError.field("\(path()): \(problem)")
            }
            lua.pushCopy(of: -1)
            lua.rawGet(cache)
            let value: StateValue
            do { value = try plainValue(at: lua.absolute(-1), path: { "\(path())[\(key)]" }, depth: depth + 1, seen: &seen, count: &count) } catch {
                lua.pop(2)
                throw error
            }
            lua.pop()
            writes.append(StateEntry(key: key, value: value))
        }
        return writes.sorted { FoldStates.keyPrecedes($0.key, $1.key) }
    }
}

extension StateValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .boolean(let flag): hasher.combine(flag)
        case .integer(let number): hasher.combine(number)
        case .float(let number): hasher.combine(number)
        case .string(let text): hasher.combine(text)
        case .run(let id): hasher.combine(1); hasher.combine(id)
        case .array(let values): hasher.combine(values.count)
        case .table(let entries): hasher.combine(entries.count)
        }
    }
}
