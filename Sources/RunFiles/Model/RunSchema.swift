/// The one declaration of a run's fields: their Lua/JSON name, type, unit, whether they may be nil,
/// the guide's line and where each lives in `RunSummary` (`RunFieldAccess`). Everything else derives
/// from it: `RunSummary`'s JSON both ways (key order, nulls), the cache's binary summaries
/// (`SummaryCodec`), the Lua run proxy's fields and its "did you mean" list, `t.run`'s fields in
/// pack tests, and the guide's field table (docs/rules.md; a test fails when they disagree).
/// Knows nothing of Lua: the rules module turns `RunFieldValue`s into Lua values.
public enum RunSchema {
    /// The run's fields in Lua order (`pairs(run)`); JSON writes the `inJSON` ones in this order.
    public static let fields: [RunField] = [
        RunField(.id, .string, doc: "the file path relative to the folder evaluated (`2024/05-01.gpx`, plus `#n` when a file holds several runs)",
                 access: .string(\.id)),
        RunField(.start, .string, optional: true, doc: "start in UTC, `YYYY-MM-DDThh:mm:ssZ`",
                 access: .string(\.start)),
        RunField(.startEpochSeconds, .float, unit: "s", optional: true, doc: "start in seconds since 1970-01-01T00:00:00Z",
                 access: .float(\.startEpochSeconds)),
        RunField(.utcOffsetSeconds, .integer, unit: "s", optional: true, doc: "the UTC offset the file wrote with its times, when it wrote one",
                 access: .integer(\.utcOffsetSeconds)),
        RunField(.localDate, .string, optional: true,
                 doc: "`YYYY-MM-DD` of the start in local time: from the file's own offset when it had one, else in the zone chosen with `--tz` (default: the machine's zone). Use it for days, weeks and streaks.",
                 access: .string(\.localDate)),
        RunField(.localStart, .string, optional: true,
                 doc: "`YYYY-MM-DDThh:mm:ss`, the start as a clock on the wall showed it: from the file's own offset when it had one, else in the `--tz` zone (default: the machine's zone). Use it for times of day (a night owl, an early bird).",
                 access: .string(\.localStart)),
        RunField(.localOffsetSeconds, .integer, unit: "s", optional: true,
                 doc: "the UTC offset `local_start` and `local_date` were made with: `utc_offset_s` when the file wrote one, else the `--tz` zone's at the start (daylight saving included)",
                 access: .integer(\.localOffsetSeconds)),
        RunField(.zoneSource, .string, optional: true,
                 doc: "where `local_offset_s` came from: `file` (the file's own offset or zone: a GPX or TCX time's `+02:00`, FIT `local_timestamp`, Apple Health's `HKTimeZone` or dates, Polar's start time) or `tz` (the file said nothing: the `--tz` zone)",
                 access: .string(\.zoneSource)),
        RunField(.name, .string, optional: true, doc: "the run's name in the file",
                 access: .string(\.name)),
        RunField(.sport, .string, doc: "`running`, `cycling`, `walking`, `hiking`, `swimming`, or the file's word lower-cased (TCX `Other`, how Garmin exports a swim or any sport but running and cycling, is `other`; no sport, `generic` or `unknown` is `running`)",
                 access: .string(\.sport)),
        RunField(.format, .string, doc: "`gpx`, `tcx`, `fit`, `json`, `sml`, `suunto_json`, `polar_json`, `apple_health`",
                 access: .string(\.format)),
        RunField(.points, .integer, doc: "usable points read (0 for a JSON summary)",
                 access: .integer(\.points)),
        RunField(.distanceMeters, .float, unit: "m", doc: "distance in metres",
                 access: .float(\.distanceMeters)),
        RunField(.elapsedSeconds, .float, unit: "s", optional: true, doc: "last timestamp − first: pauses included",
                 access: .float(\.elapsedSeconds)),
        RunField(.timerSeconds, .float, unit: "s", optional: true, doc: "elapsed less gaps between segments and the device's pauses",
                 access: .float(\.timerSeconds)),
        RunField(.movingSeconds, .float, unit: "s", optional: true,
                 doc: "time spent moving: steps at 0.5 m/s or faster, and slower steps up a climb steep enough to make up for it (\"How the figures are defined\")",
                 access: .float(\.movingSeconds)),
        RunField(.speedMetersPerSecond, .float, unit: "m/s", optional: true, doc: "distance / elapsed",
                 access: .float(\.speedMetersPerSecond)),
        RunField(.paceSecondsPerKilometre, .float, unit: "s/km", optional: true, doc: "elapsed / distance",
                 access: .float(\.paceSecondsPerKilometre)),
        RunField(.paceSecondsPerMile, .float, unit: "s/mi", optional: true, doc: "elapsed / distance",
                 access: .float(\.paceSecondsPerMile)),
        RunField(.movingPaceSecondsPerKilometre, .float, unit: "s/km", optional: true, doc: "moving time / distance",
                 access: .float(\.movingPaceSecondsPerKilometre)),
        RunField(.deviceDistanceMeters, .float, unit: "m", optional: true, doc: "the total the device itself reported (TCX laps, FIT session)",
                 access: .float(\.deviceDistanceMeters)),
        RunField(.deviceTimerSeconds, .float, unit: "s", optional: true,
                 doc: "the timer total the device itself counted (FIT session `total_timer_time`, the sum of TCX laps' `TotalTimeSeconds`); `timer_s` is ours",
                 access: .float(\.deviceTimerSeconds)),
        RunField(.deviceElapsedSeconds, .float, unit: "s", optional: true,
                 doc: "the elapsed total the device itself counted (FIT session `total_elapsed_time`); `elapsed_s` is ours",
                 access: .float(\.deviceElapsedSeconds)),
        RunField(.deviceAscentMeters, .float, unit: "m", optional: true,
                 doc: "the climb the device itself counted (FIT session `total_ascent`: a barometric watch's own figure); `elevation.gain_m` is ours",
                 access: .float(\.deviceAscentMeters)),
        RunField(.deviceDescentMeters, .float, unit: "m", optional: true,
                 doc: "the descent the device itself counted (FIT session `total_descent`); `elevation.loss_m` is ours",
                 access: .float(\.deviceDescentMeters)),
        RunField(.deviceMovingSeconds, .float, unit: "s", optional: true,
                 doc: "the moving time the device itself counted (FIT session `total_moving_time`, newer devices); `moving_s` is ours",
                 access: .float(\.deviceMovingSeconds)),
        RunField(.deviceAverageHeartRate, .float, unit: "bpm", optional: true,
                 doc: "the heart-rate average the device itself computed (FIT session `avg_heart_rate`; TCX: the laps' averages weighted by their time); `heart_rate.avg` is ours",
                 access: .float(\.deviceAverageHeartRate)),
        RunField(.deviceMaximumHeartRate, .float, unit: "bpm", optional: true,
                 doc: "the heart-rate maximum the device itself recorded (FIT session `max_heart_rate`; TCX: the laps' largest); `heart_rate.max` is the records' largest",
                 access: .float(\.deviceMaximumHeartRate)),
        RunField(.deviceLaps, .integer, optional: true,
                 doc: "how many laps the device recorded (FIT session `num_laps`, else its lap messages; TCX `Lap`s); nil when the file records none",
                 access: .integer(\.deviceLaps)),
        RunField(.gps, .boolean, doc: "whether the run has positions (false: a treadmill or indoor file, a JSON summary)",
                 access: .flag(\.gps)),
        RunField(.indoor, .boolean, optional: true,
                 doc: "true when the file says the run was indoors (FIT `sub_sport` treadmill, indoor running or virtual activity; Apple Health's `HKIndoorWorkout` metadata, `1` true and `0` false; a sport word such as `treadmill`, `indoor_running`, `virtual_run`; a JSON summary's `indoor`); nil when it says nothing",
                 access: .boolean(\.indoor)),
        RunField(.manual, .boolean, doc: "true for a run entered by hand (a JSON summary with `\"manual\": true`)",
                 access: .flag(\.manual)),
        RunField(.device, .string, optional: true,
                 doc: "the device that recorded the run as the file names it (FIT `product_name`, else its maker; TCX `Creator/Name`; GPX `creator`; a JSON summary's `device`)",
                 access: .string(\.device)),
        RunField(.checkpoints, .array, element: .checkpoint,
                 doc: "where the route passed catalogue distances: `{ badge, name, distance_m, lat, lon, elapsed_s }` (`lat`, `lon`, `elapsed_s` may be nil)",
                 access: .checkpoints(\.checkpoints)),
        RunField(.splitsKilometre, .array, element: .split,
                 doc: "`{ index, distance_m, elapsed_s, cumulative_s, pace_s_per_km, partial }`; `index` is an integer, `partial` a boolean (the last, shorter split)",
                 access: .splits(\.splitsKilometre)),
        RunField(.splitsMile, .array, element: .split,
                 doc: "`{ index, distance_m, elapsed_s, cumulative_s, pace_s_per_km, partial }`; `index` is an integer, `partial` a boolean (the last, shorter split)",
                 access: .splits(\.splitsMile)),
        RunField(.efforts, .array, element: .effort,
                 doc: "fastest stretches, each spanning no stop over 2 minutes: `{ name, distance_m, elapsed_s, start_distance_m, start_elapsed_s, pace_s_per_km }`",
                 access: .efforts(\.efforts)),
        RunField(luaOnly: "fastest", .table, element: .effort,
                 doc: "the efforts keyed by name: `run.fastest[\"5km\"]`. Names: \(Effort.standardDistances.map { "`\($0.name)`" }.joined(separator: ", ")). A known name the run has no effort for is `nil`.",
                 value: { .keyed(.efforts($0.efforts)) }),
        RunField(.laps, .array, element: .lap,
                 doc: "the device's laps in the file's order (empty without any: GPX, JSON): `{ index, start_elapsed_s, distance_m, elapsed_s, timer_s, pace_s_per_km, avg_heart_rate_bpm, max_heart_rate_bpm, trigger, intensity }`, every field but `index` possibly nil; `trigger` is `manual`, `time`, `distance`, `position`, `session_end`, `fitness_equipment` or `heart_rate`, `intensity` `active`, `rest`, `warmup`, `cooldown`, `recovery`, `interval` or `other`; `pace_s_per_km` is timer (else elapsed) over distance",
                 access: .laps),
        RunField(.elevation, .table, optional: true, element: .elevation, doc: "`{ gain_m, loss_m, min_m, max_m }`",
                 access: .elevation(\.elevation)),
        RunField(.heartRate, .table, optional: true, element: .sensor,
                 doc: "`{ avg, max, avg_weighting }` in bpm from the records; `avg_weighting` says which average `avg` is: `\"time\"` (each reading weighted by the time it covers) or `\"sample\"` (the plain mean, for readings without times)",
                 access: .sensor(\.heartRate)),
        RunField(.cadence, .table, optional: true, element: .sensor, doc: "`{ avg, max, avg_weighting }` as recorded; `avg_weighting` as for `heart_rate`",
                 access: .sensor(\.cadence)),
        RunField(.dropped, .array, element: .dropped, doc: "points left out and why: `{ reason, count }` (`count` an integer); a device clock that jumped is `{ reason = \"clock_jump\", count = <jumps> }`",
                 access: .dropped(\.dropped)),
        RunField(luaOnly: "index", .integer, doc: "1-based position in start order", value: { _ in .position }),
        RunField(luaOnly: "measures", .table,
                 doc: "the measures the rule's pack declares in its `pack.lua`, by name: `run.measures.best3k` (see \"Measures\"); a measure the run cannot have is `nil`, an undeclared name an error",
                 value: { _ in .measures }),
    ]

    /// The names of the efforts (`fastest`'s keys), from `Effort.standardDistances`.
    public static let effortNames = Effort.standardDistances.map(\.name)

    /// The field that names a run in messages (`tostring(run)` is `run <id>`): `id`.
    public static let labelField = 0

    /// The fields of `RunSummary`'s JSON, in order.
    public static var jsonFields: [RunField] { fields.filter { $0.key != nil } }

    /// Position (0-based) of the field named `name` in `fields`.
    public static func position(of name: String) -> Int? { fields.firstIndex { $0.name == name } }
}

/// One field of a run.
public struct RunField: Sendable {
    /// The guide's words for the type (`float or nil`, `array`).
    public enum Kind: String, Sendable { case string, integer, float, boolean, array, table }

    /// The name in Lua and in JSON (`distance_m`).
    public let name: String
    public let kind: Kind
    /// `m`, `s`, `s/km`, ...; nil for names, counts and containers.
    public let unit: String?
    /// May be nil (JSON writes `null`).
    public let optional: Bool
    /// The guide's line.
    public let doc: String
    /// The records of an array or table field.
    public let element: RecordSchema?
    /// Its key in `RunSummary`'s JSON; nil for fields rules see only (`fastest`, `index`).
    let key: RunSummary.CodingKeys?
    /// Where the field lives in `RunSummary` (nil for fields rules see only): its JSON, its cache
    /// bytes and its Lua value are all made from it.
    public let access: RunFieldAccess?
    /// The value of the field in `run`.
    public let value: @Sendable (RunSummary) -> RunFieldValue

    /// The guide's type column: `float or nil`.
    public var typeText: String { optional ? "\(kind.rawValue) or nil" : kind.rawValue }
    public var inJSON: Bool { key != nil }
    /// The stored property's name in Swift (as `Mirror` labels it), nil for fields rules see only.
    public var property: String? { access?.property }

    init(_ key: RunSummary.CodingKeys, _ kind: Kind, unit: String? = nil, optional: Bool = false, element: RecordSchema? = nil, doc: String,
         access: RunFieldAccess) {
        self.name = key.stringValue; self.kind = kind; self.unit = unit; self.optional = optional; self.element = element
        self.doc = doc; self.key = key; self.access = access; self.value = access.reader()
    }

    init(luaOnly name: String, _ kind: Kind, element: RecordSchema? = nil, doc: String, value: @escaping @Sendable (RunSummary) -> RunFieldValue) {
        self.name = name; self.kind = kind; self.unit = nil; self.optional = false; self.element = element
        self.doc = doc; self.key = nil; self.access = nil; self.value = value
    }
}

/// A field's value in one run, for hosts that hand runs on (the Lua run proxy).
public enum RunFieldValue {
    case none
    case string(String?)
    case integer(Int?)
    case float(Double?)
    case boolean(Bool?)
    /// One record (elevation); nil when the run has none.
    case record(RecordList?)
    /// An array of records (splits).
    case records(RecordList)
    /// The run's 1-based position among the runs evaluated (the host knows it).
    case position
    /// The records keyed by their first field (fastest efforts by name; the names are `RunSchema.effortNames`).
    case keyed(RecordList)
    /// The measures of the reading rule's pack (the host answers by name).
    case measures
}

/// A scalar field of a record.
public enum RecordValue {
    case none
    case float(Double)
    case integer(Int)
    case boolean(Bool)
    case string(String)
}

/// The fields of one kind of record inside a run (a split, an effort), in JSON and Lua order.
public struct RecordSchema: Sendable {
    public enum Kind: Sendable { case float, integer, boolean, string }
    public struct Field: Sendable {
        public let name: String
        public let kind: Kind
    }
    /// The name rules' messages use (`split`, `dropped entry`).
    public let name: String
    public let fields: [Field]

    init(_ name: String, _ fields: [(CodingKey, Kind)]) {
        self.name = name
        self.fields = fields.map { Field(name: $0.0.stringValue, kind: $0.1) }
    }

    public static let checkpoint = RecordSchema("checkpoint", [
        (Checkpoint.CodingKeys.badge, .string), (Checkpoint.CodingKeys.name, .string), (Checkpoint.CodingKeys.distanceMeters, .float),
        (Checkpoint.CodingKeys.latitude, .float), (Checkpoint.CodingKeys.longitude, .float), (Checkpoint.CodingKeys.elapsedSeconds, .float),
    ])
    public static let split = RecordSchema("split", [
        (Split.CodingKeys.index, .integer), (Split.CodingKeys.distanceMeters, .float), (Split.CodingKeys.elapsedSeconds, .float),
        (Split.CodingKeys.cumulativeSeconds, .float), (Split.CodingKeys.paceSecondsPerKilometre, .float), (Split.CodingKeys.partial, .boolean),
    ])
    public static let effort = RecordSchema("effort", [
        (Effort.CodingKeys.name, .string), (Effort.CodingKeys.distanceMeters, .float), (Effort.CodingKeys.elapsedSeconds, .float),
        (Effort.CodingKeys.startDistanceMeters, .float), (Effort.CodingKeys.startElapsedSeconds, .float),
        (Effort.CodingKeys.paceSecondsPerKilometre, .float),
    ])
    public static let elevation = RecordSchema("elevation", [
        (Elevation.CodingKeys.gainMeters, .float), (Elevation.CodingKeys.lossMeters, .float),
        (Elevation.CodingKeys.minMeters, .float), (Elevation.CodingKeys.maxMeters, .float),
    ])
    public static let sensor = RecordSchema("sensor", [
        (SensorStats.CodingKeys.average, .float), (SensorStats.CodingKeys.maximum, .float), (SensorStats.CodingKeys.weighting, .string),
    ])
    public static let lap = RecordSchema("lap", [
        (RunLap.CodingKeys.index, .integer), (RunLap.CodingKeys.startElapsedSeconds, .float), (RunLap.CodingKeys.distanceMeters, .float),
        (RunLap.CodingKeys.elapsedSeconds, .float), (RunLap.CodingKeys.timerSeconds, .float),
        (RunLap.CodingKeys.paceSecondsPerKilometre, .float), (RunLap.CodingKeys.averageHeartRate, .float),
        (RunLap.CodingKeys.maximumHeartRate, .float), (RunLap.CodingKeys.trigger, .string), (RunLap.CodingKeys.intensity, .string),
    ])
    public static let dropped = RecordSchema("dropped entry", [(Dropped.CodingKeys.reason, .string), (Dropped.CodingKeys.count, .integer)])
}

/// Records of one schema, for hosts that copy them out (the Lua host writes them flat, below).
/// An enum of the record types rather than an existential, so that writing is specialised per type.
public enum RecordList {
    case checkpoints([Checkpoint])
    case splits([Split])
    case efforts([Effort])
    case laps([RunLap])
    case dropped([Dropped])
    case elevation(Elevation)
    case sensor(SensorStats)

    public var schema: RecordSchema {
        switch self {
        case .checkpoints: return .checkpoint
        case .splits: return .split
        case .efforts: return .effort
        case .laps: return .lap
        case .dropped: return .dropped
        case .elevation: return .elevation
        case .sensor: return .sensor
        }
    }

    public var count: Int {
        switch self {
        case .checkpoints(let records): return records.count
        case .splits(let records): return records.count
        case .efforts(let records): return records.count
        case .laps(let records): return records.count
        case .dropped(let records): return records.count
        case .elevation, .sensor: return 1
        }
    }

    /// Writes every record flat from `base`, `stride` bytes apart: a 4-byte `kind`, 4 bytes of
    /// presence bits (bit i: field i has a value), then one 8-byte slot per field in the schema's
    /// order (a Double, an Int64, a Bool as Int64 0/1, or the Int64 `stringID` gives a string;
    /// `slot` numbers the place, record * fields + field).
    public func writeFlat(to base: UnsafeMutableRawPointer, stride: Int, kind: Int32, stringID: (String, _ slot: Int) -> Int64) {
        switch self {
        case .checkpoints(let records): Self.write(records, base, stride, kind, stringID)
        case .splits(let records): Self.write(records, base, stride, kind, stringID)
        case .efforts(let records): Self.write(records, base, stride, kind, stringID)
        case .laps(let records): Self.write(records, base, stride, kind, stringID)
        case .dropped(let records): Self.write(records, base, stride, kind, stringID)
        case .elevation(let record): Self.write(CollectionOfOne(record), base, stride, kind, stringID)
        case .sensor(let record): Self.write(CollectionOfOne(record), base, stride, kind, stringID)
        }
    }

    /// Field `field` of record `record` (both 0-based).
    public func value(record: Int, field: Int) -> RecordValue {
        switch self {
        case .checkpoints(let records): return records[record].recordValue(field: field)
        case .splits(let records): return records[record].recordValue(field: field)
        case .efforts(let records): return records[record].recordValue(field: field)
        case .laps(let records): return records[record].recordValue(field: field)
        case .dropped(let records): return records[record].recordValue(field: field)
        case .elevation(let record): return record.recordValue(field: field)
        case .sensor(let record): return record.recordValue(field: field)
        }
    }

    @inline(__always)
    static func write<Records: Collection>(_ records: Records, _ base: UnsafeMutableRawPointer, _ stride: Int, _ kind: Int32,
                                           _ stringID: (String, Int) -> Int64) where Records.Element: SchemaRecord {
        let fields = Records.Element.fieldCount
        var r = 0
        for element in records {
            let record = base + r * stride
            var present: UInt32 = 0
            for f in 0..<fields {
                let slot = record + 8 + 8 * f
                switch element.recordValue(field: f) {
                case .none: continue
                case .float(let number): slot.storeBytes(of: number, as: Double.self)
                case .integer(let number): slot.storeBytes(of: Int64(number), as: Int64.self)
                case .boolean(let flag): slot.storeBytes(of: Int64(flag ? 1 : 0), as: Int64.self)
                case .string(let text): slot.storeBytes(of: stringID(text, r * fields + f), as: Int64.self)
                }
                present |= 1 << UInt32(f)
            }
            record.storeBytes(of: kind, as: Int32.self)
            (record + 4).storeBytes(of: present, as: UInt32.self)
            r += 1
        }
    }
}

/// A record type of `RecordSchema`: its field `field` (0-based, in the schema's order).
public protocol SchemaRecord {
    /// The record's fields, in JSON and Lua order.
    static var schema: RecordSchema { get }
    static var fieldCount: Int { get }
    func recordValue(field: Int) -> RecordValue
}

extension Checkpoint: SchemaRecord {
    public static var schema: RecordSchema { .checkpoint }
    public static var fieldCount: Int { 6 }
    public func recordValue(field: Int) -> RecordValue {
        switch field {
        case 0: return .string(badge)
        case 1: return .string(name)
        case 2: return .float(distanceMeters)
        case 3: return latitude.map { .float($0) } ?? .none
        case 4: return longitude.map { .float($0) } ?? .none
        case 5: return elapsedSeconds.map { .float($0) } ?? .none
        default: return .none
        }
    }
}

extension Split: SchemaRecord {
    public static var schema: RecordSchema { .split }
    public static var fieldCount: Int { 6 }
    public func recordValue(field: Int) -> RecordValue {
        switch field {
        case 0: return .integer(index)
        case 1: return .float(distanceMeters)
        case 2: return .float(elapsedSeconds)
        case 3: return .float(cumulativeSeconds)
        case 4: return .float(paceSecondsPerKilometre)
        case 5: return .boolean(partial)
        default: return .none
        }
    }
}

extension Effort: SchemaRecord {
    public static var schema: RecordSchema { .effort }
    public static var fieldCount: Int { 6 }
    public func recordValue(field: Int) -> RecordValue {
        switch field {
        case 0: return .string(name)
        case 1: return .float(distanceMeters)
        case 2: return .float(elapsedSeconds)
        case 3: return .float(startDistanceMeters)
        case 4: return .float(startElapsedSeconds)
        case 5: return .float(paceSecondsPerKilometre)
        default: return .none
        }
    }
}

extension Elevation: SchemaRecord {
    public static var schema: RecordSchema { .elevation }
    public static var fieldCount: Int { 4 }
    public func recordValue(field: Int) -> RecordValue {
        switch field {
        case 0: return .float(gainMeters)
        case 1: return .float(lossMeters)
        case 2: return .float(minMeters)
        case 3: return .float(maxMeters)
        default: return .none
        }
    }
}

extension SensorStats: SchemaRecord {
    public static var schema: RecordSchema { .sensor }
    public static var fieldCount: Int { 3 }
    public func recordValue(field: Int) -> RecordValue {
        switch field {
        case 0: return .float(average)
        case 1: return .float(maximum)
        case 2: return .string(weighting.rawValue)
        default: return .none
        }
    }
}

extension RunLap: SchemaRecord {
    public static var schema: RecordSchema { .lap }
    public static var fieldCount: Int { 10 }
    public func recordValue(field: Int) -> RecordValue {
        func float(_ value: Double?) -> RecordValue { value.map { .float($0) } ?? .none }
        switch field {
        case 0: return .integer(index)
        case 1: return float(startElapsedSeconds)
        case 2: return float(distanceMeters)
        case 3: return float(elapsedSeconds)
        case 4: return float(timerSeconds)
        case 5: return float(paceSecondsPerKilometre)
        case 6: return float(averageHeartRate)
        case 7: return float(maximumHeartRate)
        case 8: return trigger.map { .string($0) } ?? .none
        case 9: return intensity.map { .string($0) } ?? .none
        default: return .none
        }
    }
}

extension Dropped: SchemaRecord {
    public static var schema: RecordSchema { .dropped }
    public static var fieldCount: Int { 2 }
    public func recordValue(field: Int) -> RecordValue {
        field == 0 ? .string(reason) : field == 1 ? .integer(count) : .none
    }
}
