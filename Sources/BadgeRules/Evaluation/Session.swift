import Foundation
import RunFiles

/// The C trampoline's way back into Swift: finds the session from the context pointer and dispatches.
/// Returns the number of results, or -1 after pushing an error message (C raises it, never Swift).
private func hostEntry(_ state: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ fn: Int32, _ token: Int64) -> Int32 {
    guard let context else { return 0 }
    let session = Unmanaged<Session>.fromOpaque(context).takeUnretainedValue()
    return session.host(fn: fn, token: Int(token))
}

/// One evaluation (or one `pack.lua` read): the Lua state, the packs' environments, the rules and
/// what they produced. Lives on one thread from creation to `evaluate()`'s return.
final class Session {
    enum Shape { case predicate, fold }

    struct Rule {
        var pack: Int
        var id: String
        var file: String
        var title: String?
        var badge: String?
        var repeatable: Bool
        var shape: Shape
        var ctxRef: Int32 = LuaState.noRef
        var awardRef: Int32 = LuaState.noRef
        var functions: [String: Int32] = [:]
        var definitions: [String: (file: String, line: Int, lastLine: Int)] = [:]
    }

    struct Current {
        var pack: Int
        /// Index into `rules`; nil while a file's top level runs.
        var rule: Int?
    }

    struct Pending {
        var runIndex: Int
        var award: Award
        /// Made in `finish` (such awards can move when a run is added).
        var finish = false
    }

    let lua: LuaState
    var state: OpaquePointer { lua.state }
    let packs: [RulePack]
    let catalogue: Catalogue
    let runs: [RunSummary]
    var runIndexByID: [String: Int] = [:]
    var knownBadges: Set<String> = []
    /// The tiers a pack's badge may be awarded with, for badges whose pack.lua entry gives `tiers`.
    var declaredTiers: [String: [String]] = [:]
    var makeEnvRef: Int32 = LuaState.noRef
    var runsRef: Int32 = LuaState.noRef
    /// `ctx.catalogue`: the one proxy every rule's ctx holds (by its value id).
    var catalogueRef: Int32 = LuaState.noRef
    /// `ctx.athlete`: the profile's read-only proxy, when there is a profile.
    var athleteRef: Int32 = LuaState.noRef

    // Per pack (index = token of print/require).
    var folders: [String] = []
    var packNames: [String] = []
    var envRefs: [Int32] = []
    /// Per pack: the function that freezes its globals once its files are loaded.
    var freezeRefs: [Int32] = []

    var rules: [Rule] = []
    var current: Current?
    var pending: [Pending] = []
    var pendingKeys: Set<String> = []
    var pendingTiers: Set<String> = []
    var pendingStatuses: [BadgeStatus] = []
    var pendingNext: NextBadge?
    var evaluation = Evaluation()
    /// `--profile`: when set, each rule's calls and time (nanoseconds), by index into `rules`.
    var profiling = false
    var ruleCalls: [Int: Int] = [:]
    var ruleNanoseconds: [Int: UInt64] = [:]
    var keyedAwards: [(run: Int, pack: Int, rule: Int, sequence: Int, award: Award)] = []
    /// Notes kept per rule (key "pack\0rule"); past `noteLimit` they are counted, then dropped.
    var noteCounts: [String: Int] = [:]
    /// Turns runs into Lua values (the run proxies and their records).
    lazy var marshaller = RunMarshaller(lua: lua)
    static let noteLimit = 1000
    /// Bytes of a rule's text the host keeps (a note, a detail, a hint); longer text is cut (`LuaState.string(at:limit:)`).
    static let textLimit = 4096

    // Incremental evaluation (`RuleEngine.resume`, `evaluate --state`).
    /// Each rule's saved state, by `RuleState.key`, when this evaluation goes on from a saved one.
    var resumed: [String: RuleState]?
    /// The first run (1-based) rules are handed: runs before it are saved runs, there only for the
    /// states and awards that name them.
    var firstRun = 1
    /// Runs of the whole history (saved ones included), for the award limit.
    var historyCount = 0
    /// Whether to copy each rule's state out (plain data) for saving.
    var saving = false
    /// Set while a fold's `finish` runs: its awards are marked.
    var inFinish = false
    /// What the rule being run carries between runs and evaluations (see `RuleState`).
    struct RuleCapture {
        var state: StateValue?
        var unsaved: String?
        var earned = false
        var stopped = false
        var progress: Progress?
    }
    var ruleCapture = RuleCapture()
    /// What each rule leaves for the next evaluation, by index into `rules` (when `saving` or `resumed`).
    var ruleStates: [Int: RuleState] = [:]

    /// What each pack's measure names stand for (`run.measures`).
    let measureTable: PackMeasureTable
    /// The runner's profile (`ctx.athlete`), when one was given.
    let athlete: Athlete?
    /// The measures each rule read of each run (names), for the awards that follow (`Award.measures`).
    struct MeasureRead: Hashable { var rule: Int; var run: Int }
    var measureReads: [MeasureRead: Set<String>] = [:]
    /// The measures read as nil in the current call (run index, pack, name): a rule that then fails
    /// on a nil value is told which run and why (`explainingNilMeasures`).
    var nilMeasureReads: [(run: Int, pack: Int, name: String)] = []

    init(packs: [RulePack], catalogue: Catalogue, limits: RuleEngine.Limits, runs: [RunSummary], athlete: Athlete? = nil) throws {
        self.lua = try LuaState(limits: limits)
        self.athlete = athlete
        self.measureTable = PackMeasureTable(packs: packs, athlete: athlete)
        self.packs = packs
        self.catalogue = catalogue
        self.runs = runs
        for (index, run) in runs.enumerated() where runIndexByID[run.id] == nil { runIndexByID[run.id] = index + 1 }
        knownBadges = Set(catalogue.badges.map(\.id))
        for pack in packs { knownBadges.formUnion(pack.allBadges.map(\.id)) }
        for pack in packs {
            for badge in pack.badges {
                guard let tiers = badge.tiers else { continue }
                declaredTiers[badge.id, default: []].append(contentsOf: tiers.filter { !(declaredTiers[badge.id] ?? []).contains($0) })
            }
        }
        lua.setHost(hostEntry, context: Unmanaged.passUnretained(self).toOpaque())
        try Prelude.rules.run(in: lua, label: "prelude")
        makeEnvRef = lua.ref()
    }

    // MARK: - Environments and files

    /// Makes pack `index`'s environment (print and require bound to it) and keeps it in `envRefs`.
    func makeEnvironment(pack index: Int) throws {
        lua.ensureStack()
        lua.push(ref: makeEnvRef)
        lua.push(packNames[index])
        lua.pushHostFunction(.print, token: index)
        lua.pushHostFunction(.require, token: index)
        if let error = lua.call(nargs: 3, nresults: 2) {
            throw RulesError.lua(reason: "cannot make the environment of pack '\(packNames[index])': \(error.message)")
        }
        freezeRefs.append(lua.ref())
        envRefs.append(lua.ref())
    }

    /// A file's bytes, without a UTF-8 byte order mark (editors add one; Lua would read it as code).
    /// A regular file of at most 16 MiB (a rule is kilobytes; a FIFO or a device is never opened
    /// for reading), nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        guard let bytes = try? FileBytes.read(path: path, maximumBytes: 16 << 20) else { return nil }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        return bytes
    }

    /// Loads `file` text-only into pack `pack`'s environment and runs its top level; leaves its one result on the stack.
    /// A file that resolves outside the pack folder (a link leading out) is refused unread (`PackFiles`).
    func runFile(_ file: String, pack: Int) -> (error: LuaState.CallError?, loadMessage: String?) {
        let path: String
        switch PackFiles.resolve(file, folder: folders[pack]) {
        case .success(let real): path = real
        case .failure(let refusal): return (nil, refusal.description)
        }
        guard let bytes = Session.read(path) else {
            return (nil, "cannot read \(file)")
        }
        if let message = lua.load(bytes, chunkName: "@" + file) {
            return (nil, message)
        }
        lua.setEnvironment(ofFunctionAt: -1, envRef: envRefs[pack])
        let saved = current
        current = Current(pack: pack, rule: nil)
        let error = lua.call(nargs: 0, nresults: 1)
        current = saved
        return (error, nil)
    }


    // MARK: - pack.lua

    func readPackFile(packFile: String, folderName: String) throws -> RulePack {
        folders.append((packFile as NSString).deletingLastPathComponent)
        packNames.append(folderName)
        try makeEnvironment(pack: 0)
        let base = lua.top
        defer { lua.setTop(base) }
        let (error, loadMessage) = runFile(packFile, pack: 0)
        if let loadMessage {
            let location = splitLocation(loadMessage)
            throw RulesError.pack(file: location?.file ?? packFile, line: location?.line, reason: location?.rest ?? loadMessage)
        }
        if let error {
            let location = splitLocation(error.message)
            throw RulesError.pack(file: location?.file ?? packFile, line: location?.line, reason: location?.rest ?? error.message)
        }
        guard lua.type(at: -1) == .table else {
            throw RulesError.pack(file: packFile, line: nil, reason: "pack.lua must return a table { name = ..., version = ... }, got \(lua.typeName(at: -1))")
        }
        return try PackManifest(lua: lua).parse(table: lua.top, packFile: packFile, directory: folders[0])
    }

    /// Why awarding `tier` of `badge` is wrong: a pack declares the badge's `tiers` and `tier` is not
    /// among them. nil when the tier is fine (or the badge declares no tiers: a catalogue badge, or a
    /// pack badge without `tiers`, which packs written before `tiers` existed rely on).
    func undeclaredTier(badge: String, tier: String) -> String? {
        guard let declared = declaredTiers[badge], !declared.contains(tier) else { return nil }
        return "badge '\(badge)' has no tier '\(tier)' (declared: \(declared.joined(separator: ", ")))"
    }


    // MARK: - Evaluation

    func evaluate() -> Evaluation {
        loadRules()
        for ruleIndex in rules.indices {
            runRule(ruleIndex)
        }
        keyedAwards.sort { a, b in
            (a.run, a.pack, a.rule, a.sequence) < (b.run, b.pack, b.rule, b.sequence)
        }
        evaluation.awards = keyedAwards.map(\.award)
        return evaluation
    }

    /// Makes every pack's environment and loads its rule files (into `rules`; a file that does not
    /// load is a failure in `evaluation.failures`, with the file and line of the real error).
    func loadRules() {
        evaluation.runOrder = runs.map(\.id)
        lua.ensureStack()
        buildShared()
        for (index, pack) in packs.enumerated() {
            folders.append(pack.directory)
            packNames.append(pack.name)
            do {
                try makeEnvironment(pack: index)
            } catch {
                envRefs.append(LuaState.noRef)
                freezeRefs.append(LuaState.noRef)
                evaluation.failures.append(RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "\(error)"))
                continue
            }
            var ids: [String: String] = [:]
            for file in pack.ruleFiles {
                loadRule(file: file, pack: index, ids: &ids)
            }
            lua.push(ref: freezeRefs[index])
            if let error = lua.call(nargs: 0, nresults: 0) {
                evaluation.failures.append(RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "cannot freeze the pack's globals: \(error.message)"))
            }
        }
    }

    /// The catalogue array for `ctx.catalogue` and the run proxies, built once for every rule.
    func buildShared() {
        let entries = catalogue.badges.sorted { a, b in
            switch (a.distanceMeters, b.distanceMeters) {
            case let (x?, y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return Array(a.id.utf8).lexicographicallyPrecedes(Array(b.id.utf8))
            }
        }
        // Table proxies (LuaKinds.catalogueBadge, .catalogue): the array iterator of pairs(ctx.catalogue)
        // walks any proxy as the table it holds (SandboxProbeTests holds that behaviour).
        lua.newTable(array: Int32(entries.count))
        for (i, badge) in entries.enumerated() {
            lua.newTable(record: 5)
            lua.push(badge.id); lua.setField(-2, "id")
            lua.push(badge.name); lua.setField(-2, "name")
            lua.push(badge.information); lua.setField(-2, "information")
            if let image = badge.image { lua.push(image); lua.setField(-2, "image") }
            if let distance = badge.distanceMeters { lua.push(distance); lua.setField(-2, "distance_m") }
            lua.makeProxy(kind: LuaKinds.catalogueBadge)
            lua.setIndex(-2, i + 1)
        }
        lua.makeProxy(kind: LuaKinds.catalogue)
        catalogueRef = lua.ref()

        if let athlete {
            lua.newTable(record: 5)
            if let value = athlete.maxHeartRate { lua.push(value); lua.setField(-2, "max_hr") }
            if let value = athlete.restingHeartRate { lua.push(value); lua.setField(-2, "resting_hr") }
            if let value = athlete.birthDate { lua.push(value); lua.setField(-2, "birth_date") }
            if let value = athlete.sex { lua.push(value); lua.setField(-2, "sex") }
            lua.newTable(array: Int32(athlete.zones.count))
            for (i, zone) in athlete.zones.enumerated() {
                lua.newTable(record: 2)
                lua.push(zone.lower); lua.setField(-2, "min")
                if let upper = zone.upper { lua.push(upper); lua.setField(-2, "max") }
                lua.makeProxy(kind: LuaKinds.athleteZone)
                lua.setIndex(-2, i + 1)
            }
            lua.makeProxy(kind: LuaKinds.athleteZones)
            lua.setField(-2, "zones")
            lua.makeProxy(kind: LuaKinds.athlete)
            athleteRef = lua.ref()
        }
        for (index, pack) in packs.enumerated() {
            for measure in pack.measures {
                guard case .failure(let problem) = measure.definition.resolved(athlete: athlete) else { continue }
                addNote(pack: pack.name, rule: nil) { RuleNote.unavailableMeasure(measure.name, reason: problem.reason) }
            }
            _ = index
        }

        lua.newTable(array: Int32(runs.count))
        for (i, run) in runs.enumerated() {
            marshaller.pushRun(run, index: i + 1)
            lua.setIndex(-2, i + 1)
        }
        runsRef = lua.ref()
    }
}
