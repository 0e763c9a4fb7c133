import Foundation

/// What the device readers (Suunto SML, Suunto JSON, Polar Flow) share: a time series looked up at
/// a point's time, heart rate from R-R intervals, and radians to degrees.
enum DeviceSeries {
    /// The value of `(times, values)` (sorted by time) at `time`: the last sample at or before it,
    /// else the first after it, within `window` seconds; `.nan` when none is that close.
    static func value(at time: Double, times: [Double], values: [Double], window: Double = 10) -> Double {
        guard !times.isEmpty, !time.isNaN else { return .nan }
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] <= time { low = mid + 1 } else { high = mid }
        }
        if low > 0, time - times[low - 1] <= window { return values[low - 1] }
        if low < times.count, times[low] - time <= window { return values[low] }
        return .nan
    }

    /// Heart rate from R-R intervals (milliseconds between beats, the first beat at `start`): one
    /// reading a beat, the mean of the last five intervals, intervals outside 250–2000 ms (240 to
    /// 30 bpm: a missed or doubled beat) left out. Times are when each beat fell.
    static func heartRate(rr intervals: [Double], start: Double) -> (times: [Double], bpm: [Double]) {
        var times: [Double] = [], bpm: [Double] = []
        times.reserveCapacity(intervals.count)
        bpm.reserveCapacity(intervals.count)
        var clock = start
        var window: [Double] = []
        for interval in intervals where interval.isFinite && interval > 0 {
            clock += interval / 1000
            guard interval >= 250, interval <= 2000 else { continue }
            window.append(interval)
            if window.count > 5 { window.removeFirst() }
            times.append(clock)
            bpm.append(60_000 / (window.reduce(0, +) / Double(window.count)))
        }
        return (times, bpm)
    }

    /// Beats (or steps) a minute of a rate in Hz, as Suunto writes heart rate and cadence, rounded
    /// to a thousandth (1.9666… Hz is 118 bpm, not 118.00000000000001).
    static func perMinute(_ hertz: Double) -> Double {
        (hertz * 60_000).rounded() / 1000
    }

    /// Degrees of `radians`, nil when not a position (out of range).
    static func degrees(latitude radians: Double) -> Double? {
        let value = radians * 180 / .pi
        return value.isFinite && abs(value) <= 90 ? value : nil
    }

    static func degrees(longitude radians: Double) -> Double? {
        let value = radians * 180 / .pi
        return value.isFinite && abs(value) <= 180 ? value : nil
    }

    /// The UTC offset a local wall time (read as if UTC) implies at the instant `utc`, rounded to a
    /// quarter hour; nil when it is not a plausible offset.
    static func offset(local: Double, utc: Double) -> Int? {
        let seconds = ((local - utc) / 900).rounded() * 900
        guard seconds.isFinite, abs(seconds) <= Double(Timestamps.maximumOffsetSeconds) else { return nil }
        return Int(seconds)
    }

    /// Suunto's device-log `ActivityType` numbers that the logs here name (an Ambit's `3` running,
    /// `4` cycling); others leave the sport to the log's `Activity` word.
    static let suuntoActivityTypes: [Int: String] = [3: "running", 4: "cycling"]

    /// The sport of a Suunto log: its `Activity` word when `Sport` knows it (`Running`, `Cycling`),
    /// else its `ActivityType` number when known, else nil (an unnamed sport counts as running). An
    /// `Activity` is the watch's sport-mode name, which a runner may rename (`Mountain`).
    static func suuntoSport(activity: String?, type: Int?) -> String? {
        if let activity, Sport.knows(activity) { return activity }
        if let type, let sport = suuntoActivityTypes[type] { return sport }
        return nil
    }
}

extension Sport {
    /// True when `raw` names a sport the table knows (not merely a word lower-cased).
    static func knows(_ raw: String) -> Bool {
        let unnamed: Set<String> = ["other", "generic", "unknown", "all"]
        let normal = normalise(raw)
        return Set(words.values).contains(normal) && !unnamed.contains(raw.lowercased())
    }
}
