import RunFiles

/// Device clocks that jump (docs/rules.md, "Definitions").
///
/// A watch whose clock is reset by a GPS or phone sync in the middle of a run writes the records
/// after the reset days away from those before it, though the runner went on running. Such a step
/// is a clock error, not a pause, and it is told apart from a pause like this:
///
/// - A step forward of more than `clockJumpMinimumStep` (60 s) between two timed records:
///   - covered by a timer pause the device recorded (FIT timer stop → start): a pause;
///   - else, when the device reported its own elapsed total (FIT session `total_elapsed_time`):
///     a clock jump when the file's span exceeds that total by at least the step less
///     `clockJumpMinimumStep` (the device's own clock did not see the step), else a pause;
///   - else (GPX, TCX): a clock jump when it lasts `clockJumpUnconfirmedStep` (1 h) or more and
///     the runner was moving right up to it and right after it (both neighbouring steps at
///     least `movingSpeedThreshold`) while the step itself covers no more ground than the larger
///     neighbouring step, twice over, plus `clockJumpSlackMeters`: one ordinary stride, not the
///     standstill of a pause nor the ground of a recording gap.
/// - A step back of more than `clockJumpMinimumStep` after which the records go on from the new
///   time (the next timed record is not earlier than it, and still earlier than the record before
///   the step): a clock jump back. A lone record in the past or in the future is left to the
///   profile, which drops it as "time going backwards".
///
/// A jump is taken out: the step is given the duration of the step before it (at most
/// `movingMaxStep`; 1 s when there is none) and every later time moves with it, so the run keeps
/// its real duration, splits and efforts. Each jump counts once under `clockJumpReason`.
extension RunAnalyzer {
    /// Steps shorter than this (seconds) are never clock jumps.
    public static let clockJumpMinimumStep = 60.0
    /// Without the device's own elapsed total, a forward step must last this long (seconds) to be a jump.
    public static let clockJumpUnconfirmedStep = 3600.0
    /// Ground (metres) a jumped step may cover beyond twice its neighbours' steps (GPS jitter).
    public static let clockJumpSlackMeters = 10.0
    /// The `dropped` reason of a clock jump.
    public static let clockJumpReason = "clock_jump"

    /// Takes the clock jumps out of `track`'s times (and its pauses and recorded span) and counts
    /// them in `track.dropped`; returns how many there were. Reads the times once when there is no
    /// step longer than `clockJumpMinimumStep` either way (the usual case).
    @discardableResult
    public static func removeClockJumps(from track: inout Track) -> Int {
        let n = track.times.count
        guard n >= 2 else { return 0 }
        let suspect = track.times.withUnsafeBufferPointer { t -> Bool in
            // Branch-free over neighbours (a NaN step compares false either way); only a track with
            // a missing time looks again, across its untimed points.
            var long = false, gap = false
            for i in 1..<n {
                let step = t[i] - t[i - 1]
                long = long || step > clockJumpMinimumStep || step < -clockJumpMinimumStep
                gap = gap || step.isNaN
            }
            if long || !gap { return long }
            var previous = Double.nan
            for x in t where x.isFinite {
                if previous.isFinite, abs(x - previous) > clockJumpMinimumStep { return true }
                previous = x
            }
            return false
        }
        guard suspect else { return 0 }

        let original = track.times
        var times = original
        var timed: [Int] = []
        timed.reserveCapacity(n)
        for i in 0..<n where original[i].isFinite { timed.append(i) }
        guard let firstTimed = timed.first, let lastTimed = timed.last else { return 0 }
        // The span the device's own elapsed total does not explain, used up by each jump found.
        var unexplained = track.deviceElapsedSeconds.map { (original[lastTimed] - original[firstTimed]) - $0 }

        func ground(_ a: Int, _ b: Int) -> Double {
            if track.hasPositions {
                return Geodesy.distance(lat1: track.latitudes[a], lon1: track.longitudes[a], lat2: track.latitudes[b], lon2: track.longitudes[b])
            }
            let x = track.deviceDistance(at: a), y = track.deviceDistance(at: b)
            return x.isFinite && y.isFinite ? abs(y - x) : .nan
        }
        func moving(_ a: Int, _ b: Int) -> (speed: Double, ground: Double) {
            let dt = original[b] - original[a], d = ground(a, b)
            return (dt > 0 && d.isFinite ? d / dt : .nan, d)
        }

        var jumps: [(at: Double, shift: Double)] = []   // original time of the first moved record, total shift from there on
        var shift = 0.0
        for k in 1..<timed.count {
            let a = timed[k - 1], b = timed[k]
            let step = original[b] - original[a]
            var jump = false
            if step > clockJumpMinimumStep {
                // A lone future record: the two after it are both earlier. The profile drops it.
                if k + 2 < timed.count, original[timed[k + 1]] < original[b], original[timed[k + 2]] < original[b] {
                    times[b] = original[b] + shift
                    continue
                }
                let paused = track.pauses.contains { $0.from <= original[a] + 1 && $0.to >= original[b] - 1 }
                if paused {
                    jump = false
                } else if let left = unexplained {
                    jump = left >= step - clockJumpMinimumStep
                    if jump { unexplained = left - step }
                } else if step >= clockJumpUnconfirmedStep, k >= 2, k + 1 < timed.count {
                    let before = moving(timed[k - 2], a), after = moving(b, timed[k + 1])
                    let across = ground(a, b)
                    jump = before.speed >= movingSpeedThreshold && after.speed >= movingSpeedThreshold
                        && across <= 2 * max(before.ground, after.ground) + clockJumpSlackMeters
                }
            } else if step < -clockJumpMinimumStep, k + 1 < timed.count {
                let next = original[timed[k + 1]]
                jump = next >= original[b] && next < original[a]
            }
            if jump {
                let usual = k >= 2 ? min(movingMaxStep, max(0, original[a] - original[timed[k - 2]])) : 1
                shift += usual - step
                jumps.append((original[b], shift))
            }
            // Every later record moves with the jumps before it (one pass, however many jumps).
            times[b] = original[b] + shift
        }
        guard !jumps.isEmpty else { return 0 }

        /// The shift of an original time: that of the last forward jump at or before it (pauses
        /// are placed by time; a jump back leaves them where they were).
        let forward = jumps.filter { $0.shift < 0 }.sorted { $0.at < $1.at }
        func moved(_ x: Double) -> Double {
            // The last forward jump at or before x (binary search: a file may hold many pauses).
            let low = forward.partitioningIndex { $0.at > x }
            return low == 0 ? x : x + forward[low - 1].shift
        }
        track.times = times
        track.pauses = track.pauses.map { Pause(from: moved($0.from), to: moved($0.to)) }
        // The recorded span (records without a position included) was measured on the jumping
        // clock: the run's span is that of its kept records.
        track.recordedFirstTime = nil
        track.recordedLastTime = nil
        track.dropped[clockJumpReason, default: 0] += jumps.count
        return jumps.count
    }
}
