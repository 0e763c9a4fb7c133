import Foundation

/// What the GPX scanner keeps of an element: captured text turned into a point's values, names
/// and the sport, the point committed to the track, and the track (or why there is none) at the end.
extension GPXScanner {
    mutating func finishCapture() {
        let what = capture
        capture = .none
        var base: UnsafePointer<UInt8>
        var count: Int
        if let t = inlineText {
            inlineText = nil
            switch what {
            case .trackName, .metadataName, .sport:
                XMLBytes.appendDecoded(t, from: 0, to: inlineCount, into: &text)
                return finishName(what)
            default:
                base = t
                count = inlineCount
            }
        } else {
            switch what {
            case .trackName, .metadataName, .sport: return finishName(what)
            default: break
            }
            // Rare: text in several pieces (comments, CDATA, chunk boundaries).
            let copy = text
            text.removeAll(keepingCapacity: true)
            return copy.withUnsafeBufferPointer { buf in
                guard let b = buf.baseAddress else { return }
                finishValue(what, b, buf.count)
            }
        }
        finishValue(what, base, count)
    }

    @inline(__always)
    mutating func finishValue(_ what: Capture, _ base: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        switch what {
        case .elevation: elevation = XMLBytes.parseDouble(base, count: count) ?? .nan
        case .heartRate: heartRate = XMLBytes.parseDouble(base, count: count) ?? .nan
        case .cadence: cadence = XMLBytes.parseDouble(base, count: count) ?? .nan
        case .time:
            guard let parsed = Timestamps.parse(base, count: count, cache: &dayCache) else { return }
            time = parsed.epoch
            if !sawTime {
                sawTime = true
                track.utcOffsetSeconds = GPXScanner.explicitOffset(parsed.offsetSeconds, base, count)
            }
        case .trackName, .metadataName, .sport, .none:
            break
        }
    }

    mutating func finishName(_ what: Capture) {
        let value = GPXScanner.string(text)
        text.removeAll(keepingCapacity: true)
        switch what {
        case .trackName:
            trackNameSeen = true
            track.name = value
        case .metadataName:
            metadataName = value
        case .sport:
            sportSeen = true
            track.sport = value
        default:
            break
        }
    }

    /// The offset a timestamp wrote, or nil for `Z`: a `Z` says the device wrote UTC, not which
    /// zone the runner was in, so the local date then comes from the zone the user chose.
    static func explicitOffset(_ offset: Int?, _ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        guard let offset else { return nil }
        var end = count
        while end > 0, XMLBytes.isSpace(p[end - 1]) { end -= 1 }
        if end > 0, p[end - 1] | 0x20 == 0x7A { return nil }  // z or Z
        return offset
    }

    static func string(_ bytes: [UInt8]) -> String? {
        let s = Trimming.spacesAndNewlines(String(decoding: bytes, as: UTF8.self))
        return s.isEmpty ? nil : s
    }

    @inline(__always)
    mutating func commitPoint() {
        inPoint = false
        guard hasLatitude, hasLongitude else { return track.drop("no position") }
        guard latitude.isFinite else { return track.drop("unparseable latitude") }
        guard longitude.isFinite else { return track.drop("unparseable longitude") }
        if latitude == 100 || latitude == 200 {
            // OpenTracks pause (100) and resume (200) markers: end the segment here.
            track.drop("pause marker (latitude 100 or 200)")
            track.startSegment()
            return
        }
        guard latitude >= -90, latitude <= 90 else { return track.drop("latitude out of range") }
        guard longitude >= -180, longitude <= 180 else { return track.drop("longitude out of range") }
        track.append(
            latitude: latitude, longitude: longitude, elevation: elevation, time: time,
            heartRate: heartRate, cadence: cadence)
    }

    /// The track, or `noUsablePoints` saying what was there instead.
    mutating func finish() throws -> Track {
        if track.name == nil { track.name = metadataName }
        if !heartRateSamples.isEmpty, track.heartRates.isEmpty { GPXScanner.assign(heartRateSamples, to: &track) }
        guard track.isEmpty else { return track }
        let source = track.source
        if trackPoints == 0 {
            var reason = "the file has no track points (<trkpt> in <trk>/<trkseg>)"
            if routePoints > 0 || waypoints > 0 {
                reason += "; it has \(routePoints) route point(s) and \(waypoints) waypoint(s), which are a plan, not a recorded run"
            }
            throw ActivityError.noUsablePoints(path: source, reason: reason)
        }
        let counts = track.dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        throw ActivityError.noUsablePoints(path: source, reason: "all \(trackPoints) track point(s) were dropped: \(counts)")
    }

    /// Seconds: how long a SportTracks heart-rate sample stays the point's reading.
    static let heartRateSampleHold = 60.0

    /// Gives each timed point of a track without heart rates of its own the SportTracks sample in
    /// force at its time: the last sample at or before it, if at most `heartRateSampleHold` older
    /// (a heart-rate strap reports a reading until the next, as a device shows it; a longer silence
    /// is a gap, not the last reading). Samples are sorted by time first; non-finite or
    /// non-positive readings were already left out or are left to the analyzer.
    static func assign(_ samples: [(time: Double, bpm: Double)], to track: inout Track) {
        let sorted = samples.sorted { $0.time < $1.time }
        var values = [Double](repeating: .nan, count: track.count)
        var any = false
        for i in 0..<track.count {
            let t = track.times[i]
            guard t.isFinite else { continue }
            // The first sample after t (binary search: points need not come in time order).
            let low = sorted.partitioningIndex { $0.time > t }
            guard low > 0, t - sorted[low - 1].time <= heartRateSampleHold else { continue }
            values[i] = sorted[low - 1].bpm
            any = true
        }
        if any { track.heartRates = values }
    }
}
