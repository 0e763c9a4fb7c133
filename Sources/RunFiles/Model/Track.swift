/// A recorded activity as the readers deliver it: columnar arrays of points, one entry per
/// usable point, split into segments. Missing values are `.nan` so the columns stay dense
/// and cheap; readers never store a point without a position unless the file has none at all
/// (an indoor TCX or FIT), in which case `hasPositions` is false and `deviceDistances` carries
/// the odometer.
public struct Track: Sendable {
    /// The file this came from, as given to the reader (for messages).
    public var source: String
    /// A name from the file (`<name>`, TCX `Id`, FIT session) if any.
    public var name: String?
    /// The sport as the file says it, not normalised (`"running"`, `"9"`, `"Running"`, `"Biking"`).
    public var sport: String?
    /// Degrees, WGS84.
    public var latitudes: [Double] = []
    public var longitudes: [Double] = []
    /// Metres above sea level, `.nan` when absent.
    public var elevations: [Double] = []
    /// Seconds since 1970-01-01T00:00:00Z, `.nan` when absent.
    public var times: [Double] = []
    /// Beats per minute, `.nan` when absent. Like the two columns below, it is empty when no
    /// point has a value (a GPX file never has a device distance, many have no heart rate):
    /// a column of nothing but `.nan` would cost 8 bytes a point for nothing. Read it with
    /// `heartRate(at:)`, which answers `.nan` either way.
    public var heartRates: [Double] = []
    /// Steps or revolutions per minute as the file records them, `.nan` when absent (empty when
    /// no point has one; `cadence(at:)`).
    public var cadences: [Double] = []
    /// The device's own cumulative distance in metres (TCX `DistanceMeters`, FIT `distance`),
    /// `.nan` when absent (empty when no point has one; `deviceDistance(at:)`).
    public var deviceDistances: [Double] = []
    /// Index of the first point of each segment; always starts with 0 when there are points.
    public var segmentStarts: [Int] = []
    /// The UTC offset of the file's first timestamp, in seconds, when the file wrote one (`+02:00`).
    public var utcOffsetSeconds: Int?
    /// Totals the device itself reported (TCX laps, FIT session), kept beside what we compute.
    public var deviceDistanceMeters: Double?
    public var deviceElapsedSeconds: Double?
    public var deviceTimerSeconds: Double?
    /// The device's own climb and descent in metres (FIT session `total_ascent`, `total_descent`).
    public var deviceAscentMeters: Double?
    public var deviceDescentMeters: Double?
    /// The device's own moving time (FIT session `total_moving_time`, newer devices only).
    public var deviceMovingSeconds: Double?
    /// The device's own heart-rate average and maximum in bpm (FIT session `avg_heart_rate`,
    /// `max_heart_rate`; TCX: the laps' averages weighted by their `TotalTimeSeconds`, the largest maximum).
    public var deviceAverageHeartRate: Double?
    public var deviceMaximumHeartRate: Double?
    /// How many laps the device says the activity has (FIT session `num_laps`, else its lap messages;
    /// TCX: its `Lap` elements).
    public var deviceLapCount: Int?
    /// Laps as the device recorded them, in the file's order.
    public var laps: [Lap] = []
    /// Timer pauses the device recorded (FIT timer stop → start), as start/end epoch seconds.
    public var pauses: [Pause] = []
    /// Points or steps the reader left out, by reason (`"no position"`, `"latitude out of range"`).
    public var dropped: [String: Int] = [:]
    /// Which reader made it (`gpx`, `tcx`, `fit`).
    public var format: RunFormat = .gpx
    /// First and last timestamps of every record the file had, including records dropped for
    /// having no position (a watch often writes a time before its first GPS fix): the run's
    /// start and elapsed time count from them. nil when the reader kept every timed record.
    public var recordedFirstTime: Double?
    public var recordedLastTime: Double?
    /// False for indoor files that carry no positions at all.
    public var hasPositions: Bool = true
    /// True when the file says the activity was indoors (FIT `sub_sport` treadmill, indoor running or
    /// virtual activity; a sport word such as `treadmill` or `indoor_running`); nil when it does not say.
    public var indoor: Bool?
    /// The device that recorded it, as the file names it (FIT `file_id` product name or maker, TCX
    /// `Creator/Name`, GPX `creator`); nil when it names none.
    public var device: String?

    public init(source: String) {
        self.source = source
    }

    @inlinable public var count: Int { latitudes.count }
    @inlinable public var isEmpty: Bool { latitudes.isEmpty }

    /// Starts a new segment; the next appended point is its first.
    public mutating func startSegment() {
        if segmentStarts.last != latitudes.count { segmentStarts.append(latitudes.count) }
    }

    /// Bytes the columns hold in memory (what the points filled; room reserved but never written
    /// costs no memory, except what the GPX split read faults in ahead for the merge: at most the
    /// file's own estimate of its points), for the memory budget. A column that grows copies itself: reckon twice this
    /// for the moment of a copy.
    public var memoryBytes: Int {
        (latitudes.count + longitudes.count + elevations.count + times.count + heartRates.count
            + cadences.count + deviceDistances.count + segmentStarts.count) * 8
    }

    /// Reserves room for `n` points in every column (the optional ones once they have a value). A
    /// large run first asks for huge pages (`HugePages`).
    public mutating func reserveCapacity(_ n: Int) {
        HugePages.prepare(points: n)
        latitudes.reserveCapacity(n); longitudes.reserveCapacity(n); elevations.reserveCapacity(n)
        times.reserveCapacity(n)
        if !heartRates.isEmpty { heartRates.reserveCapacity(n) }
        if !cadences.isEmpty { cadences.reserveCapacity(n) }
        if !deviceDistances.isEmpty { deviceDistances.reserveCapacity(n) }
    }

    /// Appends one point. Opens the first segment if none is open.
    @inlinable @inline(__always)
    public mutating func append(
        latitude: Double, longitude: Double, elevation: Double = .nan, time: Double = .nan,
        heartRate: Double = .nan, cadence: Double = .nan, deviceDistance: Double = .nan
    ) {
        if segmentStarts.isEmpty { segmentStarts.append(0) }
        let n = latitudes.count
        Track.put(heartRate, in: &heartRates, at: n, capacity: latitudes.capacity)
        Track.put(cadence, in: &cadences, at: n, capacity: latitudes.capacity)
        Track.put(deviceDistance, in: &deviceDistances, at: n, capacity: latitudes.capacity)
        latitudes.append(latitude); longitudes.append(longitude); elevations.append(elevation)
        times.append(time)
    }

    /// Appends `value` as point `index` of an optional column, which stays empty until a first
    /// value arrives (then the points before it are filled with `.nan`).
    @inlinable @inline(__always)
    static func put(_ value: Double, in column: inout [Double], at index: Int, capacity: Int) {
        if value.isNaN {
            if !column.isEmpty { column.append(.nan) }
            return
        }
        if column.count < index {
            column.reserveCapacity(max(capacity, index + 1))
            column.append(contentsOf: repeatElement(Double.nan, count: index - column.count))
        }
        column.append(value)
    }

    /// Heart rate of point `i`, `.nan` when absent.
    @inlinable @inline(__always)
    public func heartRate(at i: Int) -> Double { i < heartRates.count ? heartRates[i] : .nan }
    /// Cadence of point `i`, `.nan` when absent.
    @inlinable @inline(__always)
    public func cadence(at i: Int) -> Double { i < cadences.count ? cadences[i] : .nan }
    /// The device's cumulative distance at point `i`, `.nan` when absent.
    @inlinable @inline(__always)
    public func deviceDistance(at i: Int) -> Double { i < deviceDistances.count ? deviceDistances[i] : .nan }

    /// Counts one dropped point or step under `reason`.
    public mutating func drop(_ reason: String, count: Int = 1) {
        dropped[reason, default: 0] += count
    }

    /// The half-open index range of each segment.
    public var segmentRanges: [Range<Int>] {
        var result: [Range<Int>] = []
        for (i, start) in segmentStarts.enumerated() {
            let end = i + 1 < segmentStarts.count ? segmentStarts[i + 1] : count
            if end > start { result.append(start..<end) }
        }
        return result
    }
}

/// A lap as the device recorded it (FIT `lap` message, TCX `Lap`); nil where the file says nothing.
public struct Lap: Sendable, Codable, Equatable {
    /// Epoch seconds of the lap's start.
    public var start: Double?
    public var elapsedSeconds: Double?
    public var timerSeconds: Double?
    public var distanceMeters: Double?
    /// The lap's heart-rate average and maximum as the device computed them, in bpm.
    public var averageHeartRate: Double?
    public var maximumHeartRate: Double?
    /// What ended the lap, as `Lap.triggers` words: `manual`, `time`, `distance`, `position`,
    /// `session_end`, `fitness_equipment`, `heart_rate` (or the file's own word lower-cased).
    public var trigger: String?
    /// What the lap was for (`Lap.intensities`): `active`, `rest`, `warmup`, `cooldown`, `recovery`,
    /// `interval`, `other`.
    public var intensity: String?

    public init(start: Double? = nil, elapsedSeconds: Double? = nil, timerSeconds: Double? = nil, distanceMeters: Double? = nil,
                averageHeartRate: Double? = nil, maximumHeartRate: Double? = nil, trigger: String? = nil, intensity: String? = nil) {
        self.start = start; self.elapsedSeconds = elapsedSeconds
        self.timerSeconds = timerSeconds; self.distanceMeters = distanceMeters
        self.averageHeartRate = averageHeartRate; self.maximumHeartRate = maximumHeartRate
        self.trigger = trigger; self.intensity = intensity
    }

    /// The FIT profile's `lap_trigger` values as words: the four position triggers (a lap at a
    /// position, a waypoint, a marked place) are all `position`, as TCX's `Location` is.
    public static let fitTriggers: [UInt8: String] = [
        0: "manual", 1: "time", 2: "distance", 3: "position", 4: "position", 5: "position", 6: "position",
        7: "session_end", 8: "fitness_equipment",
    ]
    /// TCX's `TriggerMethod` values as the same words.
    public static let tcxTriggers: [String: String] = [
        "Manual": "manual", "Distance": "distance", "Location": "position", "Time": "time", "HeartRate": "heart_rate",
    ]
    /// The FIT profile's `intensity` values as words.
    public static let fitIntensities: [UInt8: String] = [
        0: "active", 1: "rest", 2: "warmup", 3: "cooldown", 4: "recovery", 5: "interval", 6: "other",
    ]
    /// TCX's `Intensity` values as the same words.
    public static let tcxIntensities: [String: String] = ["Active": "active", "Resting": "rest"]
}

/// A timer pause the device recorded: stopped at `from`, running again at `to` (epoch seconds).
public struct Pause: Sendable, Codable, Equatable {
    public var from: Double
    public var to: Double
    public init(from: Double, to: Double) { self.from = from; self.to = to }
}
