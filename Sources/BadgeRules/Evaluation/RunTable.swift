import RunFiles

/// The runs rules see in one Lua state: the runs in order, their proxies (built once), their lazy
/// fields and `run.measures`, and which measures each rule read. Run indexes are 1-based (the
/// proxies' tokens). Used by an evaluation and by a test file's `t.run`.
final class RunTable {
    let lua: LuaState
    private(set) var runs: [RunSummary]
    /// 1-based index of each run id (the first run with that id).
    private(set) var indexByID: [String: Int] = [:]
    private var proxiesRef: Int32 = LuaState.noRef
    /// Turns runs into Lua values (the run proxies and their records).
    let marshaller: RunMarshaller
    /// What each pack's measure names stand for (`run.measures`), for the evaluation's athlete
    /// (`Session.present`).
    var measureTable: PackMeasureTable
    /// The pack whose measures a read outside any pack's code names (a test file's runs: its pack).
    let defaultPack: Int?

    /// The measures each rule read of each run (names), for the awards that follow (`Award.measures`).
    struct MeasureRead: Hashable { var rule: Int; var run: Int }
    /// Each name once, in the order first read (a rule reads a handful: a list beats hashing into a set).
    var measureReads: [MeasureRead: [String]] = [:]
    /// The measures read as nil in the current call (run index, pack, name): a rule that then fails
    /// on a nil value is told which run and why (`RuleRunner.explainingNilMeasures`).
    var nilMeasureReads: [(run: Int, pack: Int, name: String)] = []

    init(lua: LuaState, runs: [RunSummary], measureTable: PackMeasureTable, defaultPack: Int? = nil) {
        self.lua = lua
        self.runs = []
        self.marshaller = RunMarshaller(lua: lua)
        self.measureTable = measureTable
        self.defaultPack = defaultPack
        take(runs)
    }

    /// Holds `newRuns` (the same array, no summary copied) and indexes their ids.
    private func take(_ newRuns: [RunSummary]) {
        runs = newRuns
        indexByID.reserveCapacity(newRuns.count)
        newRuns.withUnsafeBufferPointer { runs in
            for i in runs.indices where indexByID[runs[i].id] == nil { indexByID[runs[i].id] = i + 1 }
        }
    }

    var count: Int { runs.count }

    /// Adds a run (a test's `t.run`); its 1-based index.
    func append(_ run: RunSummary) -> Int {
        runs.append(run)
        if indexByID[run.id] == nil { indexByID[run.id] = runs.count }
        return runs.count
    }

    /// Forgets every run (a test's runs, before the next test); proxies already made stay valid values.
    func removeAll() {
        runs.removeAll()
        indexByID.removeAll()
        measureReads.removeAll()
        nilMeasureReads.removeAll()
    }

    /// Replaces the runs with another evaluation's (a reused state, `ReusedSession`): the old
    /// proxies are released and the marshaller's records forgotten; `buildProxies` makes the new ones.
    func replace(runs newRuns: [RunSummary]) {
        releaseProxies()
        removeAll()
        marshaller.forgetRecords()
        take(newRuns)
    }

    /// Releases the array of run proxies (its registry ref).
    func releaseProxies() {
        if proxiesRef != LuaState.noRef { lua.unref(proxiesRef) }
        proxiesRef = LuaState.noRef
    }

    /// Builds the array of run proxies every rule reads (once per evaluation).
    func buildProxies() {
        lua.newTable(array: Int32(runs.count))
        runs.withUnsafeBufferPointer { runs in
            for i in runs.indices {
                marshaller.pushRun(runs[i], index: i + 1)
                lua.setIndex(-2, i + 1)
            }
        }
        proxiesRef = lua.ref()
    }

    /// Pushes run `index`'s proxy (from `buildProxies`).
    func pushProxy(_ index: Int) {
        lua.push(ref: proxiesRef)
        lua.getIndex(-1, index)
        lua.remove(at: -2)
    }

    /// Pushes a new proxy of run `index` (a test's runs, made one by one).
    func pushNewProxy(_ index: Int) {
        runs.withUnsafeBufferPointer { marshaller.pushRun($0[index - 1], index: index) }
    }

    // MARK: - Host functions of runs

    /// A run's field built on first read (`HostFunction.lazyField`).
    func lazyField(run token: Int) -> Int32 {
        guard let key = lua.string(at: 2) else { lua.pushNil(); return 1 }
        guard token >= 1, token <= runs.count else { lua.pushNil(); return 1 }
        if key == "measures" { lua.pushMeasures(run: token); return 1 }
        runs.withUnsafeBufferPointer { marshaller.pushLazyField(of: $0[token - 1], run: token, key: key) }
        return 1
    }

    /// `run.measures.<name>` of run `token` for pack `pack` (the pack of the code reading it), read
    /// by rule `rule` when a rule's call reads it.
    func measure(run token: Int, pack: Int?, rule: Int?, packNames: [String]) -> Int32 {
        guard let name = lua.string(at: 2), lua.type(at: 2) == .string else {
            return lua.raise("run.measures: measure names are strings, got \(lua.typeName(at: 2))")
        }
        guard let pack = pack ?? defaultPack, pack < packNames.count, pack < measureTable.names.count else {
            return lua.raise("run.measures: read outside a rule of a pack")
        }
        // One lookup answers whether the pack declares it, where its value is and its kind.
        guard let entry = measureTable.read(pack: pack, name: name) else {
            return lua.raise(LuaState.unknownMeasure(name, pack: packNames[pack], known: measureTable.names[pack]))
        }
        guard token >= 1, token <= runs.count else { lua.pushNil(); return 1 }
        if let rule {
            if measureReads.isEmpty { measureReads.reserveCapacity(2 * runs.count) }
            let key = MeasureRead(rule: rule, run: token)
            if let at = measureReads.index(forKey: key) {
                if !measureReads.values[at].contains(name) { measureReads.values[at].append(name) }
            } else {
                measureReads[key] = [name]
            }
        }
        // The run's measures read in place: `runs[token - 1]` would copy the whole summary.
        let value = runs.withUnsafeBufferPointer { entry.value(in: $0[token - 1].measures) }
        if value == nil, nilMeasureReads.count < 8 { nilMeasureReads.append((token, pack, name)) }
        lua.push(measure: value, kindIndex: entry.kindIndex)
        return 1
    }
}
