import Foundation

/// A FIT session's totals as its `session` message gives them (NaN: not given).
struct FITSession {
    var start = Double.nan
    var end = Double.nan
    var sport: UInt8?
    var elapsed = Double.nan
    var timer = Double.nan
    var distance = Double.nan
    /// Pool swims: the pool's length in metres.
    var poolLength = Double.nan
    var ascent = Double.nan
    var descent = Double.nan
    var averageHeartRate = Double.nan
    var maximumHeartRate = Double.nan
    var moving = Double.nan
    var lapCount = Double.nan
    var subSport: UInt8?
}

/// One length of a pool swim (`length` message): when it started, how long it took, and whether
/// the swimmer swam it (active) or rested (idle).
struct FITLength {
    var start: Double
    var elapsed: Double
    var timer: Double
    var active: Bool
}

/// Sessions, laps and pool lengths: how the decoded records become one track per session.
extension FITDecoder {
    /// Splits the records into one track per session and settles positions.
    func tracks() throws -> [Track] {
        guard recordCount > 0 || !lengths.isEmpty else {
            throw ActivityError.noUsablePoints(path: source, reason: "the FIT file has no record messages")
        }
        let ordered = sessions.sorted { ($0.start.isNaN ? -Double.infinity : $0.start) < ($1.start.isNaN ? -Double.infinity : $1.start) }
        var result: [Track] = []
        if ordered.count <= 1 {
            var t = track
            finish(&t, session: ordered.first, from: -Double.infinity, to: Double.infinity)
            if ordered.isEmpty, lastRecordDistance.isFinite { t.deviceDistanceMeters = lastRecordDistance }
            result.append(t)
        } else {
            // Records belong to the last session that started at or before them.
            for (k, session) in ordered.enumerated() {
                let from = k == 0 ? -Double.infinity : session.start
                let to = k + 1 < ordered.count ? ordered[k + 1].start : Double.infinity
                var t = Track(source: source)
                t.format = .fit
                for i in 0..<track.count {
                    let time = track.times[i]
                    // A record without time follows the previous record's session.
                    let inSession = time.isFinite ? (time >= from && time < to) : (t.count > 0)
                    guard inSession else { continue }
                    t.append(
                        latitude: track.latitudes[i], longitude: track.longitudes[i], elevation: track.elevations[i],
                        time: time, heartRate: track.heartRate(at: i), cadence: track.cadence(at: i),
                        deviceDistance: track.deviceDistance(at: i))
                }
                if t.isEmpty { continue }
                finish(&t, session: session, from: from, to: to)
                result.append(t)
            }
        }
        return result
    }

    func finish(_ t: inout Track, session: FITSession?, from: Double, to: Double) {
        let sport = session?.sport ?? sportMessageSport
        t.sport = sport.map(FITProfile.sportName)
        t.name = sportMessageName
        if let sub = session?.subSport ?? sportMessageSubSport, FITProfile.isIndoorSubSport(sub) { t.indoor = true }
        t.device = productName ?? manufacturer.flatMap(FITProfile.manufacturerName)
        t.utcOffsetSeconds = utcOffsetSeconds
        let finite = { (value: Double) -> Double? in value.isFinite ? value : nil }
        if let session {
            t.deviceDistanceMeters = finite(session.distance)
            t.deviceElapsedSeconds = finite(session.elapsed)
            t.deviceTimerSeconds = finite(session.timer)
            t.deviceAscentMeters = finite(session.ascent)
            t.deviceDescentMeters = finite(session.descent)
            t.deviceMovingSeconds = finite(session.moving)
            t.deviceAverageHeartRate = finite(session.averageHeartRate)
            t.deviceMaximumHeartRate = finite(session.maximumHeartRate)
        }
        t.laps = laps.filter { lap in
            guard let start = lap.start else { return from == -Double.infinity }
            return start >= from && start < to
        }
        // The session's own count when it has one, else the lap messages it holds (a file without a
        // session says nothing of its laps but them).
        t.deviceLapCount = session.flatMap { Int(exactly: $0.lapCount) } ?? (t.laps.isEmpty ? nil : t.laps.count)
        t.pauses = pauses.filter { $0.from >= from && $0.from < to }
        t.settlePositions()
        if let session, session.poolLength > 0, !t.hasPositions || t.isEmpty {
            FITDecoder.swim(lengths.filter { $0.start >= from && $0.start < to }, poolLength: session.poolLength, into: &t)
        }
    }

    /// A pool swim: the distance is the pool's length once per active length (an idle length is a
    /// rest at the wall). Records (heart rate, times) are kept and given the distance swum by
    /// their time (the lengths finished by then); without records, one point starts the first
    /// length and one ends each length. Does nothing without an active length, or when the
    /// records carry a distance of their own.
    static func swim(_ lengths: [FITLength], poolLength: Double, into t: inout Track) {
        let sorted = lengths.sorted { $0.start < $1.start }
        guard sorted.contains(where: \.active), !t.deviceDistances.contains(where: \.isFinite) else { return }
        // Cumulative distance at the end of each length.
        var ends: [(time: Double, distance: Double)] = []
        var total = 0.0
        for length in sorted {
            if length.active { total += poolLength }
            ends.append((length.start + length.elapsed, total))
        }
        if t.isEmpty {
            t.hasPositions = false
            t.startSegment()
            t.append(latitude: .nan, longitude: .nan, time: sorted[0].start, deviceDistance: 0)
            for end in ends { t.append(latitude: .nan, longitude: .nan, time: end.time, deviceDistance: end.distance) }
            return
        }
        var values = [Double](repeating: .nan, count: t.count)
        for i in 0..<t.count {
            let time = t.times[i]
            guard time.isFinite else { continue }
            // The lengths finished at or before the record (binary search: records need not be in order).
            let low = ends.partitioningIndex { $0.time > time }
            values[i] = low == 0 ? 0 : ends[low - 1].distance
        }
        t.deviceDistances = values
    }
}
