import Foundation
import RunFiles

/// The C trampoline's way back into Swift: finds the host from the context pointer and dispatches.
/// Returns the number of results, or -1 after pushing an error message (C raises it, never Swift).
private func hostEntry(_ state: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ fn: Int32, _ token: Int64) -> Int32 {
    guard let context else { return 0 }
    let host = Unmanaged<HostFunctions>.fromOpaque(context).takeUnretainedValue()
    return host.dispatch(fn: fn, token: Int(token))
}

/// The host functions Lua code calls (`award`, `ctx.note`, `print`, `require`, a run's lazy fields
/// and measures, the test API `t.*`), reached through the C trampoline: the one dispatch for
/// evaluations, pack files and test files. Each part answers what it owns: the sandbox `require`,
/// the run table a run's fields, the rule runner `award` and `ctx.note`, a test session `t.*`; a
/// function whose part is absent here is refused. Each returns its result count, or -1 after
/// pushing a message (C raises it).
///
/// Lives as long as its Lua state is used: whoever makes it keeps it (the trampoline holds it unretained).
final class HostFunctions {
    /// Bytes of a rule's text the host keeps (a note, a detail, a hint); longer text is cut (`LuaState.string(at:limit:)`).
    static let textLimit = 4096

    let lua: LuaState
    let sandbox: PackSandbox?
    let runs: RunTable?
    /// Notes of an evaluation (`print`, `ctx.note`); nil where nobody reads them (a pack file).
    let notes: NoteLog?
    /// The rules being loaded and run (`award`, `ctx.note`, a rule's `print`).
    var loader: RuleLoader?
    var runner: RuleRunner?
    /// A test file's session (`t.run`, `t.evaluate`, ...); it owns this host.
    weak var tests: TestSession?

    init(lua: LuaState, sandbox: PackSandbox?, runs: RunTable? = nil, notes: NoteLog? = nil) {
        self.lua = lua
        self.sandbox = sandbox
        self.runs = runs
        self.notes = notes
        lua.setHost(hostEntry, context: Unmanaged.passUnretained(self).toOpaque())
    }

    // MARK: - Host functions (called from the C trampoline; must never raise)

    func dispatch(fn: Int32, token: Int) -> Int32 {
        lua.ensureStack()
        switch HostFunction(rawValue: fn) {
        case .lazyField:
            guard let runs else { lua.pushNil(); return 1 }
            return runs.lazyField(run: token)
        case .measure:
            guard let runs else { lua.pushNil(); return 1 }
            return runs.measure(run: token, pack: sandbox?.current?.pack, rule: sandbox?.current?.rule,
                                packNames: sandbox?.packNames ?? tests.map { [$0.pack.name] } ?? [])
        case .measureWrite: return lua.raise("run.measures is read-only (copy what you need into your own table)")
        case .savedMapKey:
            guard let runner else { return unknown(fn) }
            return runner.states.loadSavedKey(handle: token)
        case .savedMapAll:
            guard let runner else { return unknown(fn) }
            return runner.states.loadSavedMap(handle: token)
        case .measureField: return lua.measureField(kindIndex: token, location: lua.whereString(level: 1))
        case .award:
            guard let runner else { return unknown(fn) }
            return runner.award(token: token)
        case .note:
            guard let runner else { return 0 }
            return runner.note(token: token)
        case .print: return print(pack: token)
        case .require:
            guard let sandbox else { return unknown(fn) }
            return sandbox.require(pack: token)
        case .testRun:
            guard let tests else { return unknown(fn) }
            return tests.hostRun()
        case .testEvaluate:
            guard let tests else { return unknown(fn) }
            return tests.hostEvaluate()
        case .testFail:
            guard let tests else { return unknown(fn) }
            return tests.hostFail()
        case .testWhere:
            guard tests != nil else { return unknown(fn) }
            let level = Int32(lua.number(at: 1) ?? 1)
            lua.push(lua.whereString(level: level))
            return 1
        case .testPrint:
            guard let tests else { return unknown(fn) }
            return tests.hostPrint()
        case .testRequire:
            guard let tests else { return unknown(fn) }
            // A test requires what rules can (the pack's own modules, `lib.x`, inside the pack folder),
            // and the pack's league.lua, whose functions take groups the test makes (t.athletes, t.team).
            if lua.string(at: 1) == "league" { return tests.requireLeague() }
            return PackSandbox.requireModule(lua: lua, folder: tests.pack.directory, packName: tests.pack.name, envRef: tests.envRef)
        case .zoneOffset: return zoneOffset()
        case .figureDistance: return figure(FigureText.distance)
        case .figureDuration: return figure(FigureText.duration)
        case .figurePace: return figure(FigureText.pace)
        case .figureTierPace: return figure { FigureText.tierPaceText($0 ?? .nan) }
        case nil:
            return unknown(fn)
        }
    }

    private func unknown(_ fn: Int32) -> Int32 {
        lua.push("badgectl: unknown host function \(fn)")
        return -1
    }

    /// A `badgectl.format_*` helper's text: `text` of the number its prelude wrapper checked (a
    /// figure that is not one prints as `FigureText.unknown`).
    private func figure(_ text: (Double?) -> String) -> Int32 {
        lua.push(text(lua.number(at: 1)))
        return 1
    }

    /// Zones `zone_offset_s` looked up in this state, by the name given.
    private var zones: [String: TimeZone] = [:]

    /// `badgectl.zone_offset_s(zone, epoch_s)`: the UTC offset in seconds (an integer) of the IANA zone
    /// `zone` at `epoch_s` seconds since 1970 (UTC), summer time included. An unknown zone, a number
    /// that is not finite or not a time badgectl dates are made for, fail with the caller's line.
    func zoneOffset() -> Int32 {
        let name = "badgectl.zone_offset_s"
        guard lua.type(at: 1) == .string, let zoneName = lua.string(at: 1, limit: 256) else {
            return lua.raise("\(name): expected a zone name (a string such as \"Europe/London\" or ctx.zone), got \(lua.typeName(at: 1))")
        }
        guard lua.type(at: 2) == .number, let seconds = lua.number(at: 2), seconds.isFinite else {
            return lua.raise("\(name): expected seconds since 1970 (a finite number, such as run.start_epoch_s), got \(lua.type(at: 2) == .number ? lua.numberText(at: 2) : lua.typeName(at: 2))")
        }
        // Years 1 to 9999: what a date can be written as (253402300800 is 10000-01-01).
        guard seconds >= -62_135_596_800, seconds < 253_402_300_800 else {
            return lua.raise("\(name): \(lua.numberText(at: 2)) seconds since 1970 is outside the years 1 to 9999")
        }
        let zone: TimeZone
        if let known = zones[zoneName] {
            zone = known
        } else if let found = ZoneNames.zone(named: zoneName) {
            zone = found
            zones[zoneName] = found
        } else {
            let hint = Suggestion.closest(to: zoneName, in: TimeZone.knownTimeZoneIdentifiers).map { "; did you mean '\($0)'?" } ?? ""
            return lua.raise("\(name): unknown time zone '\(zoneName)' (an IANA name such as Europe/London or UTC)\(hint)")
        }
        lua.push(integer: zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)))
        return 1
    }

    /// A pack's `print`: a note of the pack (and of the rule running, if any). Ignored where no
    /// notes are kept (a pack file read on its own).
    func print(pack: Int) -> Int32 {
        guard let notes, let sandbox, pack >= 0, pack < sandbox.packNames.count else { return 0 }
        let count = lua.top
        var ruleID: String? = nil
        if let current = sandbox.current, current.pack == pack, let index = current.rule, let loader, index < loader.rules.count {
            ruleID = loader.rules[index].id
        }
        notes.add(pack: sandbox.packNames[pack], rule: ruleID) {
            var parts: [String] = []
            var bytes = 0
            for i in 1...max(count, 1) where count > 0 && bytes <= HostFunctions.textLimit {
                parts.append(lua.noteText(at: i))
                bytes += parts[parts.count - 1].utf8.count
            }
            if parts.count < Int(count) { parts.append("… (\(Int(count) - parts.count) more values)") }
            return parts.joined(separator: "\t")
        }
        return 0
    }

}

/// An evaluation's notes, in order, with the per-rule cap: past `limit` notes of one rule (key
/// pack and rule) they are counted, one line says so, the rest are dropped.
final class NoteLog {
    static let limit = 1000
    private(set) var notes: [RuleNote] = []
    private var counts: [String: Int] = [:]

    /// Keeps a note unless its rule already wrote `limit` of them. `message` is made only for a note that is kept.
    func add(pack: String, rule: String?, message: () -> String) {
        let key = pack + "\u{0}" + (rule ?? "")
        let count = (counts[key] ?? 0) + 1
        counts[key] = count
        if count <= NoteLog.limit {
            notes.append(RuleNote(pack: pack, rule: rule, message: message()))
        } else if count == NoteLog.limit + 1 {
            notes.append(RuleNote(pack: pack, rule: rule, message: "further notes left out (more than \(NoteLog.limit))"))
        }
    }

    /// The notes and counts so far, to start another evaluation of a reused state from (`restore`).
    var snapshot: (notes: [RuleNote], counts: [String: Int]) { (notes, counts) }
    func restore(_ snapshot: (notes: [RuleNote], counts: [String: Int])) {
        (notes, counts) = snapshot
    }

    /// `restore`, with `leading` kept first (each under the cap, as `add` keeps it): the notes that come
    /// before the load's in a fresh state (`RuleLoader.present`).
    func restore(_ snapshot: (notes: [RuleNote], counts: [String: Int]), leading: [RuleNote]) {
        (notes, counts) = ([], [:])
        for note in leading { add(pack: note.pack, rule: note.rule) { note.message } }
        notes += snapshot.notes
        counts.merge(snapshot.counts, uniquingKeysWith: +)
    }

    /// Keeps a note outside the cap (the loader's notes about a rule file).
    func append(_ note: RuleNote) { notes.append(note) }
}

extension LuaState {
    /// Text of the value at `index` for notes: strings and numbers as Lua prints them, others by type.
    func noteText(at index: Int32) -> String {
        switch type(at: index) {
        case .string: return string(at: index, limit: HostFunctions.textLimit) ?? ""
        case .number: return numberText(at: index)
        case .boolean: return boolean(at: index) ? "true" : "false"
        case .nil: return "nil"
        default: return typeName(at: index)
        }
    }

    /// Pushes `message` after the location of the Lua code `level` calls up and returns -1: a host
    /// function's error, which the C trampoline raises.
    func raise(_ message: String, level: Int32 = 1) -> Int32 {
        push(whereString(level: level) + message)
        return -1
    }
}
