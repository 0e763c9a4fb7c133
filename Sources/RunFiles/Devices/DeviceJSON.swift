import Foundation

/// JSON files that are a device's log rather than a run summary, told apart by their first key:
/// a Suunto device log (`{"DeviceLog": …}`, Suunto 9 and the Suunto app) and a Polar Flow training
/// session (`{"exportVersion": …}`, one file of a Polar Flow account export).
public enum DeviceJSON {
    /// The device format of a `.json` file by its first bytes, nil for a run summary.
    public static func kind(_ prefix: ArraySlice<UInt8>) -> RunFormat? {
        var i = prefix.startIndex
        if prefix[i...].starts(with: [0xEF, 0xBB, 0xBF]) { i += 3 }
        while i < prefix.endIndex, XMLBytes.isSpace(prefix[i]) { i += 1 }
        guard i < prefix.endIndex, prefix[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        while i < prefix.endIndex, XMLBytes.isSpace(prefix[i]) { i += 1 }
        let rest = prefix[i...]
        if rest.starts(with: Array("\"DeviceLog\"".utf8)) { return .suuntoJSON }
        if rest.starts(with: Array("\"exportVersion\"".utf8)) { return .polarJSON }
        return nil
    }

    /// The device log's runs (one).
    public static func read(bytes: [UInt8], format: RunFormat, source: String) throws -> [Track] {
        let value = try JSONText.parse(bytes, source: source)
        switch format {
        case .suuntoJSON: return [try suunto(value, source: source)]
        case .polarJSON: return try polar(value, source: source)
        default: throw ActivityError.notFormat(path: source, format: format.rawValue, reason: "not a device log")
        }
    }

    // MARK: - Suunto

    /// A Suunto device log: `DeviceLog.Header` (`Distance`, `Duration`, `Activity`, `DateTime` with
    /// its offset), `Samples` (`TimeISO8601` with an offset; `Latitude`/`Longitude` in radians,
    /// `Distance`, `Altitude`, `HR` in Hz), `R-R.Data` (beat intervals in ms, the heart rate when no
    /// sample has `HR`, as a Suunto 9 writes it), the sport from the first `Activity` event.
    static func suunto(_ root: JSONValue, source: String) throws -> Track {
        guard let log = root["DeviceLog"], case .object = log else {
            throw ActivityError.notFormat(path: source, format: "Suunto JSON", reason: "no DeviceLog object")
        }
        let header = log["Header"]
        var track = Track(source: source)
        track.format = .suuntoJSON
        guard case .array(let samples)? = log["Samples"] else {
            throw ActivityError.badSummary(path: source, field: "DeviceLog.Samples", reason: "missing, or not an array")
        }
        // A type number no `Int` holds (1e308) names no sport: `Plausible.integer` gives nil, never a trap.
        var activityType = header?["ActivityType"]?.number.flatMap(Plausible.integer)
        for sample in samples {
            guard case .array(let events)? = sample["Events"] else { continue }
            if let type = events.lazy.compactMap({ $0["Activity"]?["ActivityType"]?.number }).first { activityType = Plausible.integer(type); break }
        }
        track.sport = DeviceSeries.suuntoSport(activity: header?["Activity"]?.string, type: activityType)
        track.name = header?["Activity"]?.string
        if let start = header?["DateTime"]?.string.flatMap(Timestamps.parse) ?? header?["TimeISO8601"]?.string.flatMap(Timestamps.parse) {
            track.utcOffsetSeconds = start.offsetSeconds
        }
        var hrTimes: [Double] = [], hrs: [Double] = []
        var altTimes: [Double] = [], alts: [Double] = []
        var distTimes: [Double] = [], dists: [Double] = []
        var positions: [(Double, Double, Double)] = []
        var allTimes: [Double] = []
        for sample in samples {
            guard let t = (sample["TimeISO8601"]?.string ?? sample["UTC"]?.string).flatMap(Timestamps.parse)?.epoch else { continue }
            // One sample dated outside 1900–2200 costs only itself (it would move the run's start).
            guard Plausible.isEpoch(t) else { track.drop(Track.implausibleTimeReason); continue }
            allTimes.append(t)
            if let v = sample["HR"]?.number, v > 0 { hrTimes.append(t); hrs.append(DeviceSeries.perMinute(v)) }
            if let v = sample["Altitude"]?.number { altTimes.append(t); alts.append(v) }
            if let v = sample["Distance"]?.number { distTimes.append(t); dists.append(v) }
            if let lat = sample["Latitude"]?.number.flatMap(DeviceSeries.degrees(latitude:)),
               let lon = sample["Longitude"]?.number.flatMap(DeviceSeries.degrees(longitude:)) {
                positions.append((t, lat, lon))
            }
        }
        guard let start = allTimes.min() else { throw ActivityError.noUsablePoints(path: source, reason: "no sample with a time") }
        if hrTimes.count < 10, case .array(let beats)? = log["R-R"]?["Data"] {
            (hrTimes, hrs) = DeviceSeries.heartRate(rr: beats.compactMap(\.number), start: start)
        }
        fill(&track, positions: positions.sorted { $0.0 < $1.0 }, hr: (hrTimes, hrs), altitude: (altTimes, alts), distance: (distTimes, dists))
        track.recordedFirstTime = start
        track.recordedLastTime = allTimes.max()
        track.deviceDistanceMeters = header?["Distance"]?.number
        track.deviceElapsedSeconds = header?["Duration"]?.number
        if let duration = header?["Duration"]?.number, let pause = header?["PauseDuration"]?.number, pause >= 0, pause <= duration {
            track.deviceTimerSeconds = duration - pause
        }
        if let hr = header?["HR"] {
            track.deviceAverageHeartRate = hr["Avg"]?.number.map(DeviceSeries.perMinute)
            track.deviceMaximumHeartRate = hr["Max"]?.number.map(DeviceSeries.perMinute)
        }
        return track
    }

    /// Points at the positions' times with the other series' values there; without positions, a point
    /// per distance sample (no positions: the device's distance).
    static func fill(_ track: inout Track, positions: [(Double, Double, Double)], hr: ([Double], [Double]), altitude: ([Double], [Double]),
                     distance: ([Double], [Double])) {
        if !positions.isEmpty {
            for (t, lat, lon) in positions {
                track.append(latitude: lat, longitude: lon, elevation: DeviceSeries.value(at: t, times: altitude.0, values: altitude.1), time: t,
                             heartRate: DeviceSeries.value(at: t, times: hr.0, values: hr.1),
                             deviceDistance: DeviceSeries.value(at: t, times: distance.0, values: distance.1))
            }
        } else {
            track.hasPositions = false
            for (t, d) in zip(distance.0, distance.1) {
                track.append(latitude: .nan, longitude: .nan, elevation: DeviceSeries.value(at: t, times: altitude.0, values: altitude.1), time: t,
                             heartRate: DeviceSeries.value(at: t, times: hr.0, values: hr.1), deviceDistance: d)
            }
        }
    }

    // MARK: - Polar

    /// A Polar Flow training session: local `startTime` and `timeZoneOffset` (minutes) give the UTC
    /// start and the zone; each of `exercises` is a run with its `sport`, `distance`, `duration`
    /// (ISO 8601, `PT2753.875S`), heart-rate statistics, and `samples` `heartRate` (local times) and
    /// `recordedRoute` (positions). Some exports write the route on another clock than the heart
    /// rate (the sample's: 1 h 20 min apart): a route whose first point is more than a minute from
    /// the exercise's start is moved to start with it (both are the same recording, one sample a second).
    static func polar(_ root: JSONValue, source: String) throws -> [Track] {
        guard case .array(let exercises)? = root["exercises"], !exercises.isEmpty else {
            throw ActivityError.badSummary(path: source, field: "exercises", reason: "missing, empty, or not an array")
        }
        let sessionOffset = root["timeZoneOffset"]?.number
        var tracks: [Track] = []
        // An exercise that cannot be read costs only itself: noted on the first run read, thrown when none is.
        var skipped: [(field: String, reason: String)] = []
        for (index, exercise) in exercises.enumerated() {
            do {
                tracks.append(try polarExercise(exercise, index: index, root: root, sessionOffset: sessionOffset, source: source))
            } catch ActivityError.badSummary(let path, let field, let reason) {
                if exercises.count == 1 { throw ActivityError.badSummary(path: path, field: field, reason: reason) }
                skipped.append((field, reason))
            }
        }
        guard !tracks.isEmpty else {
            let first = skipped.first
            throw ActivityError.badSummary(path: source, field: first?.field ?? "exercises",
                                           reason: (first?.reason ?? "none read") + "; no exercise of the file could be read")
        }
        for (field, reason) in skipped { tracks[0].drop("an exercise not read: \(field): \(reason)") }
        return tracks
    }

    /// One exercise of a Polar Flow session (`polar`), `index` its place in `exercises`.
    static func polarExercise(_ exercise: JSONValue, index: Int, root: JSONValue, sessionOffset: Double?, source: String) throws -> Track {
        let field = "exercises[\(index)]"
        var track = Track(source: source)
        track.format = .polarJSON
        track.name = root["name"]?.string
        track.sport = exercise["sport"]?.string
        guard let minutes = exercise["timezoneOffset"]?.number ?? exercise["timeZoneOffset"]?.number ?? sessionOffset,
              abs(minutes * 60) <= Double(Timestamps.maximumOffsetSeconds) else {
            throw ActivityError.badSummary(path: source, field: "\(field).timezoneOffset", reason: "missing or not an offset in minutes")
        }
        let offset = Int(minutes * 60)
        func epoch(_ text: String?) -> Double? {
            guard let parsed = text.flatMap(Timestamps.parse) else { return nil }
            return parsed.offsetSeconds == nil ? parsed.epoch - Double(offset) : parsed.epoch
        }
        guard let start = epoch(exercise["startTime"]?.string ?? root["startTime"]?.string) else {
            throw ActivityError.badSummary(path: source, field: "\(field).startTime", reason: "missing or not a date and time")
        }
        guard Plausible.isEpoch(start) else {
            throw ActivityError.badSummary(path: source, field: "\(field).startTime", reason: "not from \(Plausible.years)")
        }
        let stop = epoch(exercise["stopTime"]?.string)
        track.utcOffsetSeconds = offset
        var hrTimes: [Double] = [], hrs: [Double] = []
        if case .array(let series)? = exercise["samples"]?["heartRate"] {
            for sample in series {
                if let t = epoch(sample["dateTime"]?.string), let v = sample["value"]?.number, v > 0 { hrTimes.append(t); hrs.append(v) }
            }
        }
        var positions: [(Double, Double, Double)] = []
        var altTimes: [Double] = [], alts: [Double] = []
        if case .array(let route)? = exercise["samples"]?["recordedRoute"] {
            for point in route {
                guard let t = epoch(point["dateTime"]?.string), let lat = point["latitude"]?.number, let lon = point["longitude"]?.number,
                      abs(lat) <= 90, abs(lon) <= 180 else { track.drop("no position"); continue }
                // One point dated outside 1900–2200 costs only itself (sorted first, it would move the whole route).
                guard Plausible.isEpoch(t) else { track.drop(Track.implausibleTimeReason); continue }
                positions.append((t, lat, lon))
                if let a = point["altitude"]?.number { altTimes.append(t); alts.append(a) }
            }
        }
        positions.sort { $0.0 < $1.0 }
        if let first = positions.first?.0, abs(first - start) > 60 {
            let shift = start - first
            positions = positions.map { ($0.0 + shift, $0.1, $0.2) }
            altTimes = altTimes.map { $0 + shift }
        }
        let distance = exercise["distance"]?.number
        var distances: ([Double], [Double]) = ([], [])
        if positions.isEmpty { distances = ([start, stop ?? start], [0, distance ?? .nan]) }
        fill(&track, positions: positions, hr: (hrTimes, hrs), altitude: (altTimes, alts), distance: distances)
        track.recordedFirstTime = start
        track.recordedLastTime = max(stop ?? start, track.times.last ?? start)
        track.deviceDistanceMeters = distance
        if let stop { track.deviceElapsedSeconds = stop - start }
        track.deviceTimerSeconds = exercise["duration"]?.string.flatMap(isoDurationSeconds)
        track.deviceAverageHeartRate = exercise["heartRate"]?["avg"]?.number
        track.deviceMaximumHeartRate = exercise["heartRate"]?["max"]?.number
        return track
    }

    /// Seconds of an ISO 8601 duration as Polar writes it (`PT2753.875S`, `PT1H5M3S`), nil otherwise.
    static func isoDurationSeconds(_ text: String) -> Double? {
        guard text.hasPrefix("PT") else { return nil }
        var total = 0.0
        var number = ""
        for ch in text.dropFirst(2) {
            if ch.isNumber || ch == "." { number.append(ch); continue }
            guard let value = Double(number) else { return nil }
            switch ch {
            case "H": total += value * 3600
            case "M": total += value * 60
            case "S": total += value
            default: return nil
            }
            number = ""
        }
        return number.isEmpty ? total : nil
    }
}

extension JSONValue {
    /// The member `key` of an object, nil otherwise.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var number: Double? {
        if case .number(let value) = self, value.isFinite { return value }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
