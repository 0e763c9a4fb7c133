import RunFiles

/// A run's elevations prepared for counting its climb and for telling slow climbing from standing:
/// what `RunAnalyzer.elevation` and `RunAnalyzer.times` read. Made once per summary
/// (`RunAnalyzer.climbProfile`); the parameters were chosen by measurement on the real files of the
/// shared reference set (docs/accuracy.md, "Device totals, climb and moving time").
///
/// 1. **Spikes.** Within a segment, a point whose elevation is more than `elevationSpikeMeters` (20 m)
///    from the last accepted one at more than `elevationSpikeSpeed` (5 m/s vertical) is a spike (a
///    barometer settling at the start, a GPS altitude glitch): its elevation is left out. After
///    `elevationSpikeMaxRun` (5) such points in a row the elevation really moved (a device re-setting its
///    altitude): the new level is accepted, and the jump to it is not counted. Untimed points are never
///    spikes (no speed to judge).
/// 2. **The 30-s mean.** The mean at k (`ClimbProfile.meanElevation(at:)`) is the mean of the accepted elevations of the timed points of k's
///    segment within `elevationMeanSeconds` (30 s) centred on k, the window narrowing towards the
///    segment's ends so as to stay centred (the recorded value for an untimed point).
/// 3. **Rough or smooth.** A barometric altimeter's readings lie within a few decimetres of their 30-s
///    mean; GPS altitude (a phone, a watch without barometer) scatters by metres. The recording is
///    `rough` when more than half of its timed elevations lie more than `elevationRoughMeters` × 0.6745
///    from their 30-s mean, i.e. when the robust scatter (1.4826 × the median absolute deviation) exceeds
///    `elevationRoughMeters` (1 m). The real files: barometric 0.16–0.42 m, the phone's GPS altitude
///    2.97 m.
/// 4. Climb and descent are counted (`RunAnalyzer.elevation`) on the 30-s mean when rough, on the
///    accepted elevations as recorded when smooth.
public struct ClimbProfile: Sendable {
    /// The recorded elevation of each kept point, `.nan` where it has none or was a spike (the track's own
    /// column, shared, when every point was kept and none was a spike). Empty when no kept point has one.
    public internal(set) var elevations: [Double] = []
    /// The centred 30-s mean elevation of each kept point when the recording is rough (its climb is
    /// counted on it), `.nan` where the point has no elevation; empty otherwise, where
    /// `meanElevation(at:)` computes the few values asked for (a run's slow steps) instead of keeping n.
    public internal(set) var mean: [Double] = []
    /// Kept points (profile indices, ascending) whose elevation was left out as a spike.
    public internal(set) var spikes: [Int] = []
    /// Kept points (ascending) where the elevation was accepted at a new level: counting starts again there.
    public internal(set) var levelChanges: [Int] = []
    /// True when the elevations scatter like GPS altitude (see above): climbs are counted on `mean`.
    public internal(set) var rough = false
    /// The pieces the mean and the count stay within (segments, split at level changes): their first
    /// points, then the count of points; and the first and last time of each piece's timed elevations.
    var pieces: [Int] = []
    var pieceFirstTime: [Double] = []
    var pieceLastTime: [Double] = []
    /// Whether every point of a piece has a time and an elevation (the usual case: no check per point).
    var pieceComplete: [Bool] = []
    /// The profile's elapsed times (shared, not copied).
    var times: [Double] = []

    public init() {}

    /// True when some kept point has an elevation.
    public var hasElevations: Bool { !elevations.isEmpty }

    /// The centred 30-s mean elevation at kept point `k` (`.nan` without an elevation there): `mean[k]`
    /// when kept, else the same window summed on demand.
    public func meanElevation(at k: Int) -> Double {
        if !mean.isEmpty { return mean[k] }
        guard k < elevations.count else { return .nan }
        let xk = elevations[k], tk = times[k]
        guard xk.isFinite else { return .nan }
        guard tk.isFinite else { return xk }
        let p = pieces.partitioningIndex { $0 > k } - 1
        let reach = min(RunAnalyzer.elevationMeanSeconds / 2, tk - pieceFirstTime[p], pieceLastTime[p] - tk)
        var sum = 0.0, count = 0
        var j = k
        while j >= pieces[p], !(times[j] < tk - reach) {
            if (elevations[j] + times[j]).isFinite { sum += elevations[j]; count += 1 }
            j -= 1
        }
        j = k + 1
        while j < pieces[p + 1], !(times[j] > tk + reach) {
            if (elevations[j] + times[j]).isFinite { sum += elevations[j]; count += 1 }
            j += 1
        }
        return sum / Double(count)
    }
}

extension RunAnalyzer {
    /// Metres: the smallest jump (and `elevationSpikeSpeed` the vertical speed, m/s) that makes a spike.
    public static let elevationSpikeMeters = 20.0
    public static let elevationSpikeSpeed = 5.0
    /// Spikes in a row after which the elevation is taken to have moved to a new level.
    public static let elevationSpikeMaxRun = 5
    /// Seconds: the width of the centred mean (`ClimbProfile.mean`).
    public static let elevationMeanSeconds = 30.0
    /// Metres: the robust scatter around the 30-s mean above which a recording is rough (GPS altitude).
    public static let elevationRoughMeters = 1.0
    /// Metres: the dead band of the climb count (see `elevation(of:profile:)`).
    public static let elevationDeadBandMeters = 3.0
    /// Metres: a dip below the last counted level smaller than this is noise, not the foot of a new climb
    /// (and a rise above the last counted descent level, not the top of a new descent).
    public static let elevationDipMeters = 0.5
    /// Metres: two elevations closer than this are equal in the count (a single-precision float written in
    /// full, `147.1999969482421875`, counts as the 147.2 a FIT file of the same run holds).
    static let elevationTolerance = 1e-3
    /// The `dropped` reason of the elevations left out as spikes (the points themselves are kept).
    public static let elevationSpikeReason = "elevation spike"

    /// The climb profile of a track's kept points (see `ClimbProfile`). O(n): one pass for the spikes,
    /// one for the scatter around the 30-s mean, and one more to keep the mean when the recording is rough.
    public static func climbProfile(of track: Track, profile: Profile) -> ClimbProfile {
        var climb = ClimbProfile()
        let n = profile.count
        guard n > 0, track.elevations.count == track.count else { return climb }
        let starts = profile.segmentStarts + [n]
        var any = false
        var complete = [Bool](repeating: true, count: starts.count - 1)
        let direct = profile.keptIndices.isEmpty
        track.elevations.withUnsafeBufferPointer { ele in
            profile.elapsed.withUnsafeBufferPointer { t in
                @inline(__always) func elevation(_ k: Int) -> Double { direct ? ele[k] : ele[profile.pointIndex(k)] }
                // 1. Spikes, against the last accepted elevation of the segment.
                for s in 0..<(starts.count - 1) {
                    var anchor = -1
                    var run = 0
                    for k in starts[s]..<starts[s + 1] {
                        let x = elevation(k)
                        guard (x + t[k]).isFinite else {
                            complete[s] = false
                            if !x.isFinite { continue }
                            any = true
                            anchor = k  // an untimed point: no speed to judge, it anchors what follows
                            run = 0
                            continue
                        }
                        any = true
                        if anchor >= 0, t[anchor].isFinite {
                            let jump = abs(x - elevation(anchor)), dt = t[k] - t[anchor]
                            if jump > elevationSpikeMeters, dt <= 0 || jump / dt > elevationSpikeSpeed {
                                run += 1
                                if run <= elevationSpikeMaxRun {
                                    climb.spikes.append(k)
                                    complete[s] = false
                                    continue
                                }
                                climb.levelChanges.append(k)
                            }
                        }
                        run = 0
                        anchor = k
                    }
                }
            }
        }
        guard any else { return climb }
        // The kept points' elevations, spikes out: the track's column itself in the usual case.
        var elevations: [Double]
        if profile.keptIndices.isEmpty, climb.spikes.isEmpty {
            elevations = track.elevations
            if elevations.count > n { elevations.removeLast(elevations.count - n) }
        } else {
            elevations = (0..<n).map { track.elevations[profile.pointIndex($0)] }
            for k in climb.spikes { elevations[k] = .nan }
        }
        climb.elevations = elevations
        climb.times = profile.elapsed
        climb.pieces = climb.levelChanges.isEmpty ? starts : Array(Set(profile.segmentStarts + climb.levelChanges)).sorted() + [n]
        // A level change comes after spikes, so its segment is never complete.
        climb.pieceComplete = climb.levelChanges.isEmpty ? complete : [Bool](repeating: false, count: climb.pieces.count - 1)
        elevations.withUnsafeBufferPointer { x in
            profile.elapsed.withUnsafeBufferPointer { t in
                for s in 0..<(climb.pieces.count - 1) {
                    var a = climb.pieces[s], b = climb.pieces[s + 1] - 1
                    while a <= b, !(x[a] + t[a]).isFinite { a += 1 }
                    while b > a, !(x[b] + t[b]).isFinite { b -= 1 }
                    climb.pieceFirstTime.append(a <= b ? t[a] : .nan)
                    climb.pieceLastTime.append(a <= b ? t[b] : .nan)
                }
            }
        }
        // 3. The scatter around the 30-s mean, then the mean itself when the recording is rough.
        var usable = 0, scattered = 0
        let roughDeviation = elevationRoughMeters * 0.674_489_750_196_081_7  // the median |x| of a unit normal
        forEachMean(climb) { _, x, mean in
            usable += 1
            if abs(x - mean) > roughDeviation { scattered += 1 }
        }
        climb.rough = usable >= minimumRoughPoints && 2 * scattered > usable
        if climb.rough {
            var mean = elevations  // an untimed point's mean is its own elevation; no elevation, none
            mean.withUnsafeMutableBufferPointer { m in
                forEachMean(climb) { k, _, average in m[k] = average }
            }
            climb.mean = mean
        }
        return climb
    }

    /// 2. The centred mean at each timed point with an elevation, by two pointers over each piece (x + t is
    /// finite only when both are). The window narrows towards the piece's ends to stay centred, so that a
    /// climb's mean rises as fast there as inside (`ClimbProfile.meanElevation(at:)` gives the same).
    @inline(__always)
    static func forEachMean(_ climb: ClimbProfile, _ body: (_ k: Int, _ elevation: Double, _ mean: Double) -> Void) {
        let half = elevationMeanSeconds / 2
        climb.elevations.withUnsafeBufferPointer { x in
            climb.times.withUnsafeBufferPointer { t in
                for s in 0..<(climb.pieces.count - 1) {
                    let first = climb.pieces[s], end = climb.pieces[s + 1]
                    let firstTime = climb.pieceFirstTime[s], lastTime = climb.pieceLastTime[s]
                    var lo = first, hi = first
                    var sum = 0.0, count = 0
                    if climb.pieceComplete[s] {
                        // Every point timed and with an elevation: no check per point.
                        for k in first..<end {
                            let xk = x[k], tk = t[k]
                            let reach = min(half, tk - firstTime, lastTime - tk)
                            let upper = tk + reach, lower = tk - reach
                            while hi < end, t[hi] <= upper { sum += x[hi]; count += 1; hi += 1 }
                            while t[lo] < lower { sum -= x[lo]; count -= 1; lo += 1 }  // stops at k: t[k] >= lower
                            body(k, xk, sum / Double(count))
                        }
                        continue
                    }
                    for k in first..<end {
                        let xk = x[k], tk = t[k]
                        guard (xk + tk).isFinite else { continue }
                        let reach = min(half, tk - firstTime, lastTime - tk)
                        let upper = tk + reach, lower = tk - reach
                        while hi < end, !(t[hi] > upper) || !(x[hi] + t[hi]).isFinite {
                            if (x[hi] + t[hi]).isFinite { sum += x[hi]; count += 1 }
                            hi += 1
                        }
                        while lo < k, !(t[lo] >= lower) || !(x[lo] + t[lo]).isFinite {
                            if (x[lo] + t[lo]).isFinite { sum -= x[lo]; count -= 1 }
                            lo += 1
                        }
                        body(k, xk, sum / Double(count))
                    }
                }
            }
        }
    }

    /// Fewer timed elevations than this say nothing of the sensor: the recording counts as smooth.
    static let minimumRoughPoints = 10

    /// Climb and descent with a dead band of `elevationDeadBandMeters` (3 m), per segment, on the
    /// elevations `climbProfile` prepares (as recorded when smooth, the 30-s mean when rough; spikes left
    /// out). Nil when no kept point has an elevation.
    ///
    /// The climb is counted in steps: each time the elevation has risen at least the dead band above the
    /// last counted level, the whole rise counts and becomes the new level; after a dip of at least
    /// `elevationDipMeters` (0.5 m) below that level the rise is measured from the lowest point since
    /// (the foot of the new climb), while a smaller dip is the sensor's noise and is ignored (else every
    /// step of a long climb would start from a noise trough: +4% on a 500 m climb with a barometer's
    /// 0.2 m noise). The descent likewise. A wiggle smaller than the band never counts, a long climb
    /// counts in full up to its last step, and the last 0–3 m above that step (1.5 m on average) are not
    /// counted, as the barometric watches of the reference set do not count them. Nothing is counted
    /// across the gap between segments, nor across a level change (`ClimbProfile.levelChanges`). Min and
    /// max are of the recorded elevations of kept points, spikes left out.
    public static func elevation(of track: Track, profile: Profile, thresholdMeters: Double = elevationDeadBandMeters) -> Elevation? {
        elevation(of: track, profile: profile, climb: climbProfile(of: track, profile: profile), thresholdMeters: thresholdMeters)
    }

    static func elevation(of track: Track, profile: Profile, climb: ClimbProfile, thresholdMeters: Double = elevationDeadBandMeters) -> Elevation? {
        guard climb.hasElevations else { return nil }
        var gain = 0.0, loss = 0.0
        var low = Double.infinity, high = -Double.infinity
        let starts = climb.pieces
        let band = thresholdMeters - elevationTolerance
        climb.elevations.withUnsafeBufferPointer { ele in
            climb.mean.withUnsafeBufferPointer { m in
                for s in 0..<(starts.count - 1) {
                    // The last counted levels, and the lowest and highest elevations since each.
                    var up = Double.nan, down = Double.nan, trough = Double.nan, crest = Double.nan
                    for k in starts[s]..<starts[s + 1] {
                        let recorded = ele[k]
                        guard recorded.isFinite else { continue }
                        low = min(low, recorded); high = max(high, recorded)
                        let x = climb.rough ? m[k] : recorded
                        if up.isNaN { up = x; down = x; trough = x; crest = x; continue }
                        trough = min(trough, x); crest = max(crest, x)
                        let from = up - trough >= elevationDipMeters ? trough : up
                        if x - from >= band { gain += x - from; up = x; trough = x }
                        let top = crest - down >= elevationDipMeters ? crest : down
                        if top - x >= band { loss += top - x; down = x; crest = x }
                    }
                }
            }
        }
        guard low.isFinite else { return nil }
        return Elevation(gainMeters: gain, lossMeters: loss, minMeters: low, maxMeters: high)
    }
}
