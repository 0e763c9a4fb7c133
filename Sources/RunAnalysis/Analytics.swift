import RunFiles

/// Figures derived from a `Profile`: splits, fastest efforts, checkpoints and sensors (elevation: `Climb.swift`).
///
/// Everything here reads the cleaned series `RunAnalyzer.profile(of:)` builds, so GPS teleports,
/// backwards timestamps and the gaps between segments are already dealt with: no distance is
/// counted across a gap, but time keeps running through it.
extension RunAnalyzer {
    /// Distances closer than this (metres) are equal: a run summing to 4999.9999999 m has run 5 km.
    static let distanceTolerance = 1e-6

    /// Seconds: a window whose lower bound beats the best by less than this is still computed in
    /// full (covers the rounding of an interpolated start; see `fastestEfforts`).
    static let effortPruneMargin = 1e-6

    // MARK: Splits

    /// Splits of `unitMeters` (1000 for kilometres, `Units.metresPerMile` for miles).
    ///
    /// Computed over the points that have a time: the time at each whole unit is interpolated
    /// linearly in elapsed time over cumulative distance, at the first moment the distance is
    /// reached. Distance is counted from the first timed point (the start in any file with
    /// times). When the run goes on past its last whole unit, a last split with `partial = true`
    /// carries the remaining distance and time. A run without times (or without distance) has none.
    public static func splits(of profile: Profile, unitMeters: Double) -> [Split] {
        splits(of: TimedSeries(profile), unitMeters: unitMeters)
    }

    static func splits(of series: TimedSeries, unitMeters: Double) -> [Split] {
        let n = series.count
        guard n >= 2, unitMeters > 0 else { return [] }
        let d0 = series.distances[0], t0 = series.elapsed[0]
        let total = series.distances[n - 1] - d0
        // A distance no run has (a damaged total, millions of splits) gives none rather than trapping.
        guard total > distanceTolerance, total.isFinite, total / unitMeters < 10_000_000 else { return [] }
        let whole = Int(((total + distanceTolerance) / unitMeters).rounded(.down))
        var result: [Split] = []
        result.reserveCapacity(whole + 1)
        var previous = 0.0
        var cursor = 1
        if whole >= 1 {
            for k in 1...whole {
                let at = series.elapsed(atDistance: d0 + Double(k) * unitMeters, cursor: &cursor) - t0
                result.append(Split(index: k, distanceMeters: unitMeters, elapsedSeconds: at - previous, cumulativeSeconds: at, partial: false))
                previous = at
            }
        }
        let remainder = total - Double(whole) * unitMeters
        if remainder > distanceTolerance {
            let at = series.elapsed[n - 1] - t0
            result.append(Split(index: whole + 1, distanceMeters: remainder, elapsedSeconds: at - previous, cumulativeSeconds: at, partial: true))
        }
        return result
    }

    // MARK: Efforts

    /// The fastest stretch of each of `Effort.standardDistances` the run is long enough for that
    /// spans no stop longer than `maxStopSeconds` (a run's own efforts: `effortMaxStopSeconds`;
    /// nil allows any stop; see `stretches(of:maxStopSeconds:)` for what a stop is).
    public static func efforts(of profile: Profile, maxStopSeconds: Double? = effortMaxStopSeconds) -> [Effort] {
        bestEfforts(in: TimedSeries(profile), Effort.standardDistances, maxStopSeconds: maxStopSeconds)
    }

    /// A run's own efforts (`efforts(of:)`), with `here` run meanwhile on this thread (see
    /// `bestEfforts(in:_:maxStopSeconds:parallelAbove:alongside:)`).
    static func efforts(of series: TimedSeries, alongside here: () -> Void) -> [Effort] {
        bestEfforts(in: series, Effort.standardDistances, maxStopSeconds: effortMaxStopSeconds, alongside: here)
    }

    /// Seconds: the longest stop an effort may span (see `stretches(of:maxStopSeconds:)`).
    public static let effortMaxStopSeconds = 120.0

    /// The fastest window of each distance that spans no stop longer than `maxStopSeconds`
    /// (nil: any stop): `fastestEfforts` over each stretch between such stops, the best of them
    /// kept (the earliest of equal ones). A run with no such stop is searched in one pass, as before.
    /// The stretches' efforts are matched to `wanted` by position, not by name: the measures ask for
    /// several distances under one name (`age_grade` names them all ""), which matched by name gave
    /// every distance the fastest effort of any of them.
    /// Runs of at least `parallelAbove` timed points (`parallelEffortPoints` unless a test says) share
    /// the search between two threads.
    static func bestEfforts(in series: TimedSeries, _ wanted: [(name: String, meters: Double)], maxStopSeconds: Double?,
                            parallelAbove: Int = parallelEffortPoints) -> [Effort] {
        // Each distance's search is its own (pointers, best), so the distances can be shared out:
        // every other one on a second thread, the same result as one thread's.
        bestEfforts(in: series, wanted, maxStopSeconds: maxStopSeconds, parallelAbove: parallelAbove, onSecondThread: { $0 % 2 == 1 }, alongside: {})
    }

    /// `bestEfforts`, with `here` run on this thread meanwhile (the rest of a run's summary): on a long
    /// run all distances but the second of `wanted` (of the standard ones, 1 km) are searched on a
    /// second thread, and this one runs `here`, then searches that one. On a short run `here` runs
    /// first, then the search.
    ///
    /// Why one: the rest of the summary costs about what four distances' search does, so with two of
    /// seven distances this thread finished last (a per-thread profile of the 100k-record FIT summary:
    /// 163 samples here against 125 there); with one, 3-9 % less wall for the GPX and FIT benchmark
    /// files (four pairings), and with none the second thread finishes last (BENCHMARKS.md, issue F, tenth round).
    static func bestEfforts(in series: TimedSeries, _ wanted: [(name: String, meters: Double)], maxStopSeconds: Double?,
                            parallelAbove: Int = parallelEffortPoints, alongside here: () -> Void) -> [Effort] {
        bestEfforts(in: series, wanted, maxStopSeconds: maxStopSeconds, parallelAbove: parallelAbove, onSecondThread: { $0 != 1 }, alongside: here)
    }

    /// The distances of `wanted` at the places `onSecondThread` picks are searched on a second thread
    /// when the run has `parallelAbove` timed points or more (and both threads have some); the same
    /// efforts as one thread's, in `wanted`'s order.
    private static func bestEfforts(in series: TimedSeries, _ wanted: [(name: String, meters: Double)], maxStopSeconds: Double?,
                                    parallelAbove: Int, onSecondThread: (Int) -> Bool, alongside here: () -> Void) -> [Effort] {
        // A run with no such stop is searched whole, without making its one stretch: an array of
        // `Range<Int>` makes the runtime look `Int: Comparable` up through every conformance record
        // of the static binary on its first use in a process (0.15 ms of a one-file `summarize`).
        let stops = maxStopSeconds.map { series.count >= 2 ? stopRanges(of: series, maxStopSeconds: $0) : [] } ?? []
        let theirs = wanted.indices.filter(onSecondThread), mine = wanted.indices.filter { !onSecondThread($0) }
        guard series.count >= parallelAbove, !theirs.isEmpty else {
            here()
            return bestEfforts(in: series, wanted, stops: stops).compactMap { $0 }
        }
        var hereBest: [Effort?] = [], sideBest: [Effort?] = []
        PlacedThread.run({ sideBest = bestEfforts(in: series, theirs.map { wanted[$0] }, stops: stops) },
                         alongside: {
                             here()
                             hereBest = bestEfforts(in: series, mine.map { wanted[$0] }, stops: stops)
                         })
        var best = [Effort?](repeating: nil, count: wanted.count)
        for (k, index) in theirs.enumerated() { best[index] = sideBest[k] }
        for (k, index) in mine.enumerated() { best[index] = hereBest[k] }
        return best.compactMap { $0 }
    }

    /// Runs of at least this many timed points have their effort search shared between two threads
    /// (`bestEfforts`): 100,000 points took 3.7 ms on one (BENCHMARKS.md, issue F, eighth round),
    /// and a thread costs some 0.1 ms to start.
    static let parallelEffortPoints = 50_000

    /// The fastest window of each of `wanted` (nil where the run has none) that crosses none of
    /// `stops` (`stopRanges`' result): `fastestEfforts` over each stretch between them, the best
    /// of them kept (the earliest of equal ones).
    static func bestEfforts(in series: TimedSeries, _ wanted: [(name: String, meters: Double)],
                            stops: [(start: Int, end: Int)]) -> [Effort?] {
        guard !stops.isEmpty else { return fastestEfforts(in: series, wanted) }
        var best = [Effort?](repeating: nil, count: wanted.count)
        for piece in stretches(count: series.count, between: stops) where piece.count >= 2 {
            let part = TimedSeries(distances: Array(series.distances[piece]), elapsed: Array(series.elapsed[piece]))
            for (index, effort) in fastestEfforts(in: part, wanted).enumerated() {
                guard let effort else { continue }
                if best[index].map({ effort.elapsedSeconds < $0.elapsedSeconds }) ?? true { best[index] = effort }
            }
        }
        return best
    }

    /// The stretches of a timed series between its stops longer than `maxStopSeconds`.
    ///
    /// A stop is a stretch of at least `maxStopSeconds` over which the average speed is below
    /// `movingSpeedThreshold` (0.5 m/s): standing at a crossing for two minutes, a standing rest
    /// between intervals, or a recording gap during which the runner did not get anywhere. The
    /// average over the whole stretch (not each step) keeps GPS jitter while standing from
    /// breaking a stop into short ones. Every window of at least `maxStopSeconds` starting at a
    /// recorded point is tested (two pointers, O(n)); overlapping stopped windows merge into one
    /// stop, trimmed at either end to its first and last slow step (below the threshold), and the
    /// stretches run from one stop's last point to the next stop's first, so an
    /// effort may start or end at a stop but never cross one. A stop shorter than the limit (a
    /// traffic light) does not cut: a window over it is merely slower, as the runner's was.
    static func stretches(of series: TimedSeries, maxStopSeconds: Double) -> [Range<Int>] {
        let n = series.count
        guard n >= 2 else { return [0..<n] }
        return stretches(count: n, between: stopRanges(of: series, maxStopSeconds: maxStopSeconds))
    }

    /// The stretches of a series of `n` points between `stops` (`stopRanges`' result).
    static func stretches(count n: Int, between stops: [(start: Int, end: Int)]) -> [Range<Int>] {
        guard !stops.isEmpty else { return [0..<n] }
        var result: [Range<Int>] = []
        var pieceStart = 0
        for stop in stops {
            result.append(pieceStart..<(stop.start + 1))
            pieceStart = stop.end
        }
        result.append(pieceStart..<n)
        return result
    }

    /// The stops of `stretches(of:maxStopSeconds:)`, each from its first slow point to its last (the
    /// stop lasts `elapsed[end] - elapsed[start]`), in order.
    static func stopRanges(of series: TimedSeries, maxStopSeconds: Double) -> [(start: Int, end: Int)] {
        let n = series.count
        guard n >= 2 else { return [] }
        // The stops, merged, as point ranges (state local to the loop: no captured variables).
        let stops = series.distances.withUnsafeBufferPointer { d in
            series.elapsed.withUnsafeBufferPointer { t -> [(start: Int, end: Int)] in
                var stops: [(start: Int, end: Int)] = []
                var stopStart = -1, stopEnd = -1
                var j = 0
                for i in 0..<(n - 1) {
                    if j <= i { j = i + 1 }
                    let ti = t[i]
                    while j < n - 1, t[j] - ti < maxStopSeconds { j += 1 }
                    let span = t[j] - ti
                    guard span >= maxStopSeconds, d[j] - d[i] < movingSpeedThreshold * span else { continue }
                    if stopStart >= 0, i <= stopEnd {
                        stopEnd = max(stopEnd, j)
                    } else {
                        if stopStart >= 0 { stops.append((stopStart, stopEnd)) }
                        stopStart = i; stopEnd = j
                    }
                }
                if stopStart >= 0 { stops.append((stopStart, stopEnd)) }
                return stops
            }
        }
        guard !stops.isEmpty else { return [] }
        // The stopped windows reach into the running on either side (a window is stopped as soon
        // as its average is slow): each stop is trimmed to its slow steps, so the efforts on
        // either side keep every metre run.
        let d = series.distances, t = series.elapsed
        func moving(_ k: Int) -> Bool {
            let dt = t[k + 1] - t[k]
            return dt <= 0 || d[k + 1] - d[k] >= movingSpeedThreshold * dt
        }
        return stops.map { stop in
            var a = stop.start, b = stop.end
            while a < b, moving(a) { a += 1 }
            while b > a, moving(b - 1) { b -= 1 }
            return (a, b)
        }
    }

    /// The shortest time over any contiguous window of `meters` of cumulative distance, or nil
    /// when the timed part of the run is shorter than that.
    ///
    /// Two families of windows are searched, each in one two-pointer pass (O(n)): windows that
    /// start at a recorded point and end where the distance is interpolated, and windows that end
    /// at a recorded point and start where it is interpolated. The start is the last moment at
    /// the start distance, the end the first moment at the end distance. A window may span the
    /// gap between two segments: no distance is added there while time runs on, so such a window
    /// is merely slower (as in the reference tools). Of equally fast windows the first found is
    /// kept (first family, then second, each in order).
    ///
    /// `maxStopSeconds` keeps windows from spanning a stop longer than that (see
    /// `stretches(of:maxStopSeconds:)`; a run's own efforts use `effortMaxStopSeconds`); nil
    /// allows any stop.
    public static func fastestEffort(in profile: Profile, name: String, meters: Double, maxStopSeconds: Double? = nil) -> Effort? {
        bestEfforts(in: TimedSeries(profile), [(name, meters)], maxStopSeconds: maxStopSeconds).first
    }

    /// `fastestEffort` for several distances at once: one per distance of `wanted`, in its order,
    /// nil where the run is not long enough for it.
    ///
    /// Each distance has its own pointers and best, and sees the points in the same order as a
    /// pass of its own would, so the result is the same as searching one distance at a time. The
    /// distances are interleaved point by point because each pointer walk is a chain of dependent
    /// loads: several independent chains keep the processor busy where one would leave it waiting.
    /// Two shortcuts leave the result unchanged: a window whose lower bound (the time between its
    /// recorded neighbours) is already no better than the best is not interpolated; and a pointer
    /// moves up to three points by one comparison each, without a branch per point.
    static func fastestEfforts(in series: TimedSeries, _ wanted: [(name: String, meters: Double)]) -> [Effort?] {
        let n = series.count
        var result = [Effort?](repeating: nil, count: wanted.count)
        guard n >= 2 else { return result }
        let tolerance = distanceTolerance
        series.distances.withUnsafeBufferPointer { d in
            series.elapsed.withUnsafeBufferPointer { t in
                let span = d[n - 1] - d[0]
                // The distances the run is long enough for, by their places in `wanted`.
                let searched = wanted.indices.filter { wanted[$0].meters > 0 && span + tolerance >= wanted[$0].meters }
                let m = searched.count
                guard m > 0 else { return }
                let meters = UnsafeMutableBufferPointer<Double>.allocate(capacity: m)
                let best = UnsafeMutableBufferPointer<Double>.allocate(capacity: m)
                let bestStartDistance = UnsafeMutableBufferPointer<Double>.allocate(capacity: m)
                let bestStartTime = UnsafeMutableBufferPointer<Double>.allocate(capacity: m)
                let pointer = UnsafeMutableBufferPointer<Int>.allocate(capacity: m)
                let active = UnsafeMutableBufferPointer<Bool>.allocate(capacity: m)
                defer {
                    meters.deallocate(); best.deallocate(); bestStartDistance.deallocate()
                    bestStartTime.deallocate(); pointer.deallocate(); active.deallocate()
                }
                for q in 0..<m {
                    meters[q] = wanted[searched[q]].meters
                    best[q] = .infinity; bestStartDistance[q] = 0; bestStartTime[q] = 0
                    pointer[q] = 1; active[q] = true
                }

                // Start at point i, end interpolated at d[i] + meters.
                var remaining = m
                var i = 0
                while i < n - 1, remaining > 0 {
                    let di = d[i], ti = t[i]
                    for q in 0..<m where active[q] {
                        let target = di + meters[q]
                        let limit = target - tolerance
                        // The end: the first point at or past the target, give or take the tolerance.
                        var j = max(pointer[q], i + 1)
                        if j + 2 < n {
                            let c1 = d[j] < limit, c2 = d[j + 1] < limit, c3 = d[j + 2] < limit
                            j += (c1 ? 1 : 0) + (c2 ? 1 : 0) + (c3 ? 1 : 0)
                            if c3 { while j < n, d[j] < limit { j += 1 } }
                        } else {
                            while j < n, d[j] < limit { j += 1 }
                        }
                        let end: Double
                        if j == n {
                            // Past the end; only a rounding hair short is still a window.
                            guard target - d[n - 1] <= tolerance else {
                                active[q] = false
                                remaining -= 1
                                pointer[q] = j
                                continue
                            }
                            end = t[n - 1]
                            j = n - 1
                        } else {
                            // d[j - 1] < target <= d[j], give or take the tolerance. The window ends
                            // no earlier than t[a] (times never decrease, the interpolation is
                            // clamped, IEEE rounding is monotonic): if that is no better, skip.
                            let a = j - 1
                            if t[a] - ti >= best[q] {
                                pointer[q] = j
                                continue
                            }
                            end = t[a] + (t[j] - t[a]) * min(1, max(0, (target - d[a]) / (d[j] - d[a])))
                        }
                        pointer[q] = j
                        let time = end - ti
                        if time < best[q] { best[q] = time; bestStartDistance[q] = di; bestStartTime[q] = ti }
                    }
                    i += 1
                }

                // End at point k, start interpolated at d[k] - meters.
                for q in 0..<m { pointer[q] = 0 }
                let first = d[0]
                for k in 1..<n {
                    let dk = d[k], tk = t[k]
                    for q in 0..<m {
                        let target = dk - meters[q]
                        if target < first - tolerance { continue }
                        var i = pointer[q]
                        let startDistance: Double, start: Double
                        if target <= first {
                            startDistance = first
                            // The last moment still at the first distance.
                            while i + 1 < k, d[i + 1] <= first + tolerance { i += 1 }
                            start = t[i]
                        } else {
                            // The start: the last point at or before the target, give or take the tolerance.
                            let limit = target + tolerance
                            if i + 3 < k {
                                let c1 = d[i + 1] <= limit, c2 = d[i + 2] <= limit, c3 = d[i + 3] <= limit
                                i += (c1 ? 1 : 0) + (c2 ? 1 : 0) + (c3 ? 1 : 0)
                                if c3 { while i + 1 < k, d[i + 1] <= limit { i += 1 } }
                            } else {
                                while i + 1 < k, d[i + 1] <= limit { i += 1 }
                            }
                            // d[i] <= target < d[i + 1], give or take the tolerance (d[k] > target).
                            // The window starts no later than t[b], give or take a rounding of the
                            // interpolation (hence the margin, far below any time that matters).
                            let b = i + 1
                            if tk - t[b] > best[q] + effortPruneMargin {
                                pointer[q] = i
                                continue
                            }
                            startDistance = target
                            start = t[i] + (t[b] - t[i]) * min(1, max(0, (target - d[i]) / (d[b] - d[i])))
                        }
                        pointer[q] = i
                        let time = tk - start
                        if time < best[q] { best[q] = time; bestStartDistance[q] = startDistance; bestStartTime[q] = start }
                    }
                }
                for q in 0..<m where best[q].isFinite {
                    result[searched[q]] = Effort(
                        name: wanted[searched[q]].name, distanceMeters: meters[q], elapsedSeconds: best[q],
                        startDistanceMeters: bestStartDistance[q], startElapsedSeconds: bestStartTime[q])
                }
            }
        }
        return result
    }

    // MARK: Checkpoints

    /// Where the route passed each of `checkpoints`.
    ///
    /// A checkpoint is passed when the run's distance reaches it (total ≥ distance, within a
    /// micrometre), even though a badge for that distance is earned only beyond it. Its position
    /// is interpolated linearly between the two kept points around the distance (the first
    /// moment the distance is reached); a 0 m target sits at the start point. Latitude and
    /// longitude are nil for a track without positions; elapsed is nil when the distance falls
    /// outside the timed part of the run.
    public func checkpoints(of track: Track, profile: Profile) -> [Checkpoint] {
        checkpoints(of: track, profile: profile, series: TimedSeries(profile))
    }

    func checkpoints(of track: Track, profile: Profile, series: TimedSeries) -> [Checkpoint] {
        guard profile.count > 0 else { return [] }
        let total = profile.totalDistance
        var result: [Checkpoint] = []
        for target in checkpoints where target.distanceMeters <= total + RunAnalyzer.distanceTolerance {
            let meters = max(0, target.distanceMeters)
            let k = min(RunAnalyzer.firstIndex(in: profile.distances, atLeast: meters - RunAnalyzer.distanceTolerance), profile.count - 1)
            var latitude: Double?, longitude: Double?
            if track.hasPositions {
                let here = profile.pointIndex(k)
                if k == 0 || profile.distances[k] <= meters {
                    latitude = track.latitudes[here]; longitude = track.longitudes[here]
                } else {
                    let before = profile.pointIndex(k - 1)
                    let d0 = profile.distances[k - 1], d1 = profile.distances[k]
                    let f = min(1, max(0, (meters - d0) / (d1 - d0)))
                    let lat0 = track.latitudes[before], lon0 = track.longitudes[before]
                    var dLon = track.longitudes[here] - lon0
                    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
                    var lon = lon0 + f * dLon
                    if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                    latitude = lat0 + f * (track.latitudes[here] - lat0)
                    longitude = lon
                }
                if !(latitude?.isFinite ?? false) || !(longitude?.isFinite ?? false) { latitude = nil; longitude = nil }
            }
            var elapsed: Double?
            let m = series.count
            if m > 0, meters >= series.distances[0] - RunAnalyzer.distanceTolerance,
                meters <= series.distances[m - 1] + RunAnalyzer.distanceTolerance
            {
                var cursor = min(max(1, RunAnalyzer.firstIndex(in: series.distances, atLeast: meters - RunAnalyzer.distanceTolerance)), m - 1)
                elapsed = m == 1 ? series.elapsed[0] : series.elapsed(atDistance: meters, cursor: &cursor)
            }
            result.append(Checkpoint(
                badge: target.badge, name: target.name, distanceMeters: target.distanceMeters,
                latitude: latitude, longitude: longitude, elapsedSeconds: elapsed))
        }
        return result
    }

    /// The first index whose value is ≥ `value` in a non-decreasing array (`count` when none).
    static func firstIndex(in values: [Double], atLeast value: Double) -> Int {
        values.partitioningIndex { $0 >= value }
    }

    // MARK: Sensors

    /// Average and maximum of a sensor column over the kept points, the average weighted by time.
    ///
    /// Each reading stands for the time around it: half the step to the previous reading and
    /// half the step to the next one (readings of the same channel; a point without a reading is
    /// skipped, not counted as zero), each half at most `sensorHalfStepCap` (30 s), so smart
    /// recording's irregular samples weigh by the time they cover while a pause or a gap in the
    /// channel (a strap losing contact) counts no more than 30 s on either side. When a reading
    /// has no time, or all readings share one instant, every reading weighs the same; `weighting` says
    /// which it was (`time`, `sample`).
    /// Non-finite values are absent; with `ignoreNonPositive` so are 0 and below (a heart rate of
    /// 0 is a strap without contact, not a reading). Nil when no point has a value.
    public static func sensorStats(_ values: [Double], profile: Profile, ignoreNonPositive: Bool) -> SensorStats? {
        guard !values.isEmpty else { return nil }
        var sum = 0.0, count = 0, maximum = -Double.infinity
        var weighted = 0.0, weights = 0.0, allTimed = true
        var previousValue = Double.nan, previousTime = Double.nan
        let cap = sensorHalfStepCap
        values.withUnsafeBufferPointer { v in
            profile.elapsed.withUnsafeBufferPointer { e in
                for k in 0..<profile.count {
                    let i = profile.pointIndex(k)
                    guard i < v.count else { continue }
                    let x = v[i]
                    guard x.isFinite, !(ignoreNonPositive && x <= 0) else { continue }
                    sum += x; count += 1
                    if x > maximum { maximum = x }
                    let t = e[k]
                    if t.isFinite {
                        if previousTime.isFinite {
                            let half = min(cap, max(0, t - previousTime) / 2)
                            weighted += half * (previousValue + x); weights += 2 * half
                        }
                        previousValue = x; previousTime = t
                    } else {
                        allTimed = false
                    }
                }
            }
        }
        guard count > 0 else { return nil }
        let byTime = allTimed && weights > 0
        return SensorStats(average: byTime ? weighted / weights : sum / Double(count), maximum: maximum, weighting: byTime ? .time : .sample)
    }

    /// Seconds: the most a sensor reading weighs on either side of it (see `sensorStats`).
    public static let sensorHalfStepCap = 30.0
}

/// The points of a profile that have a time: cumulative distance and elapsed seconds, both
/// non-decreasing (the profile dropped backwards timestamps).
struct TimedSeries {
    var distances: [Double] = []
    var elapsed: [Double] = []

    init(_ profile: Profile) {
        // Usually every kept point has a time: then the profile's own arrays are shared, not copied.
        let allTimed = profile.elapsed.withUnsafeBufferPointer { e in
            var finite = true
            for x in e { finite = finite && x.isFinite }
            return finite
        }
        if allTimed {
            distances = profile.distances; elapsed = profile.elapsed
            return
        }
        distances.reserveCapacity(profile.count); elapsed.reserveCapacity(profile.count)
        for k in 0..<profile.count where profile.elapsed[k].isFinite {
            distances.append(profile.distances[k]); elapsed.append(profile.elapsed[k])
        }
    }

    init(distances: [Double], elapsed: [Double]) {
        self.distances = distances; self.elapsed = elapsed
    }

    var count: Int { distances.count }

    /// Elapsed seconds when `distance` was first reached, interpolated linearly. `cursor` must be
    /// ≥ 1 with `distances[cursor - 1] < distance` (less `distanceTolerance`); it is moved forward, so increasing distances
    /// cost O(n) in all. A distance beyond the end gives the last time.
    func elapsed(atDistance distance: Double, cursor: inout Int) -> Double {
        let n = count
        let tolerance = RunAnalyzer.distanceTolerance
        while cursor < n - 1, distances[cursor] < distance - tolerance { cursor += 1 }
        let j = cursor, a = j - 1
        if distances[j] < distance - tolerance { return elapsed[j] }
        let span = distances[j] - distances[a]
        guard span > 0 else { return elapsed[a] }
        return elapsed[a] + (elapsed[j] - elapsed[a]) * min(1, max(0, (distance - distances[a]) / span))
    }
}
