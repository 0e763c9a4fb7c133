import Foundation

/// A fold's state as plain data: what `init`/`on_run` returned, copied out of Lua so that the host
/// can save it (`evaluate --state DIR`) and hand it back to the rule for the next run (`add`).
///
/// Lua integers and floats stay apart (a count stays an integer); a run the state holds is kept by
/// its id and restored as the same read-only run (the host keeps the run's summary); tables are
/// arrays (keys 1...n) or maps. Functions, coroutines, records of a run (a split, an effort), tables
/// with a metatable and tables reached twice are not plain data: such a state is not saved.
///
/// JSON: `null`, `true`, `12` (an integer), `2.5` (a float), `"text"`, `[...]` (an array),
/// `{"map": {"key": value}}` (string keys), `{"table": [[key, value], ...]}` (other keys),
/// `{"float": "3.0"}` (a float with no fraction, `inf`, `-inf`, `nan`), `{"run": "id"}`.
public indirect enum StateValue: Codable, Equatable, Sendable {
    /// `nil`.
    case null
    /// `true` or `false`.
    case boolean(Bool)
    /// A Lua integer.
    case integer(Int64)
    /// A Lua float.
    case float(Double)
    /// A string (UTF-8).
    case string(String)
    /// A run, by id.
    case run(String)
    /// A table whose keys are 1...n.
    case array([StateValue])
    /// Any other table, its entries in key order (numbers, then strings by bytes, then booleans).
    case table([StateEntry])

    private enum Tag: String, CodingKey { case float, run, map, table }

    /// Reads the JSON form above.
    public init(from decoder: Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Tag.self) {
            if let text = try keyed.decodeIfPresent(String.self, forKey: .float) {
                guard let value = StateValue.parseFloat(text) else {
                    throw DecodingError.dataCorruptedError(forKey: .float, in: keyed, debugDescription: "not a number: '\(text)'")
                }
                self = .float(value)
            } else if let id = try keyed.decodeIfPresent(String.self, forKey: .run) {
                self = .run(id)
            } else if let map = try keyed.decodeIfPresent([String: StateValue].self, forKey: .map) {
                self = .table(map.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { StateEntry(key: .string($0.key), value: $0.value) })
            } else if let entries = try keyed.decodeIfPresent([StateEntry].self, forKey: .table) {
                self = .table(entries)
            } else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                        debugDescription: "an object must have one key: float, run, map or table"))
            }
            return
        }
        if var list = try? decoder.unkeyedContainer() {
            var values: [StateValue] = []
            while !list.isAtEnd { values.append(try list.decode(StateValue.self)) }
            self = .array(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null }
        else if let value = try? single.decode(Bool.self) { self = .boolean(value) }
        else if let value = try? single.decode(Int64.self) { self = .integer(value) }
        else if let value = try? single.decode(Double.self) { self = .float(value) }
        else { self = .string(try single.decode(String.self)) }
    }

    /// Writes the JSON form above.
    public func encode(to encoder: Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer(); try single.encodeNil()
        case .boolean(let value):
            var single = encoder.singleValueContainer(); try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer(); try single.encode(value)
        case .float(let value):
            if value.isFinite, value != value.rounded(.towardZero) {
                var single = encoder.singleValueContainer(); try single.encode(value)
            } else {
                var keyed = encoder.container(keyedBy: Tag.self)
                try keyed.encode(value.isNaN ? "nan" : value.isInfinite ? (value > 0 ? "inf" : "-inf") : "\(value)", forKey: .float)
            }
        case .string(let value):
            var single = encoder.singleValueContainer(); try single.encode(value)
        case .run(let id):
            var keyed = encoder.container(keyedBy: Tag.self); try keyed.encode(id, forKey: .run)
        case .array(let values):
            var list = encoder.unkeyedContainer()
            for value in values { try list.encode(value) }
        case .table(let entries):
            var keyed = encoder.container(keyedBy: Tag.self)
            if entries.allSatisfy({ if case .string = $0.key { return true } else { return false } }) {
                var map: [String: StateValue] = [:]
                for entry in entries { if case .string(let key) = entry.key { map[key] = entry.value } }
                try keyed.encode(map, forKey: .map)
            } else {
                try keyed.encode(entries, forKey: .table)
            }
        }
    }

    static func parseFloat(_ text: String) -> Double? {
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: return Double(text)
        }
    }

    /// The ids of every run the value holds, in the order met.
    public var runIDs: [String] {
        var found: [String] = []
        func walk(_ value: StateValue) {
            switch value {
            case .run(let id): found.append(id)
            case .array(let values): values.forEach(walk)
            case .table(let entries): for entry in entries { walk(entry.key); walk(entry.value) }
            default: break
            }
        }
        walk(self)
        return found
    }
}

/// One key and value of a `StateValue.table`; JSON `[key, value]`.
public struct StateEntry: Codable, Equatable, Sendable {
    /// The key (a number, a string or a boolean).
    public var key: StateValue
    /// The value.
    public var value: StateValue

    /// An entry.
    public init(key: StateValue, value: StateValue) { self.key = key; self.value = value }

    /// Reads `[key, value]`.
    public init(from decoder: Decoder) throws {
        var pair = try decoder.unkeyedContainer()
        key = try pair.decode(StateValue.self)
        value = try pair.decode(StateValue.self)
    }

    /// Writes `[key, value]`.
    public func encode(to encoder: Encoder) throws {
        var pair = encoder.unkeyedContainer()
        try pair.encode(key)
        try pair.encode(value)
    }
}
