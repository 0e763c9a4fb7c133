import Foundation

/// Reads the rules' states out of `state.json` without `JSONDecoder`: a saved state is mostly
/// numbers in maps (a fold's totals per week), which the decoder reads through a failed guess per
/// value (each a thrown error). This reads the JSON bytes once, in order, into `StateValue`s (the
/// same values `StateValue.init(from:)` gives), for `StateStore.loadState`.
struct StateJSON {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    /// What went wrong, and where (a byte offset).
    struct Failure: Error { var offset: Int; var reason: String }

    /// The `state` of each entry of the top-level `rules` array, in order (nil where there is none).
    static func ruleStates(in data: Data) throws -> [StateValue?] {
        try data.withUnsafeBytes { raw in
            var reader = StateJSON(bytes: raw.bindMemory(to: UInt8.self))
            return try reader.topLevelRuleStates()
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private mutating func topLevelRuleStates() throws -> [StateValue?] {
        var states: [StateValue?] = []
        try object { key, reader in
            guard key == "rules" else { try reader.skip(); return }
            try reader.array { reader in
                var state: StateValue? = nil
                try reader.object { key, reader in
                    if key == "state" { state = try reader.value() } else { try reader.skip() }
                }
                states.append(state)
            }
        }
        return states
    }

    private func fail(_ reason: String) -> Failure { Failure(offset: position, reason: reason) }

    private mutating func space() {
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D || bytes[position] == 0x09 {
            position += 1
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        space()
        guard position < bytes.count, bytes[position] == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
        position += 1
    }

    private mutating func peek() -> UInt8? {
        space()
        return position < bytes.count ? bytes[position] : nil
    }

    private mutating func object(_ member: (String, inout StateJSON) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") { position += 1; return }
        while true {
            space()
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(key, &self)
            guard let next = peek() else { throw fail("unfinished object") }
            position += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw fail("expected ',' or '}'") }
        }
    }

    private mutating func array(_ element: (inout StateJSON) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if peek() == UInt8(ascii: "]") { position += 1; return }
        while true {
            try element(&self)
            guard let next = peek() else { throw fail("unfinished array") }
            position += 1
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw fail("expected ',' or ']'") }
        }
    }

    /// Passes over any JSON value.
    private mutating func skip(depth: Int = 0) throws {
        guard depth < 200 else { throw fail("nested too deep") }
        switch peek() {
        case UInt8(ascii: "{"): try object { _, reader in try reader.skip(depth: depth + 1) }
        case UInt8(ascii: "["): try array { reader in try reader.skip(depth: depth + 1) }
        default: _ = try value(depth: depth)
        }
    }

    /// One JSON value as a state value (objects by their one tag: float, run, map, table).
    private mutating func value(depth: Int = 0) throws -> StateValue {
        guard depth < 200 else { throw fail("nested too deep") }
        guard let first = peek() else { throw fail("a value is missing") }
        switch first {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["):
            var values: [StateValue] = []
            try array { reader in values.append(try reader.value(depth: depth + 1)) }
            return .array(values)
        case UInt8(ascii: "{"):
            var result: StateValue? = nil
            try object { key, reader in
                guard result == nil else { throw reader.fail("a tagged object has one key") }
                switch key {
                case "float":
                    let text = try reader.string()
                    guard let number = StateValue.parseFloat(text) else { throw reader.fail("not a number: '\(text)'") }
                    result = .float(number)
                case "run": result = .run(try reader.string())
                case "map":
                    var entries: [StateEntry] = []
                    try reader.object { key, reader in entries.append(StateEntry(key: .string(key), value: try reader.value(depth: depth + 1))) }
                    entries.sort { Session.keyPrecedes($0.key, $1.key) }
                    result = .table(entries)
                case "table":
                    var entries: [StateEntry] = []
                    try reader.array { reader in
                        try reader.expect(UInt8(ascii: "["))
                        let key = try reader.value(depth: depth + 1)
                        try reader.expect(UInt8(ascii: ","))
                        let value = try reader.value(depth: depth + 1)
                        try reader.expect(UInt8(ascii: "]"))
                        entries.append(StateEntry(key: key, value: value))
                    }
                    result = .table(entries)
                default:
                    throw reader.fail("an object must have one key: float, run, map or table, not '\(key)'")
                }
            }
            guard let result else { throw fail("an empty object is not a state value") }
            return result
        case UInt8(ascii: "t"): try word("true"); return .boolean(true)
        case UInt8(ascii: "f"): try word("false"); return .boolean(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        default: return try number()
        }
    }

    private mutating func word(_ text: StaticString) throws {
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard position + expected.count <= bytes.count,
              expected.indices.allSatisfy({ bytes[position + $0] == expected[$0] }) else { throw fail("expected \(text)") }
        position += expected.count
    }

    private mutating func number() throws -> StateValue {
        let start = position
        var integral = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { integral = false }
            else if !(byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || (byte >= 0x30 && byte <= 0x39)) { break }
            position += 1
        }
        guard position > start else { throw fail("expected a value") }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text) else { throw Failure(offset: start, reason: "not a number: '\(text)'") }
        return .float(number)
    }

    private mutating func string() throws -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        position += 1
        let start = position
        var plain = true
        while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
            if bytes[position] == UInt8(ascii: "\\") { plain = false; position += 1 }
            position += 1
        }
        guard position < bytes.count else { throw fail("unfinished string") }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
        position += 1
        if plain { return String(decoding: slice, as: UTF8.self) }
        // Escapes: let JSONDecoder read this one string.
        var quoted = Data([UInt8(ascii: "\"")])
        quoted.append(contentsOf: slice)
        quoted.append(UInt8(ascii: "\""))
        guard let text = try? JSONDecoder().decode(String.self, from: quoted) else { throw Failure(offset: start, reason: "a malformed string") }
        return text
    }
}
