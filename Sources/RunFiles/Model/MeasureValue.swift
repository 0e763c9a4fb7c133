// The measures' values as a run carries them (`RunSummary.measures`): `MeasureValue`, its fields
// (`MeasureScalar`), and how the cache's bytes of one are read without decoding them. What a pack may
// declare, and the athlete profile some kinds need, are RunAnalysis's (Measures/), where they are computed.
import Foundation

/// One field of a measure's value: a number, a count, a flag or a text (a local time).
/// A list holds values of one field that come in several (the places a run passed, its tiles): an
/// array in Lua.
public indirect enum MeasureScalar: Sendable, Equatable, Codable {
    case float(Double)
    case integer(Int)
    case boolean(Bool)
    case string(String)
    case list([MeasureScalar])
    /// Named fields (one effort of a segment: its elapsed time, pace, gates): a table in Lua.
    case record([String: MeasureScalar])

    /// Hands this scalar to `visitor` (`MeasureValue.visit`).
    func visit(_ visitor: inout some MeasureVisitor) {
        switch self {
        case .float(let number): visitor.float(number)
        case .integer(let number): visitor.integer(number)
        case .boolean(let flag): visitor.boolean(flag)
        case .string(var text): text.withUTF8 { visitor.string(UnsafeRawBufferPointer($0)) }
        case .list(let values):
            visitor.beginList(count: values.count)
            for value in values { value.visit(&visitor) }
            visitor.end()
        case .record(let fields):
            visitor.beginRecord(count: fields.count)
            for (name, value) in fields {
                var name = name
                name.withUTF8 { visitor.name(UnsafeRawBufferPointer($0)) }
                value.visit(&visitor)
            }
            visitor.end()
        }
    }

    /// A number reads back as a float: JSON does not tell 1000.0 from 1000 (`MeasureValue` makes its
    /// count fields integers again).
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let flag = try? c.decode(Bool.self) { self = .boolean(flag) } else if let number = try? c.decode(Double.self) {
            self = .float(number)
        } else if let list = try? c.decode([MeasureScalar].self) {
            self = .list(list)
        } else if let record = try? c.decode([String: MeasureScalar].self) {
            self = .record(record)
        } else { self = .string(try c.decode(String.self)) }
    }

    /// The value as a number (a float or a count), nil otherwise.
    public var number: Double? {
        switch self {
        case .float(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .float(let value):
            // A whole float is written with a fraction so it reads back as a float, not a count.
            if value.isFinite { try c.encode(value) } else { try c.encodeNil() }
        case .integer(let value): try c.encode(value)
        case .boolean(let value): try c.encode(value)
        case .string(let value): try c.encode(value)
        case .list(let values): try c.encode(values)
        case .record(let fields): try c.encode(fields)
        }
    }

    /// The value as a rule author reads it in `summarize` and `explain`.
    public var text: String {
        switch self {
        case .float(let value): return value == value.rounded() && abs(value) < 1e12 ? String(format: "%.1f", value) : String(format: "%.3f", value)
        case .integer(let value): return String(value)
        case .boolean(let value): return value ? "true" : "false"
        case .string(let value): return value
        case .list(let values):
            // A long list (a run's tiles) shows its first values and how many there are.
            if values.count > 12 { return "{ " + values.prefix(6).map(\.text).joined(separator: ", ") + ", ... (\(values.count) in all) }" }
            return "{ " + values.map(\.text).joined(separator: ", ") + " }"
        case .record(let fields): return "{ " + fields.keys.sorted().map { "\($0) = \(fields[$0]?.text ?? "")" }.joined(separator: ", ") + " }"
        }
    }
}

/// Reads the fields of a measure value kept as the cache's bytes (`RunLibrary`'s `MeasureCodec`), so that
/// a warm read hands values to the rules without decoding them: only what a rule reads is decoded.
/// The bytes were checked whole when the value was made (`MeasureValue(encoded:reader:)`).
public protocol MeasureFieldReader: Sendable {
    /// Every field.
    static func fields(in bytes: UnsafeRawBufferPointer) -> [String: MeasureScalar]
    /// One field, nil when there is none of that name.
    static func field(_ name: String, in bytes: UnsafeRawBufferPointer) -> MeasureScalar?
    /// Every field in the order of the bytes, without gathering them first: its name as UTF-8 (valid during
    /// the call only) and its value.
    static func forEachField(in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, MeasureScalar) -> Void)
    /// How many fields there are.
    static func fieldCount(in bytes: UnsafeRawBufferPointer) -> Int
    /// Hands the whole value to `visitor` as it reads the bytes (`MeasureValue.visit`); false when
    /// the bytes stop short (the visitor then saw part of the value).
    static func visit(_ bytes: UnsafeRawBufferPointer, _ visitor: inout some MeasureVisitor) -> Bool
}

/// Takes a measure value apart as it is read, with no Swift value made for its fields (a list of
/// a thousand tile names is a thousand `string` calls, not a thousand boxed scalars):
/// `MeasureValue.visit`. The value itself comes as a record: `beginRecord`, then each field as
/// `name` followed by its value, then `end`. A list is `beginList`, its values, `end`; a record
/// inside, the same as the value. Names and strings are UTF-8 valid during the call only.
public protocol MeasureVisitor {
    mutating func beginRecord(count: Int)
    mutating func beginList(count: Int)
    /// The end of the innermost record or list.
    mutating func end()
    /// The name of the field whose value comes next.
    mutating func name(_ utf8: UnsafeRawBufferPointer)
    mutating func float(_ value: Double)
    mutating func integer(_ value: Int)
    mutating func boolean(_ value: Bool)
    mutating func string(_ utf8: UnsafeRawBufferPointer)
}

/// A measure's value for one run: named fields in the kind's order (`MeasureKind.fields`).
///
/// A value read from the cache keeps its bytes and a reader for them until it is changed; `fields`
/// and the subscript decode from them on each read (equality compares the fields either way).
public struct MeasureValue: Sendable, Equatable, Codable {
    private var decoded: [String: MeasureScalar]
    private var encoded: Encoded?

    /// The cache's bytes of a value and what reads them.
    private struct Encoded: Sendable {
        var bytes: Data
        var reader: any MeasureFieldReader.Type
    }

    /// The fields by name (a value from the cache: decoded from its bytes on each read; setting them
    /// drops the bytes).
    public var fields: [String: MeasureScalar] {
        get {
            guard let encoded else { return decoded }
            return encoded.bytes.withUnsafeBytes { encoded.reader.fields(in: $0) }
        }
        set { decoded = newValue; encoded = nil }
    }
    /// A value of these fields.
    public init(_ fields: [String: MeasureScalar] = [:]) { decoded = fields }
    /// A value kept as `bytes` (checked whole by the caller), read by `reader` when a field is asked for.
    public init(encoded bytes: Data, reader: any MeasureFieldReader.Type) {
        decoded = [:]
        encoded = Encoded(bytes: bytes, reader: reader)
    }
    /// One field (a value from the cache: found in its bytes, only that field decoded).
    public subscript(_ name: String) -> MeasureScalar? {
        get {
            guard let encoded else { return decoded[name] }
            return encoded.bytes.withUnsafeBytes { encoded.reader.field(name, in: $0) }
        }
        set {
            var fields = self.fields
            fields[name] = newValue
            self.fields = fields
        }
    }
    /// How many fields the value has.
    public var fieldCount: Int {
        guard let encoded else { return decoded.count }
        return encoded.bytes.withUnsafeBytes { encoded.reader.fieldCount(in: $0) }
    }
    /// Calls `body` with every field: its name as UTF-8 (valid during the call only) and its value. A value
    /// from the cache is read from its bytes as it goes, with no dictionary and no name string made.
    public func forEachField(_ body: (_ name: UnsafeRawBufferPointer, _ field: MeasureScalar) -> Void) {
        guard let encoded else {
            for (name, field) in decoded {
                var name = name
                name.withUTF8 { body(UnsafeRawBufferPointer($0), field) }
            }
            return
        }
        encoded.bytes.withUnsafeBytes { encoded.reader.forEachField(in: $0, body) }
    }
    /// Hands the value to `visitor` (`MeasureVisitor`): a value from the cache straight from its
    /// bytes; false when those stop short (the visitor then saw part of it).
    public func visit(_ visitor: inout some MeasureVisitor) -> Bool {
        guard let encoded else {
            visitor.beginRecord(count: decoded.count)
            for (name, field) in decoded {
                var name = name
                name.withUTF8 { visitor.name(UnsafeRawBufferPointer($0)) }
                field.visit(&visitor)
            }
            visitor.end()
            return true
        }
        return encoded.bytes.withUnsafeBytes { encoded.reader.visit($0, &visitor) }
    }

    /// The same fields, whether held as a dictionary or as the cache's bytes.
    public static func == (a: MeasureValue, b: MeasureValue) -> Bool { a.fields == b.fields }

    /// The fields that hold counts (integers in Lua); every other number is a float.
    public static let countFields: Set<String> = ["count", "offset_s", "visits", "zoom", "best", "age"]

    public init(from decoder: Decoder) throws {
        decoded = try [String: MeasureScalar](from: decoder)
        for name in MeasureValue.countFields {
            if case .float(let value)? = decoded[name], value == value.rounded(), abs(value) < 1e15 { decoded[name] = .integer(Int(value)) }
        }
    }
    public func encode(to encoder: Encoder) throws { try fields.encode(to: encoder) }

}
