// The measure declarations: what a pack may declare (`MeasureDefinition`, `MeasureKind`). They are
// computed here in RunAnalysis (`RunAnalyzer+Measures.swift`, `RunAnalyzer+Geography.swift`); the values
// (`MeasureValue`) and their fields (`MeasureField`) are RunFiles', as runs carry them.
import Foundation
import RunFiles

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

extension MeasureValue {
    /// `name = value` pairs in the kind's field order (for `summarize` and `explain`).
    public func text(kind: String) -> String {
        let fields = self.fields
        let order = MeasureKind.named(kind)?.fields ?? fields.keys.sorted()
        let names = order.filter { fields[$0] != nil } + fields.keys.sorted().filter { !order.contains($0) }
        return names.compactMap { name in fields[name].map { "\(name) = \($0.text)" } }.joined(separator: ", ")
    }
}
