/// A pull reader over one JSON text, for a reader that builds its own values as it goes (the saved
/// state's rule states, kept as Lua integers and floats): the same grammar, strings, numbers, depth
/// limit and repeated-key refusal as `JSONText.parse`, because it is the same parser.
public struct JSONReader {
    private var parser: JSONText.Parser
    private let source: String
    private let maximumDepth: Int

    /// Reads `body` over `bytes`, then requires nothing but white space after what it read. Objects and
    /// arrays read with `object` and `array` may nest `maximumDepth` deep (values read whole with
    /// `value`, `JSONText.maximumDepth`).
    /// - Throws: `ActivityError.malformed` naming `source`, the byte offset and what was expected; or
    ///   what `body` throws.
    public static func read<T>(_ bytes: UnsafeBufferPointer<UInt8>, source: String, maximumDepth: Int = JSONText.maximumDepth,
                               _ body: (inout JSONReader) throws -> T) throws -> T {
        var reader = JSONReader(parser: JSONText.Parser(bytes: bytes), source: source, maximumDepth: maximumDepth)
        return try mapping(source) {
            let result = try body(&reader)
            reader.parser.skipSpace()
            guard reader.parser.index == bytes.count else { throw reader.parser.fail("text after the JSON value") }
            return result
        }
    }

    private init(parser: JSONText.Parser, source: String, maximumDepth: Int) {
        self.parser = parser
        self.source = source
        self.maximumDepth = maximumDepth
    }

    /// Runs `body`, the parser's failures becoming `ActivityError.malformed` naming `source`.
    private static func mapping<T>(_ source: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as JSONText.Parser.Failure {
            throw ActivityError.malformed(path: source, line: nil, offset: failure.offset, reason: failure.reason)
        }
    }

    /// An error at the current position (before the next value), as the parser's own errors read.
    public func failure(_ reason: String) -> ActivityError {
        .malformed(path: source, line: nil, offset: parser.index, reason: reason)
    }

    /// Where the reader is, in bytes from the start of the text: after `peek`, the next value's first byte.
    var offset: Int { parser.index }

    /// The first byte of the next value (white space skipped), nil at the end of the text.
    public mutating func peek() -> UInt8? {
        parser.skipSpace()
        return parser.index < parser.bytes.count ? parser.bytes[parser.index] : nil
    }

    /// An object, calling `member` with each key in the order written (the reader placed on its
    /// value, which `member` must read or skip). A key written twice is refused.
    public mutating func object(depth: Int, _ member: (String, inout JSONReader) throws -> Void) throws {
        try Self.mapping(source) { try expect(UInt8(ascii: "{"), depth: depth) }
        if try closes(UInt8(ascii: "}")) { return }
        // The keys so far, to refuse one written twice: compared one by one while there are few
        // (most objects have one to a dozen keys, and hashing each cost more than the comparisons),
        // hashed past that. The first apart: a saved state's tagged values (`{"float": "1.5"}`)
        // have one key, and need no array at all.
        var first: String? = nil
        var few: [String] = []
        var many: Set<String> = []
        while true {
            let key: String = try Self.mapping(source) {
                parser.skipSpace()
                guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
                    throw parser.fail("expected a key (a string), found \(parser.found)")
                }
                let keyOffset = parser.index
                let key = try parser.string()
                let repeated: Bool
                if first == nil {
                    repeated = false
                    first = key
                } else if few.count < 16 {
                    repeated = key == first || few.contains(key)
                    if !repeated { few.append(key) }
                } else {
                    if many.isEmpty { many = Set(few + [first!]) }
                    repeated = !many.insert(key).inserted
                }
                guard !repeated else {
                    throw JSONText.Parser.Failure(offset: keyOffset, reason: "duplicate key \(ShownValue.quoted(key)) in an object")
                }
                parser.skipSpace()
                guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: ":") else {
                    throw parser.fail("expected ':' after the key \(ShownValue.quoted(key)), found \(parser.found)")
                }
                parser.index += 1
                return key
            }
            try member(key, &self)
            if try next(UInt8(ascii: "}")) { return }
        }
    }

    /// An array, calling `element` once per element (the reader placed on it).
    public mutating func array(depth: Int, _ element: (inout JSONReader) throws -> Void) throws {
        try Self.mapping(source) { try expect(UInt8(ascii: "["), depth: depth) }
        if try closes(UInt8(ascii: "]")) { return }
        while true {
            try element(&self)
            if try next(UInt8(ascii: "]")) { return }
        }
    }

    /// A string.
    public mutating func string() throws -> String {
        try Self.mapping(source) {
            parser.skipSpace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
                throw parser.fail("expected a string, found \(parser.found)")
            }
            return try parser.string()
        }
    }

    /// A number: its value, and the integer it is when written without a fraction or exponent and
    /// within Int64.
    public mutating func number() throws -> (value: Double, integer: Int64?) {
        try Self.mapping(source) {
            parser.skipSpace()
            let start = parser.index
            guard start < parser.bytes.count,
                  parser.bytes[start] == UInt8(ascii: "-") || (parser.bytes[start] >= UInt8(ascii: "0") && parser.bytes[start] <= UInt8(ascii: "9")) else {
                throw parser.fail("expected a value, found \(parser.found)")
            }
            let value = try parser.number()
            let text = UnsafeBufferPointer(rebasing: parser.bytes[start..<parser.index])
            let integral = !text.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
            return (value, integral ? Int64(String(decoding: text, as: UTF8.self)) : nil)
        }
    }

    /// Any value, as `JSONText.parse` gives it (for `true`, `false`, `null`, or a value to skip).
    public mutating func value(depth: Int) throws -> JSONValue {
        try Self.mapping(source) {
            parser.skipSpace()
            return try parser.value(depth: depth)
        }
    }

    private mutating func expect(_ opening: UInt8, depth: Int) throws {
        parser.skipSpace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == opening else {
            throw parser.fail("expected '\(Character(Unicode.Scalar(opening)))', found \(parser.found)")
        }
        guard depth < maximumDepth else { throw parser.fail("nested deeper than \(maximumDepth) levels") }
        parser.index += 1
    }

    /// Whether the container closes at once (empty).
    private mutating func closes(_ closing: UInt8) throws -> Bool {
        parser.skipSpace()
        guard parser.index < parser.bytes.count, parser.bytes[parser.index] == closing else { return false }
        parser.index += 1
        return true
    }

    /// After an element: true at `closing`, false after a comma.
    private mutating func next(_ closing: UInt8) throws -> Bool {
        try Self.mapping(source) {
            parser.skipSpace()
            guard parser.index < parser.bytes.count else {
                throw parser.fail("expected ',' or '\(Character(Unicode.Scalar(closing)))', found the end of the text")
            }
            let byte = parser.bytes[parser.index]
            if byte == UInt8(ascii: ",") { parser.index += 1; return false }
            if byte == closing { parser.index += 1; return true }
            throw parser.fail("expected ',' or '\(Character(Unicode.Scalar(closing)))', found \(parser.found)")
        }
    }
}
