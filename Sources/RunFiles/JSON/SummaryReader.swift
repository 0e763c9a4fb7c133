import Foundation

/// Reads a JSON run summary: a run entered by hand or from a treadmill, with no points.
///
/// ```json
/// { "start": "2024-05-01T07:30:00+02:00", "distance_m": 8000, "duration_s": 2700,
///   "moving_s": 2640, "name": "Treadmill intervals", "sport": "treadmill" }
/// ```
/// - `start` (required): ISO 8601 with seconds, a day its month has, an offset within ±14:00. An offset (`+02:00`) sets the local date and time;
///   `Z` means UTC (the local date and time then come from the zone chosen by the user); no zone at
///   all (`2026-11-22T23:30:00`, a time typed by hand) is a local wall-clock time, read in the zone
///   chosen by the user. The zone is not known while files are read and cached, so such a start is
///   kept floating (`RunSummary.floatingStart`) and resolved by `RunAnalyzer.localise`, unless
///   `zoneOffsetSeconds` is given here.
/// - `distance_m` (required): a number ≥ 0.
/// - `duration_s` (required): a number > 0, the elapsed time (also used as timer time).
/// - `moving_s` (optional): a number ≥ 0 and ≤ `duration_s`.
/// - `name`, `sport`, `device` (optional): strings; `indoor`, `manual` (optional): true or false (`manual`:
///   entered by hand). `null` is the same as absent. Other fields are ignored.
public enum SummaryReader {
    /// A summary is one JSON object of a few hundred bytes (six fields, no points or laps); a file
    /// over this (1 MiB: thousands of times that, room for long names and fields other programs
    /// add, which are ignored) is refused rather than decoded (the decoder's tree takes many times
    /// a file's size: 64 MiB of `[0,0,...]` took 19 s and 1.7 GB).
    public static let maximumBytes = 1 << 20

    /// The largest distance a summary may give: 10,000 km, twice the longest footrace there is
    /// (the Self-Transcendence 3100 miles, about 4,989 km); beyond it a number is a typo or an
    /// attack (1e308 m made a run that earned every distance badge), never a run.
    public static let maximumDistanceMeters = 10_000_000.0
    /// The longest duration a summary may give: 100 days (8,640,000 s), about twice that race's
    /// 52-day limit.
    public static let maximumDurationSeconds = 8_640_000.0

    static let notAnObject = "expected a JSON object with start, distance_m and duration_s"

    /// True when the text cannot be one JSON object: its first byte past a UTF-8 byte-order mark
    /// and white space is ASCII and not `{` (`[`, a number, a string, ...). UTF-16 and UTF-32 text
    /// (a zero byte beside the first character, or their byte-order marks) is left to `isUTF16`.
    static func cannotBeAnObject(_ data: Data) -> Bool {
        var index = data.startIndex
        if data.count >= 3, data[index] == 0xEF, data[index + 1] == 0xBB, data[index + 2] == 0xBF { index += 3 }
        while index < data.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(data[index]) { index += 1 }
        guard index < data.endIndex else { return false }  // empty: the parser says so
        let first = data[index]
        guard first > 0 && first < 0x80 && first != UInt8(ascii: "{") else { return false }
        return !(index + 1 < data.endIndex && data[index + 1] == 0)
    }

    /// True when the text is UTF-16 or UTF-32: a byte-order mark of theirs, or a zero byte among the
    /// first two (a JSON text's first character is ASCII). Refused as the GPX and TCX readers refuse
    /// it: a summary is read by the one JSON parser, which reads UTF-8, as a worker line is.
    static func isUTF16(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let first = data[data.startIndex], second = data[data.startIndex + 1]
        return (first == 0xFF && second == 0xFE) || (first == 0xFE && second == 0xFF) || first == 0 || second == 0
    }

    public static func read(path: String, id: String, zoneOffsetSeconds: Int?) throws -> RunSummary {
        let data = Data(try FileBytes.read(path: path, maximumBytes: maximumBytes))
        return try read(data: data, source: path, id: id, zoneOffsetSeconds: zoneOffsetSeconds)
    }

    /// Reads a summary from memory; `source` names it in errors. `zoneOffsetSeconds` gives the local
    /// date when the start has no offset; nil leaves the local date to the caller.
    ///
    /// The text is parsed by `JSONText`, the parser of a worker line and its `summary`: a repeated
    /// key, a lone UTF-16 surrogate, invalid UTF-8 or a number out of range is refused the same way
    /// in a file and in a line, the file's error naming the line and byte.
    public static func read(data: Data, source: String, id: String, zoneOffsetSeconds: Int?) throws -> RunSummary {
        // Refused before parsing: a 60 MB array took a minute to be found not to be an object.
        if cannotBeAnObject(data) {
            throw ActivityError.notFormat(path: source, format: "json", reason: notAnObject)
        }
        if isUTF16(data) {
            throw ActivityError.notFormat(path: source, format: "json", reason: XMLBytes.utf16Refusal)
        }
        let value = try data.withUnsafeBytes { raw -> JSONValue in
            let bytes = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
            // A UTF-8 byte-order mark (some editors write one) is not part of the JSON text.
            let mark = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
            do {
                return try JSONText.parse(UnsafeBufferPointer(rebasing: bytes[mark...]), source: source)
            } catch ActivityError.malformed(let path, _, let offset?, let reason) {
                let at = offset + mark
                let line = 1 + bytes[..<at].count(where: { $0 == 0x0A })
                throw ActivityError.malformed(path: path, line: line, offset: at, reason: reason)
            }
        }
        guard case .object(let fields) = value else {
            throw ActivityError.notFormat(path: source, format: "json", reason: notAnObject)
        }
        return try read(fields: fields, source: source, id: id, zoneOffsetSeconds: zoneOffsetSeconds)
    }

    /// Reads a summary from its decoded fields (a summary inside a larger JSON text, such as a line
    /// `badgectl worker` reads); the same checks and results as `read(data:source:id:zoneOffsetSeconds:)`.
    /// - Throws: `ActivityError.badSummary` naming `source` and the field.
    public static func read(fields: [String: JSONValue], source: String, id: String, zoneOffsetSeconds: Int?) throws -> RunSummary {
        func bad(_ field: String, _ reason: String) -> ActivityError {
            .badSummary(path: source, field: field, reason: reason)
        }
        func number(_ field: String, required: Bool) throws -> Double? {
            switch fields[field] {
            case nil, .null?:
                if required { throw bad(field, "missing (required)") }
                return nil
            case .number(let v)?:
                guard v.isFinite else { throw bad(field, "must be a finite number") }
                return v
            case let other?:
                throw bad(field, "must be a number, not \(other.kind)")
            }
        }
        func flag(_ field: String) throws -> Bool? {
            switch fields[field] {
            case nil, .null?: return nil
            case .bool(let v)?: return v
            case let other?: throw bad(field, "must be true or false, not \(other.kind)")
            }
        }
        func string(_ field: String, required: Bool) throws -> String? {
            switch fields[field] {
            case nil, .null?:
                if required { throw bad(field, "missing (required)") }
                return nil
            case .string(let s)?:
                return s
            case let other?:
                throw bad(field, "must be a string, not \(other.kind)")
            }
        }

        guard let startText = try string("start", required: true) else { throw bad("start", "missing (required)") }
        guard let parsed = Timestamps.parse(startText) else {
            throw bad("start", "\(ShownValue.quoted(startText)) is not an ISO 8601 timestamp like 2024-05-01T07:30:00+02:00")
        }
        // `parse` reads 2024-02-30 as 1 March and +25:00 as an offset of 90,000 s: refused, saying why.
        if let problem = Timestamps.calendarProblem(startText) {
            throw bad("start", "'\(startText)' is not a real time: \(problem)")
        }
        guard Plausible.isEpoch(parsed.epoch) else {
            throw bad("start", "\(ShownValue.quoted(startText)) is not from \(Plausible.years)")
        }
        guard let distance = try number("distance_m", required: true) else { throw bad("distance_m", "missing (required)") }
        guard distance >= 0 else { throw bad("distance_m", "must be ≥ 0, got \(distance)") }
        guard distance <= maximumDistanceMeters else {
            throw bad("distance_m", "\(distance) m is more than any run (at most \(Int(maximumDistanceMeters)) m, 10,000 km)")
        }
        guard let duration = try number("duration_s", required: true) else { throw bad("duration_s", "missing (required)") }
        guard duration > 0 else { throw bad("duration_s", "must be > 0, got \(duration)") }
        guard duration <= maximumDurationSeconds else {
            throw bad("duration_s", "\(duration) s is longer than any run (at most \(Int(maximumDurationSeconds)) s, 100 days)")
        }
        let moving = try number("moving_s", required: false)
        if let moving {
            guard moving >= 0 else { throw bad("moving_s", "must be ≥ 0, got \(moving)") }
            guard moving <= duration else { throw bad("moving_s", "must not exceed duration_s (\(moving) > \(duration))") }
        }
        // Speed and paces are divisions of these numbers: refuse any that would make one non-finite
        // (a duration of 5e-324 s gives an infinite speed), so that no reader hands on such a value.
        if distance > 0 {
            guard (distance / duration).isFinite else {
                throw bad("duration_s", "\(duration) s for \(distance) m gives a speed that is not a finite number")
            }
            for time in [duration, moving ?? 0] where time > 0 {
                guard (time / (distance / Units.metresPerMile)).isFinite, (time / (distance / 1000)).isFinite else {
                    throw bad("distance_m", "\(distance) m in \(time) s gives a pace that is not a finite number")
                }
            }
        }
        let name = try string("name", required: false)
        let sport = try string("sport", required: false)
        let indoor = try flag("indoor"), manual = try flag("manual")
        let device = try string("device", required: false)

        let offset = startText.utf8.count > 0 ? explicitOffset(parsed.offsetSeconds, startText) : nil
        // No zone designator: a wall-clock time. With a zone offset given, resolve it now; else it floats.
        let floating = parsed.offsetSeconds == nil
        var epoch = parsed.epoch
        if floating, let zone = zoneOffsetSeconds { epoch -= Double(zone) }
        var summary = RunSummary(
            id: id,
            start: Timestamps.iso8601(epoch),
            startEpochSeconds: epoch,
            utcOffsetSeconds: offset,
            localDate: zoneOffsetSeconds.map { Timestamps.date(epoch, offsetSeconds: offset ?? $0) },
            name: name,
            sport: Sport.normalise(sport),
            format: RunFormat.json.rawValue,
            points: 0,
            distanceMeters: distance,
            elapsedSeconds: duration,
            timerSeconds: duration,
            movingSeconds: moving
        )
        summary.gps = false
        summary.indoor = indoor ?? (Sport.isIndoorWord(sport) ? true : nil)
        summary.manual = manual ?? false
        summary.device = device
        if let zone = zoneOffsetSeconds {
            summary.localOffsetSeconds = offset ?? zone
            summary.zoneSource = offset == nil ? "tz" : "file"
            summary.localStart = Timestamps.localTime(epoch, offsetSeconds: offset ?? zone)
        } else if floating {
            summary.floatingStart = true
        }
        return summary
    }

    /// The offset the text wrote, nil for `Z` (UTC says nothing about the runner's zone), as GPX.
    private static func explicitOffset(_ offset: Int?, _ text: String) -> Int? {
        guard let offset else { return nil }
        // The last character that is not white space (as `trimmingCharacters(in: .whitespacesAndNewlines)`
        // would leave it, without Foundation's cost on every summary a worker reads).
        let last = text.unicodeScalars.last { !CharacterSet.whitespacesAndNewlines.contains($0) }
        if last == "Z" || last == "z" { return nil }
        return offset
    }
}

/// Any JSON value, decoded with its exact type (a `true` is not the number 1).
public enum JSONValue: Decodable, Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any number (as a `Double`).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (`JSONText` refuses one that repeats a key).
    case object([String: JSONValue])

    /// Decodes any value with its exact type.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            do {
                self = .object(try c.decode([String: JSONValue].self))
            } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == decoder.codingPath.count {
                // Not null, a boolean, a number we can hold, a string, an array or an object:
                // in practice a number beyond ±1.8e308.
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "a number out of range or an unsupported value")
            }
        }
    }

    /// For messages: `a string`, `an array`, ...
    public var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
