// The measure declarations (the model): what a pack may declare (`MeasureDefinition`, `MeasureKind`),
// the fields of the values (`MeasureField`) and the values themselves (`MeasureValue`). They are computed
// in RunAnalysis/Measures (`RunAnalyzer+Measures.swift`, `RunAnalyzer+Geography.swift`).
import Foundation

/// A figure a rule pack asks the core for (`measures = { best3k = { kind = "effort", distance_m = 3000 } }`
/// in `pack.lua`): its kind and parameters. Pure data: `RunAnalysis` computes it from the track while the
/// file is summarised, the cache keeps it under `key`, the rules read it as `run.measures.<name>`.
///
/// `key` is a canonical text of the kind and its parameters (sorted by name, numbers written exactly): two
/// packs declaring the same thing share one computation and one cache row, and the name a pack gives it
/// plays no part (renaming a measure recomputes nothing).
public struct MeasureDefinition: Sendable, Hashable, Codable {
    /// A parameter's value: a number (metres, seconds, bpm...), a word or text (`heart_rate`, a place's
    /// name), or a list of them (a point `{ 52.37, 4.89 }`, a polygon `{ { 52.37, 4.89 }, ... }`: kinds
    /// that take places, segments or tiles declare such lists).
    public indirect enum Parameter: Sendable, Hashable, Codable {
        case number(Double)
        case text(String)
        case list([Parameter])

        public var number: Double? { if case .number(let value) = self { return value }; return nil }
        public var text: String? { if case .text(let value) = self { return value }; return nil }
        public var list: [Parameter]? { if case .list(let value) = self { return value }; return nil }
        var canonical: String {
            switch self {
            case .number(let value): return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
            case .text(let value):
                let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return "\"\(escaped)\""
            case .list(let values): return "{" + values.map(\.canonical).joined(separator: ",") + "}"
            }
        }
    }

    public let kind: String
    public let parameters: [String: Parameter]
    /// The path a `segment` measure follows, read from the pack's segment file when the pack loads. Not
    /// part of `key`: the file's SHA-256 is (the `sha256` parameter the loader adds), so a changed file
    /// is a new measure and the cache recomputes it.
    public var path: SegmentPath?
    /// `effort(distance_m=3000,max_stop_s=120)`: the measure's identity in the cache and across packs
    /// (made once: every run's measures are looked up by it).
    public let key: String

    public init(kind: String, parameters: [String: Parameter] = [:]) {
        self.kind = kind; self.parameters = parameters
        key = kind + "(" + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.canonical)" }.joined(separator: ",") + ")"
    }

    enum CodingKeys: String, CodingKey { case kind, parameters }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(kind: try c.decode(String.self, forKey: .kind), parameters: try c.decode([String: Parameter].self, forKey: .parameters))
    }

    public static func == (a: MeasureDefinition, b: MeasureDefinition) -> Bool { a.key == b.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    public func number(_ name: String) -> Double? { parameters[name]?.number }
    public func text(_ name: String) -> String? { parameters[name]?.text }

    /// The definition the analyzer computes: `zone = n` of a `time_in` turned into the athlete's bounds.
    /// Fails (with the reason `explain` shows) when the measure needs an athlete profile and there is none.
    public func resolved(athlete: Athlete?) -> Result<MeasureDefinition, MeasureUnavailable> {
        if kind == MeasureKind.ageGrade.name { return resolvedAgeGrade(athlete: athlete) }
        guard kind == MeasureKind.timeIn.name, let zone = number("zone") else { return .success(self) }
        guard let athlete else {
            return .failure(MeasureUnavailable(reason: "zone \(Int(zone)) needs your heart-rate zones: give your profile with --athlete FILE (max_hr and resting_hr, or zones)"))
        }
        guard let bounds = athlete.zone(Int(zone)) else {
            return .failure(MeasureUnavailable(reason: "the athlete profile \(athlete.source) gives no heart-rate zone \(Int(zone)) (it has \(athlete.zoneCount))"))
        }
        var parameters = self.parameters
        parameters["zone"] = nil
        parameters["min"] = .number(bounds.lower)
        // A zone ends where the next begins: its upper bound is left out (`below`), unlike a `max`.
        if let upper = bounds.upper { parameters["below"] = .number(upper) }
        return .success(MeasureDefinition(kind: kind, parameters: parameters))
    }
}

/// Why a declared measure cannot be computed in this evaluation (no athlete profile for a zone).
public struct MeasureUnavailable: Error, Sendable, Hashable {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}

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

    /// `name = value` pairs in the kind's field order (for `summarize` and `explain`).
    public func text(kind: String) -> String {
        let fields = self.fields
        let order = MeasureKind.named(kind)?.fields ?? fields.keys.sorted()
        let names = order.filter { fields[$0] != nil } + fields.keys.sorted().filter { !order.contains($0) }
        return names.compactMap { name in fields[name].map { "\(name) = \($0.text)" } }.joined(separator: ", ")
    }
}

/// The kinds of measure a pack may declare: each one's parameters (checked at load, with a
/// suggestion for a misspelt one) and the fields of its value. A new kind is one more entry here
/// and one more case in `RunAnalyzer.measure` (places, segments and tiles add theirs the same way).
public struct MeasureKind: Sendable {
    /// What a parameter takes: a number (at least `minimum`), one of some words, any short text, or a
    /// list of `count` values of one type (`count` nil: any number of them, at least one).
    public indirect enum ParameterType: Sendable {
        case number(minimum: Double, integer: Bool)
        case word([String])
        case text
        case list(of: ParameterType, count: Int?)
    }
    public struct ParameterSpec: Sendable {
        public var name: String
        public var type: ParameterType
        public var doc: String
    }

    public var name: String
    public var parameters: [ParameterSpec]
    /// The fields of its value, in the order tools print them: name, unit, doc (`MeasureField`).
    public var valueFields: [MeasureField]
    /// Their names.
    public var fields: [String]
    public var doc: String
    /// Cross-parameter checks (exactly one of two, a range the right way round): the problem, or nil.
    public var check: @Sendable (MeasureDefinition) -> String?

    public init(name: String, parameters: [ParameterSpec], fields: [MeasureField], doc: String,
                check: @escaping @Sendable (MeasureDefinition) -> String?) {
        self.name = name; self.parameters = parameters; self.valueFields = fields
        self.fields = fields.map(\.name); self.doc = doc; self.check = check
    }

    public static let channels = ["heart_rate", "cadence", "speed", "grade", "elevation"]

    public static let effort = MeasureKind(
        name: "effort",
        parameters: [
            ParameterSpec(name: "distance_m", type: .number(minimum: 1, integer: false), doc: "the fastest time over this distance"),
            ParameterSpec(name: "duration_s", type: .number(minimum: 1, integer: false), doc: "the longest distance in this time"),
            ParameterSpec(name: "max_stop_s", type: .number(minimum: 1, integer: false), doc: "the longest stop an effort may span (default 120)"),
        ],
        fields: [.elapsedSeconds, .distanceMeters, .paceSecondsPerKilometre, .startElapsedSeconds, .startDistanceMeters],
        doc: "the fastest stretch of a distance, or the longest distance in a time",
        check: { d in
            switch (d.number("distance_m"), d.number("duration_s")) {
            case (nil, nil): return "an effort needs distance_m (fastest time over a distance) or duration_s (longest distance in a time)"
            case (.some, .some): return "an effort takes distance_m or duration_s, not both"
            default: return nil
            }
        })

    public static let timeIn = MeasureKind(
        name: "time_in",
        parameters: [
            ParameterSpec(name: "channel", type: .word(channels), doc: "what is measured"),
            ParameterSpec(name: "min", type: .number(minimum: -.infinity, integer: false), doc: "lower bound, included"),
            ParameterSpec(name: "max", type: .number(minimum: -.infinity, integer: false), doc: "upper bound, included"),
            ParameterSpec(name: "zone", type: .number(minimum: 1, integer: true), doc: "the runner's heart-rate zone (--athlete)"),
        ],
        fields: [.seconds, .longestSeconds, .share],
        doc: "time spent with a channel in a range",
        check: { d in
            guard d.text("channel") != nil else { return "missing required parameter 'channel' (one of \(channels.joined(separator: ", ")))" }
            if d.number("zone") != nil {
                if d.text("channel") != "heart_rate" { return "zone = n is a heart-rate zone: use channel = \"heart_rate\"" }
                if d.number("min") != nil || d.number("max") != nil { return "give zone = n or min/max, not both" }
                return nil
            }
            let lower = d.number("min"), upper = d.number("max")
            if lower == nil, upper == nil { return "a time_in needs min, max (or both), or zone = n for heart rate" }
            if let lower, let upper, upper <= lower { return "max (\(upper)) must be above min (\(lower))" }
            return nil
        })

    public static let stops = MeasureKind(
        name: "stops",
        parameters: [ParameterSpec(name: "min_s", type: .number(minimum: 1, integer: false), doc: "the shortest stop counted")],
        fields: [.count, .longestSeconds, .totalSeconds],
        doc: "stops of at least min_s",
        check: { d in d.number("min_s") == nil ? "missing required parameter 'min_s' (seconds)" : nil })

    public static let sun = MeasureKind(
        name: "sun", parameters: [],
        fields: [.sunrise, .sunset, .sunriseEpochSeconds, .sunsetEpochSeconds, .polar, .daylight, .spansSunrise, .spansSunset,
                 .latitude, .longitude, .startEpochSeconds, .endEpochSeconds, .date, .offsetSeconds],
        doc: "sunrise and sunset at the start point on the run's local date",
        check: { _ in nil })

    public static let all: [MeasureKind] = [effort, timeIn, stops, sun, place, segment, tiles, ageGrade, gradeAdjusted]

    /// Why a measure of `kind` is nil in a run (for `summarize` and `explain`).
    public static func nilReason(_ kind: String) -> String {
        switch kind {
        case effort.name: return "the run has no times, or no stretch without a long stop is that long"
        case timeIn.name: return "the run has no timed reading of that channel"
        case stops.name: return "the run has no times"
        case sun.name: return "the run has no position or no start time"
        case place.name: return "the run has no positions"
        case segment.name: return "the run has no positions or never came within the segment's bounding box (widened by tolerance_m)"
        case tiles.name: return "the run has no positions"
        case gradeAdjusted.name: return "the run has no times or fewer than two elevations"
        case ageGrade.name: return "the run has no time or start date, is shorter than the tables' shortest distance (1 mile), is faster than the world record over every stretch graded (a GPS jump), or the runner's age on the day is outside 5 to 100"
        default: return "not computed for this run"
        }
    }
    public static func named(_ name: String) -> MeasureKind? { all.first { $0.name == name } }
}
