import Foundation

/// The fastest any runner has gone: world-record average speeds by distance, the one plausibility
/// limit of badgectl. A whole "run" faster than it is left out (`RunSelection`); an age grade is given
/// only over stretches no faster than it (`RunAnalyzer.ageGrade`), so a GPS jump inside a run grades nothing.
public enum WorldRecord {
    /// World-record average speeds (m/s) by distance (men's outdoor records, rounded up): no runner's
    /// average over that distance is faster. Between two distances the limit is interpolated on the
    /// logarithm of the distance; below 400 m the 400 m figure holds, beyond 100 km the 100 km figure.
    public static let speeds: [(meters: Double, metersPerSecond: Double)] = [
        (400, 9.30),  // 43.03 s
        (1000, 7.58),  // 2:11.96
        (1609.344, 7.22),  // 3:43.13
        (5000, 6.62),  // 12:35.36
        (10000, 6.37),  // 26:11.00
        (21097.5, 6.12),  // 57:30
        (42195, 5.84),  // 2:00:35
        (100000, 4.72),  // 5:53:28 (road 100 km)
    ]

    /// The shortest distance the limit is applied to: below it a few metres of GPS noise are a large share.
    public static let shortestCheckedMeters = 100.0

    /// The fastest average speed a runner has ever held over `meters`.
    public static func speed(forDistance meters: Double) -> Double {
        guard let first = speeds.first, let last = speeds.last else { return .infinity }
        if meters <= first.meters { return first.metersPerSecond }
        if meters >= last.meters { return last.metersPerSecond }
        for i in 1..<speeds.count where meters <= speeds[i].meters {
            let a = speeds[i - 1], b = speeds[i]
            let f = (log(meters) - log(a.meters)) / (log(b.meters) - log(a.meters))
            return a.metersPerSecond + f * (b.metersPerSecond - a.metersPerSecond)
        }
        return last.metersPerSecond
    }

    /// Whether `meters` (at least `shortestCheckedMeters`) in `seconds` is faster than any runner has
    /// covered that distance: no time at all counts as faster. Non-finite figures are never "beaten"
    /// (they are no run's; the readers drop them).
    public static func isBeaten(meters: Double, seconds: Double) -> Bool {
        isBeaten(meters: meters, seconds: seconds, limit: speed(forDistance:))
    }

    /// Whether `meters` in `seconds` is faster than `limit(meters)` m/s (a slower limit than the
    /// record's: the fastest a runner of some age has run, `AgeGradeTable.fastestSpeed`), as `isBeaten`.
    public static func isBeaten(meters: Double, seconds: Double, limit: (Double) -> Double) -> Bool {
        guard meters.isFinite, seconds.isFinite, meters >= shortestCheckedMeters else { return false }
        return seconds <= 0 || meters / seconds > limit(meters)
    }
}
