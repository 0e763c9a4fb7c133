import Foundation
import RunFiles

/// Reads and writes the rules' states as JSON without `JSONDecoder`/`JSONEncoder` (the state
/// database's rows, and `state.json` of the earlier format when it is moved): a saved state is mostly
/// numbers in maps (a fold's totals per week), which the decoder reads through a failed guess per
/// value (each a thrown error). This reads the JSON once, in order, through `JSONReader` (the one JSON
/// parser: a repeated key or invalid UTF-8 anywhere in the file is refused, saying at which byte) into
/// `StateValue`s (the same values `StateValue.init(from:)` gives).
enum StateJSON {
    /// The `state` of each entry of the top-level `rules` array, in order (nil where there is none).
    /// - Throws: `ActivityError.malformed` naming `source` and the byte.
    static func ruleStates(in data: Data, source: String) throws -> [StateValue?] {
        try data.withUnsafeBytes { raw in
            // A state's tables nest up to `FoldStates.stateDepthLimit` deep, each up to four JSON levels.
            try JSONReader.read(raw.bindMemory(to: UInt8.self), source: source, maximumDepth: 4 * FoldStates.stateDepthLimit + 8) { reader in
                var states: [StateValue?] = []
                try reader.object(depth: 0) { key, reader in
                    guard key == "rules" else { _ = try reader.value(depth: 1); return }
                    try reader.array(depth: 1) { reader in
                        var state: StateValue? = nil
                        try reader.object(depth: 2) { key, reader in
                            if key == "state" { state = try value(&reader, depth: 3) } else { _ = try reader.value(depth: 3) }
                        }
                        states.append(state)
                    }
                }
                return states
            }
        }
    }

    /// One rule's state, the JSON of one `StateValue` (a row of `state.sqlite`).
    /// - Throws: `ActivityError.malformed` naming `source` and the byte.
    static func state(in data: Data, source: String) throws -> StateValue {
        try data.withUnsafeBytes { raw in
            try JSONReader.read(raw.bindMemory(to: UInt8.self), source: source, maximumDepth: 4 * FoldStates.stateDepthLimit + 8) { reader in
                try value(&reader, depth: 0)
            }
        }
    }

    /// One JSON value as a state value (objects by their one tag: float, run, map, table).
    private static func value(_ reader: inout JSONReader, depth: Int) throws -> StateValue {
        guard let first = reader.peek() else { throw reader.failure("a value is missing") }
        switch first {
        case UInt8(ascii: "\""): return .string(try reader.string())
        case UInt8(ascii: "["):
            var values: [StateValue] = []
            try reader.array(depth: depth) { reader in values.append(try value(&reader, depth: depth + 1)) }
            return .array(values)
        case UInt8(ascii: "{"):
            var result: StateValue? = nil
            try reader.object(depth: depth) { key, reader in
                guard result == nil else { throw reader.failure("a tagged object has one key") }
                switch key {
                case "float":
                    let text = try reader.string()
                    guard let number = StateValue.parseFloat(text) else { throw reader.failure("not a number: '\(text)'") }
                    result = .float(number)
                case "run": result = .run(try reader.string())
                case "map":
                    var entries: [StateEntry] = []
                    try reader.object(depth: depth + 1) { key, reader in
                        entries.append(StateEntry(key: .string(key), value: try value(&reader, depth: depth + 2)))
                    }
                    entries.sort { FoldStates.keyPrecedes($0.key, $1.key) }
                    result = .table(entries)
                case "table":
                    var entries: [StateEntry] = []
                    try reader.array(depth: depth + 1) { reader in
                        var pair: [StateValue] = []
                        try reader.array(depth: depth + 2) { reader in
                            guard pair.count < 2 else { throw reader.failure("a table entry is a [key, value] pair") }
                            pair.append(try value(&reader, depth: depth + 3))
                        }
                        guard pair.count == 2 else { throw reader.failure("a table entry is a [key, value] pair") }
                        entries.append(StateEntry(key: pair[0], value: pair[1]))
                    }
                    result = .table(entries)
                default:
                    throw reader.failure("an object must have one key: float, run, map or table, not '\(key)'")
                }
            }
            guard let result else { throw reader.failure("an empty object is not a state value") }
            return result
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let number = try reader.number()
            if let integer = number.integer { return .integer(integer) }
            return .float(number.value)
        default:
            switch try reader.value(depth: depth) {
            case .bool(let flag): return .boolean(flag)
            case .null: return .null
            default: throw reader.failure("expected a state value")
            }
        }
    }
}

extension StateJSON {
    /// The JSON of `value` as `StateValue.encode(to:)` writes it (what `state(in:)` reads), written
    /// directly: a state's maps hold thousands of numbers, which `JSONEncoder` writes ten times slower.
    static func text(_ value: StateValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A saved map's key as the state database keeps it: its JSON, a float with an integer value
    /// as that integer (Lua's own key normalisation), so that one key has one text.
    static func keyText(_ key: StateValue) -> String {
        if case .float(let number) = key, number.rounded(.towardZero) == number, abs(number) < 9.2e18 { return text(.integer(Int64(number))) }
        return text(key)
    }

    private static func write(_ value: StateValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .boolean(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number): out.append(contentsOf: String(number).utf8)
        case .float(let number):
            if number.isFinite, number != number.rounded(.towardZero) {
                out.append(contentsOf: "\(number)".utf8)
            } else {
                out.append(contentsOf: #"{"float":""#.utf8)
                out.append(contentsOf: (number.isNaN ? "nan" : number.isInfinite ? (number > 0 ? "inf" : "-inf") : "\(number)").utf8)
                out.append(contentsOf: #""}"#.utf8)
            }
        case .string(let text): JSONString.append(text, to: &out)
        case .run(let id):
            out.append(contentsOf: #"{"run":"#.utf8)
            JSONString.append(id, to: &out)
            out.append(UInt8(ascii: "}"))
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (i, item) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .table(let entries):
            if entries.allSatisfy({ if case .string = $0.key { return true } else { return false } }) {
                out.append(contentsOf: #"{"map":{"#.utf8)
                for (i, entry) in entries.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    if case .string(let key) = entry.key { JSONString.append(key, to: &out) }
                    out.append(UInt8(ascii: ":"))
                    write(entry.value, to: &out)
                }
                out.append(contentsOf: "}}".utf8)
            } else {
                out.append(contentsOf: #"{"table":["#.utf8)
                for (i, entry) in entries.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(UInt8(ascii: "["))
                    write(entry.key, to: &out)
                    out.append(UInt8(ascii: ","))
                    write(entry.value, to: &out)
                    out.append(UInt8(ascii: "]"))
                }
                out.append(contentsOf: "]}".utf8)
            }
        }
    }
}
