extension Track {
    /// The `dropped` reason of a point whose time is not an instant from 1900 through 2200.
    public static let implausibleTimeReason = "a time not from \(Plausible.years) (or not a number)"
    /// The `dropped` reason of a point whose position is not a number or out of range.
    public static let implausiblePositionReason = "a position not a number or out of range"

    /// Makes every number of the track one a run can have, before anything computes with it: the
    /// one check every reader's track passes (`RunAnalyzer.summarize` calls it first), so that a
    /// file's `nan`, `±inf`, `1e308` or year 9999 never reaches an integer conversion, a date or
    /// arithmetic that overflows.
    ///
    /// - A point whose time is outside 1900–2200 (or infinite), or whose position is not a number
    ///   or out of range, is dropped (counted under its reason, as the readers' drops are).
    /// - A point's elevation, heart rate, cadence or device distance that is not a plausible figure
    ///   (`Plausible`) becomes unknown (`.nan`), counted under a reason naming the column.
    /// - A device total, a lap's figure, a pause, the recorded first and last times or the UTC
    ///   offset that is not plausible becomes unknown (nil), with a reason naming the field and its value.
    ///
    /// A track whose numbers are all plausible is left as it is, after one pass over its columns.
    public mutating func dropImplausible() {
        dropImplausiblePoints()
        func total(_ field: WritableKeyPath<Track, Double?>, _ name: String, _ unit: String, _ check: (Double?) -> Double?) {
            guard let value = self[keyPath: field], check(value) == nil else { return }
            self[keyPath: field] = nil
            drop("\(name) \(Plausible.shown(value))\(unit) not a plausible figure, left unknown")
        }
        total(\.deviceDistanceMeters, "the device's distance", " m", Plausible.distance)
        total(\.deviceElapsedSeconds, "the device's elapsed time", " s", Plausible.duration)
        total(\.deviceTimerSeconds, "the device's timer time", " s", Plausible.duration)
        total(\.deviceMovingSeconds, "the device's moving time", " s", Plausible.duration)
        total(\.deviceAscentMeters, "the device's climb", " m", { Plausible.within($0, 0...Plausible.maximumClimbMeters) })
        total(\.deviceDescentMeters, "the device's descent", " m", { Plausible.within($0, 0...Plausible.maximumClimbMeters) })
        total(\.deviceAverageHeartRate, "the device's average heart rate", " bpm", Plausible.heartRate)
        total(\.deviceMaximumHeartRate, "the device's maximum heart rate", " bpm", Plausible.heartRate)
        total(\.recordedFirstTime, "the first recorded time", " s", Plausible.epoch)
        total(\.recordedLastTime, "the last recorded time", " s", Plausible.epoch)
        if let laps = deviceLapCount, !(0...Plausible.maximumLaps).contains(laps) {
            deviceLapCount = nil
            drop("the device's lap count \(laps) not a plausible figure, left unknown")
        }
        if let offset = utcOffsetSeconds, abs(offset) > Timestamps.maximumOffsetSeconds {
            utcOffsetSeconds = nil
            drop("the UTC offset \(offset) s beyond ±14:00, left unknown")
        }
        for k in laps.indices {
            func lap(_ field: WritableKeyPath<Lap, Double?>, _ name: String, _ unit: String, _ check: (Double?) -> Double?) {
                guard let value = laps[k][keyPath: field], check(value) == nil else { return }
                laps[k][keyPath: field] = nil
                drop("lap \(k + 1)'s \(name) \(Plausible.shown(value))\(unit) not a plausible figure, left unknown")
            }
            lap(\.start, "start", " s", Plausible.epoch)
            lap(\.elapsedSeconds, "elapsed time", " s", Plausible.duration)
            lap(\.timerSeconds, "timer time", " s", Plausible.duration)
            lap(\.distanceMeters, "distance", " m", Plausible.distance)
            lap(\.averageHeartRate, "average heart rate", " bpm", Plausible.heartRate)
            lap(\.maximumHeartRate, "maximum heart rate", " bpm", Plausible.heartRate)
        }
        let pausesRead = pauses.count
        pauses.removeAll { !Plausible.isEpoch($0.from) || !Plausible.isEpoch($0.to) }
        if pauses.count < pausesRead { drop("a pause with a time not from \(Plausible.years)", count: pausesRead - pauses.count) }
    }

    /// The points' part of `dropImplausible`: one pass that finds nothing in a sound track.
    private mutating func dropImplausiblePoints() {
        @inline(__always) func timeOK(_ t: Double) -> Bool { t.isNaN || Plausible.isEpoch(t) }
        @inline(__always) func positionOK(_ i: Int) -> Bool {
            !hasPositions || (abs(latitudes[i]) <= 90 && abs(longitudes[i]) <= 180)
        }
        @inline(__always) func valueOK(_ v: Double, _ low: Double, _ high: Double) -> Bool { v.isNaN || (v >= low && v <= high) }
        let elevation = Plausible.maximumElevationMagnitude
        var sound = true
        for i in 0..<count where !timeOK(times[i]) || !positionOK(i) || !valueOK(elevations[i], -elevation, elevation)
            || !valueOK(heartRate(at: i), 1e-9, Plausible.maximumHeartRate) || !valueOK(cadence(at: i), 0, Plausible.maximumCadence)
            || !valueOK(deviceDistance(at: i), 0, Plausible.maximumDistanceMeters) {
            sound = false
            break
        }
        guard !sound else { return }
        var kept = self
        kept.latitudes = []; kept.longitudes = []; kept.elevations = []; kept.times = []
        kept.heartRates = []; kept.cadences = []; kept.deviceDistances = []; kept.segmentStarts = []
        func unknown(_ v: Double, _ low: Double, _ high: Double, _ column: String) -> Double {
            if valueOK(v, low, high) { return v }
            kept.drop("\(column) not a plausible figure, left unknown")
            return .nan
        }
        for range in segmentRanges {
            kept.startSegment()
            for i in range {
                guard timeOK(times[i]) else { kept.drop(Self.implausibleTimeReason); continue }
                guard positionOK(i) else { kept.drop(Self.implausiblePositionReason); continue }
                kept.append(
                    latitude: latitudes[i], longitude: longitudes[i],
                    elevation: unknown(elevations[i], -elevation, elevation, "an elevation"), time: times[i],
                    heartRate: unknown(heartRate(at: i), 1e-9, Plausible.maximumHeartRate, "a heart rate"),
                    cadence: unknown(cadence(at: i), 0, Plausible.maximumCadence, "a cadence"),
                    deviceDistance: unknown(deviceDistance(at: i), 0, Plausible.maximumDistanceMeters, "a device distance"))
            }
        }
        self = kept
    }
}
