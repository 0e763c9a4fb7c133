import Foundation

/// A compact binary form of any `Codable` value, for the cache's summaries: what `JSONEncoder` would
/// write, as tagged values with lengths, read back without a text parser (no number or string
/// scanning, no escapes, no dictionary of the whole object per container: keys are met in the order
/// they were written, so a decoder finds each at the cursor).
///
/// Layout, little-endian. A value is a tag byte and its body: 0 nil; 1 false; 2 true; 3 an integer
/// (Int64, 8 bytes); 4 a float (Double bits, 8 bytes); 5 a string (UInt32 length, UTF-8); 6 a keyed
/// container (UInt32 body length, UInt32 count, then per entry the key as a UInt8 length and UTF-8,
/// and the value); 7 an unkeyed container (UInt32 body length, UInt32 count, the values). The whole
/// starts with the 4-byte magic `BCS1`. Unsigned and narrower integers are integers, Float a float.
public enum BinaryCoder {
    static let magic: [UInt8] = Array("BCS1".utf8)

    enum Tag: UInt8 { case null = 0, no, yes, integer, float, string, keyed, unkeyed }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = Writer()
        encoder.bytes = magic
        try value.encode(to: EncoderBox(writer: encoder, codingPath: []))
        guard encoder.bytes.count > 4 else { throw Malformed(description: "nothing was encoded") }
        _ = try fixLengths(&encoder.bytes, at: 4)
        return Data(encoder.bytes)
    }

    /// Writes each container's body length from its contents (the counts are right as written; a
    /// container's length is known only once its last nested value is written, which Codable does not
    /// announce). Returns where the value at `at` ends.
    static func fixLengths(_ bytes: inout [UInt8], at start: Int) throws -> Int {
        func u32(_ at: Int) throws -> Int {
            guard at + 4 <= bytes.count else { throw Malformed(description: "truncated encoding") }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        guard start < bytes.count, let tag = Tag(rawValue: bytes[start]) else { throw Malformed(description: "bad tag while encoding") }
        switch tag {
        case .null, .no, .yes: return start + 1
        case .integer, .float: return start + 9
        case .string: return start + 5 + (try u32(start + 1))
        case .keyed, .unkeyed:
            let count = try u32(start + 5)
            var position = start + 9
            for _ in 0..<count {
                if tag == .keyed {
                    guard position < bytes.count else { throw Malformed(description: "truncated encoding") }
                    position += 1 + Int(bytes[position])
                }
                position = try fixLengths(&bytes, at: position)
            }
            let length = UInt32(position - (start + 5))
            for i in 0..<4 { bytes[start + 1 + i] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(i))) }
            return position
        }
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> T in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= 4, Array(bytes[0..<4]) == magic else { throw Malformed(description: "not a binary summary (no BCS1 magic)") }
            let reader = Reader(bytes: bytes, position: 4)
            let value = try T(from: DecoderBox(reader: reader, start: 4, codingPath: []))
            return value
        }
    }

    // MARK: - Writing

    final class Writer {
        var bytes: [UInt8] = []
        func tag(_ tag: Tag) { bytes.append(tag.rawValue) }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func string(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                tag(.string); u32(UInt32(utf8.count)); bytes.append(contentsOf: utf8)
            }
        }
        func key(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                bytes.append(UInt8(min(utf8.count, 255))); bytes.append(contentsOf: utf8.prefix(255))
            }
        }
        func integer(_ value: Int64) { tag(.integer); u64(UInt64(bitPattern: value)) }
        func float(_ value: Double) { tag(.float); u64(value.bitPattern) }
        /// Starts a container: its tag, room for its length and count; returns where the length goes.
        func open(_ tag: Tag) -> Int {
            self.tag(tag)
            let at = bytes.count
            u32(0); u32(0)
            return at
        }
        func close(_ at: Int, count: Int) {
            let length = UInt32(bytes.count - at - 4).littleEndian
            let number = UInt32(count).littleEndian
            withUnsafeBytes(of: length) { for i in 0..<4 { bytes[at + i] = $0[i] } }
            withUnsafeBytes(of: number) { for i in 0..<4 { bytes[at + 4 + i] = $0[i] } }
        }
    }

    /// An encoder whose containers write straight into the writer: a container is closed (its length
    /// and count filled in) when the next value of its parent starts or the encoding ends, which holds
    /// because Codable types encode one container at a time, depth first.
    struct EncoderBox: Encoder {
        let writer: Writer
        var codingPath: [CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(KeyedWriter<Key>(writer: writer, codingPath: codingPath, frame: Frame(writer: writer, tag: .keyed)))
        }
        func unkeyedContainer() -> UnkeyedEncodingContainer {
            UnkeyedWriter(writer: writer, codingPath: codingPath, frame: Frame(writer: writer, tag: .unkeyed))
        }
        func singleValueContainer() -> SingleValueEncodingContainer { SingleWriter(writer: writer, codingPath: codingPath) }
    }

    /// A container being written: its place and how many entries it has (its length is written at
    /// the end, `fixLengths`).
    final class Frame {
        let writer: Writer
        let at: Int
        var count = 0
        init(writer: Writer, tag: Tag) {
            self.writer = writer
            at = writer.open(tag)
        }
        func entry() { count += 1 }
        func update() { writer.close(at, count: count) }
    }

    static func write<T: Encodable>(_ value: T, writer: Writer, codingPath: [CodingKey]) throws {
        switch value {
        case let v as String: writer.string(v)
        case let v as Double: writer.float(v)
        case let v as Float: writer.float(Double(v))
        case let v as Int: writer.integer(Int64(v))
        case let v as Int64: writer.integer(v)
        case let v as Bool: writer.tag(v ? .yes : .no)
        default: try value.encode(to: EncoderBox(writer: writer, codingPath: codingPath))
        }
    }

    struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: Writer
        var codingPath: [CodingKey]
        let frame: Frame
        mutating func encodeNil(forKey key: Key) throws { writer.key(key.stringValue); writer.tag(.null); frame.entry(); frame.update() }
        mutating func encode(_ value: Bool, forKey key: Key) throws { writer.key(key.stringValue); writer.tag(value ? .yes : .no); frame.entry(); frame.update() }
        mutating func encode(_ value: String, forKey key: Key) throws { writer.key(key.stringValue); writer.string(value); frame.entry(); frame.update() }
        mutating func encode(_ value: Double, forKey key: Key) throws { writer.key(key.stringValue); writer.float(value); frame.entry(); frame.update() }
        mutating func encode(_ value: Float, forKey key: Key) throws { writer.key(key.stringValue); writer.float(Double(value)); frame.entry(); frame.update() }
        mutating func encode(_ value: Int, forKey key: Key) throws { writer.key(key.stringValue); writer.integer(Int64(value)); frame.entry(); frame.update() }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { writer.key(key.stringValue); writer.integer(value); frame.entry(); frame.update() }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(Int64(bitPattern: UInt64(value)), forKey: key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try encode(Int64(bitPattern: value), forKey: key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            writer.key(key.stringValue)
            try BinaryCoder.write(value, writer: writer, codingPath: codingPath + [key])
            frame.entry(); frame.update()
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            writer.key(key.stringValue); frame.entry()
            let nested = KeyedEncodingContainer(KeyedWriter<NestedKey>(writer: writer, codingPath: codingPath + [key], frame: Frame(writer: writer, tag: .keyed)))
            frame.update()
            return nested
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
            writer.key(key.stringValue); frame.entry()
            let nested = UnkeyedWriter(writer: writer, codingPath: codingPath + [key], frame: Frame(writer: writer, tag: .unkeyed))
            frame.update()
            return nested
        }
        mutating func superEncoder() -> Encoder { EncoderBox(writer: writer, codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> Encoder { EncoderBox(writer: writer, codingPath: codingPath + [key]) }
    }

    struct UnkeyedWriter: UnkeyedEncodingContainer {
        let writer: Writer
        var codingPath: [CodingKey]
        let frame: Frame
        var count: Int { frame.count }
        mutating func encodeNil() throws { writer.tag(.null); frame.entry(); frame.update() }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try BinaryCoder.write(value, writer: writer, codingPath: codingPath)
            frame.entry(); frame.update()
        }
        mutating func encode(_ value: Bool) throws { writer.tag(value ? .yes : .no); frame.entry(); frame.update() }
        mutating func encode(_ value: String) throws { writer.string(value); frame.entry(); frame.update() }
        mutating func encode(_ value: Double) throws { writer.float(value); frame.entry(); frame.update() }
        mutating func encode(_ value: Int) throws { writer.integer(Int64(value)); frame.entry(); frame.update() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            frame.entry()
            let nested = KeyedEncodingContainer(KeyedWriter<NestedKey>(writer: writer, codingPath: codingPath, frame: Frame(writer: writer, tag: .keyed)))
            frame.update()
            return nested
        }
        mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
            frame.entry()
            let nested = UnkeyedWriter(writer: writer, codingPath: codingPath, frame: Frame(writer: writer, tag: .unkeyed))
            frame.update()
            return nested
        }
        mutating func superEncoder() -> Encoder { EncoderBox(writer: writer, codingPath: codingPath) }
    }

    struct SingleWriter: SingleValueEncodingContainer {
        let writer: Writer
        var codingPath: [CodingKey]
        mutating func encodeNil() throws { writer.tag(.null) }
        mutating func encode(_ value: Bool) throws { writer.tag(value ? .yes : .no) }
        mutating func encode(_ value: String) throws { writer.string(value) }
        mutating func encode(_ value: Double) throws { writer.float(value) }
        mutating func encode(_ value: Float) throws { writer.float(Double(value)) }
        mutating func encode(_ value: Int) throws { writer.integer(Int64(value)) }
        mutating func encode(_ value: Int8) throws { writer.integer(Int64(value)) }
        mutating func encode(_ value: Int16) throws { writer.integer(Int64(value)) }
        mutating func encode(_ value: Int32) throws { writer.integer(Int64(value)) }
        mutating func encode(_ value: Int64) throws { writer.integer(value) }
        mutating func encode(_ value: UInt) throws { writer.integer(Int64(bitPattern: UInt64(value))) }
        mutating func encode(_ value: UInt8) throws { writer.integer(Int64(value)) }
        mutating func encode(_ value: UInt16) throws { writer.integer(Int64(value)) }
        mutating func encode(_ value: UInt32) throws { writer.integer(Int64(value)) }
        mutating func encode(_ value: UInt64) throws { writer.integer(Int64(bitPattern: value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { try BinaryCoder.write(value, writer: writer, codingPath: codingPath) }
    }

    // MARK: - Reading

    /// The bytes and a cursor; every read is bounds-checked (a damaged row throws, never traps).
    final class Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        init(bytes: UnsafeBufferPointer<UInt8>, position: Int) {
            self.bytes = bytes
            self.position = position
        }
        func fail(_ what: String) -> Malformed { Malformed(description: "binary summary: \(what) at byte \(position)") }
        func byte() throws -> UInt8 {
            guard position < bytes.count else { throw fail("unexpected end") }
            defer { position += 1 }
            return bytes[position]
        }
        func u32() throws -> UInt32 {
            guard position + 4 <= bytes.count else { throw fail("unexpected end") }
            var value: UInt32 = 0
            withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[position..<position + 4])) }
            position += 4
            return UInt32(littleEndian: value)
        }
        func u64() throws -> UInt64 {
            guard position + 8 <= bytes.count else { throw fail("unexpected end") }
            var value: UInt64 = 0
            withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[position..<position + 8])) }
            position += 8
            return UInt64(littleEndian: value)
        }
        func text(count: Int) throws -> String {
            guard count >= 0, position + count <= bytes.count else { throw fail("unexpected end") }
            defer { position += count }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<position + count]), as: UTF8.self)
        }
        /// Whether the key at the cursor is `key` (its bytes), without moving.
        func keyMatches(_ key: String) -> Bool {
            guard position < bytes.count else { return false }
            let length = Int(bytes[position])
            guard position + 1 + length <= bytes.count else { return false }
            guard let base = bytes.baseAddress else { return false }
            var key = key
            return key.withUTF8 { utf8 in
                guard utf8.count == length else { return false }
                guard length > 0, let key = utf8.baseAddress else { return true }
                return memcmp(key, base + position + 1, length) == 0
            }
        }
        func skipKey() throws {
            let length = Int(try byte())
            guard position + length <= bytes.count else { throw fail("unexpected end") }
            position += length
        }
        /// Moves past the value at the cursor.
        func skipValue() throws {
            guard let tag = Tag(rawValue: try byte()) else { throw fail("unknown tag") }
            switch tag {
            case .null, .no, .yes: return
            case .integer, .float:
                guard position + 8 <= bytes.count else { throw fail("unexpected end") }
                position += 8
            case .string:
                let length = Int(try u32())
                guard position + length <= bytes.count else { throw fail("unexpected end") }
                position += length
            case .keyed, .unkeyed:
                let length = Int(try u32())
                guard length >= 4, position + length <= bytes.count else { throw fail("bad container length") }
                position += length
            }
        }
        func peekTag() -> Tag? { position < bytes.count ? Tag(rawValue: bytes[position]) : nil }
    }

    struct DecoderBox: Decoder {
        let reader: Reader
        /// Where this value's tag is.
        let start: Int
        var codingPath: [CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            reader.position = start
            guard try reader.byte() == Tag.keyed.rawValue else { throw reader.fail("expected an object") }
            let length = Int(try reader.u32())
            let end = reader.position + length
            guard length >= 4, end <= reader.bytes.count else { throw reader.fail("bad container length") }
            let count = Int(try reader.u32())
            return KeyedDecodingContainer(KeyedReader<Key>(reader: reader, codingPath: codingPath, first: reader.position, end: end, count: count))
        }
        func unkeyedContainer() throws -> UnkeyedDecodingContainer {
            reader.position = start
            guard try reader.byte() == Tag.unkeyed.rawValue else { throw reader.fail("expected an array") }
            let length = Int(try reader.u32())
            let end = reader.position + length
            guard length >= 4, end <= reader.bytes.count else { throw reader.fail("bad container length") }
            let count = Int(try reader.u32())
            return UnkeyedReader(reader: reader, codingPath: codingPath, next: reader.position, end: end, count: count)
        }
        func singleValueContainer() throws -> SingleValueDecodingContainer { SingleReader(reader: reader, start: start, codingPath: codingPath) }
    }

    /// Reads the scalar at `start` (its tag) as `T`, or decodes `T` from there.
    static func read<T: Decodable>(_ type: T.Type, reader: Reader, start: Int, codingPath: [CodingKey]) throws -> T {
        reader.position = start
        if T.self == String.self { return try readString(reader) as! T }
        if T.self == Double.self { return try readDouble(reader) as! T }
        if T.self == Int.self { return Int(try readInteger(reader)) as! T }
        if T.self == Bool.self { return try readBool(reader) as! T }
        return try T(from: DecoderBox(reader: reader, start: start, codingPath: codingPath))
    }
    static func readString(_ reader: Reader) throws -> String {
        guard try reader.byte() == Tag.string.rawValue else { throw reader.fail("expected a string") }
        return try reader.text(count: Int(try reader.u32()))
    }
    static func readDouble(_ reader: Reader) throws -> Double {
        let tag = try reader.byte()
        if tag == Tag.float.rawValue { return Double(bitPattern: try reader.u64()) }
        if tag == Tag.integer.rawValue { return Double(Int64(bitPattern: try reader.u64())) }
        throw reader.fail("expected a number")
    }
    static func readInteger(_ reader: Reader) throws -> Int64 {
        guard try reader.byte() == Tag.integer.rawValue else { throw reader.fail("expected an integer") }
        return Int64(bitPattern: try reader.u64())
    }
    static func readBool(_ reader: Reader) throws -> Bool {
        let tag = try reader.byte()
        guard tag == Tag.yes.rawValue || tag == Tag.no.rawValue else { throw reader.fail("expected a boolean") }
        return tag == Tag.yes.rawValue
    }

    struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let reader: Reader
        var codingPath: [CodingKey]
        /// The first entry, the end of the container, how many entries.
        let first: Int
        let end: Int
        let count: Int
        /// Where the entry after the last one found starts (keys are usually asked in written order).
        private let cursor: Cursor
        final class Cursor { var next: Int; init(_ next: Int) { self.next = next } }

        init(reader: Reader, codingPath: [CodingKey], first: Int, end: Int, count: Int) {
            self.reader = reader; self.codingPath = codingPath; self.first = first; self.end = end; self.count = count
            cursor = Cursor(first)
        }

        var allKeys: [Key] {
            var keys: [Key] = []
            reader.position = first
            for _ in 0..<count {
                guard let length = try? reader.byte(), let name = try? reader.text(count: Int(length)) else { break }
                if let key = Key(stringValue: name) { keys.append(key) }
                guard (try? reader.skipValue()) != nil else { break }
            }
            return keys
        }

        /// The position of `key`'s value tag; nil when absent. From the cursor on, then from the start.
        private func find(_ key: Key) throws -> Int? {
            let name = key.stringValue
            for (from, limit) in [(cursor.next, end), (first, cursor.next)] {
                reader.position = from
                while reader.position < limit {
                    let matches = reader.keyMatches(name)
                    try reader.skipKey()
                    let value = reader.position
                    try reader.skipValue()
                    if matches {
                        cursor.next = reader.position
                        return value
                    }
                }
            }
            return nil
        }
        private func value(_ key: Key) throws -> Int {
            guard let at = try find(key) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value"))
            }
            return at
        }

        func contains(_ key: Key) -> Bool { (try? find(key)) != nil }
        func decodeNil(forKey key: Key) throws -> Bool {
            let at = try value(key)
            return reader.bytes[at] == Tag.null.rawValue
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try BinaryCoder.read(type, reader: reader, start: try value(key), codingPath: codingPath + [key])
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let at = try find(key), reader.bytes[at] != Tag.null.rawValue else { return nil }
            return try BinaryCoder.read(type, reader: reader, start: at, codingPath: codingPath + [key])
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { reader.position = try value(key); return try readBool(reader) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { reader.position = try value(key); return try readString(reader) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { reader.position = try value(key); return try readDouble(reader) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { reader.position = try value(key); return Float(try readDouble(reader)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { reader.position = try value(key); return Int(try readInteger(reader)) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { reader.position = try value(key); return try readInteger(reader) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { reader.position = try value(key); return UInt64(bitPattern: try readInteger(reader)) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try narrow(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try narrow(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try narrow(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try narrow(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try narrow(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try narrow(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try narrow(key) }
        private func narrow<T: FixedWidthInteger>(_ key: Key) throws -> T {
            reader.position = try value(key)
            guard let number = T(exactly: try readInteger(reader)) else { throw reader.fail("integer out of range") }
            return number
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try DecoderBox(reader: reader, start: try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
            try DecoderBox(reader: reader, start: try value(key), codingPath: codingPath + [key]).unkeyedContainer()
        }
        func superDecoder() throws -> Decoder { DecoderBox(reader: reader, start: first, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> Decoder { DecoderBox(reader: reader, start: try value(key), codingPath: codingPath + [key]) }
    }

    struct UnkeyedReader: UnkeyedDecodingContainer {
        let reader: Reader
        var codingPath: [CodingKey]
        var next: Int
        let end: Int
        let total: Int
        var currentIndex = 0
        init(reader: Reader, codingPath: [CodingKey], next: Int, end: Int, count: Int) {
            self.reader = reader; self.codingPath = codingPath; self.next = next; self.end = end; total = count
        }
        var count: Int? { total }
        var isAtEnd: Bool { currentIndex >= total }
        private mutating func take() throws -> Int {
            guard !isAtEnd, next < end else { throw reader.fail("past the end of an array") }
            let at = next
            reader.position = at
            try reader.skipValue()
            next = reader.position
            currentIndex += 1
            return at
        }
        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, next < end else { throw reader.fail("past the end of an array") }
            if reader.bytes[next] == Tag.null.rawValue { _ = try take(); return true }
            return false
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let at = try take()
            return try BinaryCoder.read(type, reader: reader, start: at, codingPath: codingPath)
        }
        mutating func decode(_ type: Double.Type) throws -> Double { reader.position = try take(); return try readDouble(reader) }
        mutating func decode(_ type: Int.Type) throws -> Int { reader.position = try take(); return Int(try readInteger(reader)) }
        mutating func decode(_ type: String.Type) throws -> String { reader.position = try take(); return try readString(reader) }
        mutating func decode(_ type: Bool.Type) throws -> Bool { reader.position = try take(); return try readBool(reader) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try DecoderBox(reader: reader, start: try take(), codingPath: codingPath).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
            try DecoderBox(reader: reader, start: try take(), codingPath: codingPath).unkeyedContainer()
        }
        mutating func superDecoder() throws -> Decoder { DecoderBox(reader: reader, start: try take(), codingPath: codingPath) }
    }

    struct SingleReader: SingleValueDecodingContainer {
        let reader: Reader
        let start: Int
        var codingPath: [CodingKey]
        func decodeNil() -> Bool { start < reader.bytes.count && reader.bytes[start] == Tag.null.rawValue }
        func decode(_ type: Bool.Type) throws -> Bool { reader.position = start; return try readBool(reader) }
        func decode(_ type: String.Type) throws -> String { reader.position = start; return try readString(reader) }
        func decode(_ type: Double.Type) throws -> Double { reader.position = start; return try readDouble(reader) }
        func decode(_ type: Float.Type) throws -> Float { reader.position = start; return Float(try readDouble(reader)) }
        func decode(_ type: Int.Type) throws -> Int { reader.position = start; return Int(try readInteger(reader)) }
        func decode(_ type: Int64.Type) throws -> Int64 { reader.position = start; return try readInteger(reader) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { reader.position = start; return UInt64(bitPattern: try readInteger(reader)) }
        func decode(_ type: Int8.Type) throws -> Int8 { try narrow() }
        func decode(_ type: Int16.Type) throws -> Int16 { try narrow() }
        func decode(_ type: Int32.Type) throws -> Int32 { try narrow() }
        func decode(_ type: UInt.Type) throws -> UInt { try narrow() }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try narrow() }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try narrow() }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try narrow() }
        private func narrow<T: FixedWidthInteger>() throws -> T {
            reader.position = start
            guard let number = T(exactly: try readInteger(reader)) else { throw reader.fail("integer out of range") }
            return number
        }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try BinaryCoder.read(type, reader: reader, start: start, codingPath: codingPath) }
    }
}
