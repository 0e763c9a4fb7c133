// The typed readers of rule-made tables' fields (the one family of readers: raw reads, never a
// metamethod), and the keys the host reads from every award and status entry. Lua is reached only
// through `LuaState`'s raw accessors (`getField`, `string(at:)`, `number(at:)`).

/// The fields the host reads from every award and status entry a rule makes: their key strings are
/// made once per state (registry refs taken before anything is marked) and pushed from there, not
/// interned again per read (that was 3 % of the worker's instructions).
enum TableKey: Int, CaseIterable {
    case badge, tier, detail, progress, evidence, run, current, target, unit, hint, next, badges
    case silverPace, goldPace, distance, elapsed, remaining

    /// The key as rules write it.
    var text: String {
        switch self {
        case .silverPace: return "silver_pace_s_per_km"
        case .goldPace: return "gold_pace_s_per_km"
        case .distance: return "distance_m"
        case .elapsed: return "elapsed_s"
        case .remaining: return "remaining_m"
        default: return "\(self)"
        }
    }
}

extension LuaState {
    /// `table[key]` as a string: nil when absent, `RulesError.field` when it is something else. With
    /// `limit`, at most that many bytes are read (see `string(at:limit:)`).
    func stringField(_ table: Int32, _ key: String, limit: Int? = nil) throws -> String? {
        try stringValue(getField(table, key), key, limit: limit)
    }

    /// `stringField` with one of the host's keys.
    func stringField(_ table: Int32, _ key: TableKey, limit: Int? = nil) throws -> String? {
        try stringValue(getField(table, key), key.text, limit: limit)
    }

    /// The field on top (its type `type`) as `stringField` reads it; pops it.
    private func stringValue(_ type: LuaType, _ key: @autoclosure () -> String, limit: Int?) throws -> String? {
        defer { pop() }
        if type == .nil { return nil }
        guard let text = limit.map({ string(at: -1, limit: $0) }) ?? string(at: -1) else {
            throw RulesError.field("field '\(key())' must be a string, got \(typeName(at: -1))")
        }
        return text
    }

    /// `table[key]` as a finite number: nil when absent, `RulesError.field` when it is something else.
    func numberField(_ table: Int32, _ key: String) throws -> Double? {
        try numberValue(getField(table, key), key)
    }

    /// `numberField` with one of the host's keys.
    func numberField(_ table: Int32, _ key: TableKey) throws -> Double? {
        try numberValue(getField(table, key), key.text)
    }

    /// The field on top (its type `type`) as `numberField` reads it; pops it.
    private func numberValue(_ type: LuaType, _ key: @autoclosure () -> String) throws -> Double? {
        defer { pop() }
        if type == .nil { return nil }
        guard let value = number(at: -1) else {
            throw RulesError.field("field '\(key())' must be a finite number, got \(typeName(at: -1))")
        }
        // JSON has no infinity or NaN, and no badge is earned by one: refused, naming the value.
        guard value.isFinite else {
            throw RulesError.field("field '\(key())' must be a finite number, got \(value.isNaN ? "nan" : value > 0 ? "inf" : "-inf")")
        }
        return value
    }
}
