import Foundation
import RunFiles

/// The bytes of one measure of a file (an entry of its set in `RunCache.measuresTable`): the measure of
/// each run of the file, in a compact binary form read without a JSON parser, so that a warm read with
/// measures costs no more than one without (JSON decoding was half the time of a warm read of 200 files).
/// A file's set (`encodeSet`) holds such bytes under each definition's `RunCache.measureKey`.
///
/// Layout, little-endian: a 4-byte magic `BCM1`, the run count (UInt32), then per run a byte 0 (no
/// value) or 1 followed by the field count (UInt16) and per field its name (a length byte and UTF-8),
/// a type byte (0 float, 1 integer, 2 boolean, 3 string, 4 list, 5 record) and the value (8 bytes; 8 bytes; 1 byte;
/// a UInt32 length and UTF-8; a UInt32 count and the elements, each with its type byte; a UInt16 field count
/// and the fields as a run's are written: a segment's efforts). Fields are written in name order, so the same values give the same bytes.
enum MeasureCodec {
    static let magic: [UInt8] = Array("BCM1".utf8)

    static func encode(_ values: [MeasureValue?]) -> Data {
        var bytes = magic
        append(UInt32(values.count), to: &bytes)
        for value in values {
            guard let value else { bytes.append(0); continue }
            bytes.append(1)
            let fields = value.fields
            append(UInt16(fields.count), to: &bytes)
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                let utf8 = Array(name.utf8.prefix(255))
                bytes.append(UInt8(utf8.count)); bytes += utf8
                write(field, to: &bytes)
            }
        }
        return Data(bytes)
    }

    /// A field: its type byte and value (a list: type 4, a UInt32 count, then each element).
    private static func write(_ field: MeasureScalar, to bytes: inout [UInt8]) {
        switch field {
        case .float(let number): bytes.append(0); append(number.bitPattern, to: &bytes)
        case .integer(let number): bytes.append(1); append(UInt64(bitPattern: Int64(number)), to: &bytes)
        case .boolean(let flag): bytes.append(2); bytes.append(flag ? 1 : 0)
        case .string(let text):
            let utf8 = Array(text.utf8)
            bytes.append(3); append(UInt32(utf8.count), to: &bytes); bytes += utf8
        case .list(let values):
            bytes.append(4); append(UInt32(values.count), to: &bytes)
            for value in values { write(value, to: &bytes) }
        case .record(let fields):
            bytes.append(5); append(UInt16(fields.count), to: &bytes)
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                let utf8 = Array(name.utf8.prefix(255))
                bytes.append(UInt8(utf8.count)); bytes += utf8
                write(field, to: &bytes)
            }
        }
    }

    /// A field written by `write`; nil when malformed. `depth` bounds lists inside lists.
    private static func read(_ reader: inout Reader, depth: Int = 0) -> MeasureScalar? {
        guard let type = reader.byte() else { return nil }
        switch type {
        case 0: return reader.uint64().map { .float(Double(bitPattern: $0)) }
        case 1: return reader.uint64().map { .integer(Int(Int64(bitPattern: $0))) }
        case 2: return reader.byte().map { .boolean($0 != 0) }
        case 3:
            guard let size = reader.uint32(), let text = reader.take(Int(size)) else { return nil }
            return .string(String(decoding: text, as: UTF8.self))
        case 4:
            guard depth < 8, let count = reader.uint32(), Int(count) <= reader.remaining else { return nil }
            var values: [MeasureScalar] = []
            values.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let value = read(&reader, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return .list(values)
        case 5:
            guard depth < 8, let count = reader.uint16() else { return nil }
            var fields: [String: MeasureScalar] = [:]
            for _ in 0..<count {
                guard let length = reader.byte(), let name = reader.take(Int(length)), let field = read(&reader, depth: depth + 1) else { return nil }
                fields[String(decoding: name, as: UTF8.self)] = field
            }
            return .record(fields)
        default: return nil
        }
    }

    /// nil when the bytes are not a well-formed row (a row made by hand, a truncated write): a miss.
    static func decode(_ data: Data) -> [MeasureValue?]? {
        data.withUnsafeBytes { decode(raw: $0) }
    }

    /// `decode` over bytes in place (an entry of a set, read without copying it out first).
    static func decode(raw: UnsafeRawBufferPointer) -> [MeasureValue?]? {
        values(raw) { reader, _ in
            var fields: [String: MeasureScalar] = [:]
            let whole = walkFields(&reader, count: { fields.reserveCapacity($0) }) { name, reader in
                guard let field = read(&reader) else { return false }
                fields[String(decoding: name, as: UTF8.self)] = field
                return true
            }
            return whole ? MeasureValue(fields) : nil
        }
    }

    /// The values of a measure's bytes (`encode`): nil for a run without one, else what `value` makes of
    /// the bytes after the presence byte (given the offset they start at); nil when malformed.
    private static func values(_ raw: UnsafeRawBufferPointer, _ value: (inout Reader, Int) -> MeasureValue?) -> [MeasureValue?]? {
        var reader = Reader(bytes: raw)
        // Every run takes a byte at least: a count beyond the bytes left is junk, not a reservation to make.
        guard reader.starts(with: magic), let count = reader.uint32(), Int(count) <= reader.remaining else { return nil }
        var values: [MeasureValue?] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let present = reader.byte() else { return nil }
            if present == 0 { values.append(nil); continue }
            guard present == 1, let made = value(&reader, reader.offset) else { return nil }
            values.append(made)
        }
        return reader.atEnd ? values : nil
    }

    /// A value's fields: their count (handed to `count`), then each name, checked by `isNext`, and its
    /// field, which `field` takes off the reader (false: malformed). False when malformed.
    private static func walkFields(_ reader: inout Reader, count: (Int) -> Void = { _ in },
                                   _ field: (UnsafeRawBufferPointer, inout Reader) -> Bool) -> Bool {
        // Every field takes 3 bytes at least (a name length, a type, a value byte).
        guard let total = reader.uint16(), Int(total) * 3 <= reader.remaining else { return false }
        count(Int(total))
        var previous: UnsafeRawBufferPointer?
        for _ in 0..<total {
            guard let length = reader.byte(), let name = reader.take(Int(length)), isNext(name, after: previous),
                  field(name, &reader) else { return false }
            previous = name
        }
        return true
    }

    /// Steps over a field `write` wrote, checking it as `read` would but making nothing (no string, no
    /// array); false when malformed. Types other than these are left to `read` (made, then dropped).
    private static func skip(_ reader: inout Reader, depth: Int = 0) -> Bool {
        var probe = reader
        guard let type = probe.byte() else { return false }
        switch type {
        case 0, 1:
            reader = probe
            return reader.take(8) != nil
        case 2:
            reader = probe
            return reader.take(1) != nil
        case 3:
            reader = probe
            guard let size = reader.uint32() else { return false }
            return reader.take(Int(size)) != nil
        case 4:
            reader = probe
            guard depth < 8, let count = reader.uint32(), Int(count) <= reader.remaining else { return false }
            for _ in 0..<count where !skip(&reader, depth: depth + 1) { return false }
            return true
        default:
            return read(&reader, depth: depth) != nil
        }
    }

    /// `decode` of `part` (bytes inside `whole`, which are `data`'s), each value kept as its bytes (a slice of
    /// `data`, sharing its storage) to be read when a rule asks (`MeasureFieldReader`): every field is
    /// checked here, so a malformed value is still a miss, and no dictionary is made for a value nothing reads.
    static func decodeEncoded(_ data: Data, whole: UnsafeRawBufferPointer, part: UnsafeRawBufferPointer) -> [MeasureValue?]? {
        guard let wholeStart = whole.baseAddress, let partStart = part.baseAddress else { return nil }
        let base = data.startIndex + wholeStart.distance(to: partStart)
        return values(part) { reader, start in
            guard walkFields(&reader, { _, reader in skip(&reader) }) else { return nil }
            return MeasureValue(encoded: data[(base + start)..<(base + reader.offset)], reader: MeasureCodec.self)
        }
    }

    // MARK: - A file's set of measures

    /// The bytes of a file's set: every measure the cache holds for its content, oldest write first.
    ///
    /// Layout, little-endian: a 4-byte magic `BCS1`, the entry count (UInt16), then per entry its key
    /// (`RunCache.measureKey`: a UInt16 length and UTF-8), the length of its bytes (UInt32) and the bytes
    /// (`encode`). A reader finds the keys it wants by comparing bytes and decodes only those entries.
    static let setMagic: [UInt8] = Array("BCS1".utf8)

    /// A set's bytes from its entries (key and `encode`d bytes), in this order.
    static func encodeSet(_ entries: [(key: String, value: Data)]) -> Data {
        var bytes = setMagic
        append(UInt16(clamping: entries.count), to: &bytes)
        for (key, value) in entries.prefix(Int(UInt16.max)) {
            let utf8 = Array(key.utf8.prefix(Int(UInt16.max)))
            append(UInt16(utf8.count), to: &bytes); bytes += utf8
            append(UInt32(clamping: value.count), to: &bytes); bytes += value
        }
        return Data(bytes)
    }

    /// Walks a set's entries (key bytes and value bytes, both in place) until `body` returns false.
    /// False when the bytes are not a well-formed set (a miss: the measures are computed again).
    @discardableResult
    static func forEachEntry(_ raw: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) -> Bool {
        var reader = Reader(bytes: raw)
        guard reader.starts(with: setMagic), let count = reader.uint16() else { return false }
        for _ in 0..<count {
            guard let length = reader.uint16(), let key = reader.take(Int(length)),
                  let size = reader.uint32(), let value = reader.take(Int(size)) else { return false }
            guard body(key, value) else { return true }
        }
        return reader.atEnd
    }

    /// A set's entries (key and bytes, in order); nil when the bytes are not a well-formed set.
    static func entries(ofSet data: Data) -> [(key: String, value: Data)]? {
        data.withUnsafeBytes { raw in
            var entries: [(key: String, value: Data)] = []
            let whole = forEachEntry(raw) { key, value in
                entries.append((String(decoding: key, as: UTF8.self), Data(value)))
                return true
            }
            return whole ? entries : nil
        }
    }

    /// The values of the entries of a set whose keys are among `keys` (UTF-8 of `RunCache.measureKey`),
    /// decoded, by the key's index in `keys`: nil where the set has no such entry or its bytes are
    /// malformed. Other entries are skipped unread.
    /// `encoded`: each value kept as its bytes until read (`decodeEncoded`).
    static func decodeSet(_ data: Data, keys: [[UInt8]], encoded: Bool = false) -> [[MeasureValue?]?] {
        var found = [[MeasureValue?]?](repeating: nil, count: keys.count)
        guard !keys.isEmpty else { return found }
        data.withUnsafeBytes { raw in
            var left = keys.count
            forEachEntry(raw) { key, value in
                guard let index = keys.firstIndex(where: { wanted in wanted.withUnsafeBytes { same($0, key) } }), found[index] == nil else { return true }
                found[index] = encoded ? decodeEncoded(data, whole: raw, part: value) : decode(raw: value)
                left -= 1
                return left > 0
            }
        }
        return found
    }

    /// Whether a field's name may follow `previous` in a value: ASCII (so that comparing bytes is comparing
    /// names: a field is found in a value kept as bytes as in a dictionary) and after it in byte order (as
    /// `encode` writes them, so no name comes twice). Any other value is malformed: a miss, recomputed.
    static func isNext(_ name: UnsafeRawBufferPointer, after previous: UnsafeRawBufferPointer?) -> Bool {
        guard name.allSatisfy({ $0 < 0x80 }) else { return false }
        guard let previous else { return true }
        return previous.lexicographicallyPrecedes(name)
    }

    /// Whether two runs of bytes are the same.
    static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }
        return memcmp(x, y, a.count) == 0
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Reads a buffer front to back; every read is bounds-checked (nil past the end).
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        var atEnd: Bool { offset == bytes.count }
        var remaining: Int { bytes.count - offset }

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        }
        mutating func byte() -> UInt8? { take(1).map { $0[0] } }
        /// Takes `prefix`'s length of bytes when they are `prefix` (a magic), without copying them out.
        mutating func starts(with prefix: [UInt8]) -> Bool {
            guard let bytes = take(prefix.count) else { return false }
            return bytes.elementsEqual(prefix)
        }
        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard let slice = take(MemoryLayout<T>.size) else { return nil }
            var value: T = 0
            withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: slice) }
            return T(littleEndian: value)
        }
        mutating func uint16() -> UInt16? { integer(UInt16.self) }
        mutating func uint32() -> UInt32? { integer(UInt32.self) }
        mutating func uint64() -> UInt64? { integer(UInt64.self) }
    }
}

/// A value's bytes as `MeasureCodec.encode` writes them after the presence byte: the field count, then
/// each field's name and scalar. Read only from bytes `decodeEncoded` checked whole.
extension MeasureCodec: MeasureFieldReader {
    static func visit(_ bytes: UnsafeRawBufferPointer, _ visitor: inout some MeasureVisitor) -> Bool {
        var reader = Reader(bytes: bytes)
        return visitFields(&reader, &visitor, fieldDepth: 0)
    }

    /// A record's field count, then each name and value (the value's own layout, and a type 5
    /// record's), the values at `fieldDepth` (as `read` reads them).
    private static func visitFields(_ reader: inout Reader, _ visitor: inout some MeasureVisitor, fieldDepth: Int) -> Bool {
        guard let count = reader.uint16() else { return false }
        visitor.beginRecord(count: Int(count))
        for _ in 0..<count {
            guard let length = reader.byte(), let name = reader.take(Int(length)) else { return false }
            visitor.name(name)
            guard visitScalar(&reader, &visitor, depth: fieldDepth) else { return false }
        }
        visitor.end()
        return true
    }

    /// One scalar as `read` reads it, handed to the visitor instead of made.
    private static func visitScalar(_ reader: inout Reader, _ visitor: inout some MeasureVisitor, depth: Int) -> Bool {
        guard let type = reader.byte() else { return false }
        switch type {
        case 0:
            guard let bits = reader.uint64() else { return false }
            visitor.float(Double(bitPattern: bits))
        case 1:
            guard let bits = reader.uint64() else { return false }
            visitor.integer(Int(Int64(bitPattern: bits)))
        case 2:
            guard let flag = reader.byte() else { return false }
            visitor.boolean(flag != 0)
        case 3:
            guard let size = reader.uint32(), let text = reader.take(Int(size)) else { return false }
            visitor.string(text)
        case 4:
            guard depth < 8, let count = reader.uint32(), Int(count) <= reader.remaining else { return false }
            visitor.beginList(count: Int(count))
            for _ in 0..<count where !visitScalar(&reader, &visitor, depth: depth + 1) { return false }
            visitor.end()
        case 5:
            guard depth < 8 else { return false }
            return visitFields(&reader, &visitor, fieldDepth: depth + 1)
        default: return false
        }
        return true
    }

    static func fieldCount(in bytes: UnsafeRawBufferPointer) -> Int {
        var reader = Reader(bytes: bytes)
        return reader.uint16().map(Int.init) ?? 0
    }

    static func forEachField(in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, MeasureScalar) -> Void) {
        var reader = Reader(bytes: bytes)
        guard let count = reader.uint16() else { return }
        for _ in 0..<count {
            guard let length = reader.byte(), let name = reader.take(Int(length)), let field = read(&reader) else { return }
            body(name, field)
        }
    }

    static func fields(in bytes: UnsafeRawBufferPointer) -> [String: MeasureScalar] {
        var fields = [String: MeasureScalar](minimumCapacity: fieldCount(in: bytes))
        forEachField(in: bytes) { fields[String(decoding: $0, as: UTF8.self)] = $1 }
        return fields
    }

    static func field(_ name: String, in bytes: UnsafeRawBufferPointer) -> MeasureScalar? {
        var reader = Reader(bytes: bytes)
        guard let count = reader.uint16() else { return nil }
        var wanted = name
        return wanted.withUTF8 { wanted in
            for _ in 0..<count {
                guard let length = reader.byte(), let found = reader.take(Int(length)) else { return nil }
                if same(found, UnsafeRawBufferPointer(wanted)) { return read(&reader) }
                guard skip(&reader) else { return nil }
            }
            return nil
        }
    }
}
