import Foundation
import RunFiles

/// The bytes of a measure row (`RunCache.measuresTable`): the measure of each run of a file, in a
/// compact binary form read without a JSON parser, so that a warm read with measures costs no more than
/// one without (JSON decoding was half the time of a warm read of 200 files).
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
            append(UInt16(value.fields.count), to: &bytes)
            for (name, field) in value.fields.sorted(by: { $0.key < $1.key }) {
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
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [MeasureValue?]? in
            var reader = Reader(bytes: raw)
            // Every run takes a byte at least: a count beyond the bytes left is junk, not a reservation to make.
            guard reader.take(4).map(Array.init) == magic, let count = reader.uint32(), Int(count) <= reader.remaining else { return nil }
            var values: [MeasureValue?] = []
            values.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let present = reader.byte() else { return nil }
                if present == 0 { values.append(nil); continue }
                guard present == 1, let fields = reader.uint16() else { return nil }
                var value = MeasureValue()
                for _ in 0..<fields {
                    guard let length = reader.byte(), let name = reader.take(Int(length)), let field = read(&reader) else { return nil }
                    value[String(decoding: name, as: UTF8.self)] = field
                }
                values.append(value)
            }
            return reader.atEnd ? values : nil
        }
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
