import Foundation
import RunAnalysis
import RunFiles

/// Loading rule files: each runs in its pack's environment and returns a rule table, checked here
/// and kept as a `Rule` (its functions as registry refs, its `ctx` and `award` made once). What
/// does not load is a failure (`failures`), with the file and line of the real error.
final class RuleLoader {
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
        /// The ctx record itself (host memory), whose `athlete` slot each evaluation fills (`present`).
        var ctx: UnsafeMutableRawPointer?
        var awardRef: Int32 = LuaState.noRef
        var functions: [String: Int32] = [:]
        var definitions: [String: (file: String, line: Int, lastLine: Int)] = [:]
    }

    let lua: LuaState
    let sandbox: PackSandbox
    let runs: RunTable
    let notes: NoteLog
    let packs: [RulePack]
    let catalogue: Catalogue
    /// Badges an award may name: the catalogue's and every pack's.
    let knownBadges: Set<String>
    /// The tiers a pack's badge may be awarded with, for badges whose pack.lua entry gives `tiers`.
    let declaredTiers: [String: [String]]
    /// `ctx.catalogue`: the one proxy every rule's ctx holds (by its value id).
    private var catalogueRef: Int32 = LuaState.noRef
    /// The rules loaded, in pack then file order (index = token of `award` and `ctx.note`).
    private(set) var rules: [Rule] = []
    /// What did not load: packs whose environment cannot be made, rule files that fail.
    private(set) var failures: [RuleFailure] = []

    /// `ctx.zone`: the name of the zone local dates are made in (`--tz`, else the machine's).
    let zone: String

    init(sandbox: PackSandbox, runs: RunTable, notes: NoteLog, packs: [RulePack], catalogue: Catalogue, zone: String = "UTC") {
        self.zone = zone
        self.lua = sandbox.lua
        self.sandbox = sandbox
        self.runs = runs
        self.notes = notes
        self.packs = packs
        self.catalogue = catalogue
        var known = Set(catalogue.badges.map(\.id))
        for pack in packs { known.formUnion(pack.allBadges.map(\.id)) }
        knownBadges = known
        var tiers: [String: [String]] = [:]
        for pack in packs {
            for badge in pack.badges {
                guard let declared = badge.tiers else { continue }
                tiers[badge.id, default: []].append(contentsOf: declared.filter { !(tiers[badge.id] ?? []).contains($0) })
            }
        }
        declaredTiers = tiers
    }

    /// Makes every pack's environment and loads its rule files (into `rules`; a file that does not
    /// load is a failure in `failures`, with the file and line of the real error).
    func load() {
        lua.ensureStack()
        buildShared()
        for (index, pack) in packs.enumerated() {
            do {
                try sandbox.addPack(name: pack.name, folder: pack.directory)
            } catch {
                failures.append(RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "\(error)"))
                continue
            }
            var ids: [String: String] = [:]
            for file in pack.ruleFiles {
                loadRule(file: file, pack: index, ids: &ids)
            }
            if let error = sandbox.freeze(pack: index) {
                failures.append(RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "cannot freeze the pack's globals: \(error.message)"))
            }
        }
    }

    /// Why awarding `tier` of `badge` is wrong: a pack declares the badge's `tiers` and `tier` is not
    /// among them. nil when the tier is fine (or the badge declares no tiers: a catalogue badge, or a
    /// pack badge without `tiers`, which packs written before `tiers` existed rely on).
    func undeclaredTier(badge: String, tier: String) -> String? {
        guard let declared = declaredTiers[badge], !declared.contains(tier) else { return nil }
        return "badge '\(badge)' has no tier '\(tier)' (declared: \(declared.joined(separator: ", ")))"
    }


    /// The catalogue array for `ctx.catalogue` and the run proxies, built once for every rule.
    private func buildShared() {
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

        runs.buildProxies()
    }

    static let ruleFields = ["id", "title", "description", "badge", "repeatable", "earned", "progress",
                             "init", "on_run", "finish", "status"]

    func stem(_ file: String) -> String {
        let base = (file as NSString).lastPathComponent
        return base.hasSuffix(".lua") ? String(base.dropLast(4)) : base
    }

    /// A failure from a protected call: the location from the message when it has one, else `fallback`.
    func failure(pack: Int, rule: String, error: LuaState.CallError, fallback: (file: String, line: Int?)) -> RuleFailure {
        var file = fallback.file
        var line = fallback.line
        var message = error.message
        if let location = splitLocation(error.message) {
            file = resolve(location.file, fallback: fallback.file); line = location.line; message = location.rest
        }
        return RuleFailure(pack: sandbox.packNames[pack], rule: rule, file: file, line: line, message: message, traceback: error.traceback)
    }

    /// Lua shortens long chunk names to `...tail`; map them back to the file they came from.
    func resolve(_ file: String, fallback: String) -> String {
        guard file.hasPrefix("...") else { return file }
        let tail = String(file.dropFirst(3))
        if fallback.hasSuffix(tail) && !fallback.hasPrefix("...") { return fallback }
        for pack in packs {
            if let match = pack.ruleFiles.first(where: { $0.hasSuffix(tail) }) { return match }
            let packFile = pack.directory + "/pack.lua"
            if packFile.hasSuffix(tail) { return packFile }
        }
        for folder in sandbox.folders {
            if let entries = FileManager.default.enumerator(atPath: folder) {
                for case let entry as String in entries where (folder + "/" + entry).hasSuffix(tail) { return folder + "/" + entry }
            }
        }
        return file
    }

    // MARK: - Loading a rule file

    /// The 1-based line of `file` where `key = "value"` is written (the first line holding both the key
    /// and the quoted value), for messages about a field's value; nil when no line has both.
    static func line(of key: String, value: String, in file: String) -> Int? {
        guard let bytes = PackSandbox.read(file) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains(key) && (line.contains("\"\(value)\"") || line.contains("'\(value)'")) {
            return index + 1
        }
        return nil
    }

    /// The 1-based line of `file` where the field `key` is assigned (`key =`, not `key ==`), for
    /// messages about a misspelt rule-table field; nil when no line assigns it.
    static func line(ofField key: String, in file: String) -> Int? {
        guard let bytes = PackSandbox.read(file) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line[...]
            while let range = rest.range(of: key) {
                let before = rest[..<range.lowerBound].last
                let after = rest[range.upperBound...].drop { $0 == " " || $0 == "\t" }
                let startsWord = before.map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true
                if startsWord, after.first == "=", after.dropFirst().first != "=" { return index + 1 }
                rest = rest[range.upperBound...]
            }
        }
        return nil
    }

    func loadRule(file: String, pack: Int, ids: inout [String: String]) {
        let base = lua.top
        defer { lua.setTop(base) }
        let fallbackName = stem(file)
        let (error, loadMessage) = sandbox.runFile(file, pack: pack)
        if let loadMessage {
            let location = splitLocation(loadMessage)
            let binary = loadMessage.contains("attempt to load a binary chunk")
            failures.append(RuleFailure(pack: sandbox.packNames[pack], rule: fallbackName,
                                                   file: location.map { resolve($0.file, fallback: file) } ?? file,
                                                   line: location?.line ?? (binary ? 1 : nil),
                                                   message: binary ? "precompiled (binary) chunks are refused: rule files are loaded as text only" : (location?.rest ?? loadMessage)))
            return
        }
        if let error {
            failures.append(failure(pack: pack, rule: fallbackName, error: error, fallback: (file, nil)))
            return
        }
        func fail(_ rule: String, _ message: String, line: Int? = nil) {
            failures.append(RuleFailure(pack: sandbox.packNames[pack], rule: rule, file: file, line: line, message: message))
        }
        guard lua.type(at: -1) == .table else {
            fail(fallbackName, "a rule file must return a rule table { id = ..., earned = function ... } or { id = ..., init = ..., on_run = ... }, got \(lua.typeName(at: -1))")
            return
        }
        let table = lua.top
        // id
        let idType = lua.getField(table, "id")
        guard idType != .nil else { fail(fallbackName, "missing required field 'id'"); return }
        guard let id = lua.string(at: -1), !id.isEmpty else { fail(fallbackName, "field 'id' must be a non-empty string, got \(lua.typeName(at: -1))"); return }
        lua.pop()
        if let other = ids[id] {
            fail(id, "duplicate rule id '\(id)' (also in \(other))")
            return
        }
        var strings: [String: String] = [:]
        for key in ["title", "description", "badge"] {
            let type = lua.getField(table, key)
            defer { lua.pop() }
            if type == .nil { continue }
            guard let text = lua.string(at: -1) else { fail(id, "field '\(key)' must be a string, got \(lua.typeName(at: -1))"); return }
            strings[key] = text
        }
        if let badge = strings["badge"], !knownBadges.contains(badge) {
            let hint = Suggestion.closest(to: badge, in: knownBadges.sorted()).map { "; did you mean '\($0)'?" }
                ?? " (not in the catalogue nor in any pack's badges or themes)"
            fail(id, "field 'badge': unknown badge '\(badge)'\(hint)", line: RuleLoader.line(of: "badge", value: badge, in: file))
            return
        }
        var repeatable = false
        let repeatableType = lua.getField(table, "repeatable")
        if repeatableType == .boolean { repeatable = lua.boolean(at: -1) } else if repeatableType != .nil {
            fail(id, "field 'repeatable' must be true or false, got \(lua.typeName(at: -1))"); return
        }
        lua.pop()
        var functions: [String: Int32] = [:]
        var definitions: [String: (file: String, line: Int, lastLine: Int)] = [:]
        for key in ["earned", "progress", "init", "on_run", "finish", "status"] {
            let type = lua.getField(table, key)
            if type == .nil { lua.pop(); continue }
            guard type == .function else {
                fail(id, "field '\(key)' must be a function, got \(lua.typeName(at: -1))")
                return
            }
            definitions[key] = lua.definition(ofFunctionAt: -1)
            functions[key] = lua.ref()
        }
        // Misspelt fields of the table (`earn`, `onrun`), for the messages below and the notes.
        var misspelt: [(key: String, meant: String?)] = []
        lua.pushNil()
        while lua.next(table) {
            lua.pop()
            if let key = lua.string(at: -1), !RuleLoader.ruleFields.contains(key) {
                let meant = RuleLoader.ruleFields.first { $0.hasPrefix(key) || key.hasPrefix($0) }
                    ?? Suggestion.closest(to: key, in: RuleLoader.ruleFields)
                misspelt.append((key, meant))
            }
        }
        misspelt.sort { $0.key < $1.key }
        /// "; 'onrun' looks like 'on_run'" for the misspelt fields that look like one of `wanted`.
        func looksLike(_ wanted: [String]) -> String {
            let hits = misspelt.filter { $0.meant.map(wanted.contains) ?? false }
            return hits.isEmpty ? "" : "; did you mean " + hits.map { "'\($0.meant ?? "")' (not '\($0.key)')" }.joined(separator: ", ") + "?"
        }
        /// The line of the first misspelt field that looks like one of `wanted` (where the fix goes).
        func misspeltLine(_ wanted: [String]) -> Int? {
            misspelt.lazy.filter { $0.meant.map(wanted.contains) ?? false }
                .compactMap { Self.line(ofField: $0.key, in: file) }.first
        }
        let shape: Shape
        if functions["earned"] != nil {
            if functions["init"] != nil || functions["on_run"] != nil {
                fail(id, "a rule is either a predicate ('earned') or a fold ('init' and 'on_run'), not both")
                return
            }
            guard strings["badge"] != nil else { fail(id, "missing required field 'badge' (the badge 'earned' awards)"); return }
            shape = .predicate
        } else if functions["on_run"] != nil {
            shape = .fold
        } else if functions["init"] != nil {
            fail(id, "missing required field 'on_run' (a fold is on_run, called for each run; init is optional)" + looksLike(["on_run"]),
                 line: misspeltLine(["on_run"]))
            return
        } else {
            fail(id, "missing required field 'earned' (a per-run predicate) or 'on_run' (a fold over runs)" + looksLike(["earned", "on_run"]),
                 line: misspeltLine(["earned", "on_run"]))
            return
        }
        // Unknown fields: a note, not a failure (a typo like 'earn' would otherwise pass silently).
        for (key, meant) in misspelt {
            let hint = meant.map { "; did you mean '\($0)'?" } ?? ""
            notes.append(RuleNote(pack: sandbox.packNames[pack], rule: id, message: "\(file): unknown field '\(key)' in the rule table is ignored\(hint)"))
        }
        ids[id] = file
        var rule = Rule(pack: pack, id: id, file: file, title: strings["title"], badge: strings["badge"],
                        repeatable: repeatable, shape: shape, functions: functions, definitions: definitions)
        let token = rules.count
        // ctx: the same read-only record for every call of this rule (LuaKinds.ctx, .packInfo, .ruleInfo);
        // its catalogue and note are values (the catalogue proxy, the host function).
        if let ctx = lua.newRecords(kind: LuaKinds.ctx, fields: 6),
           let packInfo = lua.newRecords(kind: LuaKinds.packInfo, fields: 2),
           let ruleInfo = lua.newRecords(kind: LuaKinds.ruleInfo, fields: 3) {
            LuaState.setSlot(packInfo, 0, id: runs.marshaller.recordString(packs[pack].name))
            LuaState.setSlot(packInfo, 1, id: runs.marshaller.recordString(packs[pack].version))
            LuaState.setSlot(ruleInfo, 0, id: runs.marshaller.recordString(id))
            if let title = rule.title { LuaState.setSlot(ruleInfo, 1, id: runs.marshaller.recordString(title)) }
            if let badge = rule.badge { LuaState.setSlot(ruleInfo, 2, id: runs.marshaller.recordString(badge)) }
            lua.push(ref: catalogueRef)
            LuaState.setSlot(ctx, 0, id: lua.addRecordValue())
            LuaState.setSlot(ctx, 1, record: UnsafeRawPointer(packInfo))
            lua.pushHostFunction(.note, token: token)
            LuaState.setSlot(ctx, 2, id: lua.addRecordValue())
            LuaState.setSlot(ctx, 3, record: UnsafeRawPointer(ruleInfo))
            LuaState.setSlot(ctx, 5, id: runs.marshaller.recordString(zone))
            rule.ctx = ctx
            lua.push(lightUserdata: ctx)
        } else {
            lua.pushNil()
        }
        rule.ctxRef = lua.ref()
        lua.pushHostFunction(.award, token: token)
        rule.awardRef = lua.ref()
        rules.append(rule)
    }

    // MARK: - The athlete of one evaluation

    /// The notes of the measures the last athlete presented leaves unavailable (the next athlete's
    /// are made again only when their profile differs).
    private var unavailable: (athlete: Athlete?, notes: [RuleNote])?

    /// The athlete slot of `ctx` (`LuaKinds.ctx`'s fields).
    private static let athleteSlot = 4

    /// Hands `athlete` to this evaluation's rules: `ctx.athlete` (a read-only proxy made now, so
    /// that in a reused state it is one of the evaluation's values, dropped at its reset) and a note
    /// per measure the profile leaves unavailable, before the load's notes (as a fresh state lists
    /// them). `withdraw` takes it back. The loaded state itself holds no athlete: what rules can reach
    /// between evaluations never names one (ReusedEvaluator).
    func present(athlete: Athlete?) {
        if unavailable == nil || unavailable?.athlete != athlete {
            var notes: [RuleNote] = []
            for pack in packs {
                for measure in pack.measures {
                    guard case .failure(let problem) = measure.definition.resolved(athlete: athlete) else { continue }
                    notes.append(RuleNote(pack: pack.name, rule: nil, message: RuleNote.unavailableMeasure(measure.name, reason: problem.reason)))
                }
            }
            unavailable = (athlete, notes)
        }
        if let unavailable = unavailable?.notes, !unavailable.isEmpty { notes.restore(notes.snapshot, leading: unavailable) }
        guard let athlete else { return }
        lua.ensureStack()
        lua.newTable(record: 6)
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
        // Goals: targets are floats (metres, seconds) but a count of runs is an integer.
        lua.newTable(array: Int32(athlete.goals.count))
        for (i, goal) in athlete.goals.enumerated() {
            lua.newTable(record: 4)
            lua.push(goal.id); lua.setField(-2, "id")
            lua.push(goal.measure.rawValue); lua.setField(-2, "measure")
            if goal.measure == .runs { lua.push(integer: Int(goal.target)) } else { lua.push(goal.target) }
            lua.setField(-2, "target")
            lua.push(goal.per.rawValue); lua.setField(-2, "per")
            lua.makeProxy(kind: LuaKinds.athleteGoal)
            lua.setIndex(-2, i + 1)
        }
        lua.makeProxy(kind: LuaKinds.athleteGoals)
        lua.setField(-2, "goals")
        lua.makeProxy(kind: LuaKinds.athlete)
        let id = lua.addRecordValue()
        for rule in rules {
            if let ctx = rule.ctx { LuaState.setSlot(ctx, Self.athleteSlot, id: id) }
        }
    }

    /// Takes back what `present` handed the rules: every `ctx.athlete` is nil again.
    func withdrawAthlete() {
        for rule in rules {
            if let ctx = rule.ctx { LuaState.clearSlot(ctx, Self.athleteSlot) }
        }
    }
}
