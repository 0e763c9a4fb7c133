import Foundation

/// Reads Suunto's SML (`<sml><DeviceLog>`, the XML that Ambit watches' logs are kept in, as
/// Suunto's Moveslink and GoldenCheetah write them): one run.
///
/// - Header: `Activity`/`ActivityType` (the sport), `Distance` (m), `Duration` (s, start to stop),
///   `HR` `Avg`/`Max` (in Hz: beats a second), `DateTime` (the start in local time, no zone).
/// - Samples: `UTC` (ISO 8601, Z) and `Time` (seconds from the start); `periodic` samples carry
///   `HR` (Hz), `Distance` (m, cumulative), `Altitude`, `Cadence` (Hz); `gps-*` samples carry
///   `Latitude`/`Longitude` in radians. A point is made for each GPS sample, with the heart rate,
///   altitude and distance of the periodic sample nearest before it; without GPS, a point per
///   periodic sample (no positions: the distance is the device's).
/// - `R-R`/`Data`: beat intervals in ms, read for heart rate only when no sample has `HR`.
/// - The zone: `DateTime` (local) against the first sample's `UTC` gives the UTC offset.
public enum SMLReader {
    public static func read(bytes: [UInt8], source: String) throws -> Track {
        var log = Log()
        try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try scan(base, count: buffer.count, source: source) { path, name, text in log.take(path: path, name: name, text: text) }
        }
        guard log.sawRoot else {
            throw ActivityError.notFormat(path: source, format: "SML", reason: "no <sml> or <DeviceLog> element")
        }
        log.finishSample()
        return try log.track(source: source)
    }

    /// Calls `leaf(path, name, text)` for every element holding text only (`Samples/Sample`,
    /// `HR`, `1.1`), `leaf(path, "/Name", "")` at the end of every other element and
    /// `leaf(path, "", "")` at the root (`sml` or `DeviceLog`); `path` is the names of the elements around it.
    static func scan(_ p: UnsafePointer<UInt8>, count n: Int, source: String, leaf: ([String], String, String) throws -> Void) throws {
        var stack: [String] = []
        var i = 0
        var line = 1
        var textStart = 0
        while i < n {
            guard p[i] == 0x3C else {
                if p[i] == 0x0A { line += 1 }
                i += 1
                continue
            }
            var j = i + 1
            while j < n, p[j] != 0x3E { if p[j] == 0x0A { line += 1 }; j += 1 }
            guard j < n else { throw ActivityError.malformed(path: source, line: line, offset: i, reason: "the file ends inside a tag") }
            let first = i + 1 < n ? p[i + 1] : 0
            if first == 0x3F || first == 0x21 {
                // <?xml ?>, <!-- -->, <!DOCTYPE>: skipped (a comment to its end).
                if j - i >= 3, p[i + 2] == 0x2D {
                    var k = i + 4
                    while k + 2 < n, !(p[k] == 0x2D && p[k + 1] == 0x2D && p[k + 2] == 0x3E) { k += 1 }
                    j = min(n - 1, k + 2)
                }
            } else if first == 0x2F {
                var nameEnd = i + 2
                while nameEnd < j, !XMLBytes.isSpace(p[nameEnd]) { nameEnd += 1 }
                let name = String(decoding: UnsafeBufferPointer(start: p + i + 2, count: nameEnd - i - 2), as: UTF8.self)
                guard stack.last == name else {
                    throw ActivityError.malformed(path: source, line: line, offset: i,
                                                  reason: "</\(name)> closes \(stack.last.map { "<\($0)>" } ?? "nothing")")
                }
                stack.removeLast()
                if textStart > 0 {
                    var text: [UInt8] = []
                    XMLBytes.appendDecoded(p, from: textStart, to: i, into: &text)
                    try leaf(stack, name, String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                } else {
                    try leaf(stack, "/" + name, "")
                }
                textStart = 0
            } else {
                var nameEnd = i + 1
                while nameEnd < j, !XMLBytes.isSpace(p[nameEnd]), p[nameEnd] != 0x2F { nameEnd += 1 }
                var name = String(decoding: UnsafeBufferPointer(start: p + i + 1, count: nameEnd - i - 1), as: UTF8.self)
                if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
                if p[j - 1] == 0x2F {
                    textStart = 0
                } else {
                    stack.append(name)
                    guard stack.count <= 64 else { throw ActivityError.malformed(path: source, line: line, offset: i, reason: "elements nested more than 64 deep") }
                    textStart = j + 1
                }
                if name == "sml" || name == "DeviceLog" { try leaf(stack, "", "") }
            }
            i = j + 1
        }
        if let open = stack.last { throw ActivityError.malformed(path: source, line: line, offset: n, reason: "the file ends inside <\(open)>") }
    }

    /// What the log holds, gathered element by element.
    struct Log {
        var sawRoot = false
        var activity: String?
        var activityType: Int?
        var distance: Double?
        var duration: Double?
        var averageHR: Double?
        var maximumHR: Double?
        var localStart: Double?
        var rr: [Double] = []
        /// Samples' values left out as read, by reason (`Track.dropped`).
        var dropped: [String: Int] = [:]
        /// One sample as read.
        struct Sample {
            var utc: Double?
            var time: Double?
            var latitude: Double?
            var longitude: Double?
            var hr: Double?
            var altitude: Double?
            var distance: Double?
            var cadence: Double?
            /// The sample's numeric elements, by name: the one table the reader fills a sample from.
            static let numbers: [String: WritableKeyPath<Sample, Double?> & Sendable] = [
                "Time": \.time, "Latitude": \.latitude, "Longitude": \.longitude, "HR": \.hr,
                "Altitude": \.altitude, "Distance": \.distance, "Cadence": \.cadence,
            ]
        }
        var current = Sample()
        var samples: [Sample] = []

        mutating func take(path: [String], name: String, text: String) {
            if name.isEmpty { sawRoot = true; return }
            if name == "/Sample" { finishSample(); return }
            if name.hasPrefix("/") { return }
            let parent = path.last ?? ""
            let value = Double(text)
            if parent == "Sample" {
                if name == "UTC" {
                    current.utc = Timestamps.parse(text)?.epoch
                    // One sample dated outside 1900–2200 costs only itself (it could be the clock's anchor).
                    if let utc = current.utc, !Plausible.isEpoch(utc) { current.utc = nil; dropped[Track.implausibleTimeReason, default: 0] += 1 }
                } else if name == "Time", let value, !(value.isFinite && abs(value) <= Plausible.maximumDurationSeconds) {
                    // A sample's seconds from the start that no run has (`-1e300`, `nan`): the sample has no time.
                    dropped["a sample's Time not a plausible figure", default: 0] += 1
                } else if let field = Sample.numbers[name] {
                    current[keyPath: field] = value
                }
                return
            }
            if parent == "Header" {
                switch name {
                case "Activity": activity = text
                case "ActivityType": activityType = Int(text)
                case "Distance": distance = value
                case "Duration": duration = value
                case "DateTime": localStart = Timestamps.parse(text)?.epoch
                default: break
                }
            } else if parent == "HR", path.dropLast().last == "Header" {
                if name == "Avg" { averageHR = value } else if name == "Max" { maximumHR = value }
            } else if parent == "R-R", name == "Data" {
                rr = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "," }).compactMap { Double($0) }
            }
        }

        /// Called at each `</Sample>` and at the end.
        mutating func finishSample() {
            if current.time != nil || current.utc != nil { samples.append(current) }
            current = Sample()
        }

        func track(source: String) throws -> Track {
            var track = Track(source: source)
            track.format = .sml
            track.dropped = dropped
            track.sport = DeviceSeries.suuntoSport(activity: activity, type: activityType)
            track.name = activity
            // The clock: the first UTC and its Time; other samples' times from their Time.
            guard let anchor = samples.first(where: { $0.utc != nil && $0.time != nil }), let anchorUTC = anchor.utc, let anchorTime = anchor.time else {
                throw ActivityError.noUsablePoints(path: source, reason: "no sample with both UTC and Time")
            }
            func epoch(_ s: Sample) -> Double? { s.time.map { anchorUTC + ($0 - anchorTime) } ?? s.utc }
            let start = anchorUTC - anchorTime
            if let localStart { track.utcOffsetSeconds = DeviceSeries.offset(local: localStart, utc: start) }
            var hrTimes: [Double] = [], hrs: [Double] = []
            var altTimes: [Double] = [], alts: [Double] = []
            var distTimes: [Double] = [], dists: [Double] = []
            var cadTimes: [Double] = [], cads: [Double] = []
            for sample in samples {
                guard let t = epoch(sample) else { continue }
                if let v = sample.hr, v > 0 { hrTimes.append(t); hrs.append(DeviceSeries.perMinute(v)) }
                if let v = sample.altitude { altTimes.append(t); alts.append(v) }
                if let v = sample.distance { distTimes.append(t); dists.append(v) }
                if let v = sample.cadence { cadTimes.append(t); cads.append(DeviceSeries.perMinute(v)) }
            }
            if hrTimes.isEmpty, !rr.isEmpty { (hrTimes, hrs) = DeviceSeries.heartRate(rr: rr, start: start) }
            let gps = samples.filter { $0.latitude != nil && $0.longitude != nil }
            var previous = -Double.infinity
            if !gps.isEmpty {
                for sample in gps {
                    guard let t = epoch(sample), t >= previous else { track.drop("time going backwards"); continue }
                    guard let lat = sample.latitude.flatMap(DeviceSeries.degrees(latitude:)),
                          let lon = sample.longitude.flatMap(DeviceSeries.degrees(longitude:)) else {
                        track.drop("latitude out of range")
                        continue
                    }
                    previous = t
                    track.append(latitude: lat, longitude: lon, elevation: DeviceSeries.value(at: t, times: altTimes, values: alts),
                                 time: t, heartRate: DeviceSeries.value(at: t, times: hrTimes, values: hrs),
                                 cadence: DeviceSeries.value(at: t, times: cadTimes, values: cads),
                                 deviceDistance: DeviceSeries.value(at: t, times: distTimes, values: dists))
                }
            } else {
                track.hasPositions = false
                for (t, d) in zip(distTimes, dists) where t >= previous {
                    previous = t
                    track.append(latitude: .nan, longitude: .nan, elevation: DeviceSeries.value(at: t, times: altTimes, values: alts), time: t,
                                 heartRate: DeviceSeries.value(at: t, times: hrTimes, values: hrs),
                                 cadence: DeviceSeries.value(at: t, times: cadTimes, values: cads), deviceDistance: d)
                }
            }
            let times = samples.compactMap(epoch)
            track.recordedFirstTime = times.min()
            track.recordedLastTime = times.max()
            track.deviceDistanceMeters = distance
            track.deviceElapsedSeconds = duration
            track.deviceAverageHeartRate = averageHR.map(DeviceSeries.perMinute)
            track.deviceMaximumHeartRate = maximumHR.map(DeviceSeries.perMinute)
            return track
        }
    }
}
