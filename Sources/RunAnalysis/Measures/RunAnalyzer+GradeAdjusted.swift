import Foundation
import RunFiles

/// Grade-adjusted pace: the pace on flat ground that costs the same energy as the run did on its slopes.
///
/// Minetti et al. (2002, J Appl Physiol 93:1039) measured the energy cost of running on a treadmill from
/// −45% to +45% and fitted C(i) = 155.4i⁵ − 30.4i⁴ − 43.3i³ + 46.3i² + 19.5i + 3.6 J/kg/m (i the gradient
/// as a fraction). A step of `dd` metres at gradient i costs what C(i)/C(0) × dd metres cost on the flat;
/// the run's flat-equivalent distance is the sum, and its grade-adjusted pace its time over that distance
/// (each step's pace scaled by C(0)/C(i)).
///
/// Gradients: each step's is the elevation change over `smoothing_m` centred on the step's middle (the
/// recorded elevations, spikes left out as the climb count leaves them, interpolated linearly in distance;
/// the window is cut at the run's ends), clamped to ±45%, the range the model was fitted on.
///
/// The model's limits downhill: its cost falls to 0.49 of the flat's at about −18% and rises again
/// beyond, which measured treadmill running on smooth belts by trained runners; on real descents braking,
/// footing and fatigue cost more, so grade-adjusted paces of steep downhills flatter the runner.
enum GradeAdjusted {
    /// J/kg/m on gradient `i` (a fraction, clamped to ±0.45).
    static func cost(_ i: Double) -> Double {
        let i = max(-maximumGradient, min(maximumGradient, i))
        return (((((155.4 * i - 30.4) * i) - 43.3) * i + 46.3) * i + 19.5) * i + 3.6
    }
    /// The model's range: ±45%.
    static let maximumGradient = 0.45
    /// Metres: the default `smoothing_m`.
    static let defaultSmoothingMeters = 50.0
}

extension RunAnalyzer {
    /// The `grade_adjusted` measure (see `GradeAdjusted`): the whole run's grade-adjusted pace (its elapsed
    /// time over its flat-equivalent distance) and, with `distance_m`, the fastest stretch covering that
    /// flat-equivalent distance (the `effort` search on flat-equivalent distances, stops up to `max_stop_s`).
    /// nil without two timed points or two elevations.
    static func gradeAdjusted(_ definition: MeasureDefinition, track: Track, profile: Profile) -> MeasureValue? {
        let climb = climbProfile(of: track, profile: profile)
        guard climb.hasElevations else { return nil }
        let n = profile.count
        var xs: [Double] = [], es: [Double] = []
        for k in 0..<min(n, climb.elevations.count) where climb.elevations[k].isFinite && profile.distances[k].isFinite {
            if let last = xs.last, profile.distances[k] <= last { es[es.count - 1] = climb.elevations[k]; continue }
            xs.append(profile.distances[k]); es.append(climb.elevations[k])
        }
        guard xs.count >= 2 else { return nil }
        // Elevation at distance x, linear between recorded points; `j` moves forward only (x rises).
        var j = 0
        func elevation(at x: Double) -> Double {
            if x <= xs[0] { return es[0] }
            if x >= xs[xs.count - 1] { return es[es.count - 1] }
            while j > 0 && xs[j] > x { j -= 1 }
            while j + 1 < xs.count && xs[j + 1] < x { j += 1 }
            let f = (x - xs[j]) / (xs[j + 1] - xs[j])
            return es[j] + f * (es[j + 1] - es[j])
        }
        let half = (definition.number("smoothing_m") ?? GradeAdjusted.defaultSmoothingMeters) / 2
        let flat = GradeAdjusted.cost(0), first = xs[0], last = xs[xs.count - 1]
        // The flat-equivalent distance from the start to each kept point.
        var equivalent = [Double](repeating: 0, count: n)
        for k in 1..<max(1, n) {
            let dd = profile.distances[k] - profile.distances[k - 1]
            guard dd > 0 else { equivalent[k] = equivalent[k - 1]; continue }
            let middle = profile.distances[k - 1] + dd / 2
            let lo = max(first, middle - half), hi = min(last, middle + half)
            let lower = elevation(at: lo)
            let gradient = hi - lo > 1e-9 ? (elevation(at: hi) - lower) / (hi - lo) : 0
            equivalent[k] = equivalent[k - 1] + dd * GradeAdjusted.cost(gradient) / flat
        }
        var timed: [Int] = []
        for k in 0..<n where profile.elapsed[k].isFinite { timed.append(k) }
        guard let a = timed.first, let b = timed.last, b > a else { return nil }
        let seconds = profile.elapsed[b] - profile.elapsed[a]
        let meters = profile.distances[b] - profile.distances[a], flatMeters = equivalent[b] - equivalent[a]
        guard seconds > 0, flatMeters > 0 else { return nil }
        var value = MeasureValue([
            "pace_s_per_km": .float(seconds / (flatMeters / 1000)), "elapsed_s": .float(seconds),
            "distance_m": .float(meters), "equivalent_distance_m": .float(flatMeters),
        ])
        if let wanted = definition.number("distance_m") {
            let series = TimedSeries(distances: timed.map { equivalent[$0] }, elapsed: timed.map { profile.elapsed[$0] })
            let maxStop = definition.number("max_stop_s") ?? effortMaxStopSeconds
            if let effort = bestEfforts(in: series, [("", wanted)], maxStopSeconds: maxStop).first, effort.elapsedSeconds > 0 {
                // The ground the stretch covered: the actual distance at its start and end times.
                let ground = TimedSeries(distances: timed.map { profile.distances[$0] }, elapsed: timed.map { profile.elapsed[$0] })
                let start = effort.startElapsedSeconds
                value["effort_elapsed_s"] = .float(effort.elapsedSeconds)
                value["effort_pace_s_per_km"] = .float(effort.elapsedSeconds / (wanted / 1000))
                value["effort_start_elapsed_s"] = .float(effort.startElapsedSeconds)
                value["effort_distance_m"] = .float(ground.distance(at: start + effort.elapsedSeconds) - ground.distance(at: start))
            }
        }
        return value
    }
}

extension TimedSeries {
    /// The distance at elapsed time `time`, linear between points (clamped to the ends).
    func distance(at time: Double) -> Double {
        guard count > 0 else { return 0 }
        if time <= elapsed[0] { return distances[0] }
        if time >= elapsed[count - 1] { return distances[count - 1] }
        var lo = 0, hi = count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if elapsed[mid] <= time { lo = mid } else { hi = mid }
        }
        let span = elapsed[hi] - elapsed[lo]
        return span > 0 ? distances[lo] + (time - elapsed[lo]) / span * (distances[hi] - distances[lo]) : distances[hi]
    }
}
