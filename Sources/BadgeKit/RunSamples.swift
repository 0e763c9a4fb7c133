import RunFiles

/// What an app has after a run: one entry per sample in each array, in time order.
public struct RunSamples: Sendable, Equatable {
    /// The `format` of a summary made from samples.
    public static let format = "samples"

    /// Seconds since 1970-01-01T00:00:00Z (UTC).
    public var times: [Double]
    /// Degrees, WGS84.
    public var latitudes: [Double]
    /// Degrees, WGS84.
    public var longitudes: [Double]
    /// Metres above sea level, one per sample (`.nan` for a sample without); nil when none.
    public var elevations: [Double]?
    /// Beats per minute, one per sample (`.nan` for a sample without); nil when none.
    public var heartRates: [Double]?
    /// The sport as the app names it ("running" when nil).
    public var sport: String?
    /// A name for the run.
    public var name: String?
    /// The runner's UTC offset at the start, in seconds, when the app knows it (local dates);
    /// nil: the engine's zone.
    public var utcOffsetSeconds: Int?

    /// Samples; `elevations` and `heartRates` are optional.
    public init(times: [Double], latitudes: [Double], longitudes: [Double], elevations: [Double]? = nil,
                heartRates: [Double]? = nil, sport: String? = nil, name: String? = nil, utcOffsetSeconds: Int? = nil) {
        self.times = times; self.latitudes = latitudes; self.longitudes = longitudes
        self.elevations = elevations; self.heartRates = heartRates
        self.sport = sport; self.name = name; self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The samples as a track (one segment), checked.
    func track(id: String) throws -> Track {
        let count = times.count
        func check(_ column: [Double]?, _ name: String) throws {
            if let column, column.count != count {
                throw BadgeKitError.samples(id: id, reason: "\(column.count) \(name) for \(count) times (one per sample)")
            }
        }
        try check(latitudes, "latitudes")
        try check(longitudes, "longitudes")
        try check(elevations, "elevations")
        try check(heartRates, "heart rates")
        guard count >= 2 else { throw BadgeKitError.samples(id: id, reason: "\(count) samples; a run needs at least 2") }
        for i in 0..<count {
            guard times[i].isFinite else { throw BadgeKitError.samples(id: id, reason: "sample \(i): time \(times[i]) is not a number of seconds") }
            guard latitudes[i].isFinite, abs(latitudes[i]) <= 90 else { throw BadgeKitError.samples(id: id, reason: "sample \(i): latitude \(latitudes[i]) is not from -90 to 90") }
            guard longitudes[i].isFinite, abs(longitudes[i]) <= 180 else { throw BadgeKitError.samples(id: id, reason: "sample \(i): longitude \(longitudes[i]) is not from -180 to 180") }
        }
        var track = Track(source: id)
        track.name = name
        track.sport = sport ?? "running"
        track.times = times
        track.latitudes = latitudes
        track.longitudes = longitudes
        track.elevations = elevations ?? Array(repeating: .nan, count: count)
        if let heartRates, heartRates.contains(where: { !$0.isNaN }) { track.heartRates = heartRates }
        track.segmentStarts = [0]
        track.utcOffsetSeconds = utcOffsetSeconds
        return track
    }
}
