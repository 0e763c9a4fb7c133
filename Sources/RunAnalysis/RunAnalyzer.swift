import Foundation
import RunFiles

/// Turns a `Track` into a `RunSummary`.
///
/// Rules, all documented in the README:
/// - Distance: sum of WGS84 step lengths (`Geodesy.distance`) within each segment.
/// - GPS teleport: a step faster than `teleportSpeed` (`vehicleTeleportSpeed` for cycling and
///   skiing, so a cyclist's 50 km/h descent recorded every 5 s is not a glitch) and longer than
///   `teleportMinimumStep`
///   is a glitch; the point is dropped and the next point is measured from the last good one.
///   After `teleportMaxRun` glitches in a row the track really moved: the new position becomes
///   the anchor, and the jump itself is not counted. A segment's first point is a glitch when
///   the next two points are both teleports from it but not from each other.
/// - A timestamp earlier than the previous kept one is dropped with its point; so is a lone
///   timestamp in the future (the next two points are both earlier than it but not earlier than
///   the last kept one), which would otherwise make every later point look like it went backwards.
///   Both count under "time going backwards". Equal timestamps are kept.
/// - Device odometer (tracks without positions): each kept point adds what the odometer grew since
///   the last finite reading kept in the segment, never a negative step.
/// - elapsed = last timestamp − first timestamp; timer = the sum of each segment's first-to-last
///   time, less the device's timer pauses inside segments; moving = time of steps of at most
///   `movingMaxStep` whose speed is at least `movingSpeedThreshold`, or whose climb makes up for it
///   (`times(of:pauses:climb:)`).
/// - Elevation: spikes left out, smoothed when the recording is rough, counted with a dead band
///   (`Climb.swift`).
/// - Splits, fastest efforts, checkpoints, elevation gain/loss and heart rate/cadence are
///   computed from the profile in `Analytics.swift` (each function documents its method).
public struct RunAnalyzer: Sendable {
    /// 12.5 m/s (45 km/h): faster than any runner's sprint.
    public static let teleportSpeed = 12.5
    /// 40 m/s (144 km/h): the limit for cycling and skiing.
    public static let vehicleTeleportSpeed = 40.0
    public static let teleportMinimumStep = 50.0
    public static let teleportMaxRun = 5
    /// 0.5 m/s (1.8 km/h): slower than this is standing, whatever GPS jitter says.
    public static let movingSpeedThreshold = 0.5
    /// A step lasting longer than this is a pause in recording, not movement.
    public static let movingMaxStep = 60.0

    /// A catalogue distance to locate along the route.
    public struct CheckpointTarget: Sendable, Equatable {
        public var badge: String
        public var name: String
        public var distanceMeters: Double
        public init(badge: String, name: String, distanceMeters: Double) {
            self.badge = badge; self.name = name; self.distanceMeters = distanceMeters
        }
    }

    public var checkpoints: [CheckpointTarget]

    /// The measures the packs declared (`MeasureDefinition`), computed in the same pass as the summary.
    public var measures: [MeasureDefinition] = [] { didSet { plan = MeasurePlan(measures) } }
    /// `measures` sorted for the pass: the segments' boxes flat, the rest by index.
    var plan = MeasurePlan([])

    /// The zone a measure's local date comes from when the file gave no UTC offset and `summarize` no
    /// zone (the sun's day; `RunFolder` sets it to `--tz`). nil: the local mean solar time. A run read
    /// later in another zone has its sun placed again (`localiseMeasures`).
    public var zone: TimeZone? = nil

    /// Also keep a simplified, speed-annotated route (`RunSummary.route`) for the HTML report.
    public var includeRoutes = false

    public init(checkpoints: [CheckpointTarget] = [], includeRoutes: Bool = false, measures: [MeasureDefinition] = []) {
        self.includeRoutes = includeRoutes
        self.measures = measures
        self.plan = MeasurePlan(measures)
        self.checkpoints = checkpoints
    }

    /// Builds the cleaned series. Pure function of the track.
    ///
    /// `stepDistance` measures one step between two positions (degrees in, metres out); it is
    /// `Geodesy.distance` except in accuracy checks that must measure on another basis (a
    /// haversine on the mean radius, as reference tools do).
    public static func profile(
        of track: Track,
        stepDistance: (_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double
    ) -> Profile {
        makeProfile(of: track, stepDistance: stepDistance, parallelAbove: .max)
    }

    /// The cleaned series measured with `Geodesy.distance` (the production path: the measure is
    /// inlined instead of called through a closure for every step). Tracks of `parallelStepPoints`
    /// points or more with positions have their neighbours' steps measured on two threads first
    /// (`parallelAbove`: tests lower it).
    public static func profile(of track: Track) -> Profile {
        makeProfile(of: track, stepDistance: Geodesy.distance, parallelAbove: parallelStepPoints)
    }

    static func profile(of track: Track, parallelAbove: Int) -> Profile {
        makeProfile(of: track, stepDistance: Geodesy.distance, parallelAbove: parallelAbove)
    }

    /// Tracks of at least this many points with positions have the steps between neighbouring points
    /// measured before the profile's pass, half on a second thread (a sine, a division and a square
    /// root each; the pass itself must go point by point).
    static let parallelStepPoints = 50_000

    /// The step from each point to the one before it (`steps[0]` is 0), `stepDistance` measured on
    /// two threads, half each.
    @inline(__always)
    private static func neighbourSteps(
        of track: Track,
        stepDistance: (_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double
    ) -> [Double] {
        let n = track.count
        return track.latitudes.withUnsafeBufferPointer { lat in
            track.longitudes.withUnsafeBufferPointer { lon in
                [Double](unsafeUninitializedCapacity: n) { buffer, count in
                    let steps = buffer  // written through by both threads, each its own half
                    func measure(_ from: Int, _ to: Int) {
                        for i in from..<to { steps[i] = stepDistance(lat[i - 1], lon[i - 1], lat[i], lon[i]) }
                    }
                    let half = n / 2
                    PlacedThread.run({ measure(half, n) }, alongside: { measure(1, half) })
                    steps[0] = 0
                    count = n
                }
            }
        }
    }

    @inline(__always)
    private static func makeProfile(
        of track: Track,
        stepDistance: (_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double,
        parallelAbove: Int
    ) -> Profile {
        var p = Profile()
        p.dropped = track.dropped
        let n = track.count
        // Each step from the point before, measured ahead (the pass below measures any other step itself:
        // from an anchor further back, after a dropped point).
        let measured = track.hasPositions && n >= max(parallelAbove, 2) && track.latitudes.count == n && track.longitudes.count == n
        let steps = measured ? neighbourSteps(of: track, stepDistance: stepDistance) : []
        // Written in place (no append per point); trimmed to the kept count at the end.
        var distances = [Double](repeating: 0, count: n)
        var elapsed = [Double](repeating: 0, count: n)
        var kept = 0
        var indices: [Int] = []   // materialised at the first dropped point only
        var mapped = false
        var firstTime = Double.nan
        var lastTime = -Double.infinity
        var total = 0.0
        let useDevice = !track.hasPositions
        let maximumSpeed = teleportSpeed(forSport: track.sport)
        distances.withUnsafeMutableBufferPointer { dist in
        elapsed.withUnsafeMutableBufferPointer { ela in
        track.latitudes.withUnsafeBufferPointer { lat in
        track.longitudes.withUnsafeBufferPointer { lon in
        track.times.withUnsafeBufferPointer { time in
        track.deviceDistances.withUnsafeBufferPointer { odometer in
        steps.withUnsafeBufferPointer { neighbour in
            // The segments by their starts, not `track.segmentRanges`: an array of `Range<Int>` makes
            // the runtime look up `Int: Comparable` through every conformance record of the static
            // binary on its first use in a process (0.1 ms of a one-file `summarize`).
            let starts = track.segmentStarts
            for s in starts.indices {
                let lower = starts[s], upper = s + 1 < starts.count ? starts[s + 1] : n
                guard upper > lower else { continue }
                var anchor = -1          // last kept point index in the track
                var lastOdometer = Double.nan  // last finite device distance kept in this segment
                var glitches = 0
                var segmentOpen = false
                for i in lower..<upper {
                    let t = time[i]
                    if t.isFinite {
                        if t < lastTime {
                            p.dropped["time going backwards", default: 0] += 1
                            continue
                        }
                        // A lone timestamp in the future (both following points are earlier
                        // than it, yet not earlier than the last kept one) is the glitch, not
                        // the rest of the run: drop it rather than everything after it.
                        if i + 2 < n {
                            let t1 = time[i + 1], t2 = time[i + 2]
                            if t1 < t, t2 < t, t1.isFinite, t2.isFinite, t1 >= lastTime {
                                p.dropped["time going backwards", default: 0] += 1
                                continue
                            }
                        }
                    }
                    var step = 0.0
                    if useDevice {
                        // Odometer: count what it added since the last reading we kept, so a
                        // point without a reading in between loses nothing.
                        let b = i < odometer.count ? odometer[i] : .nan
                        if b.isFinite {
                            if lastOdometer.isFinite { step = max(0, b - lastOdometer) }
                            lastOdometer = b
                        }
                    } else if anchor < 0 {
                        // A segment's first fix is often the bad one (a cold start). It is a
                        // glitch when both next points are teleports from it but not from each
                        // other; otherwise it would anchor the segment and the good points
                        // after it would be dropped instead.
                        if i + 2 < upper {
                            func teleport(_ a: Int, _ b: Int) -> Bool {
                                let dt = time[b] - time[a]
                                guard dt.isFinite else { return false }
                                let d = stepDistance(lat[a], lon[a], lat[b], lon[b])
                                return d > teleportMinimumStep && (dt <= 0 || d / dt > maximumSpeed)
                            }
                            if teleport(i, i + 1), teleport(i, i + 2), !teleport(i + 1, i + 2) {
                                p.dropped["GPS teleport", default: 0] += 1
                                continue
                            }
                        }
                    } else {
                        step = measured && anchor == i - 1 ? neighbour[i] : stepDistance(lat[anchor], lon[anchor], lat[i], lon[i])
                        if step > teleportMinimumStep {
                            let ta = time[anchor]
                            if t.isFinite, ta.isFinite {
                                let dt = t - ta
                                if dt <= 0 || step / dt > maximumSpeed {
                                    glitches += 1
                                    if glitches <= teleportMaxRun {
                                        p.dropped["GPS teleport", default: 0] += 1
                                        continue
                                    }
                                    // The track really moved: re-anchor without counting the jump.
                                    step = 0
                                }
                            }
                        }
                    }
                    glitches = 0
                    if !segmentOpen {
                        p.segmentStarts.append(kept)
                        segmentOpen = true
                    }
                    total += step
                    if t.isFinite {
                        if firstTime.isNaN { firstTime = t }
                        lastTime = t
                    }
                    dist[kept] = total
                    ela[kept] = t.isFinite ? t - firstTime : .nan
                    if kept != i, !mapped {
                        // The first point not at its own position: from here on, keep the map.
                        mapped = true
                        indices.reserveCapacity(n)
                        indices.append(contentsOf: 0..<kept)
                    }
                    if mapped { indices.append(i) }
                    kept += 1
                    anchor = i
                }
            }
        }}}}}}}
        if kept < n {
            distances.removeLast(n - kept); elapsed.removeLast(n - kept)
        }
        p.distances = distances
        p.elapsed = elapsed
        p.keptIndices = indices
        // Times before the first timestamp was seen were recorded as NaN above; fine.
        p.startEpoch = firstTime.isNaN ? nil : firstTime
        return p
    }

    /// The teleport speed limit for a sport as the file names it: `vehicleTeleportSpeed` for
    /// cycling and skiing, `teleportSpeed` for everything else (an unknown sport counts as running).
    public static func teleportSpeed(forSport sport: String?) -> Double {
        switch Sport.normalise(sport) {
        case "cycling", "skiing": return vehicleTeleportSpeed
        default: return teleportSpeed
        }
    }

    /// The `dropped` reason of the timestamps of a partly timed track (see `untimeIfPartlyTimed`).
    public static let partialTimestampsReason = "partial timestamps"

    /// A track whose timestamps do not span its distance is treated as untimed: a distance over
    /// all points is never paired with a time over a few (a GPX with times on 5 of 296 points
    /// read as 4.58 km in 57 s). The timestamps span the distance when the distance before the
    /// first timed point and after the last one is at most `partialTimestampsAllowance` of the
    /// total (1%, and 10 m at least); times on only some of the points in between are fine
    /// (splits and efforts interpolate across them). Untimed, the run keeps its distance and has
    /// no elapsed, timer or moving time, splits or efforts; it keeps its start only when its
    /// first point is timed. The timestamps left out count under `partialTimestampsReason`.
    /// Returns true when it untimed the profile. Looks only at the timed ends (O(1) usually).
    @discardableResult
    public static func untimeIfPartlyTimed(_ profile: inout Profile) -> Bool {
        let n = profile.count
        guard n >= 2 else { return false }
        var first = 0, last = n - 1
        while first < n, !profile.elapsed[first].isFinite { first += 1 }
        guard first < n else { return false }
        while !profile.elapsed[last].isFinite { last -= 1 }
        let total = profile.totalDistance
        let outside = total - (profile.distances[last] - profile.distances[first])
        guard outside > max(10, total * partialTimestampsAllowance) else { return false }
        var timed = 0
        for k in first...last where profile.elapsed[k].isFinite { timed += 1 }
        profile.dropped[partialTimestampsReason, default: 0] += timed
        profile.elapsed = [Double](repeating: .nan, count: n)
        if first != 0 { profile.startEpoch = nil }
        return true
    }

    /// The share of the distance that may lie outside the timed span (see `untimeIfPartlyTimed`).
    public static let partialTimestampsAllowance = 0.01

    /// Naismith's rule: a metre of climb takes as long as `movingClimbFactor` (8) metres on the flat (an
    /// hour for 600 m up, as for 4.8 km along). See `times(of:pauses:climb:)`.
    public static let movingClimbFactor = 8.0
    /// m/s: a step slower than this (0.1 m/s, 360 m an hour) is a stop whatever its climb.
    public static let movingMinimumProgress = 0.1

    /// Elapsed, timer and moving seconds of a profile (nil without times).
    ///
    /// A step between two timed points of a segment, lasting at most `movingMaxStep`, is **moving** when
    /// the runner covered at least `movingSpeedThreshold` (0.5 m/s) along the ground, or, climbing, when
    /// the step made some progress (at least `movingMinimumProgress`, 0.1 m/s) and its distance plus
    /// `movingClimbFactor` (8) times its climb does (Naismith's equivalence of climb and distance): a
    /// runner going up a 30% slope at 0.3 m/s climbs 0.09 m/s, worth 1 m/s on the flat. The climb is the
    /// rise of the 30-s mean elevation (`ClimbProfile.meanElevation(at:)`) over the step, so that a barometer's
    /// decimetre steps and GPS altitude's scatter do not read as climbing; a descent adds nothing. Without
    /// `climb` (or elevations) only the distance counts. Stops are stops: standing, the runner covers less
    /// than 0.1 m/s, whatever the altitude does. A point at exactly the position of the point before it is
    /// no new fix (receivers that write every second but fix less often repeat the last position), so
    /// the steps up to the next point that moved are judged together, as one step over their joint span;
    /// a stop recorded as one repeated position lasts longer than `movingMaxStep` and stays a stop.
    public static func times(of profile: Profile, pauses: [Pause] = [], climb: ClimbProfile? = nil) -> (elapsed: Double?, timer: Double?, moving: Double?) {
        var first = Double.nan, last = Double.nan
        var timer = 0.0, moving = 0.0
        let starts = profile.segmentStarts + [profile.count]
        let climb = climb ?? ClimbProfile()
        let climbing = climb.hasElevations
        let levelChanges = climb.levelChanges
        var levelCursor = 0
        for s in 0..<(starts.count - 1) {
            var segFirst = Double.nan, segLast = Double.nan
            var prevK = -1
            for k in starts[s]..<starts[s + 1] {
                let t = profile.elapsed[k]
                guard t.isFinite else { continue }
                if first.isNaN { first = t }
                last = t
                if segFirst.isNaN { segFirst = t }
                segLast = t
                if prevK >= 0 {
                    let dt = t - profile.elapsed[prevK]
                    let dd = profile.distances[k] - profile.distances[prevK]
                    // The same position again: no new fix yet (a receiver repeating its last fix between
                    // updates). The step is judged with the next one that moves, over their joint span.
                    if dd == 0 { continue }
                    if dt > 0, dt <= movingMaxStep {
                        if dd >= movingSpeedThreshold * dt {
                            moving += dt
                        } else if climbing, dd >= movingMinimumProgress * dt {
                            // A level change (`ClimbProfile.levelChanges`) between the two is no climb.
                            while levelCursor < levelChanges.count, levelChanges[levelCursor] <= prevK { levelCursor += 1 }
                            let across = levelCursor < levelChanges.count && levelChanges[levelCursor] <= k
                            let rise = across ? 0 : climb.meanElevation(at: k) - climb.meanElevation(at: prevK)
                            if rise > 0, dd + movingClimbFactor * rise >= movingSpeedThreshold * dt { moving += dt }
                        }
                    }
                }
                prevK = k
            }
            if segFirst.isFinite { timer += segLast - segFirst }
        }
        guard first.isFinite, let start = profile.startEpoch else { return (nil, nil, nil) }
        // Subtract device timer pauses that fall inside the recorded span.
        var paused = 0.0
        for pause in pauses {
            let a = max(pause.from - start, first), b = min(pause.to - start, last)
            if b > a { paused += b - a }
        }
        return (last - first, max(0, timer - paused), moving)
    }
}

extension RunAnalyzer {
    /// The full summary of one track. `id` is the run's id in the output; `zoneOffsetSeconds`
    /// gives the local date when the file carried no UTC offset of its own; nil leaves the local
    /// date to the caller (`RunFolder` gives it from the user's zone at the run's start).
    public func summarize(_ track: Track, id: String, zoneOffsetSeconds: Int? = 0) -> RunSummary {
        var track = track
        // Every reader's numbers checked once, before anything computes with them (nan, ±inf, 1e308, year 9999).
        track.dropImplausible()
        RunAnalyzer.removeClockJumps(from: &track)
        var profile = RunAnalyzer.profile(of: track)
        RunAnalyzer.untimeIfPartlyTimed(&profile)
        let series = TimedSeries(profile)
        // The efforts need the series only: on a long run most of their search runs on a second thread
        // while this one makes the rest of the summary.
        var made: (summary: RunSummary, startEpoch: Double?, elapsed: Double?)?
        let efforts = RunAnalyzer.efforts(of: series, alongside: {
            made = mostOfSummary(of: track, profile: &profile, series: series, id: id, zoneOffsetSeconds: zoneOffsetSeconds)
        })
        guard let parts = made else { preconditionFailure("bestEfforts runs its alongside work") }
        var summary = parts.summary
        let startEpoch = parts.startEpoch, elapsed = parts.elapsed
        summary.efforts = efforts
        summary.dropped = profile.dropped.sorted { $0.key < $1.key }.map { Dropped(reason: $0.key, count: $0.value) }
        if includeRoutes { summary.route = RouteTrace.make(track: track, profile: profile) }
        if !measures.isEmpty {
            var localDate = summary.localDate, offset = summary.localOffsetSeconds
            if localDate == nil, let zone, let epoch = startEpoch {
                let seconds = track.utcOffsetSeconds ?? zone.secondsFromGMT(for: Date(timeIntervalSince1970: epoch))
                localDate = Timestamps.date(epoch, offsetSeconds: seconds)
                offset = seconds
            }
            summary.measures = RunAnalyzer.measures(
                measures, plan: plan, track: track, profile: profile, series: series, startEpoch: startEpoch, elapsed: elapsed,
                localDate: localDate, offsetSeconds: offset)
        }
        return summary
    }

    /// Everything of a run's summary but its efforts and dropped points (which `profile` collects:
    /// the elevation's spikes are added here), with the start and elapsed time the measures need.
    private func mostOfSummary(of track: Track, profile: inout Profile, series: TimedSeries, id: String,
                               zoneOffsetSeconds: Int?) -> (summary: RunSummary, startEpoch: Double?, elapsed: Double?) {
        let climb = RunAnalyzer.climbProfile(of: track, profile: profile)
        var (elapsed, timer, moving) = RunAnalyzer.times(of: profile, pauses: track.pauses, climb: climb)
        var startEpoch = profile.startEpoch
        // Records dropped for want of a position still tell when the run started and ended.
        if let keptStart = profile.startEpoch, let keptElapsed = elapsed,
           let first = track.recordedFirstTime, let last = track.recordedLastTime {
            let start = min(first, keptStart), end = max(last, keptStart + keptElapsed)
            startEpoch = start
            elapsed = end - start
        }
        var summary = RunSummary(
            id: id,
            start: startEpoch.map(Timestamps.iso8601),
            startEpochSeconds: startEpoch,
            utcOffsetSeconds: track.utcOffsetSeconds,
            localDate: zoneOffsetSeconds.flatMap { zone in
                startEpoch.map { Timestamps.date($0, offsetSeconds: track.utcOffsetSeconds ?? zone) }
            },
            name: track.name,
            sport: Sport.normalise(track.sport),
            format: track.format.rawValue,
            points: profile.count,
            distanceMeters: profile.totalDistance,
            elapsedSeconds: elapsed,
            timerSeconds: timer,
            movingSeconds: moving,
            deviceDistanceMeters: track.deviceDistanceMeters
        )
        summary.deviceTimerSeconds = track.deviceTimerSeconds
        summary.deviceElapsedSeconds = track.deviceElapsedSeconds
        summary.deviceAscentMeters = track.deviceAscentMeters
        summary.deviceDescentMeters = track.deviceDescentMeters
        summary.deviceMovingSeconds = track.deviceMovingSeconds
        summary.deviceAverageHeartRate = track.deviceAverageHeartRate
        summary.deviceMaximumHeartRate = track.deviceMaximumHeartRate
        summary.deviceLaps = track.deviceLapCount
        summary.gps = track.hasPositions
        summary.indoor = track.indoor ?? (Sport.isIndoorWord(track.sport) ? true : nil)
        summary.manual = false
        summary.device = track.device
        summary.laps = track.laps.enumerated().map { RunLap(index: $0.offset + 1, lap: $0.element, runStart: startEpoch) }
        if let zone = zoneOffsetSeconds, let epoch = startEpoch {
            let offset = track.utcOffsetSeconds ?? zone
            summary.localOffsetSeconds = offset
            summary.zoneSource = track.utcOffsetSeconds == nil ? "tz" : "file"
            summary.localStart = Timestamps.localTime(epoch, offsetSeconds: offset)
        }
        summary.splitsKilometre = RunAnalyzer.splits(of: series, unitMeters: 1000)
        summary.splitsMile = RunAnalyzer.splits(of: series, unitMeters: Units.metresPerMile)
        summary.checkpoints = checkpoints(of: track, profile: profile, series: series)
        summary.elevation = RunAnalyzer.elevation(of: track, profile: profile, climb: climb)
        if !climb.spikes.isEmpty { profile.dropped[RunAnalyzer.elevationSpikeReason, default: 0] += climb.spikes.count }
        summary.heartRate = RunAnalyzer.sensorStats(track.heartRates, profile: profile, ignoreNonPositive: true)
        summary.cadence = RunAnalyzer.sensorStats(track.cadences, profile: profile, ignoreNonPositive: false)
        return (summary, startEpoch, elapsed)
    }
}
