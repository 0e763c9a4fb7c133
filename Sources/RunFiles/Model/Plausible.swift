/// The figures a run can have, and the one place that says so: every number that comes from outside
/// (a file, a cache, a state, another shard's facts) is checked here before it meets an integer
/// conversion, a date, or arithmetic that can overflow. A value outside these bounds is not a run's
/// (a typo, a damaged file, an attack: `1e308` m, a time of `-1e300` s, `nan` beats a minute) and is
/// taken as unknown, with a note saying which field and why.
public enum Plausible {
    /// 1900-01-01T00:00:00Z: no run file holds an earlier instant (GPS, heart-rate straps and the
    /// formats themselves are a century younger).
    public static let earliestEpoch = -2_208_988_800.0
    /// 2201-01-01T00:00:00Z (exclusive): the end of year 2200. Later dates are a clock's garbage.
    public static let latestEpoch = 7_258_118_400.0
    /// The years a date may have, as messages write them.
    public static let years = "1900–2200"

    /// True for an instant from 1900 through 2200.
    @inlinable public static func isEpoch(_ value: Double) -> Bool { value >= earliestEpoch && value < latestEpoch }

    /// `value` when it is an instant from 1900 through 2200, else nil.
    @inlinable public static func epoch(_ value: Double?) -> Double? { value.flatMap { isEpoch($0) ? $0 : nil } }

    /// The longest distance a run may have: 10,000 km (`SummaryReader.maximumDistanceMeters`).
    public static let maximumDistanceMeters = 10_000_000.0
    /// The longest duration a run may have: 100 days (`SummaryReader.maximumDurationSeconds`).
    public static let maximumDurationSeconds = 8_640_000.0
    /// The highest heart rate taken: 300 bpm (the fastest ever recorded in a person is about 300).
    public static let maximumHeartRate = 300.0
    /// The highest cadence taken: 1,000 steps or revolutions a minute.
    public static let maximumCadence = 1000.0
    /// Elevations from the Dead Sea's shore's lowest mine shafts to above Everest, with room:
    /// ±100 km (an aircraft's log is still read; a 1e308 m point is not).
    public static let maximumElevationMagnitude = 100_000.0
    /// The most climb or descent a run may total: 1,000 km.
    public static let maximumClimbMeters = 1_000_000.0
    /// The most laps a device may say a run has.
    public static let maximumLaps = 1_000_000

    /// `value` when finite and within `range`, else nil.
    @inlinable public static func within(_ value: Double?, _ range: ClosedRange<Double>) -> Double? {
        guard let value, value.isFinite, range.contains(value) else { return nil }
        return value
    }

    /// A distance in metres (0 to 10,000 km), else nil.
    @inlinable public static func distance(_ value: Double?) -> Double? { within(value, 0...maximumDistanceMeters) }
    /// A duration in seconds (0 to 100 days), else nil.
    @inlinable public static func duration(_ value: Double?) -> Double? { within(value, 0...maximumDurationSeconds) }
    /// A heart rate in bpm (above 0, at most 300), else nil.
    @inlinable public static func heartRate(_ value: Double?) -> Double? {
        guard let value = within(value, 0...maximumHeartRate), value > 0 else { return nil }
        return value
    }

    /// `value` as an `Int` when it is finite, whole or not (truncated towards zero), and within
    /// ±2^53 (every integer a `Double` holds exactly); nil otherwise, where `Int(value)` would trap.
    @inlinable public static func integer(_ value: Double) -> Int? {
        guard value.isFinite, abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int(value)
    }

    /// `value` rounded to the whole number (half away from zero) as an `Int`, nil where it is not
    /// finite or beyond ±2^53.
    @inlinable public static func rounded(_ value: Double) -> Int? { integer(value.rounded()) }

    /// A number as a note writes it: `1e+308`, `nan`, `-inf`, `12.5`.
    public static func shown(_ value: Double) -> String { "\(value)" }
}
