import Foundation

/// A JSON value as RFC 8259 writes it, with object members in the order read and every key's
/// Unicode scalars kept as they are.
///
/// Foundation's `JSONSerialization` is not used for anything that is signed: it reads numbers into
/// `NSNumber` (where `true` and `1` meet), merges keys that Swift's `String ==` holds equal under
/// canonical equivalence (`"A\u{30A}"` and `"Å"`), and its output order and number forms are not
/// RFC 8785's. Here keys are compared scalar by scalar, numbers are IEEE doubles, and `canonical`
/// writes RFC 8785 (JCS) bytes.
public enum CredentialJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([CredentialJSON])
    /// Members in the order read (or built); keys are unique scalar for scalar.
    case object([Member])

    /// One member of an object.
    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: CredentialJSON
        public init(_ key: String, _ value: CredentialJSON) { self.key = key; self.value = value }

        public static func == (a: Member, b: Member) -> Bool {
            a.key.unicodeScalars.elementsEqual(b.key.unicodeScalars) && a.value == b.value
        }
    }

    /// An object from `members`, in that order (a later key replaces an earlier one with the same scalars).
    public static func object(_ pairs: KeyValuePairs<String, CredentialJSON>) -> CredentialJSON {
        var value = CredentialJSON.object([])
        for (key, member) in pairs { value[key] = member }
        return value
    }

    /// This object with `pairs` set in order after its own members (a key already there is replaced in place).
    public func merging(_ pairs: KeyValuePairs<String, CredentialJSON>) -> CredentialJSON {
        var value = self
        for (key, member) in pairs { value[key] = member }
        return value
    }

    /// The member `key` of an object (compared scalar by scalar); nil for other values or a missing key.
    /// Setting nil removes the member; setting a value replaces it in place or appends it.
    public subscript(key: String) -> CredentialJSON? {
        get {
            guard case .object(let members) = self else { return nil }
            return members.first { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }?.value
        }
        set {
            guard case .object(var members) = self else { return }
            let index = members.firstIndex { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }
            switch (index, newValue) {
            case (let i?, let value?): members[i].value = value
            case (let i?, nil): members.remove(at: i)
            case (nil, let value?): members.append(Member(key, value))
            case (nil, nil): break
            }
            self = .object(members)
        }
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var arrayValue: [CredentialJSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var objectMembers: [Member]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// `type` as a list: a string is a one-element list; nil when it is neither.
    public var typeNames: [String]? {
        switch self["type"] {
        case .string(let name)?: return [name]
        case .array(let items)?: return items.compactMap(\.stringValue).count == items.count ? items.compactMap(\.stringValue) : nil
        default: return nil
        }
    }
}

// MARK: - Reading

extension CredentialJSON {
    /// Parses `data` as one JSON text (RFC 8259), strictly: UTF-8, no trailing commas or comments, no
    /// duplicate keys, no lone surrogates, numbers that fit a double (I-JSON, RFC 7493, which RFC 8785
    /// requires). `depth` bounds nesting.
    /// - Throws: `CredentialError.badJSON` with the byte offset and what was expected.
    public static func parse(_ data: Data, depth: Int = 64) throws -> CredentialJSON {
        var reader = JSONReader(bytes: [UInt8](data), maxDepth: depth)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        if reader.position != reader.bytes.count { throw reader.failure("end of the document") }
        return value
    }

    /// `parse(Data(text.utf8))`.
    public static func parse(_ text: String) throws -> CredentialJSON { try parse(Data(text.utf8)) }
}

struct JSONReader {
    let bytes: [UInt8]
    let maxDepth: Int
    var position = 0

    init(bytes: [UInt8], maxDepth: Int) { self.bytes = bytes; self.maxDepth = maxDepth }

    func failure(_ expected: String) -> CredentialError {
        .badJSON(offset: position, expected: expected)
    }

    mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func literal(_ word: String, _ value: CredentialJSON) throws -> CredentialJSON {
        let expected = Array(word.utf8)
        guard position + expected.count <= bytes.count, Array(bytes[position..<position + expected.count]) == expected else {
            throw failure("'\(word)'")
        }
        position += expected.count
        return value
    }

    mutating func value(depth: Int) throws -> CredentialJSON {
        guard position < bytes.count else { throw failure("a value") }
        switch bytes[position] {
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "["):
            guard depth < maxDepth else { throw failure("at most \(maxDepth) levels of nesting") }
            position += 1
            var items: [CredentialJSON] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard position < bytes.count else { throw failure("',' or ']'") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                throw failure("',' or ']'")
            }
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { throw failure("at most \(maxDepth) levels of nesting") }
            position += 1
            var members: [CredentialJSON.Member] = []
            var seen = Set<[Unicode.Scalar]>()
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("a member name in quotes") }
                let keyOffset = position
                let key = try string()
                guard seen.insert(Array(key.unicodeScalars)).inserted else {
                    throw CredentialError.badJSON(offset: keyOffset, expected: "no duplicate member name (\"\(key)\" again)")
                }
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("':'") }
                position += 1
                skipSpace()
                members.append(CredentialJSON.Member(key, try value(depth: depth + 1)))
                skipSpace()
                guard position < bytes.count else { throw failure("',' or '}'") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                throw failure("',' or '}'")
            }
        default:
            return .number(try number())
        }
    }

    mutating func number() throws -> Double {
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
            return position - from
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, (0x30...0x39).contains(bytes[position]) else { throw failure("a value") }
        if bytes[position] == UInt8(ascii: "0") { position += 1 } else { _ = digits() }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw failure("a digit after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw failure("a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw CredentialError.badJSON(offset: start, expected: "a number a double can hold, not \(text)")
        }
        return value
    }

    mutating func hex4() throws -> UInt16 {
        guard position + 4 <= bytes.count else { throw failure("4 hex digits after \\u") }
        var result: UInt16 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw failure("4 hex digits after \\u")
            }
            result = result << 4 | UInt16(digit)
        }
        position += 4
        return result
    }

    mutating func string() throws -> String {
        position += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flush() throws {
            guard runStart < position else { return }
            guard let text = String(validatingUTF8CString: bytes[runStart..<position]) else {
                throw CredentialError.badJSON(offset: runStart, expected: "UTF-8 text")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard position < bytes.count else { throw failure("'\"' to end the string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                try flush()
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("no control character inside a string (escape it)") }
            if byte != UInt8(ascii: "\\") { position += 1; continue }
            try flush()
            position += 1
            guard position < bytes.count else { throw failure("an escape") }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                let unit = try hex4()
                if (0xD800...0xDBFF).contains(unit) {
                    guard position + 6 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw failure("a low surrogate after \\u\(String(unit, radix: 16))")
                    }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("a low surrogate after \\u\(String(unit, radix: 16))") }
                    let value = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00)
                    guard let scalar = Unicode.Scalar(value) else { throw failure("a Unicode scalar") }
                    scalars.append(scalar)
                } else {
                    guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw failure("no lone surrogate (\\u\(String(unit, radix: 16)))") }
                    scalars.append(scalar)
                }
            default:
                throw failure("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
            }
            runStart = position
        }
    }
}

extension String {
    /// The bytes as UTF-8, or nil when they are not valid UTF-8 (no NUL terminator needed).
    init?(validatingUTF8CString bytes: ArraySlice<UInt8>) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}

// MARK: - Writing for people

extension CredentialJSON {
    /// The value indented by two spaces a level, members in their order, strings and numbers as
    /// JCS writes them: for files people read. What is signed is always `JCS.canonical`, so the
    /// layout does not matter to a proof.
    public var pretty: String {
        var out = ""
        writePretty(indent: 0, to: &out)
        return out
    }

    func writePretty(indent: Int, to out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1), close = String(repeating: "  ", count: indent)
        switch self {
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += pad
                item.writePretty(indent: indent + 1, to: &out)
                out += index + 1 < items.count ? ",\n" : "\n"
            }
            out += close + "]"
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += pad
                JCS.writeString(member.key, to: &out)
                out += ": "
                member.value.writePretty(indent: indent + 1, to: &out)
                out += index + 1 < members.count ? ",\n" : "\n"
            }
            out += close + "}"
        default:
            JCS.write(self, to: &out)
        }
    }
}
