// The measure computation: each kind declared in Measures/MeasureDeclarations.swift (`MeasureKind`) computed from a
// run's track and profile. Place, segment and tiles are in `RunAnalyzer+Geography.swift`, the sun's
// positions in `Sun.swift`.
import RunFiles

/// The order of a run's measure pass, made once per analyzer: the segment measures (those with a path)
/// as a flat array of boxes and their indices, every other measure by index, and whether any measure
/// reads positions (places, segments, tiles).
struct MeasurePlan: Sendable {
    var boxes: [SegmentPath.Box] = []
    var segments: [Int] = []
    var others: [Int] = []
    var needsPositions = false

    init(_ definitions: [MeasureDefinition]) {
        for (index, definition) in definitions.enumerated() {
            if let path = definition.path {
                boxes.append(path.box); segments.append(index)
            } else {
                others.append(index)
                if definition.kind == MeasureKind.place.name || definition.kind == MeasureKind.tiles.name { needsPositions = true }
            }
        }
        if !boxes.isEmpty { needsPositions = true }
    }
}

/// The measures packs declare (`MeasureDefinition`), computed from the track and profile already in
/// memory while the file is summarised: no second read, no second cleaning. Each function documents
/// its method; a measure a run cannot have (no times, no heart rate, no position) is absent (`nil` in Lua).
extension RunAnalyzer {
    /// Every measure of `definitions` that the run can have, by `MeasureDefinition.key`.
    /// `localDate` / `offsetSeconds` are the run's local date and offset when known (else the sun is
    /// placed on the local mean solar date; `RunAnalyzer.localise` completes it with the real one).
    static func measures(
        _ definitions: [MeasureDefinition], plan: MeasurePlan? = nil, track: Track, profile: Profile, series: TimedSeries,
        startEpoch: Double?, elapsed: Double?, localDate: String?, offsetSeconds: Int?
    ) -> [String: MeasureValue] {
        var result: [String: MeasureValue] = [:]
        let plan = plan ?? MeasurePlan(definitions)
        let positions = plan.needsPositions ? RunPositions(track: track, profile: profile) : RunPositions()
        // Segments: the run's box against each segment's, a flat array of numbers, so a thousand segments
        // the run does not come near cost a comparison each and never touch their definitions.
        if positions.count > 0 {
            let south = positions.minLatitude, north = positions.maxLatitude, west = positions.minLongitude, east = positions.maxLongitude
            plan.boxes.withUnsafeBufferPointer { boxes in
                for j in 0..<boxes.count {
                    let box = boxes[j]
                    guard box.meets(south: south, north: north, west: west, east: east) else { continue }
                    let definition = definitions[plan.segments[j]]
                    if let value = segment(definition, positions: positions) { result[definition.key] = value }
                }
            }
        }
        for index in plan.others {
            let definition = definitions[index]
            let value: MeasureValue?
            switch definition.kind {
            case MeasureKind.effort.name:
                let maxStop = definition.number("max_stop_s") ?? effortMaxStopSeconds
                if let meters = definition.number("distance_m") {
                    value = bestEfforts(in: series, [("", meters)], maxStopSeconds: maxStop).first.map(effortValue)
                } else if let seconds = definition.number("duration_s") {
                    value = longestDistance(in: series, seconds: seconds, maxStopSeconds: maxStop).map(effortValue)
                } else {
                    value = nil
                }
            case MeasureKind.timeIn.name:
                value = timeIn(definition, track: track, profile: profile)
            case MeasureKind.stops.name:
                value = stops(in: series, minSeconds: definition.number("min_s") ?? effortMaxStopSeconds)
            case MeasureKind.sun.name:
                value = sunValue(track: track, profile: profile, startEpoch: startEpoch, elapsed: elapsed,
                                 localDate: localDate, offsetSeconds: offsetSeconds)
            case MeasureKind.place.name:
                value = place(definition, positions: positions)
            case MeasureKind.tiles.name:
                value = tiles(zoom: Int(definition.number("zoom") ?? 14), positions: positions)
            case MeasureKind.gradeAdjusted.name:
                value = gradeAdjusted(definition, track: track, profile: profile)
            case MeasureKind.ageGrade.name:
                value = ageGrade(definition, series: series, startEpoch: startEpoch, localDate: localDate)
            default:
                value = nil
            }
            if let value { result[definition.key] = value }
        }
        return result
    }

    static func effortValue(_ effort: Effort) -> MeasureValue {
        MeasureValue(fields: [
            .elapsedSeconds: .float(effort.elapsedSeconds), .distanceMeters: .float(effort.distanceMeters),
            .paceSecondsPerKilometre: .float(effort.paceSecondsPerKilometre),
            .startElapsedSeconds: .float(effort.startElapsedSeconds), .startDistanceMeters: .float(effort.startDistanceMeters),
        ])
    }

    // MARK: Effort by duration

    /// The longest distance covered in any window of `seconds` that spans no stop longer than
    /// `maxStopSeconds` (the stops of `stretches(of:maxStopSeconds:)`), or nil when no stretch lasts that
    /// long. Distance is interpolated linearly in time between recorded points; the best window starts
    /// or ends at a recorded point (the covered distance is piecewise linear in the window's start), so
    /// both families are searched, each by a two-pointer pass (O(n)). Of equal windows the first is kept.
    public static func longestDistance(in profile: Profile, seconds: Double, maxStopSeconds: Double? = effortMaxStopSeconds) -> Effort? {
        longestDistance(in: TimedSeries(profile), seconds: seconds, maxStopSeconds: maxStopSeconds)
    }

    static func longestDistance(in series: TimedSeries, seconds: Double, maxStopSeconds: Double?) -> Effort? {
        guard series.count >= 2, seconds > 0 else { return nil }
        let pieces = maxStopSeconds.map { stretches(of: series, maxStopSeconds: $0) } ?? [0..<series.count]
        var best: (distance: Double, startDistance: Double, start: Double)?
        let d = series.distances, t = series.elapsed
        for piece in pieces where piece.count >= 2 && t[piece.upperBound - 1] - t[piece.lowerBound] >= seconds - distanceTolerance {
            let first = piece.lowerBound, last = piece.upperBound - 1
            func distance(at time: Double, from j: inout Int) -> Double {
                while j < last, t[j] < time { j += 1 }
                guard j > first, t[j] > t[j - 1] else { return d[j] }
                let f = min(1, max(0, (time - t[j - 1]) / (t[j] - t[j - 1])))
                return d[j - 1] + f * (d[j] - d[j - 1])
            }
            func consider(_ covered: Double, _ startDistance: Double, _ start: Double) {
                if covered > (best?.distance ?? -1) + distanceTolerance { best = (covered, startDistance, start) }
            }
            // Windows starting at a point.
            var j = first + 1
            for i in first..<last {
                let end = t[i] + seconds
                if end > t[last] + distanceTolerance { break }
                consider(distance(at: end, from: &j) - d[i], d[i], t[i])
            }
            // Windows ending at a point.
            var i = first + 1
            for k in (first + 1)...last {
                let start = t[k] - seconds
                if start < t[first] - distanceTolerance { continue }
                // The last moment at the start time: the distance there.
                let startDistance = distance(at: start, from: &i)
                consider(d[k] - startDistance, startDistance, start)
            }
        }
        guard let best, best.distance > 0 else { return nil }
        return Effort(name: "", distanceMeters: best.distance, elapsedSeconds: seconds,
                      startDistanceMeters: best.startDistance, startElapsedSeconds: best.start)
    }

    // MARK: Stops

    /// The stops of at least `minSeconds` (a stop as `stretches(of:maxStopSeconds:)` defines it: a stretch
    /// averaging under `movingSpeedThreshold`, trimmed to its slow steps): how many, the longest and the
    /// total, in seconds. nil for a run without times.
    static func stops(in series: TimedSeries, minSeconds: Double) -> MeasureValue? {
        guard series.count >= 2 else { return nil }
        let found = stopRanges(of: series, maxStopSeconds: minSeconds)
        var longest = 0.0, total = 0.0
        for stop in found {
            let length = series.elapsed[stop.end] - series.elapsed[stop.start]
            longest = max(longest, length); total += length
        }
        return MeasureValue(fields: [.count: .integer(found.count), .longestSeconds: .float(longest), .totalSeconds: .float(total)])
    }

    // MARK: Time in a range

    /// Seconds with `channel` in [min, max], both bounds included (either may be missing: "130 to 150
    /// bpm" is `min = 130, max = 150`), the longest unbroken stretch
    /// of them and their share of the time the channel was recorded. Heart rate, cadence and elevation are
    /// readings at points, weighted by time as `sensorStats` weighs them (half the step to each
    /// neighbouring reading, at most `sensorHalfStepCap` each side); the boundary between a reading in
    /// the range and one outside it lies halfway. Speed (m/s) and grade (%, over steps of at least 1 m)
    /// belong to the steps between points, each weighing its duration (at most twice the cap). A stretch
    /// breaks at a reading outside the range and at a gap longer than twice the cap.
    /// nil when the run has no timed reading of the channel.
    static func timeIn(_ definition: MeasureDefinition, track: Track, profile: Profile) -> MeasureValue? {
        guard let channel = definition.text("channel") else { return nil }
        // A heart-rate zone (`zone = n`, resolved with the athlete's profile) runs up to the next
        // zone's lower bound, left out (`below`), so that zones do not overlap.
        let lower = definition.number("min") ?? -.infinity
        let upper = definition.number("max") ?? .infinity, below = definition.number("below") ?? .infinity
        let cap = sensorHalfStepCap
        var seconds = 0.0, longest = 0.0, run = 0.0, recorded = 0.0, any = false
        @inline(__always) func inRange(_ x: Double) -> Bool { x >= lower && x <= upper && x < below }
        switch channel {
        case "heart_rate", "cadence", "elevation":
            let values = channel == "heart_rate" ? track.heartRates : channel == "cadence" ? track.cadences : track.elevations
            let ignoreNonPositive = channel != "elevation"
            var previous = Double.nan, previousTime = Double.nan
            for k in 0..<profile.count {
                let i = profile.pointIndex(k)
                guard i < values.count else { continue }
                let x = values[i], time = profile.elapsed[k]
                guard x.isFinite, time.isFinite, !(ignoreNonPositive && x <= 0) else { continue }
                any = true
                if previousTime.isFinite {
                    let dt = max(0, time - previousTime)
                    let half = min(cap, dt / 2)
                    let was = inRange(previous), now = inRange(x)
                    recorded += 2 * half
                    if was { seconds += half; run += half }
                    if now { seconds += half }
                    if was && now && dt <= 2 * cap {
                        run += half
                    } else {
                        longest = max(longest, run)
                        run = now ? half : 0
                    }
                }
                previous = x; previousTime = time
            }
        case "speed", "grade":
            let elevations = track.elevations
            var previousK = -1
            for k in 0..<profile.count {
                let time = profile.elapsed[k]
                guard time.isFinite else { continue }
                defer { previousK = k }
                guard previousK >= 0 else { continue }
                let dt = time - profile.elapsed[previousK], dd = profile.distances[k] - profile.distances[previousK]
                guard dt > 0 else { continue }
                let value: Double
                if channel == "speed" {
                    value = dd / dt
                } else {
                    let a = profile.pointIndex(previousK), b = profile.pointIndex(k)
                    guard dd >= 1, b < elevations.count, elevations[a].isFinite, elevations[b].isFinite else { continue }
                    value = 100 * (elevations[b] - elevations[a]) / dd
                }
                any = true
                let weight = min(dt, 2 * cap)
                recorded += weight
                if inRange(value) && dt <= 2 * cap {
                    seconds += weight; run += weight
                } else {
                    if inRange(value) { seconds += weight }
                    longest = max(longest, run)
                    run = inRange(value) ? weight : 0
                }
            }
        default:
            return nil
        }
        guard any, recorded > 0 else { return nil }
        longest = max(longest, run)
        return MeasureValue(fields: [.seconds: .float(seconds), .longestSeconds: .float(longest), .share: .float(seconds / recorded)])
    }

    // MARK: Sun

    /// Sunrise and sunset at the run's first position on its local date (`Sun.day`), and how the run
    /// sits between them. nil without a position or a start time.
    static func sunValue(track: Track, profile: Profile, startEpoch: Double?, elapsed: Double?,
                         localDate: String?, offsetSeconds: Int?) -> MeasureValue? {
        guard track.hasPositions, let startEpoch else { return nil }
        var latitude = Double.nan, longitude = Double.nan
        for k in 0..<profile.count {
            let i = profile.pointIndex(k)
            if track.latitudes[i].isFinite, track.longitudes[i].isFinite { latitude = track.latitudes[i]; longitude = track.longitudes[i]; break }
        }
        guard latitude.isFinite else { return nil }
        return sunValue(latitude: latitude, longitude: longitude, start: startEpoch, end: startEpoch + (elapsed ?? 0),
                        localDate: localDate, offsetSeconds: offsetSeconds)
    }

    /// The sun measure of a run starting at `start` and ending at `end` (epoch seconds) at a place. The day
    /// is `localDate` (`YYYY-MM-DD`) with times written at `offsetSeconds`; without them, the local mean
    /// solar date and offset (longitude / 15 hours).
    public static func sunValue(latitude: Double, longitude: Double, start: Double, end: Double,
                                localDate: String?, offsetSeconds: Int?) -> MeasureValue {
        let offset = offsetSeconds ?? Int((longitude * 240).rounded())
        let date = localDate ?? Timestamps.date(start, offsetSeconds: offset)
        let parts = date.split(separator: "-").compactMap { Int($0) }
        var value = MeasureValue(fields: [
            .latitude: .float(latitude), .longitude: .float(longitude), .startEpochSeconds: .float(start), .endEpochSeconds: .float(end),
            .date: .string(date), .offsetSeconds: .integer(offset),
        ])
        guard parts.count == 3 else { return value }
        switch Sun.day(year: parts[0], month: parts[1], day: parts[2], latitude: latitude, longitude: longitude) {
        case .events(let sunrise, let sunset):
            value[.sunrise] = .string(Timestamps.localTime(sunrise, offsetSeconds: offset))
            value[.sunset] = .string(Timestamps.localTime(sunset, offsetSeconds: offset))
            value[.sunriseEpochSeconds] = .float(sunrise)
            value[.sunsetEpochSeconds] = .float(sunset)
            value[.daylight] = .boolean(start >= sunrise && end <= sunset)
            value[.spansSunrise] = .boolean(start <= sunrise && end >= sunrise)
            value[.spansSunset] = .boolean(start <= sunset && end >= sunset)
        case .polarDay:
            value[.polar] = .string("day")
            value[.daylight] = .boolean(true)
            value[.spansSunrise] = .boolean(false); value[.spansSunset] = .boolean(false)
        case .polarNight:
            value[.polar] = .string("night")
            value[.daylight] = .boolean(false)
            value[.spansSunrise] = .boolean(false); value[.spansSunset] = .boolean(false)
        }
        return value
    }

    /// The start of the key of every sun measure (`MeasureDefinition.key`), made once.
    static let sunKeyPrefix = MeasureKind.sun.name + "("

    /// Places the sun measures of `run` on its local date, once it has one (`RunAnalyzer.localise`); a
    /// measure made for that date and offset already (the usual case: the zone of the last read) is kept.
    public static func localiseMeasures(_ run: inout RunSummary) {
        for (key, value) in run.measures where key.hasPrefix(sunKeyPrefix) {
            if case .string(run.localDate ?? "")? = value[.date], let offset = run.localOffsetSeconds,
               value[.offsetSeconds]?.number == Double(offset) { continue }
            guard let latitude = value[.latitude]?.number, let longitude = value[.longitude]?.number,
                  let start = value[.startEpochSeconds]?.number, let end = value[.endEpochSeconds]?.number else { continue }
            run.measures[key] = sunValue(latitude: latitude, longitude: longitude, start: start, end: end,
                                         localDate: run.localDate, offsetSeconds: run.localOffsetSeconds)
        }
    }
}
