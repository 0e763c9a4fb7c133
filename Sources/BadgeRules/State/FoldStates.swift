import Foundation
import RunFiles

/// Copying a fold's state out of Lua as plain data, and back in (runs as the evaluation's run
/// proxies), and finding state a rule keeps outside it. Stateless beyond the Lua state, the runs
/// and the packs' environments it reads.
final class FoldStates {
    let lua: LuaState
    let runs: RunTable
    let sandbox: PackSandbox

    /// Where a resumed evaluation's saved maps are read (nil: none; `SavedMaps`).
    var savedMaps: SavedMapSource?
    /// The saved maps handed to rules in this evaluation, by handle.
    var savedMapHandles: [SavedMapHandle] = []
    /// While a rule's state is copied out for saving (`captureState`): the rule, and the saved maps
    /// still in place with the keys written to them.
    private var capturing: String?
    private var capturedSplit: [String] = []
    private var capturedWrites: [String: [StateEntry]] = [:]

    init(runs: RunTable, sandbox: PackSandbox) {
        self.lua = sandbox.lua
        self.runs = runs
        self.sandbox = sandbox
    }

    /// At most this many values in one rule's saved state, and this deep (a guard for the host's memory).
    static let stateValueLimit = 1_000_000
    static let stateDepthLimit = 64

    /// The value at `index` as plain data. Throws `RulesError.field` naming where in the state the
    /// first value that is not plain data is (`state.earned["5k"].split: a split (a record of a run)`).
    func plainValue(at index: Int32) throws -> StateValue {
        var seen = Set<UnsafeRawPointer>()
        var count = 0
        return try plainValue(at: lua.absolute(index), path: { "state" }, depth: 0, seen: &seen, count: &count)
    }

    /// The state of rule `rule` (its `RuleState.key`) at `index` as plain data, with its saved maps
    /// left out where they still are (their names, and the keys written to them, apart).
    func captureState(at index: Int32, rule: String) throws -> (state: StateValue, split: [String], writes: [String: [StateEntry]]) {
        capturing = rule
        capturedSplit = []
        capturedWrites = [:]
        defer { capturing = nil }
        let value = try plainValue(at: index)
        return (value, capturedSplit, capturedWrites)
    }

    /// The key at stack `index` as a fold state keeps it (a string, an integer or other number, a
    /// boolean), or nil for a key of any other type or a string that is not UTF-8 text.
    func stateKey(at index: Int32) -> StateValue? {
        switch lua.type(at: index) {
        case .string: return lua.utf8String(at: index).map(StateValue.string)
        case .number: return lua.integer(at: index).map { .integer(Int64($0)) } ?? .float(lua.number(at: index) ?? .nan)
        case .boolean: return .boolean(lua.boolean(at: index))
        default: return nil
        }
    }

    /// `path`: where the value is, for messages (`state.earned["5k"]`), made only when one is thrown:
    /// a state holds thousands of values and none of their paths is needed when it is plain data.
    func plainValue(at index: Int32, path: () -> String, depth: Int, seen: inout Set<UnsafeRawPointer>, count: inout Int) throws -> StateValue {
        count += 1
        guard count <= FoldStates.stateValueLimit else { throw RulesError.field("\(path()): more than \(FoldStates.stateValueLimit) values") }
        switch lua.type(at: index) {
        case .nil, .none: return .null
        case .boolean: return .boolean(lua.boolean(at: index))
        case .number:
            if let integer = lua.integer(at: index) { return .integer(integer) }
            return .float(lua.number(at: index) ?? .nan)
        case .string:
            guard let text = lua.utf8String(at: index) else { throw RulesError.field("\(path()): a string that is not UTF-8 text") }
            return .string(text)
        case .userdata:
            let run = lua.runIndex(at: index)
            if run >= 1, run <= runs.count { return .run(runs.runs[run - 1].id) }
            throw RulesError.field("\(path()): a \(lua.typeName(at: index)) (a host value; keep a run, or plain numbers and strings)")
        case .lightUserdata:
            throw RulesError.field("\(path()): a \(lua.typeName(at: index)) (a record of a run; keep the run, or the numbers you need)")
        case .function, .thread:
            throw RulesError.field("\(path()): a \(lua.typeName(at: index)) (not plain data)")
        case .table:
            guard depth < FoldStates.stateDepthLimit else { throw RulesError.field("\(path()): tables nested more than \(FoldStates.stateDepthLimit) deep") }
            // A saved map anywhere but in its own place: what it holds, as a plain table.
            if let handle = savedMapHandle(at: index) {
                return try materializedMap(handle, writes: savedWrites(handle, path: path, depth: depth, seen: &seen, count: &count))
            }
            if lua.hasMetatable(at: index) { throw RulesError.field("\(path()): a table with a metatable (not plain data)") }
            if let identity = lua.identity(at: index) {
                guard seen.insert(identity).inserted else { throw RulesError.field("\(path()): a table reached twice (shared or cyclic; save it once)") }
            }
            lua.ensureStack()
            var entries: [StateEntry] = []
            lua.pushNil()
            while lua.next(index) {
                guard let key = stateKey(at: -2) else {
                    let problem = lua.type(at: -2) == .string ? "a key that is not UTF-8 text"
                        : "a key that is a \(lua.typeName(at: -2)) (keys must be numbers, strings or booleans)"
                    lua.pop(2)
                    throw RulesError.field("\(path()): \(problem)")
                }
                let keyPath = { FoldStates.path(path(), key) }
                // A saved map in its own place stays apart: only the keys written are kept.
                if depth == 0, let rule = capturing, case .string(let name) = key, let handle = savedMapHandle(at: -1),
                   savedMapHandles[handle].rule == rule, savedMapHandles[handle].path == name, !capturedSplit.contains(name) {
                    let writes: [StateEntry]
                    do { writes = try savedWrites(handle, path: keyPath, depth: depth, seen: &seen, count: &count) } catch {
                        lua.pop(2)
                        throw error
                    }
                    // (A value that is not a number or a boolean: the whole map goes back into the state.)
                    if writes.allSatisfy({ $0.value == .null || SavedMaps.isSplittable($0) }) {
                        capturedSplit.append(name)
                        capturedWrites[name] = writes
                    } else {
                        // From the writes just read: reading them again would meet their tables twice.
                        let whole: StateValue
                        do { whole = try materializedMap(handle, writes: writes) } catch {
                            lua.pop(2)
                            throw error
                        }
                        entries.append(StateEntry(key: key, value: whole))
                    }
                    lua.pop()
                    continue
                }
                let value: StateValue
                do {
                    value = try plainValue(at: lua.absolute(-1), path: keyPath, depth: depth + 1, seen: &seen, count: &count)
                } catch {
                    lua.pop(2)
                    throw error
                }
                entries.append(StateEntry(key: key, value: value))
                lua.pop()
            }
            entries.sort { FoldStates.keyPrecedes($0.key, $1.key) }
            var isArray = true
            for (position, entry) in entries.enumerated() {
                guard case .integer(let key) = entry.key, key == position + 1 else { isArray = false; break }
            }
            return isArray ? .array(entries.map(\.value)) : .table(entries)
        }
    }

    /// The path of `key`'s value in the table at `path`, for messages: `state.totals["2025-W01"]`.
    static func path(_ path: String, _ key: StateValue) -> String {
        switch key {
        case .string(let text): return FoldStates.isName(text) ? "\(path).\(text)" : "\(path)[\"\(text)\"]"
        case .integer(let integer): return "\(path)[\(integer)]"
        case .float(let number): return "\(path)[\(number)]"
        case .boolean(let flag): return "\(path)[\(flag)]"
        default: return path
        }
    }

    /// Whether `text` reads as a Lua name (for paths in messages).
    static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")) else { return false }
        return text.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "z")) || ($0 >= 48 && $0 <= 57) }
    }

    /// Key order of a saved table: numbers (integers and floats by value), then strings by bytes, then false, true.
    static func keyPrecedes(_ a: StateValue, _ b: StateValue) -> Bool {
        func rank(_ v: StateValue) -> Int {
            switch v {
            case .integer, .float: return 0
            case .string: return 1
            default: return 2
            }
        }
        func number(_ v: StateValue) -> Double {
            switch v {
            case .integer(let i): return Double(i)
            case .float(let f): return f
            default: return 0
            }
        }
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb }
        switch (a, b) {
        case (.string(let x), .string(let y)): return bytesPrecede(x, y)
        case (.boolean(let x), .boolean(let y)): return !x && y
        default: return number(a) < number(b)
        }
    }

    /// Whether `a`'s UTF-8 bytes come before `b`'s (a prefix first): one `memcmp`, where comparing
    /// the two `utf8` views byte by byte took 2 % of an addition (every table of a state is sorted
    /// when it is copied out of Lua).
    static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
    }

    /// Pushes `value` as a Lua value (runs as the evaluation's run proxies). Throws when a run it
    /// names is not among the runs of this evaluation (a damaged state).
    func push(_ value: StateValue, depth: Int = 0) throws {
        guard depth < FoldStates.stateDepthLimit else { throw RulesError.field("tables nested more than \(FoldStates.stateDepthLimit) deep") }
        lua.ensureStack()
        switch value {
        case .null: lua.pushNil()
        case .boolean(let flag): lua.push(boolean: flag)
        case .integer(let number): lua.push(integer: Int(number))
        case .float(let number): lua.push(number)
        case .string(let text): lua.push(text)
        case .run(let id):
            guard let index = runs.indexByID[id] else { throw RulesError.field("the state names run '\(id)', which is not among the saved runs") }
            runs.pushProxy(index)
        case .array(let values):
            lua.newTable(array: Int32(min(values.count, 1 << 20)))
            for (i, element) in values.enumerated() {
                do { try push(element, depth: depth + 1) } catch { lua.pop(); throw error }
                lua.setIndex(-2, i + 1)
            }
        case .table(let entries):
            lua.newTable(record: Int32(min(entries.count, 1 << 20)))
            for entry in entries {
                if case .null = entry.key { continue }
                do {
                    try push(entry.key, depth: depth + 1)
                    do { try push(entry.value, depth: depth + 1) } catch { lua.pop(); throw error }
                } catch { lua.pop(); throw error }
                lua.rawSet(-3)
            }
        }
    }
}

/// Finding state kept outside what `init`/`on_run` return, which a saved state would lose.
extension FoldStates {
    /// The plain values a rule can reach outside its state, by a name for messages: the upvalues
    /// (file-level locals) of its functions and of the functions those hold, and its pack's
    /// globals. Values that are not plain data (functions, the libraries) are left out.
    func outsideValues(of rule: RuleLoader.Rule) -> [String: StateValue] {
        var values: [String: StateValue] = [:]
        var visited = Set<UnsafeRawPointer>()
        lua.ensureStack()
        func visit(function: Int32, owner: String, depth: Int) {
            guard depth < 4, let identity = lua.identity(at: function), visited.insert(identity).inserted else { return }
            var n: Int32 = 1
            while let name = lua.pushUpvalue(ofFunctionAt: function, n) {
                n += 1
                let value = lua.top
                if name == "_ENV" || name.isEmpty {
                    lua.pop(); continue
                }
                if lua.type(at: value) == .function {
                    visit(function: value, owner: "\(owner) > \(name)", depth: depth + 1)
                } else if let plain = try? plainValue(at: value) {
                    values["file-level local '\(name)' (of \(owner))"] = plain
                }
                lua.pop()
            }
        }
        for (name, ref) in rule.functions.sorted(by: { $0.key < $1.key }) {
            lua.push(ref: ref)
            visit(function: lua.top, owner: name, depth: 0)
            lua.pop()
        }
        let environment = sandbox.envRefs[rule.pack]
        guard environment != LuaState.noRef else { return values }
        lua.push(ref: environment)
        let table = lua.top
        lua.pushNil()
        while lua.next(table) {
            if lua.type(at: -2) == .string, let name = lua.utf8String(at: -2), lua.type(at: -1) != .function,
               let plain = try? plainValue(at: lua.top) {
                values["pack global '\(name)'"] = plain
            }
            lua.pop()
        }
        lua.pop()
        return values
    }

    /// Why a rule's saved state would be wrong: the first value outside its state that changed
    /// while it ran (`before` from `outsideValues` before it ran), or nil.
    func changedOutside(of rule: RuleLoader.Rule, before: [String: StateValue]) -> String? {
        let after = outsideValues(of: rule)
        for name in Set(before.keys).union(after.keys).sorted() where before[name] != after[name] {
            return "its \(name) changed while it ran: only what init/on_run return is saved; keep it in the state"
        }
        return nil
    }
}
