import Foundation

/// A small, strict JSON parser (RFC 8259) for one value held in memory: the lines `badgectl worker`
/// reads, each a few hundred bytes. Foundation's decoders cost most of a line's time there (a
/// decode through `JSONValue`'s `Decodable` tries each type in turn), and neither says where in
/// the line the text breaks on Linux; this one does, by byte offset.
///
/// Numbers are `Double` (integers past 2^53 lose digits, as `JSONDecoder` gives them); a number out
/// of the `Double` range, a lone UTF-16 surrogate, a control character in a string, trailing text
/// and nesting deeper than `maximumDepth` are errors, and so is an object that repeats a key (which one
/// counts would be a guess).
public enum JSONText {
    /// Arrays and objects nested deeper than this are refused (the parser recurses).
    public static let maximumDepth = 64

    /// Parses `bytes` as one JSON value (white space around it allowed).
    /// - Throws: `ActivityError.malformed` naming `source`, the byte offset and what was expected.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, source: String) throws -> JSONValue {
        var parser = Parser(bytes: bytes)
        do {
            parser.skipSpace()
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.index == bytes.count else { throw Parser.Failure(offset: parser.index, reason: "text after the JSON value") }
            return value
        } catch let failure as Parser.Failure {
            throw ActivityError.malformed(path: source, line: nil, offset: failure.offset, reason: failure.reason)
        }
    }

    /// What the tree `parse` makes of `bytes` costs in memory, in bytes, read from the text in one
    /// pass without building it: what a reader holds in its memory budget before it parses. The
    /// tree costs far more than its text where the text is made of small values: an object is a
    /// dictionary (made with room for 8 members) of about 740 bytes even when it holds one member,
    /// so `{"a":1},` (8 bytes) costs 92 times its text. Measured (resident memory of 200,000 values
    /// parsed): an object 740 bytes, an array's element or an object's member 24 to 43 bytes, a
    /// string past the 15 bytes a Swift string holds inline its length and 32. Charged here: an
    /// object 720, an array 64, a value 48, a long string its length and 32; the Suunto log's
    /// samples are over-counted by about a third, never under.
    public static func treeBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var total = 48
        var inString = false
        var escaped = false
        var stringLength = 0
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if stringLength > 15 { total += stringLength + 32 }
                    continue
                }
                stringLength += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; stringLength = 0
            case UInt8(ascii: "{"): total += 720 + 48
            case UInt8(ascii: "["): total += 64 + 48
            case UInt8(ascii: ","): total += 48
            default: break
            }
        }
        return total
    }

    /// `treeBytes` of the bytes of `data`.
    public static func treeBytes(_ data: [UInt8]) -> Int {
        data.withUnsafeBufferPointer { treeBytes($0) }
    }

    /// Parses the bytes of `data` (see `parse(_:source:)`).
    public static func parse(_ data: [UInt8], source: String) throws -> JSONValue {
        try data.withUnsafeBufferPointer { try parse($0, source: source) }
    }

    struct Parser {
        struct Failure: Error {
            var offset: Int
            var reason: String
        }

        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func fail(_ reason: String) -> Failure {
            Failure(offset: index, reason: reason)
        }

        /// What is at `index`, for messages: `'x'` or "the end of the text".
        var found: String {
            guard index < bytes.count else { return "the end of the text" }
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return String(format: "byte 0x%02X", byte)
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard index < bytes.count else { throw fail("expected a value, found the end of the text") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard depth < JSONText.maximumDepth else { throw fail("nested deeper than \(JSONText.maximumDepth) levels") }
                return try object(depth: depth + 1)
            case UInt8(ascii: "["):
                guard depth < JSONText.maximumDepth else { throw fail("nested deeper than \(JSONText.maximumDepth) levels") }
                return try array(depth: depth + 1)
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try number())
            default:
                throw fail("expected a value, found \(found)")
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            guard index + count <= bytes.count, (0..<count).allSatisfy({ bytes[index + $0] == expected[$0] }) else {
                throw fail("expected \(word), found \(found)")
            }
            index += count
        }

        mutating func object(depth: Int) throws -> JSONValue {
            index += 1
            var fields: [String: JSONValue] = [:]
            fields.reserveCapacity(8)  // a worker line or a summary: no regrowth on the way
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key (a string), found \(found)") }
                let keyOffset = index
                let key = try string()
                guard fields[key] == nil else {
                    // "last one wins" would let {"athlete":"ana","athlete":"zed"} give ana's run to zed.
                    throw Failure(offset: keyOffset, reason: "duplicate key \(ShownValue.quoted(key)) in an object")
                }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after the key \(ShownValue.quoted(key)), found \(found)") }
                index += 1
                skipSpace()
                fields[key] = try value(depth: depth)
                skipSpace()
                guard index < bytes.count else { throw fail("expected ',' or '}', found the end of the text") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
                throw fail("expected ',' or '}', found \(found)")
            }
        }

        mutating func array(depth: Int) throws -> JSONValue {
            index += 1
            var items: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth))
                skipSpace()
                guard index < bytes.count else { throw fail("expected ',' or ']', found the end of the text") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw fail("expected ',' or ']', found \(found)")
            }
        }

        /// A string from its opening quote; `index` ends past the closing one.
        mutating func string() throws -> String {
            index += 1
            let start = index
            var ascii = true
            // Fast path: no escape, valid UTF-8.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    if ascii { return String(decoding: slice, as: UTF8.self) }  // ASCII needs no validation
                    guard let text = String(validating: slice, as: UTF8.self) else {
                        index = start
                        throw fail("a string that is not valid UTF-8")
                    }
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte >= 0x80 { ascii = false }
                if byte < 0x20 { throw fail("a control character (byte 0x\(String(byte, radix: 16))) inside a string; write it as an escape") }
                index += 1
            }
            guard index < bytes.count else { throw fail("a string without its closing quote") }
            var scalars = String.UnicodeScalarView()
            guard let head = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) else {
                index = start
                throw fail("a string that is not valid UTF-8")
            }
            scalars.append(contentsOf: head.unicodeScalars)
            var raw: [UInt8] = []
            func flushRaw() throws {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else { throw fail("a string that is not valid UTF-8") }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    try flushRaw()
                    index += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw fail("a control character (byte 0x\(String(byte, radix: 16))) inside a string; write it as an escape") }
                guard byte == UInt8(ascii: "\\") else {
                    raw.append(byte)
                    index += 1
                    continue
                }
                try flushRaw()
                guard index + 1 < bytes.count else { throw fail("a string without its closing quote") }
                let escape = bytes[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    index -= 2
                    let escapeStart = index
                    let unit = try hexUnit()
                    if (0xD800...0xDBFF).contains(unit) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw loneSurrogate(at: escapeStart)
                        }
                        let low = try hexUnit()
                        guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogate(at: escapeStart) }
                        let code = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        if let scalar = Unicode.Scalar(code) { scalars.append(scalar) }
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        throw loneSurrogate(at: escapeStart)
                    } else if let scalar = Unicode.Scalar(unit) {
                        scalars.append(scalar)
                    }
                default:
                    index -= 1
                    throw fail("an unknown escape \\\(Character(Unicode.Scalar(escape))) in a string")
                }
            }
            throw fail("a string without its closing quote")
        }

        /// The `\uXXXX` escape at `start` (six bytes, read by `hexUnit`) is half of a surrogate pair alone.
        func loneSurrogate(at start: Int) -> Failure {
            let written = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<start + 6]), as: UTF8.self)
            return Failure(offset: start, reason: "a string holds \(written), half of a UTF-16 surrogate pair without its other half; "
                + "JSON text must be valid Unicode (write the character itself, or both halves)")
        }

        /// `\uXXXX` at `index`: its 16-bit unit.
        mutating func hexUnit() throws -> UInt16 {
            guard index + 6 <= bytes.count else { throw fail("a \\u escape needs four hex digits") }
            var unit: UInt16 = 0
            for k in 2..<6 {
                let byte = bytes[index + k]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw fail("a \\u escape needs four hex digits")
                }
                unit = unit << 4 | UInt16(digit)
            }
            index += 6
            return unit
        }

        /// A number by JSON's grammar, converted with `strtod` (correctly rounded).
        mutating func number() throws -> Double {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
                return index - from
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw fail("a number without digits") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                throw fail("a number without digits")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw fail("a number with no digit after its '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw fail("a number with no digit in its exponent") }
            }
            let length = index - start
            // Short plain integers (most of a summary's numbers) need no strtod.
            if length <= 15 {
                var value = 0
                var negative = false
                var plain = true
                for k in start..<index {
                    let byte = bytes[k]
                    if byte == UInt8(ascii: "-") { negative = true; continue }
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { plain = false; break }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                if plain { return negative ? (value == 0 ? -0.0 : -Double(value)) : Double(value) }
            }
            var buffer = [CChar](repeating: 0, count: length + 1)
            for k in 0..<length { buffer[k] = CChar(bitPattern: bytes[start + k]) }
            let value = strtod(buffer, nil)
            guard value.isFinite else {
                index = start
                throw fail("a number out of range")
            }
            return value
        }
    }
}
