@testable import RunFiles

/// Tracks built in code for the analytics tests.
///
/// On the equator the tangent-plane step of `Geodesy.distance` is exactly a·Δλ (N = a, cos φ = 1,
/// no northing), so a point at `d` metres along the equator has longitude d / a in radians and
/// the profile's distances are the `d` we chose, up to rounding: answers can be worked out by hand.
enum AnalyticsFixtures {
    static let start = 1_700_000_000.0

    static func longitude(atMetres d: Double) -> Double { d / Geodesy.equatorialRadius * 180 / Double.pi }

    /// One segment along the equator: point k at `distances[k]` metres, `times[k]` seconds after
    /// `start` (nil or NaN: no time), with optional elevation and sensor columns.
    static func equator(
        _ distances: [Double], times: [Double]? = nil, elevations: [Double]? = nil,
        heartRates: [Double]? = nil, cadences: [Double]? = nil, source: String = "built"
    ) -> Track {
        var track = Track(source: source)
        append(to: &track, distances, times: times, elevations: elevations, heartRates: heartRates, cadences: cadences)
        return track
    }

    /// Appends a new segment to `track`.
    static func append(
        to track: inout Track, _ distances: [Double], times: [Double]? = nil, elevations: [Double]? = nil,
        heartRates: [Double]? = nil, cadences: [Double]? = nil
    ) {
        track.startSegment()
        for (k, d) in distances.enumerated() {
            track.append(
                latitude: 0, longitude: longitude(atMetres: d),
                elevation: elevations?[k] ?? .nan,
                time: times.map { $0[k].isFinite ? start + $0[k] : .nan } ?? .nan,
                heartRate: heartRates?[k] ?? .nan, cadence: cadences?[k] ?? .nan)
        }
    }

    /// A run at a steady pace: a point every `step` metres up to `total`, `secondsPerMetre` each metre.
    static func steady(total: Double, step: Double, secondsPerMetre: Double) -> Track {
        let n = Int((total / step).rounded())
        let d = (0...n).map { Double($0) * step }
        return equator(d, times: d.map { $0 * secondsPerMetre })
    }

    /// Points every `step` metres through consecutive legs of (metres, seconds per metre).
    static func legs(_ legs: [(metres: Double, secondsPerMetre: Double)], step: Double) -> Track {
        var d: [Double] = [0], t: [Double] = [0]
        for leg in legs {
            let n = Int((leg.metres / step).rounded())
            let d0 = d[d.count - 1], t0 = t[t.count - 1]
            for k in 1...n {
                d.append(d0 + Double(k) * step); t.append(t0 + Double(k) * step * leg.secondsPerMetre)
            }
        }
        return equator(d, times: t)
    }
}
