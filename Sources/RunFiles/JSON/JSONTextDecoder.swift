import Foundation

/// Decodes any `Decodable` type from JSON text read by `JSONText`'s parser (through `JSONReader`):
/// the one parser of every JSON badgectl reads, so a facts line, a summary in a file and the same
/// summary in a worker line meet the same grammar, the same refusals (a repeated key, a lone UTF-16
/// surrogate, invalid UTF-8, nesting past `JSONText.maximumDepth`) and the same messages.
///
/// Decoding follows `JSONDecoder`'s defaults (a missing key is `keyNotFound`, `decodeIfPresent`
/// takes null as absent, a `Date` is its seconds since 2001, a `URL` a string). Integers are read
/// from their digits (an `Int64` keeps all 19), and a number with a fraction is no integer. An error
/// is `ActivityError.malformed` naming `source`, the byte offset of the value at fault (nil when
/// decoding a `JSONValue`, which has no text) and the path to it: `at .runs[3].distance_m: expected
/// a number, found a string`.
public struct JSONTextDecoder: Sendable {
    /// What a string may stand for where a `Double` or `Float` is decoded (JSON has no NaN or
    /// infinity), as `JSONDecoder.NonConformingFloatDecodingStrategy`.
    public enum NonConformingFloatDecodingStrategy: Sendable, Equatable {
        /// A string is no number.
        case `throw`
        /// These three strings are +∞, -∞ and NaN (the state files write "inf", "-inf", "nan").
        case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw

    public init() {}

    /// Decodes `type` from the JSON text in `bytes` (white space around it allowed).
    /// - Throws: `ActivityError.malformed` naming `source`, the byte offset and what was expected;
    ///   or what `type`'s own `init(from:)` throws that is not a `DecodingError`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>, source: String) throws -> T {
        let root = try JSONReader.read(bytes, source: source) { reader in try JSONNode.read(&reader, depth: 0) }
        return try decode(type, root: root, source: source)
    }

    /// Decodes `type` from the JSON text in `bytes` (see `decode(_:from:source:)`).
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], source: String) throws -> T {
        try bytes.withUnsafeBufferPointer { try decode(type, from: $0, source: source) }
    }

    /// Decodes `type` from the JSON text in `data` (see `decode(_:from:source:)`).
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, source: String) throws -> T {
        try data.withUnsafeBytes { raw in
            try decode(type, from: UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count), source: source)
        }
    }

    /// Decodes `type` from a value already parsed, or made in memory (errors name the path, no offset).
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, source: String) throws -> T {
        try decode(type, root: JSONNode(value), source: source)
    }

    private func decode<T: Decodable>(_ type: T.Type, root: JSONNode, source: String) throws -> T {
        do {
            return try NodeDecoder(node: root, codingPath: [], strategy: nonConformingFloatDecodingStrategy).decodeValue(type)
        } catch let error as DecodingError {
            throw Self.failure(error, root: root, source: source)
        }
    }

    /// `error` as a message naming the path to the value at fault and, when the value came from
    /// text, its byte offset.
    static func failure(_ error: DecodingError, root: JSONNode, source: String) -> ActivityError {
        let path: [any CodingKey], what: String
        switch error {
        case .keyNotFound(let key, let context):
            path = context.codingPath
            what = "missing \(ShownValue.quoted(key.stringValue))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
            what = context.debugDescription
        @unknown default:
            return .malformed(path: source, line: nil, offset: nil, reason: "\(error)")
        }
        return .malformed(path: source, line: nil, offset: root.deepest(along: path).offset, reason: "at \(pathText(path)): \(what)")
    }

    /// `.runs[3].distance_m`; `the top level` for the whole value.
    static func pathText(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the top level" }
        return path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
    }
}

/// A JSON value as the decoder reads it: with the byte offset it starts at, an integer's exact
/// value beside its `Double`, and an object's members in the order written.
struct JSONNode {
    enum Value {
        case null
        case bool(Bool)
        /// The number, and the integer it is when written without a fraction or exponent and within Int64.
        case number(Double, Int64?)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    struct Member {
        var key: String
        var node: JSONNode
    }

    var value: Value
    /// Where its text starts; nil for a value that came from no text.
    var offset: Int?

    init(_ value: Value, offset: Int?) {
        self.value = value
        self.offset = offset
    }

    /// The value `reader` is on, nested `depth` deep.
    static func read(_ reader: inout JSONReader, depth: Int) throws -> JSONNode {
        let first = reader.peek() ?? 0  // 0: the end of the text, left to the parser's message
        let offset = reader.offset
        switch first {
        case UInt8(ascii: "{"):
            var members: [Member] = []
            try reader.object(depth: depth) { key, member in members.append(Member(key: key, node: try read(&member, depth: depth + 1))) }
            return JSONNode(.object(members), offset: offset)
        case UInt8(ascii: "["):
            var elements: [JSONNode] = []
            try reader.array(depth: depth) { element in elements.append(try read(&element, depth: depth + 1)) }
            return JSONNode(.array(elements), offset: offset)
        case UInt8(ascii: "\""):
            return JSONNode(.string(try reader.string()), offset: offset)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let number = try reader.number()
            return JSONNode(.number(number.value, number.integer), offset: offset)
        default:
            // true, false, null, or the parser's error for what is there.
            switch try reader.value(depth: depth) {
            case .bool(let flag): return JSONNode(.bool(flag), offset: offset)
            default: return JSONNode(.null, offset: offset)
            }
        }
    }

    /// A value made in memory (no offsets); a whole number is an integer too.
    init(_ value: JSONValue) {
        offset = nil
        switch value {
        case .null: self.value = .null
        case .bool(let flag): self.value = .bool(flag)
        case .number(let number): self.value = .number(number, number == number.rounded(.towardZero) ? Int64(exactly: number) : nil)
        case .string(let text): self.value = .string(text)
        case .array(let elements): self.value = .array(elements.map(JSONNode.init))
        case .object(let fields):
            self.value = .object(fields.sorted { $0.key < $1.key }.map { Member(key: $0.key, node: JSONNode($0.value)) })
        }
    }

    /// The value as a `JSONValue` (an object's members by key: the parser refused a repeated one).
    var jsonValue: JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number, _): return .number(number)
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map(\.jsonValue))
        case .object(let members):
            var fields: [String: JSONValue] = [:]
            fields.reserveCapacity(members.count)
            for member in members { fields[member.key] = member.node.jsonValue }
            return .object(fields)
        }
    }

    /// For messages: `a string`, `an array`, ...
    var kind: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value at `path`, or the deepest one on the way that exists.
    func deepest(along path: [any CodingKey]) -> JSONNode {
        var node = self
        for key in path {
            switch node.value {
            case .object(let members):
                guard let member = members.first(where: { $0.key == key.stringValue }) else { return node }
                node = member.node
            case .array(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { return node }
                node = elements[index]
            default:
                return node
            }
        }
        return node
    }
}

/// A key of an array's element in a coding path.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// The decoder of one value (and its single-value container).
private final class NodeDecoder: Decoder, SingleValueDecodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    let strategy: JSONTextDecoder.NonConformingFloatDecodingStrategy
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: JSONNode, codingPath: [any CodingKey], strategy: JSONTextDecoder.NonConformingFloatDecodingStrategy) {
        self.node = node
        self.codingPath = codingPath
        self.strategy = strategy
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node.value else { throw Unbox.mismatch([String: Any].self, "an object", node, codingPath) }
        return KeyedDecodingContainer(KeyedNodes<Key>(members: members, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node.value else { throw Unbox.mismatch([Any].self, "an array", node, codingPath) }
        return UnkeyedNodes(elements: elements, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `type` from this decoder's value: the standard types unboxed here, others by their `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        try Unbox.value(type, node, codingPath, strategy)
    }

    func decodeNil() -> Bool {
        if case .null = node.value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try Unbox.bool(node, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Unbox.string(node, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Unbox.double(node, codingPath, strategy) }
    func decode(_ type: Float.Type) throws -> Float { try Unbox.float(node, codingPath, strategy) }
    func decode(_ type: Int.Type) throws -> Int { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Unbox.integer(type, node, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Unbox.integer(type, node, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// Reading a standard type out of a node; the `DecodingError`s say what was expected and found.
private enum Unbox {
    static func mismatch(_ type: Any.Type, _ expected: String, _ node: JSONNode, _ path: [any CodingKey]) -> DecodingError {
        if case .null = node.value {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(expected), found null"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(expected), found \(node.kind)"))
    }

    static func value<T: Decodable>(_ type: T.Type, _ node: JSONNode, _ path: [any CodingKey],
                                    _ strategy: JSONTextDecoder.NonConformingFloatDecodingStrategy) throws -> T {
        // The common leaves without a decoder of their own.
        if type == String.self, let text = try string(node, path) as? T { return text }
        if type == Double.self, let number = try double(node, path, strategy) as? T { return number }
        if type == Int.self, let number = try integer(Int.self, node, path) as? T { return number }
        if type == Bool.self, let flag = try bool(node, path) as? T { return flag }
        // Any value (an award's evidence): from the node as it is, not by `JSONValue.init(from:)`'s
        // guesses, each a thrown error.
        if type == JSONValue.self, let value = node.jsonValue as? T { return value }
        if type == URL.self {
            let text = try string(node, path)
            guard let url = URL(string: text) as? T else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(ShownValue.quoted(text)) is not a URL"))
            }
            return url
        }
        return try T(from: NodeDecoder(node: node, codingPath: path, strategy: strategy))
    }

    static func bool(_ node: JSONNode, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = node.value else { throw mismatch(Bool.self, "true or false", node, path) }
        return flag
    }

    static func string(_ node: JSONNode, _ path: [any CodingKey]) throws -> String {
        guard case .string(let text) = node.value else { throw mismatch(String.self, "a string", node, path) }
        return text
    }

    static func double(_ node: JSONNode, _ path: [any CodingKey], _ strategy: JSONTextDecoder.NonConformingFloatDecodingStrategy) throws -> Double {
        switch node.value {
        case .number(let number, _):
            return number
        case .string(let text):
            if case .convertFromString(let positive, let negative, let nan) = strategy {
                if text == positive { return .infinity }
                if text == negative { return -.infinity }
                if text == nan { return .nan }
            }
            fallthrough
        default:
            throw mismatch(Double.self, "a number", node, path)
        }
    }

    static func float(_ node: JSONNode, _ path: [any CodingKey], _ strategy: JSONTextDecoder.NonConformingFloatDecodingStrategy) throws -> Float {
        let number = try double(node, path, strategy)
        let narrow = Float(number)
        guard narrow.isFinite || !number.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(number) does not fit in a Float"))
        }
        return narrow
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ node: JSONNode, _ path: [any CodingKey]) throws -> T {
        guard case .number(let number, let integer) = node.value else { throw mismatch(type, "a whole number", node, path) }
        if let integer, let exact = T(exactly: integer) { return exact }
        // 1e3, or a whole number past Int64 (a UInt64): exact when the Double is.
        if integer == nil, number == number.rounded(.towardZero), let exact = T(exactly: number) { return exact }
        let shown = integer.map(String.init) ?? "\(number)"
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "expected a whole number that fits in \(type), found \(shown)"))
    }
}

/// An object's members as a keyed container. Members are looked up from where the last one was
/// found (decoders read keys in about the order they were written); past 16 members, by halving when
/// the keys are written in order (as badgectl's own JSON is: a saved run's line has 45), else by a table.
private final class KeyedNodes<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONNode.Member]
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var cursor = 0
    private lazy var inOrder: Bool = zip(members, members.dropFirst()).allSatisfy { $0.key < $1.key }
    private lazy var table: [String: Int] = {
        var table: [String: Int] = [:]
        for (index, member) in members.enumerated() { table[member.key] = index }
        return table
    }()

    init(members: [JSONNode.Member], decoder: NodeDecoder) {
        self.members = members
        self.decoder = decoder
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func member(_ key: Key) -> JSONNode? {
        let name = key.stringValue
        if cursor < members.count, members[cursor].key == name {
            cursor += 1
            return members[cursor - 1].node
        }
        if members.count > 16 {
            guard inOrder else { return table[name].map { members[$0].node } }
            var low = 0, high = members.count
            while low < high {
                let middle = (low + high) / 2
                if members[middle].key < name { low = middle + 1 } else { high = middle }
            }
            guard low < members.count, members[low].key == name else { return nil }
            cursor = low + 1
            return members[low].node
        }
        var index = cursor
        for _ in 0..<members.count {
            if index >= members.count { index = 0 }
            if members[index].key == name {
                cursor = index + 1
                return members[index].node
            }
            index += 1
        }
        return nil
    }

    func node(_ key: Key) throws -> JSONNode {
        guard let node = member(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing \(ShownValue.quoted(key.stringValue))"))
        }
        return node
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try node(key).value { return true }
        return false
    }

    // An optional in one lookup (the protocol's own asks `contains`, then `decodeNil`, then `decode`).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try Unbox.bool($0, codingPath + [key]) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try Unbox.string($0, codingPath + [key]) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try Unbox.double($0, codingPath + [key], decoder.strategy) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try Unbox.integer(type, $0, codingPath + [key]) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try Unbox.value(type, $0, codingPath + [key], decoder.strategy) }
    }

    /// The member `key` names, nil when it is missing or null.
    private func present(_ key: Key) -> JSONNode? {
        guard let node = member(key) else { return nil }
        if case .null = node.value { return nil }
        return node
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Unbox.bool(node(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try Unbox.string(node(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Unbox.double(node(key), codingPath + [key], decoder.strategy) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Unbox.float(node(key), codingPath + [key], decoder.strategy) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Unbox.integer(type, node(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Unbox.integer(type, node(key), codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try Unbox.value(type, node(key), codingPath + [key], decoder.strategy)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(node: node(key), codingPath: codingPath + [key], strategy: decoder.strategy).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(node: node(key), codingPath: codingPath + [key], strategy: decoder.strategy).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = Key(stringValue: "super")
        let node = key.flatMap(member) ?? JSONNode(.null, offset: nil)
        return NodeDecoder(node: node, codingPath: codingPath + (key.map { [$0] } ?? []), strategy: decoder.strategy)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(node: member(key) ?? JSONNode(.null, offset: nil), codingPath: codingPath + [key], strategy: decoder.strategy)
    }
}

/// An array's elements as an unkeyed container.
private final class UnkeyedNodes: UnkeyedDecodingContainer {
    let elements: [JSONNode]
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }
    private(set) var currentIndex = 0

    init(elements: [JSONNode], decoder: NodeDecoder) {
        self.elements = elements
        self.decoder = decoder
    }

    /// The next element and its path, moving past it.
    private func next(_ type: Any.Type) throws -> (JSONNode, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)],
                                                          debugDescription: "expected another element, found the end of the array"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [IndexKey(currentIndex)])
    }

    func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: codingPath + [IndexKey(currentIndex)],
                                                              debugDescription: "expected another element, found the end of the array"))
        }
        if case .null = elements[currentIndex].value {
            currentIndex += 1
            return true
        }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { let (node, path) = try next(type); return try Unbox.bool(node, path) }
    func decode(_ type: String.Type) throws -> String { let (node, path) = try next(type); return try Unbox.string(node, path) }
    func decode(_ type: Double.Type) throws -> Double { let (node, path) = try next(type); return try Unbox.double(node, path, decoder.strategy) }
    func decode(_ type: Float.Type) throws -> Float { let (node, path) = try next(type); return try Unbox.float(node, path, decoder.strategy) }
    func decode(_ type: Int.Type) throws -> Int { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: Int8.Type) throws -> Int8 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: Int16.Type) throws -> Int16 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: Int32.Type) throws -> Int32 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: Int64.Type) throws -> Int64 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: UInt.Type) throws -> UInt { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { let (node, path) = try next(type); return try Unbox.integer(type, node, path) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (node, path) = try next(type)
        return try Unbox.value(type, node, path, decoder.strategy)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try next(type)
        return try NodeDecoder(node: node, codingPath: path, strategy: decoder.strategy).container(keyedBy: type)
    }

    func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try next([Any].self)
        return try NodeDecoder(node: node, codingPath: path, strategy: decoder.strategy).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let (node, path) = try next(Any.self)
        return NodeDecoder(node: node, codingPath: path, strategy: decoder.strategy)
    }
}
