import Foundation
import RunFiles

/// What a rule shows for an award: `award { ..., evidence = { ... } }` (or the table `earned`
/// returns). Plain data only: booleans, numbers, strings, arrays and string-keyed records of those,
/// bounded by `Evidence.Limits`. Written to JSON as it is (`evidence` of an award in docs/json.md).
public indirect enum Evidence: Codable, Sendable, Equatable {
    case bool(Bool)
    case number(Double)
    case string(String)
    /// A Lua array (keys 1...n); an empty Lua table is an empty record.
    case list([Evidence])
    /// A Lua table with string keys.
    case record([String: Evidence])

    /// How much evidence one award may carry (a rule that gives more gets an error naming the limit).
    public enum Limits {
        /// Tables inside tables, the outer one counted.
        public static let depth = 4
        /// Values in all (every number, string, boolean and table counted once).
        public static let values = 64
        /// Bytes of one string or key.
        public static let stringBytes = 256
    }

    public init(from decoder: Decoder) throws {
        // As one JSON value (badgectl's decoder hands it over as parsed), then by its kind: not by
        // guessing each kind in turn (each wrong guess a thrown error; a saved award's evidence is
        // read with every addition).
        let container = try decoder.singleValueContainer()
        guard let evidence = Evidence(json: try container.decode(JSONValue.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "evidence holds a null (expected booleans, numbers, strings, arrays and objects)")
        }
        self = evidence
    }

    /// `json` as evidence; nil when it holds a null anywhere.
    init?(json: JSONValue) {
        switch json {
        case .null: return nil
        case .bool(let value): self = .bool(value)
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array(let values):
            var list: [Evidence] = []
            list.reserveCapacity(values.count)
            for value in values {
                guard let item = Evidence(json: value) else { return nil }
                list.append(item)
            }
            self = .list(list)
        case .object(let fields):
            var record: [String: Evidence] = [:]
            record.reserveCapacity(fields.count)
            for (key, value) in fields {
                guard let item = Evidence(json: value) else { return nil }
                record[key] = item
            }
            self = .record(record)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        case .record(let value): try container.encode(value)
        }
    }

    /// The value at `key` of a record (nil for other cases or a missing key).
    public subscript(key: String) -> Evidence? {
        if case .record(let fields) = self { return fields[key] }
        return nil
    }

    /// The number, when this is one.
    public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// One line for people: `key=value, ...` (records sorted by key, lists in brackets). A number is
    /// written as the rule gave it: whole numbers without a fraction, others in the shortest form that
    /// reads back as the same number (`1781981234.5`, never `1.78198e+09`).
    public var text: String {
        switch self {
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return value.description
        case .string(let value): return value
        case .list(let values): return "[" + values.map(\.text).joined(separator: ", ") + "]"
        case .record(let fields):
            return fields.keys.sorted().map { "\($0)=\(fields[$0]?.text ?? "")" }.joined(separator: ", ")
        }
    }
}

extension LuaState {
    /// Reads the Lua value at `index` as evidence.
    /// - Throws: `RulesError.field` naming the path (`evidence.legs[2]`) and what is wrong: a function,
    ///   a run or other userdata, a non-finite number, mixed or sparse keys, a limit passed.
    func evidence(at index: Int32, path: String = "evidence") throws -> Evidence {
        var budget = Evidence.Limits.values
        return try evidence(at: absolute(index), path: { path }, depth: 1, budget: &budget)
    }

    /// `path` is made only for a message: the host reads every award's evidence through here.
    private func evidence(at index: Int32, path: () -> String, depth: Int, budget: inout Int) throws -> Evidence {
        budget -= 1
        guard budget >= 0 else {
            throw RulesError.field("\(path()): more than \(Evidence.Limits.values) values in the evidence (keep it to what shows the award)")
        }
        switch type(at: index) {
        case .boolean: return .bool(boolean(at: index))
        case .number:
            guard let value = number(at: index), value.isFinite else { throw RulesError.field("\(path()): the number is not finite") }
            return .number(value)
        case .string:
            guard let text = string(at: index), text.utf8.count <= Evidence.Limits.stringBytes else {
                throw RulesError.field("\(path()): a string longer than \(Evidence.Limits.stringBytes) bytes")
            }
            return .string(text)
        case .table:
            guard depth <= Evidence.Limits.depth else {
                throw RulesError.field("\(path()): tables nested deeper than \(Evidence.Limits.depth)")
            }
            ensureStack()
            var fields: [String: Evidence] = [:]
            fields.reserveCapacity(8)
            var items: [Int: Evidence] = [:]
            pushNil()
            while next(index) {
                defer { pop() }
                let value = top
                switch type(at: -2) {
                case .string:
                    guard let key = string(at: -2), key.utf8.count <= Evidence.Limits.stringBytes else {
                        throw RulesError.field("\(path()): a key longer than \(Evidence.Limits.stringBytes) bytes")
                    }
                    fields[key] = try evidence(at: value, path: { path() + "." + key }, depth: depth + 1, budget: &budget)
                case .number:
                    guard let number = number(at: -2), number == number.rounded(), number >= 1, number <= Double(Evidence.Limits.values) else {
                        throw RulesError.field("\(path()): keys are strings or array indices 1, 2, 3...")
                    }
                    let position = Int(number)
                    items[position] = try evidence(at: value, path: { "\(path())[\(position)]" }, depth: depth + 1, budget: &budget)
                default:
                    throw RulesError.field("\(path()): keys are strings or array indices 1, 2, 3..., got a \(typeName(at: -2)) key")
                }
            }
            if items.isEmpty { return .record(fields) }
            guard fields.isEmpty else { throw RulesError.field("\(path()): a table mixes array items and named fields") }
            guard items.count == items.keys.max() else { throw RulesError.field("\(path()): an array with holes (nil items)") }
            return .list((1...items.count).compactMap { items[$0] })
        default:
            throw RulesError.field("\(path()): evidence is plain data (numbers, strings, booleans, tables of those), got \(typeName(at: index))")
        }
    }
}
