/// Everything badgectl knows about one run once its file has been read: the figures rules see
/// and the JSON contract prints. Distances in metres, times in seconds, as floats; counts as
/// integers. Optional figures encode as `null`, never disappear, so the JSON keeps its shape.
public struct RunSummary: Codable, Sendable, Equatable {
    /// The path relative to the folder evaluated (plus `#n` when one file holds several runs).
    public var id: String
    /// Start of the run, `YYYY-MM-DDThh:mm:ssZ` (UTC), or nil when the file has no times.
    public var start: String?
    /// Start of the run in seconds since 1970-01-01T00:00:00Z (fractions kept), for ordering.
    public var startEpochSeconds: Double?
    /// The UTC offset the file wrote with its timestamps, in seconds, when it wrote one.
    public var utcOffsetSeconds: Int?
    /// The local calendar date of the start (`YYYY-MM-DD`), from the file's offset, else the chosen zone.
    public var localDate: String?
    /// The local wall-clock time of the start (`YYYY-MM-DDThh:mm:ss`), from the file's offset, else the chosen zone.
    public var localStart: String?
    /// The offset `localStart` and `localDate` were made with: the file's own, else the chosen zone's at the start.
    public var localOffsetSeconds: Int?
    /// Where `localOffsetSeconds` came from: `file` (the file's own offset or zone: a GPX/TCX time's
    /// `+02:00`, FIT `local_timestamp`, Apple Health's `HKTimeZone` or dates, Polar's start time) or
    /// `tz` (the file said nothing: the `--tz` zone). nil before the run is localised.
    public var zoneSource: String?
    /// The file gave its start as a local wall-clock time with no zone (a JSON summary's
    /// `"2026-11-22T23:30:00"`): `start` and `startEpochSeconds` then hold that wall time as if it were
    /// UTC until `localise` resolves it in the chosen zone. Kept through the cache (which is made before
    /// any zone applies); nil once resolved, and never in the JSON contract.
    public var floatingStart: Bool?
    public var name: String?
    /// Normalised sport: `running`, `cycling`, `walking`, `hiking`, `swimming`, or the file's word lower-cased.
    public var sport: String
    /// Format the run was read from: `gpx`, `tcx`, `fit`, `json`.
    public var format: String
    /// Number of usable points read (0 for a JSON summary).
    public var points: Int
    public var distanceMeters: Double
    /// Last timestamp − first timestamp: pauses and gaps included.
    public var elapsedSeconds: Double?
    /// Elapsed time less the gaps between segments and the device's timer pauses.
    public var timerSeconds: Double?
    /// Time spent moving: steps at `RunAnalyzer.movingSpeedThreshold` or faster, and slower steps up a
    /// climb that makes up for it (`RunAnalyzer.times`).
    public var movingSeconds: Double?
    /// distance / elapsed.
    public var speedMetersPerSecond: Double?
    public var paceSecondsPerKilometre: Double?
    public var paceSecondsPerMile: Double?
    /// distance / moving time, as a pace.
    public var movingPaceSecondsPerKilometre: Double?
    /// The total the device itself reported (TCX laps, FIT session), beside the distance we compute.
    public var deviceDistanceMeters: Double?
    /// The timer total the device itself counted (FIT session `total_timer_time`, the sum of TCX
    /// laps' `TotalTimeSeconds`), beside the `timerSeconds` we compute.
    public var deviceTimerSeconds: Double? = nil
    /// The elapsed total the device itself counted (FIT session `total_elapsed_time`).
    public var deviceElapsedSeconds: Double? = nil
    /// The climb and descent the device itself counted (FIT session `total_ascent`, `total_descent`:
    /// a barometric watch's own figure), beside the `elevation` we compute.
    public var deviceAscentMeters: Double? = nil
    public var deviceDescentMeters: Double? = nil
    /// The moving time the device itself counted (FIT session `total_moving_time`), beside `movingSeconds`.
    public var deviceMovingSeconds: Double? = nil
    /// The device's own heart-rate average and maximum (FIT session; TCX laps), beside `heartRate`.
    public var deviceAverageHeartRate: Double? = nil
    public var deviceMaximumHeartRate: Double? = nil
    /// How many laps the device recorded (FIT session `num_laps` or its lap messages, TCX `Lap`s).
    public var deviceLaps: Int? = nil
    /// Whether the run has positions (`gps`), was indoors by the file's word (`indoor`, nil when it
    /// says nothing), was entered by hand (`manual`: a JSON summary saying so) and the device's name.
    /// (`gps` and `manual` start false: what a summary made in code says unless it is told otherwise.)
    public var gps: Bool? = false
    public var indoor: Bool? = nil
    public var manual: Bool? = false
    public var device: String? = nil
    public var checkpoints: [Checkpoint]
    public var splitsKilometre: [Split]
    public var splitsMile: [Split]
    public var efforts: [Effort]
    /// The device's laps (`RunLap`); empty for a file that records none (GPX, a JSON summary). A
    /// summary saved before laps existed reads as having none.
    @EmptyIfAbsent public var laps: [RunLap] = []
    public var elevation: Elevation?
    public var heartRate: SensorStats?
    public var cadence: SensorStats?
    public var dropped: [Dropped]
    /// The simplified route for drawing (`RouteTrace.make`); nil unless asked for. Encoded only
    /// when present, so the JSON contract is unchanged without it.
    public var route: RouteTrace? = nil
    /// The measures the packs asked for, by `MeasureDefinition.key` (a run that cannot have one, with no
    /// heart rate or no position, has no entry). Not part of the JSON contract: the cache keeps them in
    /// a table of their own, rules read them through their pack's names (`run.measures.<name>`).
    public var measures: [String: MeasureValue] = [:]

    public init(
        id: String, start: String? = nil, startEpochSeconds: Double? = nil, utcOffsetSeconds: Int? = nil,
        localDate: String? = nil, name: String? = nil, sport: String = "running", format: String,
        points: Int = 0, distanceMeters: Double, elapsedSeconds: Double? = nil, timerSeconds: Double? = nil,
        movingSeconds: Double? = nil, deviceDistanceMeters: Double? = nil, checkpoints: [Checkpoint] = [],
        splitsKilometre: [Split] = [], splitsMile: [Split] = [], efforts: [Effort] = [],
        elevation: Elevation? = nil, heartRate: SensorStats? = nil, cadence: SensorStats? = nil,
        dropped: [Dropped] = []
    ) {
        self.id = id; self.start = start; self.startEpochSeconds = startEpochSeconds
        self.utcOffsetSeconds = utcOffsetSeconds; self.localDate = localDate; self.name = name
        self.sport = sport; self.format = format; self.points = points
        self.distanceMeters = distanceMeters; self.elapsedSeconds = elapsedSeconds
        self.timerSeconds = timerSeconds; self.movingSeconds = movingSeconds
        self.deviceDistanceMeters = deviceDistanceMeters; self.checkpoints = checkpoints
        self.splitsKilometre = splitsKilometre; self.splitsMile = splitsMile; self.efforts = efforts
        self.elevation = elevation; self.heartRate = heartRate; self.cadence = cadence; self.dropped = dropped
        recomputeSpeeds()
    }

    /// Fills speed and paces from distance, elapsed and moving time (nil where a time is missing or zero).
    public mutating func recomputeSpeeds() {
        if let e = elapsedSeconds, e > 0, distanceMeters > 0 {
            speedMetersPerSecond = distanceMeters / e
            paceSecondsPerKilometre = e / (distanceMeters / 1000)
            paceSecondsPerMile = e / (distanceMeters / Units.metresPerMile)
        } else {
            speedMetersPerSecond = nil; paceSecondsPerKilometre = nil; paceSecondsPerMile = nil
        }
        if let m = movingSeconds, m > 0, distanceMeters > 0 {
            movingPaceSecondsPerKilometre = m / (distanceMeters / 1000)
        } else {
            movingPaceSecondsPerKilometre = nil
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, start
        case startEpochSeconds = "start_epoch_s"
        case utcOffsetSeconds = "utc_offset_s"
        case localDate = "local_date"
        case localStart = "local_start"
        case localOffsetSeconds = "local_offset_s"
        case zoneSource = "zone_source"
        case floatingStart = "start_floating"
        case name, sport, format, points
        case distanceMeters = "distance_m"
        case elapsedSeconds = "elapsed_s"
        case timerSeconds = "timer_s"
        case movingSeconds = "moving_s"
        case speedMetersPerSecond = "speed_m_per_s"
        case paceSecondsPerKilometre = "pace_s_per_km"
        case paceSecondsPerMile = "pace_s_per_mile"
        case movingPaceSecondsPerKilometre = "moving_pace_s_per_km"
        case deviceDistanceMeters = "device_distance_m"
        case deviceTimerSeconds = "device_timer_s"
        case deviceElapsedSeconds = "device_elapsed_s"
        case deviceAscentMeters = "device_ascent_m"
        case deviceDescentMeters = "device_descent_m"
        case deviceMovingSeconds = "device_moving_s"
        case deviceAverageHeartRate = "device_avg_heart_rate_bpm"
        case deviceMaximumHeartRate = "device_max_heart_rate_bpm"
        case deviceLaps = "device_laps"
        case gps, indoor, manual, device
        case checkpoints
        case splitsKilometre = "splits_km"
        case splitsMile = "splits_mile"
        case efforts, laps, elevation
        case heartRate = "heart_rate"
        case cadence, dropped
        case route
    }

    /// Every field of `RunSchema` in its order (nil as `null`), then `route` when present (and
    /// `start_floating` while a zoneless start awaits its zone: only in the cache).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        for field in RunSchema.fields {
            if let key = field.key, let access = field.access { try access.encode(self, to: &c, key: key) }
        }
        try c.encodeIfPresent(floatingStart, forKey: .floatingStart)
        try c.encodeIfPresent(route, forKey: .route)
    }

    /// What `encode(to:)` writes, read by the same table (`RunSchema.fields`), then `route` and
    /// `start_floating` when present. The measures are not in the JSON: none are read.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: "", format: "", distanceMeters: 0)
        for field in RunSchema.fields {
            if let key = field.key, let access = field.access { try access.decode(into: &self, from: c, key: key) }
        }
        floatingStart = try c.decodeIfPresent(Bool.self, forKey: .floatingStart)
        route = try c.decodeIfPresent(RouteTrace.self, forKey: .route)
    }
}

/// Where the route passed a catalogue distance.
public struct Checkpoint: Codable, Sendable, Equatable {
    public var badge: String
    public var name: String
    public var distanceMeters: Double
    /// Interpolated between the two points around the distance; nil for a run without positions.
    @NullEncoded public var latitude: Double?
    @NullEncoded public var longitude: Double?
    /// Seconds from the start when the distance was reached; nil without times.
    @NullEncoded public var elapsedSeconds: Double?

    public init(badge: String, name: String, distanceMeters: Double, latitude: Double?, longitude: Double?, elapsedSeconds: Double?) {
        self.badge = badge; self.name = name; self.distanceMeters = distanceMeters
        self.latitude = latitude; self.longitude = longitude; self.elapsedSeconds = elapsedSeconds
    }

    enum CodingKeys: String, CodingKey {
        case badge, name
        case distanceMeters = "distance_m"
        case latitude = "lat"
        case longitude = "lon"
        case elapsedSeconds = "elapsed_s"
    }
}

/// One split: the `index`-th whole kilometre or mile (1-based), or the last partial one.
public struct Split: Codable, Sendable, Equatable {
    public var index: Int
    /// Length of this split: the unit, or less for the last partial split.
    public var distanceMeters: Double
    /// Time for this split alone.
    public var elapsedSeconds: Double
    /// Time from the start to the end of this split.
    public var cumulativeSeconds: Double
    public var paceSecondsPerKilometre: Double
    public var partial: Bool

    public init(index: Int, distanceMeters: Double, elapsedSeconds: Double, cumulativeSeconds: Double, partial: Bool) {
        self.index = index; self.distanceMeters = distanceMeters; self.elapsedSeconds = elapsedSeconds
        self.cumulativeSeconds = cumulativeSeconds; self.partial = partial
        // The one pace formula (a lap's); a split has a pace field always, 0 when it has none.
        self.paceSecondsPerKilometre = RunLap.pace(distanceMeters: distanceMeters, seconds: elapsedSeconds) ?? 0
    }

    enum CodingKeys: String, CodingKey {
        case index
        case distanceMeters = "distance_m"
        case elapsedSeconds = "elapsed_s"
        case cumulativeSeconds = "cumulative_s"
        case paceSecondsPerKilometre = "pace_s_per_km"
        case partial
    }
}

/// The fastest contiguous stretch of a standard distance inside a run.
public struct Effort: Codable, Sendable, Equatable {
    /// The standard efforts searched in every run long enough for them, shortest first: the names
    /// rules read in `run.fastest` and `run.efforts`, and the distances the analyzer looks for.
    public static let standardDistances: [(name: String, meters: Double)] = [
        ("400m", 400), ("1km", 1000), ("1mi", Units.metresPerMile), ("5km", 5000),
        ("10km", 10_000), ("half", 21_097.5), ("marathon", 42_195),
    ]

    /// `400m`, `1km`, `1mi`, `5km`, `10km`, `half`, `marathon`.
    public var name: String
    public var distanceMeters: Double
    public var elapsedSeconds: Double
    /// Where the window starts: distance from the start of the run and time from the start.
    public var startDistanceMeters: Double
    public var startElapsedSeconds: Double
    public var paceSecondsPerKilometre: Double

    public init(name: String, distanceMeters: Double, elapsedSeconds: Double, startDistanceMeters: Double, startElapsedSeconds: Double) {
        self.name = name; self.distanceMeters = distanceMeters; self.elapsedSeconds = elapsedSeconds
        self.startDistanceMeters = startDistanceMeters; self.startElapsedSeconds = startElapsedSeconds
        // The one pace formula (a lap's); a split has a pace field always, 0 when it has none.
        self.paceSecondsPerKilometre = RunLap.pace(distanceMeters: distanceMeters, seconds: elapsedSeconds) ?? 0
    }

    enum CodingKeys: String, CodingKey {
        case name
        case distanceMeters = "distance_m"
        case elapsedSeconds = "elapsed_s"
        case startDistanceMeters = "start_distance_m"
        case startElapsedSeconds = "start_elapsed_s"
        case paceSecondsPerKilometre = "pace_s_per_km"
    }
}

/// Elevation figures after smoothing (see `RunAnalyzer`).
public struct Elevation: Codable, Sendable, Equatable {
    public var gainMeters: Double
    public var lossMeters: Double
    public var minMeters: Double
    public var maxMeters: Double

    public init(gainMeters: Double, lossMeters: Double, minMeters: Double, maxMeters: Double) {
        self.gainMeters = gainMeters; self.lossMeters = lossMeters; self.minMeters = minMeters; self.maxMeters = maxMeters
    }

    enum CodingKeys: String, CodingKey {
        case gainMeters = "gain_m"
        case lossMeters = "loss_m"
        case minMeters = "min_m"
        case maxMeters = "max_m"
    }
}

/// Average and maximum of a sensor channel (heart rate in bpm, cadence as recorded).
public struct SensorStats: Codable, Sendable, Equatable {
    /// How `average` weighs the readings: each by the time around it, or each the same.
    public enum Weighting: String, Codable, Sendable {
        /// Each reading weighs the time it stands for (`RunAnalyzer.sensorStats`): what a device does.
        case time
        /// Each reading weighs the same, the plain mean of the samples (readings without times).
        case sample
    }

    public var average: Double
    public var maximum: Double
    /// Which average `average` is (`avg_weighting`: `time` or `sample`).
    public var weighting: Weighting

    public init(average: Double, maximum: Double, weighting: Weighting = .time) {
        self.average = average; self.maximum = maximum; self.weighting = weighting
    }

    enum CodingKeys: String, CodingKey {
        case average = "avg"
        case maximum = "max"
        case weighting = "avg_weighting"
    }

    /// A summary saved before the weighting was written (a saved state's runs) averaged by time.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        average = try c.decode(Double.self, forKey: .average)
        maximum = try c.decode(Double.self, forKey: .maximum)
        weighting = try c.decodeIfPresent(Weighting.self, forKey: .weighting) ?? .time
    }
}

/// One lap as the device recorded it, placed in the run: what a rule reads in `run.laps`.
public struct RunLap: Codable, Sendable, Equatable {
    /// 1-based, in the file's order.
    public var index: Int
    /// Seconds from the run's start to the lap's start; nil when the file gives no lap start.
    @NullEncoded public var startElapsedSeconds: Double?
    /// The lap's distance as the device measured it.
    @NullEncoded public var distanceMeters: Double?
    /// The lap's elapsed time, and its timer time (less the device's pauses within it).
    @NullEncoded public var elapsedSeconds: Double?
    @NullEncoded public var timerSeconds: Double?
    /// Timer time (elapsed when the lap has no timer time) over distance; nil without a distance.
    @NullEncoded public var paceSecondsPerKilometre: Double?
    /// The device's heart-rate average and maximum over the lap, in bpm.
    @NullEncoded public var averageHeartRate: Double?
    @NullEncoded public var maximumHeartRate: Double?
    /// What ended the lap: `manual`, `time`, `distance`, `position`, `session_end`,
    /// `fitness_equipment`, `heart_rate` (see `Lap.trigger`).
    @NullEncoded public var trigger: String?
    /// `active`, `rest`, `warmup`, `cooldown`, `recovery`, `interval`, `other` (see `Lap.intensity`).
    @NullEncoded public var intensity: String?

    public init(index: Int, startElapsedSeconds: Double? = nil, distanceMeters: Double? = nil, elapsedSeconds: Double? = nil,
                timerSeconds: Double? = nil, averageHeartRate: Double? = nil, maximumHeartRate: Double? = nil,
                trigger: String? = nil, intensity: String? = nil) {
        self.index = index; self.startElapsedSeconds = startElapsedSeconds; self.distanceMeters = distanceMeters
        self.elapsedSeconds = elapsedSeconds; self.timerSeconds = timerSeconds
        self.averageHeartRate = averageHeartRate; self.maximumHeartRate = maximumHeartRate
        self.trigger = trigger; self.intensity = intensity
        self.paceSecondsPerKilometre = RunLap.pace(distanceMeters: distanceMeters, seconds: timerSeconds ?? elapsedSeconds)
    }

    /// The lap `lap` of a run that started at `runStart` (epoch seconds).
    public init(index: Int, lap: Lap, runStart: Double?) {
        self.init(index: index, startElapsedSeconds: zip2(lap.start, runStart).map { $0 - $1 }, distanceMeters: lap.distanceMeters,
                  elapsedSeconds: lap.elapsedSeconds, timerSeconds: lap.timerSeconds, averageHeartRate: lap.averageHeartRate,
                  maximumHeartRate: lap.maximumHeartRate, trigger: lap.trigger, intensity: lap.intensity)
    }

    /// A lap written without its `index` (a pack test's `t.run{ laps = {...} }`) reads as index 0, for the
    /// caller to number.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        index = try c.decodeIfPresent(Int.self, forKey: .index) ?? 0
        _startElapsedSeconds = try c.decode(NullEncoded<Double>.self, forKey: .startElapsedSeconds)
        _distanceMeters = try c.decode(NullEncoded<Double>.self, forKey: .distanceMeters)
        _elapsedSeconds = try c.decode(NullEncoded<Double>.self, forKey: .elapsedSeconds)
        _timerSeconds = try c.decode(NullEncoded<Double>.self, forKey: .timerSeconds)
        _paceSecondsPerKilometre = try c.decode(NullEncoded<Double>.self, forKey: .paceSecondsPerKilometre)
        _averageHeartRate = try c.decode(NullEncoded<Double>.self, forKey: .averageHeartRate)
        _maximumHeartRate = try c.decode(NullEncoded<Double>.self, forKey: .maximumHeartRate)
        _trigger = try c.decode(NullEncoded<String>.self, forKey: .trigger)
        _intensity = try c.decode(NullEncoded<String>.self, forKey: .intensity)
    }

    static func pace(distanceMeters: Double?, seconds: Double?) -> Double? {
        guard let distanceMeters, distanceMeters > 0, let seconds, seconds >= 0 else { return nil }
        let pace = seconds / (distanceMeters / 1000)
        return pace.isFinite ? pace : nil
    }

    enum CodingKeys: String, CodingKey {
        case index
        case startElapsedSeconds = "start_elapsed_s"
        case distanceMeters = "distance_m"
        case elapsedSeconds = "elapsed_s"
        case timerSeconds = "timer_s"
        case paceSecondsPerKilometre = "pace_s_per_km"
        case averageHeartRate = "avg_heart_rate_bpm"
        case maximumHeartRate = "max_heart_rate_bpm"
        case trigger, intensity
    }
}

/// Both values, or nil.
private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}

/// An array that reads as empty when its key is missing (JSON written before the field existed, such as
/// a saved state's runs); encoded as the array itself.
@propertyWrapper
public struct EmptyIfAbsent<Element> {
    public var wrappedValue: [Element]
    public init(wrappedValue: [Element]) { self.wrappedValue = wrappedValue }
}

extension EmptyIfAbsent: Encodable where Element: Encodable {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension EmptyIfAbsent: Decodable where Element: Decodable {
    public init(from decoder: Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode([Element].self)
    }
}

extension EmptyIfAbsent: Equatable where Element: Equatable {}
extension EmptyIfAbsent: Sendable where Element: Sendable {}

extension KeyedDecodingContainer {
    /// A missing key (or `null`) reads as an empty array.
    public func decode<Element: Decodable>(_ type: EmptyIfAbsent<Element>.Type, forKey key: Key) throws -> EmptyIfAbsent<Element> {
        EmptyIfAbsent(wrappedValue: try decodeIfPresent([Element].self, forKey: key) ?? [])
    }
}

/// Points or steps left out of a run, and why.
public struct Dropped: Codable, Sendable, Equatable {
    public var reason: String
    public var count: Int
    public init(reason: String, count: Int) { self.reason = reason; self.count = count }
    enum CodingKeys: String, CodingKey { case reason, count }
}

public enum Units {
    public static let metresPerMile = 1609.344
}
