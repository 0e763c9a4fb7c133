import Activities
import CLua
import CLuaShims
import Foundation

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
        var ctxRef: Int32 = LUA_NOREF
        var awardRef: Int32 = LUA_NOREF
        var functions: [String: Int32] = [:]
        var definitions: [String: (file: String, line: Int)] = [:]
    }

    struct Current {
        var pack: Int
        /// Index into `rules`; nil while a file's top level runs.
        var rule: Int?
    }

    struct Pending {
        var runIndex: Int
        var award: Award
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
    var makeEnvRef: Int32 = LUA_NOREF
    var runsRef: Int32 = LUA_NOREF
    var catalogueRef: Int32 = LUA_NOREF

    // Per pack (index = token of print/require).
    var folders: [String] = []
    var packNames: [String] = []
    var envRefs: [Int32] = []

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

    init(packs: [RulePack], catalogue: Catalogue, limits: RuleEngine.Limits, runs: [RunSummary]) throws {
        self.lua = try LuaState(limits: limits)
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
        bclua_set_host(lua.state, hostEntry, Unmanaged.passUnretained(self).toOpaque())
        if let message = lua.load(Prelude.rules.bytes, chunkName: Prelude.rules.chunkName) {
            throw RulesError.lua(reason: "prelude: \(message)")
        }
        if let error = lua.call(nargs: 0, nresults: 1) {
            throw RulesError.lua(reason: "prelude: \(error.message)")
        }
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
        if let error = lua.call(nargs: 3, nresults: 1) {
            throw RulesError.lua(reason: "cannot make the environment of pack '\(packNames[index])': \(error.message)")
        }
        envRefs.append(lua.ref())
    }

    /// A file's bytes, without a UTF-8 byte order mark (editors add one; Lua would read it as code).
    static func read(_ path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        return bytes
    }

    /// Loads `file` text-only into pack `pack`'s environment and runs its top level; leaves its one result on the stack.
    func runFile(_ file: String, pack: Int) -> (error: LuaState.CallError?, loadMessage: String?) {
        guard let bytes = Session.read(file) else {
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
        guard lua.type(at: -1) == LUA_TTABLE else {
            throw RulesError.pack(file: packFile, line: nil, reason: "pack.lua must return a table { name = ..., version = ... }, got \(lua.typeName(at: -1))")
        }
        let table = lua.top
        func fail(_ reason: String) -> RulesError { .pack(file: packFile, line: nil, reason: reason) }
        let name = try requiredString(table, "name", fail)
        let version = try requiredString(table, "version", fail)
        let description = try optionalString(table, "description", fail) ?? ""
        var badges: [CatalogueBadge] = []
        if lua.getField(table, "badges") != LUA_TNIL {
            badges = try readBadges(at: lua.top, label: "badges", declaresTiers: true, fail)
        }
        lua.pop()
        var themes: [String: [CatalogueBadge]] = [:]
        let themesType = lua.getField(table, "themes")
        if themesType != LUA_TNIL {
            guard themesType == LUA_TTABLE else { throw fail("field 'themes' must be a table { <theme> = { badge, ... } }, got \(lua.typeName(at: -1))") }
            let themesIndex = lua.top
            lua.pushNil()
            while lua_next(state, themesIndex) != 0 {
                guard let theme = lua.string(at: -2) else { throw fail("themes: keys must be theme names (strings)") }
                themes[theme] = try readBadges(at: lua.top, label: "themes.\(theme)", fail)
                lua.pop()
            }
        }
        lua.pop()
        for (label, list) in [("badges", badges)] + themes.keys.sorted().map({ ("themes.\($0)", themes[$0] ?? []) }) {
            var seen: Set<String> = []
            for badge in list where !seen.insert(badge.id).inserted {
                throw fail("\(label): duplicate badge id '\(badge.id)'")
            }
        }
        return RulePack(name: name, version: version, description: description, directory: folders[0], badges: badges, themes: themes)
    }

    func requiredString(_ table: Int32, _ key: String, _ fail: (String) -> RulesError) throws -> String {
        guard let text = try optionalString(table, key, fail) else { throw fail("missing required field '\(key)'") }
        if text.isEmpty { throw fail("field '\(key)' must not be empty") }
        return text
    }

    /// `LuaState.stringField`, its message through `fail` (which says where).
    func optionalString(_ table: Int32, _ key: String, _ fail: (String) -> RulesError) throws -> String? {
        do { return try lua.stringField(table, key) } catch RulesError.field(let text) { throw fail(text) }
    }

    /// `declaresTiers`: the entries are the pack's own `badges`, which may declare `tiers`.
    func readBadges(at index: Int32, label: String, declaresTiers: Bool = false, _ fail: (String) -> RulesError) throws -> [CatalogueBadge] {
        guard lua.type(at: index) == LUA_TTABLE else { throw fail("field '\(label)' must be an array of badges { id =, name =, information =, image = }, got \(lua.typeName(at: index))") }
        let count = Int(lua_rawlen(state, index))
        var badges: [CatalogueBadge] = []
        for i in 1...max(count, 1) where count > 0 {
            lua_rawgeti(state, index, lua_Integer(i))
            defer { lua.pop() }
            let entry = lua.top
            func entryFail(_ reason: String) -> RulesError { fail("\(label)[\(i)]: \(reason)") }
            guard lua.type(at: entry) == LUA_TTABLE else { throw entryFail("expected a table { id =, name = }, got \(lua.typeName(at: entry))") }
            let id = try requiredString(entry, "id", entryFail)
            let name = try requiredString(entry, "name", entryFail)
            let information = try optionalString(entry, "information", entryFail) ?? ""
            let image = try optionalString(entry, "image", entryFail)
            var distance: Double? = nil
            let distanceType = lua.getField(entry, "distance_m")
            if distanceType != LUA_TNIL {
                guard let value = lua.number(at: -1), value.isFinite, value >= 0 else {
                    lua.pop()
                    throw entryFail("field 'distance_m' must be a number of metres ≥ 0")
                }
                distance = value
            }
            lua.pop()
            let tiers = declaresTiers ? try readTiers(entry, entryFail) : nil
            badges.append(CatalogueBadge(id: id, name: name, information: information, distanceMeters: distance, image: image, tiers: tiers))
        }
        return badges
    }

    /// The optional `tiers` field of a badge entry: a non-empty list of distinct non-empty strings.
    func readTiers(_ entry: Int32, _ fail: (String) -> RulesError) throws -> [String]? {
        let type = lua.getField(entry, "tiers")
        defer { lua.pop() }
        if type == LUA_TNIL { return nil }
        let usage = "field 'tiers' must be a list of tier names such as { \"bronze\", \"silver\", \"gold\" }"
        guard type == LUA_TTABLE else { throw fail("\(usage), got \(lua.typeName(at: -1))") }
        let list = lua.top
        let count = Int(lua_rawlen(state, list))
        guard count > 0 else { throw fail("\(usage), got an empty table") }
        var tiers: [String] = []
        for i in 1...count {
            lua_rawgeti(state, list, lua_Integer(i))
            defer { lua.pop() }
            guard lua.type(at: -1) == LUA_TSTRING, let tier = lua.string(at: -1) else {
                throw fail("tiers[\(i)] must be a string, got \(lua.typeName(at: -1))")
            }
            guard !tier.isEmpty, tier.utf8.count <= 40 else { throw fail("tiers[\(i)] must be a short non-empty string") }
            guard !tiers.contains(tier) else { throw fail("tiers: duplicate tier '\(tier)'") }
            tiers.append(tier)
        }
        var keys = 0
        lua.pushNil()
        while lua_next(state, list) != 0 { keys += 1; lua.pop() }
        guard keys == count else { throw fail("\(usage) (an array, without other keys)") }
        return tiers
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
        evaluation.runOrder = runs.map(\.id)
        lua.ensureStack()
        buildShared()
        for (index, pack) in packs.enumerated() {
            folders.append(pack.directory)
            packNames.append(pack.name)
            do {
                try makeEnvironment(pack: index)
            } catch {
                envRefs.append(LUA_NOREF)
                evaluation.failures.append(RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "\(error)"))
                continue
            }
            var ids: [String: String] = [:]
            for file in pack.ruleFiles {
                loadRule(file: file, pack: index, ids: &ids)
            }
        }
        for ruleIndex in rules.indices {
            runRule(ruleIndex)
        }
        keyedAwards.sort { a, b in
            (a.run, a.pack, a.rule, a.sequence) < (b.run, b.pack, b.rule, b.sequence)
        }
        evaluation.awards = keyedAwards.map(\.award)
        return evaluation
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
        lua.newTable(array: Int32(entries.count))
        for (i, badge) in entries.enumerated() {
            lua.newTable(record: 5)
            lua.push(badge.id); lua.setField(-2, "id")
            lua.push(badge.name); lua.setField(-2, "name")
            lua.push(badge.information); lua.setField(-2, "information")
            if let image = badge.image { lua.push(image); lua.setField(-2, "image") }
            if let distance = badge.distanceMeters { lua.push(distance); lua.setField(-2, "distance_m") }
            bclua_make_proxy(state, LuaKinds.catalogueBadge)
            lua_rawseti(state, -2, lua_Integer(i + 1))
        }
        bclua_make_proxy(state, LuaKinds.catalogue)
        catalogueRef = lua.ref()

        lua.newTable(array: Int32(runs.count))
        for (i, run) in runs.enumerated() {
            marshaller.pushRun(run, index: i + 1)
            lua_rawseti(state, -2, lua_Integer(i + 1))
        }
        runsRef = lua.ref()
    }
}
