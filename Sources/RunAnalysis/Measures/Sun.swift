import Foundation
import RunFiles

/// Sunrise and sunset, offline: NOAA's solar position equations (Meeus, "Astronomical Algorithms",
/// as in NOAA's solar calculator) with the usual definition of the event: the upper limb of the Sun on
/// the horizon, 0.833° of refraction and semi-diameter, an observer at sea level. Each event is
/// computed at the Sun's position at that event (two refinements from solar noon), which agrees with
/// independent implementations (the astral package) to well under a minute between 60°S and 60°N.
public enum Sun {
    /// The Sun's depression below the horizon at sunrise and sunset, in degrees.
    public static let eventDepression = 0.833

    /// What a day holds at a place: the two events (epoch seconds), or a polar day or night.
    public enum Day: Sendable, Equatable {
        case events(sunrise: Double, sunset: Double)
        /// The Sun stays above the horizon all day.
        case polarDay
        /// The Sun stays below the horizon all day.
        case polarNight
    }

    /// Sunrise and sunset on the civil date `year-month-day` at `latitude`, `longitude` (degrees,
    /// east positive): epoch seconds (UTC) of the events around that date's local solar noon.
    public static func day(year: Int, month: Int, day: Int, latitude: Double, longitude: Double) -> Day {
        let midnight = Double(Timestamps.daysFromCivil(year: year, month: month, day: day)) * 86_400
        let lat = max(-89.999, min(89.999, latitude))
        // Solar noon first (the Sun's position at noon), then each event from the Sun's position at it.
        var noon = midnight + 43_200 - longitude * 240
        for _ in 0..<2 { noon = midnight + (720 - 4 * longitude - equationOfTime(at: noon)) * 60 }
        guard let rise = event(midnight: midnight, start: noon, latitude: lat, longitude: longitude, rising: true),
              let set = event(midnight: midnight, start: noon, latitude: lat, longitude: longitude, rising: false)
        else {
            return declination(at: noon) * lat > 0 ? .polarDay : .polarNight
        }
        return .events(sunrise: rise, sunset: set)
    }

    /// One event, refined from `start`; nil when the Sun does not cross the horizon that day.
    static func event(midnight: Double, start: Double, latitude: Double, longitude: Double, rising: Bool) -> Double? {
        var time = start
        for _ in 0..<3 {
            guard let angle = hourAngle(latitude: latitude, declination: declination(at: time)) else { return nil }
            let noon = 720 - 4 * longitude - equationOfTime(at: time)
            time = midnight + (noon + (rising ? -4 : 4) * angle) * 60
        }
        return time
    }

    /// Hour angle of the event in degrees; nil in a polar day or night.
    static func hourAngle(latitude: Double, declination: Double) -> Double? {
        let phi = latitude * .pi / 180, delta = declination * .pi / 180
        let cosine = cos((90 + eventDepression) * .pi / 180) / (cos(phi) * cos(delta)) - tan(phi) * tan(delta)
        guard cosine >= -1, cosine <= 1 else { return nil }
        return acos(cosine) * 180 / .pi
    }

    /// Julian centuries since J2000.0 of an epoch time.
    static func centuries(_ epoch: Double) -> Double { (epoch / 86_400 + 2_440_587.5 - 2_451_545.0) / 36_525 }

    /// The Sun's declination in degrees.
    static func declination(at epoch: Double) -> Double {
        let (_, _, lambda, epsilon) = orbit(centuries(epoch))
        return asin(sin(epsilon) * sin(lambda)) * 180 / .pi
    }

    /// The equation of time in minutes.
    static func equationOfTime(at epoch: Double) -> Double {
        let t = centuries(epoch)
        let (l0, m, _, epsilon) = orbit(t)
        let e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
        let y = pow(tan(epsilon / 2), 2)
        let value = y * sin(2 * l0) - 2 * e * sin(m) + 4 * e * y * sin(m) * cos(2 * l0)
            - 0.5 * y * y * sin(4 * l0) - 1.25 * e * e * sin(2 * m)
        return 4 * value * 180 / .pi
    }

    /// Mean longitude, mean anomaly, apparent longitude and corrected obliquity, in radians.
    static func orbit(_ t: Double) -> (l0: Double, m: Double, lambda: Double, epsilon: Double) {
        let rad = Double.pi / 180
        let l0 = (280.46646 + t * (36000.76983 + t * 0.0003032)).truncatingRemainder(dividingBy: 360)
        let m = 357.52911 + t * (35999.05029 - 0.0001537 * t)
        let c = sin(m * rad) * (1.914602 - t * (0.004817 + 0.000014 * t)) + sin(2 * m * rad) * (0.019993 - 0.000101 * t)
            + sin(3 * m * rad) * 0.000289
        let omega = 125.04 - 1934.136 * t
        let lambda = l0 + c - 0.00569 - 0.00478 * sin(omega * rad)
        let epsilon0 = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let epsilon = epsilon0 + 0.00256 * cos(omega * rad)
        return (l0 * rad, m * rad, lambda * rad, epsilon * rad)
    }
}
