/// One field of a measure's value, declared once: its name (in Lua, the cache, `summarize`,
/// `explain`, the report), its unit and what it holds. `MeasureKind.fields` lists a kind's fields
/// from these; the analyzer writes values by them and the tools read values by them
/// (`MeasureValue[field]`), so a field renamed here is renamed everywhere.
public struct MeasureField: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let name: String
    /// `s`, `m`, `s/km`, `degrees`, `integer`, `boolean`, `fraction`, `text`, `list`.
    public let unit: String
    public let doc: String

    public init(_ name: String, unit: String, doc: String) {
        self.name = name; self.unit = unit; self.doc = doc
    }

    /// The declared field of that name (`MeasureField.declared`); a name not declared there keeps no
    /// unit nor doc, which `MeasureFieldTests` refuses.
    public init(stringLiteral name: String) {
        self = MeasureField.declared.first { $0.name == name } ?? MeasureField(name, unit: "", doc: "")
    }

    public var description: String { name }

    // Efforts and passes.
    public static let elapsedSeconds = MeasureField("elapsed_s", unit: "s", doc: "the time it took")
    public static let distanceMeters = MeasureField("distance_m", unit: "m", doc: "the distance it covers")
    public static let paceSecondsPerKilometre = MeasureField("pace_s_per_km", unit: "s/km", doc: "elapsed_s per kilometre of distance_m")
    public static let startElapsedSeconds = MeasureField("start_elapsed_s", unit: "s", doc: "when it starts, from the run's start")
    public static let endElapsedSeconds = MeasureField("end_elapsed_s", unit: "s", doc: "when it ends, from the run's start")
    public static let startDistanceMeters = MeasureField("start_distance_m", unit: "m", doc: "where it starts, along the run")
    public static let startLatitude = MeasureField("start_lat", unit: "degrees", doc: "the start gate's crossing, latitude")
    public static let startLongitude = MeasureField("start_lon", unit: "degrees", doc: "the start gate's crossing, longitude")
    public static let endLatitude = MeasureField("end_lat", unit: "degrees", doc: "the end gate's crossing, latitude")
    public static let endLongitude = MeasureField("end_lon", unit: "degrees", doc: "the end gate's crossing, longitude")
    // time_in and stops.
    public static let seconds = MeasureField("seconds", unit: "s", doc: "time with the channel in the range")
    public static let longestSeconds = MeasureField("longest_s", unit: "s", doc: "the longest unbroken stretch")
    public static let share = MeasureField("share", unit: "fraction", doc: "seconds over the time with a reading, 0 to 1")
    public static let count = MeasureField("count", unit: "integer", doc: "how many (stops, passes, tiles)")
    public static let totalSeconds = MeasureField("total_s", unit: "s", doc: "their time together")
    // sun.
    public static let sunrise = MeasureField("sunrise", unit: "text", doc: "local wall-clock YYYY-MM-DDThh:mm:ss")
    public static let sunset = MeasureField("sunset", unit: "text", doc: "local wall-clock YYYY-MM-DDThh:mm:ss")
    public static let sunriseEpochSeconds = MeasureField("sunrise_epoch_s", unit: "s", doc: "sunrise, seconds since 1970-01-01 UTC")
    public static let sunsetEpochSeconds = MeasureField("sunset_epoch_s", unit: "s", doc: "sunset, seconds since 1970-01-01 UTC")
    public static let polar = MeasureField("polar", unit: "text", doc: "\"day\" or \"night\" when the sun neither rises nor sets, else nil")
    public static let daylight = MeasureField("daylight", unit: "boolean", doc: "the whole run between sunrise and sunset")
    public static let spansSunrise = MeasureField("spans_sunrise", unit: "boolean", doc: "the run is under way at sunrise")
    public static let spansSunset = MeasureField("spans_sunset", unit: "boolean", doc: "the run is under way at sunset")
    public static let latitude = MeasureField("lat", unit: "degrees", doc: "the start point's latitude")
    public static let longitude = MeasureField("lon", unit: "degrees", doc: "the start point's longitude")
    public static let startEpochSeconds = MeasureField("start_epoch_s", unit: "s", doc: "the run's start, seconds since 1970-01-01 UTC")
    public static let endEpochSeconds = MeasureField("end_epoch_s", unit: "s", doc: "the run's end, seconds since 1970-01-01 UTC")
    public static let date = MeasureField("date", unit: "text", doc: "the local date the times are for, YYYY-MM-DD (run.local_date)")
    public static let offsetSeconds = MeasureField("offset_s", unit: "integer", doc: "the UTC offset the times are for (run.local_offset_s)")
    // place.
    public static let passed = MeasureField("passed", unit: "boolean", doc: "the run came within radius_m")
    public static let visits = MeasureField("visits", unit: "integer", doc: "how many times it came within radius_m")
    public static let firstElapsedSeconds = MeasureField("first_elapsed_s", unit: "s", doc: "the first visit, from the run's start")
    public static let lastElapsedSeconds = MeasureField("last_elapsed_s", unit: "s", doc: "the last visit, from the run's start")
    public static let closestMeters = MeasureField("closest_m", unit: "m", doc: "the nearest the run came")
    // segment.
    public static let best = MeasureField("best", unit: "integer", doc: "index of the fastest pass in efforts, from 1")
    public static let bestElapsedSeconds = MeasureField("best_elapsed_s", unit: "s", doc: "the fastest pass's time")
    public static let lengthMeters = MeasureField("length_m", unit: "m", doc: "the segment's length")
    public static let efforts = MeasureField("efforts", unit: "list", doc: "every pass in order, each with MeasureField.segmentEffort's fields")
    // tiles.
    public static let zoom = MeasureField("zoom", unit: "integer", doc: "the tiles' zoom level")
    public static let tiles = MeasureField("tiles", unit: "list", doc: "the tiles' keys, integers (x * 2^zoom + y)")

    /// The fields of one pass in a segment's `efforts`.
    public static let segmentEffort: [MeasureField] = [
        elapsedSeconds, startElapsedSeconds, endElapsedSeconds, paceSecondsPerKilometre, distanceMeters,
        startLatitude, startLongitude, endLatitude, endLongitude,
    ]

    /// Every field declared here.
    public static let declared: [MeasureField] = [
        elapsedSeconds, distanceMeters, paceSecondsPerKilometre, startElapsedSeconds, endElapsedSeconds, startDistanceMeters,
        startLatitude, startLongitude, endLatitude, endLongitude,
        seconds, longestSeconds, share, count, totalSeconds,
        sunrise, sunset, sunriseEpochSeconds, sunsetEpochSeconds, polar, daylight, spansSunrise, spansSunset,
        latitude, longitude, startEpochSeconds, endEpochSeconds, date, offsetSeconds,
        passed, visits, firstElapsedSeconds, lastElapsedSeconds, closestMeters,
        best, bestElapsedSeconds, lengthMeters, efforts, zoom, tiles,
    ] + fair
}

extension MeasureValue {
    /// The value's `field` (`value[.elapsedSeconds]`).
    public subscript(field: MeasureField) -> MeasureScalar? {
        get { self[field.name] }
        set { self[field.name] = newValue }
    }

    /// A value of these fields (`[.count: .integer(2)]`).
    public init(fields: KeyValuePairs<MeasureField, MeasureScalar>) {
        self.init(Dictionary(fields.map { ($0.key.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}

extension MeasureScalar {
    /// A record of these fields (a pass in a segment's `efforts`).
    public static func record(fields: [MeasureField: MeasureScalar]) -> MeasureScalar {
        .record(Dictionary(uniqueKeysWithValues: fields.map { ($0.key.name, $0.value) }))
    }

    /// The record's `field`; nil for another scalar.
    public subscript(field: MeasureField) -> MeasureScalar? {
        guard case .record(let fields) = self else { return nil }
        return fields[field.name]
    }
}

extension Dictionary where Key == String, Value == MeasureScalar {
    /// The record's `field` (a pass of a segment's `efforts`, as `.record` holds it).
    public subscript(field: MeasureField) -> MeasureScalar? {
        get { self[field.name] }
        set { self[field.name] = newValue }
    }
}
