import Foundation

/// Reads Garmin Training Center (TCX) activity files with a byte-level scanner (no XMLParser).
///
/// - `Activities/Activity` → one `Track` each; its `Sport` attribute → `track.sport`, its `Id` → `track.name`.
/// - `Lap` → `track.laps` (`StartTime`, `TotalTimeSeconds` → timer seconds, `DistanceMeters`,
///   `AverageHeartRateBpm`, `MaximumHeartRateBpm`, `TriggerMethod`, `Intensity`); the laps' heart rates
///   and number are the device's totals (`TCXParser.deviceTotals`).
/// - Each `Track` element inside a lap is a segment: devices start a new one after a pause.
/// - `Trackpoint`: `Time`, `Position/LatitudeDegrees|LongitudeDegrees`, `AltitudeMeters`,
///   `DistanceMeters` (→ device distances), `HeartRateBpm/Value`, `Cadence`, or `RunCadence` from
///   the `TPX` extension when there is no `Cadence`.
/// - A trackpoint without a position is dropped and counted (`"no position"`), unless the whole
///   activity has none (treadmill, indoor): then all are kept with `.nan` positions and
///   `hasPositions` is false, so the odometer carries the run.
/// - Device distance: the last trackpoint odometer (`DistanceMeters`), else (no odometer, or one
///   that restarts during the activity) the sum of the laps' `DistanceMeters`. The odometer covers every recorded point; lap totals can leave part of the
///   recording out (Movescount files have laps summing to 1,999 m under a 2,919 m odometer whose
///   value the GPS track confirms). Device timer = sum of the laps' `TotalTimeSeconds`. A device
///   distance written as a single-precision float's full expansion (`14004.849609375`) is read as the
///   decimal the device meant (`14004.85`, `DeviceNumber.intended`).
/// - Element names are matched by local name (`ns3:TPX`, `TPX` alike); a UTF-8 BOM and white space
///   before `<?xml` are tolerated; comments, CDATA and processing instructions are skipped.
public enum TCXReader {
    /// Reads a TCX file (or a gzip-compressed one) from disk. One `Track` per activity with points.
    public static func read(path: String) throws -> [Track] {
        var bytes = try FileBytes.read(path: path)
        if Gzip.isGzip(bytes) { bytes = try Gzip.decompress(bytes, source: path) }
        return try read(bytes: bytes, source: path)
    }

    /// Parses TCX bytes; `source` names the file in errors. One `Track` per activity with points.
    public static func read(bytes: [UInt8], source: String) throws -> [Track] {
        try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                throw ActivityError.notFormat(path: source, format: "TCX", reason: "the file is empty")
            }
            if XMLBytes.isUTF16(base, count: buffer.count) {
                throw ActivityError.notFormat(path: source, format: "TCX", reason: XMLBytes.utf16Refusal)
            }
            var parser = TCXParser(scanner: TCXScanner(base, count: buffer.count, source: source))
            return try parser.parse()
        }
    }
}

/// The tags the TCX reader acts on, by local name.
enum TCXTag {
    case trainingCenterDatabase, activity, lap, track, trackpoint, time, position, latitude, longitude
    case altitude, distance, heartRate, value, cadence, runCadence, totalTime, id, other
    case averageHeartRate, maximumHeartRate, triggerMethod, intensity, creator, name

    static func classify(_ p: UnsafePointer<UInt8>, _ n: Int) -> TCXTag {
        @inline(__always) func eq(_ s: StaticString) -> Bool {
            s.utf8CodeUnitCount == n && memcmp(p, s.utf8Start, n) == 0
        }
        switch n {
        case 2: return eq("Id") ? .id : .other
        case 3: return eq("Lap") ? .lap : .other
        case 4: return eq("Time") ? .time : eq("Name") ? .name : .other
        case 5: return eq("Track") ? .track : eq("Value") ? .value : .other
        case 7: return eq("Cadence") ? .cadence : eq("Creator") ? .creator : .other
        case 8: return eq("Activity") ? .activity : eq("Position") ? .position : .other
        case 9: return eq("Intensity") ? .intensity : .other
        case 13: return eq("TriggerMethod") ? .triggerMethod : .other
        case 19: return eq("AverageHeartRateBpm") ? .averageHeartRate : eq("MaximumHeartRateBpm") ? .maximumHeartRate : .other
        case 10: return eq("Trackpoint") ? .trackpoint : eq("RunCadence") ? .runCadence : .other
        case 12: return eq("HeartRateBpm") ? .heartRate : .other
        case 14: return eq("DistanceMeters") ? .distance : eq("AltitudeMeters") ? .altitude : .other
        case 15: return eq("LatitudeDegrees") ? .latitude : .other
        case 16: return eq("LongitudeDegrees") ? .longitude : eq("TotalTimeSeconds") ? .totalTime : .other
        case 22: return eq("TrainingCenterDatabase") ? .trainingCenterDatabase : .other
        default: return .other
        }
    }
}

/// A minimal XML pull scanner for TCX: start tags (local name, attribute bytes, self-closing),
/// end tags, and the text of leaf elements on request. Not a validating parser: it needs tags to
/// be well formed, not balanced, and does not expand entities except in `decodedText`. Searching,
/// white space, line numbers, entities and numbers are `XMLBytes`'s, shared with the GPX reader.
struct TCXScanner {
    enum Token {
        case start(nameStart: Int, nameCount: Int, attributesStart: Int, attributesEnd: Int, selfClosing: Bool)
        case end(nameStart: Int, nameCount: Int)
        case eof
    }

    let p: UnsafePointer<UInt8>
    let count: Int
    let source: String
    var pos = 0
    /// Offset of the `<` of the last token, for messages.
    var tokenOffset = 0

    init(_ p: UnsafePointer<UInt8>, count: Int, source: String) {
        self.p = p
        self.count = count
        self.source = source
    }

    /// 1-based line of a byte offset (computed only for messages).
    func line(of offset: Int) -> Int {
        XMLBytes.lineNumber(in: p, count: count, offset: offset)
    }

    func malformed(_ offset: Int, _ reason: String) -> ActivityError {
        .malformed(path: source, line: line(of: offset), offset: offset, reason: reason)
    }

    /// Index of the first `byte` at or after `from`, nil when there is none.
    @inline(__always)
    func find(_ byte: UInt8, from: Int) -> Int? {
        let k = XMLBytes.find(byte, in: p, from: from, to: count)
        return k < 0 ? nil : k
    }

    /// Index just past the first `?>` (`a` = `?`) or `-->`/`]]>` (`a b`) that starts at or after
    /// `from`, nil when there is none.
    func pastTerminator(_ a: UInt8, _ b: UInt8? = nil, from: Int) -> Int? {
        let k = b.map { XMLBytes.findTerminator(a, $0, in: p, from: from, to: count) }
            ?? XMLBytes.findTerminator(a, in: p, from: from, to: count)
        return k < 0 ? nil : k
    }

    mutating func next() throws -> Token {
        while true {
            guard let lt = find(0x3C, from: pos) else {
                pos = count
                return .eof
            }
            tokenOffset = lt
            var i = lt + 1
            guard i < count else { throw malformed(lt, "the file ends inside a tag") }
            let c = p[i]
            if c == 0x2F {  // </name>
                i += 1
                let nameStart = i
                while i < count, p[i] != 0x3E, !XMLBytes.isSpace(p[i]) { i += 1 }
                let nameEnd = i
                guard let gt = find(0x3E, from: i) else { throw malformed(lt, "the file ends inside an end tag") }
                pos = gt + 1
                let (s, n) = localName(nameStart, nameEnd)
                return .end(nameStart: s, nameCount: n)
            }
            if c == 0x3F {  // <? ... ?>
                guard let e = pastTerminator(XMLBytes.question, from: i) else { throw malformed(lt, "unterminated processing instruction") }
                pos = e
                continue
            }
            if c == 0x21 {  // <!-- -->, <![CDATA[ ]]>, <!DOCTYPE>
                if i + 2 < count, p[i + 1] == 0x2D, p[i + 2] == 0x2D {
                    guard let e = pastTerminator(0x2D, 0x2D, from: i + 3) else { throw malformed(lt, "unterminated comment") }
                    pos = e
                } else if i + 7 < count, p[i + 1] == 0x5B {
                    guard let e = pastTerminator(0x5D, 0x5D, from: i) else { throw malformed(lt, "unterminated CDATA section") }
                    pos = e
                } else {
                    guard let e = find(0x3E, from: i) else { throw malformed(lt, "unterminated declaration") }
                    pos = e + 1
                }
                continue
            }
            // <name attr="v" ...> or <name/>
            let nameStart = i
            while i < count, p[i] != 0x3E, p[i] != 0x2F, !XMLBytes.isSpace(p[i]) { i += 1 }
            let nameEnd = i
            guard nameEnd > nameStart else { throw malformed(lt, "'<' not followed by a tag name") }
            let attributesStart = i
            var quote: UInt8 = 0
            while i < count {
                let b = p[i]
                if quote != 0 {
                    if b == quote { quote = 0 }
                } else if b == 0x22 || b == 0x27 {
                    quote = b
                } else if b == 0x3E {
                    break
                }
                i += 1
            }
            guard i < count else { throw malformed(lt, "the file ends inside a start tag") }
            let selfClosing = i > attributesStart && p[i - 1] == 0x2F
            pos = i + 1
            let (s, n) = localName(nameStart, nameEnd)
            return .start(
                nameStart: s, nameCount: n, attributesStart: attributesStart,
                attributesEnd: selfClosing ? i - 1 : i, selfClosing: selfClosing)
        }
    }

    /// The part of a qualified name after its prefix.
    @inline(__always)
    func localName(_ start: Int, _ end: Int) -> (Int, Int) {
        var k = end - 1
        while k >= start {
            if p[k] == 0x3A { return (k + 1, end - k - 1) }
            k -= 1
        }
        return (start, end - start)
    }

    /// The text from the current position to the next `<`, trimmed (the content of a leaf element).
    mutating func text() -> (start: Int, count: Int) {
        var s = pos
        var e = find(0x3C, from: pos) ?? count
        pos = e
        while s < e, XMLBytes.isSpace(p[s]) { s += 1 }
        while e > s, XMLBytes.isSpace(p[e - 1]) { e -= 1 }
        return (s, e - s)
    }

    /// A leaf element's text with the predefined and numeric entities expanded (`XMLBytes.appendDecoded`).
    mutating func decodedText() -> String {
        let (s, n) = text()
        var bytes: [UInt8] = []
        XMLBytes.appendDecoded(p, from: s, to: s + n, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of attribute `name` (local name) within a start tag's attribute bytes.
    func attribute(_ name: StaticString, from: Int, to: Int) -> (start: Int, count: Int)? {
        let n = name.utf8CodeUnitCount
        var i = from
        while i < to {
            while i < to, XMLBytes.isSpace(p[i]) { i += 1 }
            let keyStart = i
            while i < to, p[i] != 0x3D, !XMLBytes.isSpace(p[i]) { i += 1 }
            let (ks, kn) = localName(keyStart, i)
            while i < to, p[i] != 0x22, p[i] != 0x27 { i += 1 }
            guard i < to else { return nil }
            let quote = p[i]
            let valueStart = i + 1
            i = valueStart
            while i < to, p[i] != quote { i += 1 }
            if kn == n, memcmp(p + ks, name.utf8Start, n) == 0 { return (valueStart, i - valueStart) }
            i += 1
        }
        return nil
    }

    /// A decimal number (`-12.5`, `3e2`), correctly rounded; nil when the bytes are not one
    /// (`XMLBytes.parseDoubleCorrectlyRounded`).
    @inline(__always)
    func number(_ start: Int, _ n: Int) -> Double? {
        XMLBytes.parseDoubleCorrectlyRounded(p + start, count: n)
    }
}

/// Turns scanner tokens into tracks.
struct TCXParser {
    /// The activity's heart-rate totals and lap count from its laps: the average of the laps'
    /// averages weighted by their `TotalTimeSeconds` (the time each average covers), the largest
    /// maximum, the number of laps. Each nil when no lap has what it needs.
    static func deviceTotals(of track: inout Track) {
        var weighted = 0.0, seconds = 0.0
        var maximum: Double?
        for lap in track.laps {
            if let average = lap.averageHeartRate, let timer = lap.timerSeconds, timer > 0 {
                weighted += average * timer; seconds += timer
            }
            if let top = lap.maximumHeartRate { maximum = max(maximum ?? top, top) }
        }
        track.deviceAverageHeartRate = seconds > 0 ? weighted / seconds : nil
        track.deviceMaximumHeartRate = maximum
        track.deviceLapCount = track.laps.isEmpty ? nil : track.laps.count
    }

    var scanner: TCXScanner
    var tracks: [Track] = []
    var emptyActivities = 0

    init(scanner: TCXScanner) { self.scanner = scanner }

    mutating func parse() throws -> [Track] {
        let source = scanner.source
        var depth = 0
        var sawRoot = false
        // Context, as depths of the open element (0 = not open).
        var activityDepth = 0, activityOffset = 0, lapDepth = 0, trackpointDepth = 0, heartRateDepth = 0, creatorDepth = 0
        var current = Track(source: source)
        var lap = Lap()
        var lapDistances: [Double] = []
        var lapTimers: [Double] = []
        var lastOdometer = Double.nan
        var odometerReset = false
        // The point being read.
        var lat = Double.nan, lon = Double.nan, ele = Double.nan, time = Double.nan
        var hr = Double.nan, cad = Double.nan, runCad = Double.nan, dist = Double.nan
        var offsetSeen = false

        func numberText(_ s: inout TCXScanner, _ what: String) throws -> Double {
            let (start, n) = s.text()
            if n == 0 { return .nan }
            guard let v = s.number(start, n) else {
                let text = String(decoding: UnsafeBufferPointer(start: s.p + start, count: min(n, 4 * ShownValue.limit)), as: UTF8.self)
                throw s.malformed(start, "<\(what)> holds \(ShownValue.quoted(text)), not a number")
            }
            return v
        }

        /// The number in the `<Value>` of the element just opened (a lap's `AverageHeartRateBpm`), read up
        /// to and including the element's end tag; nil when it has none.
        func lapValue(_ s: inout TCXScanner, _ what: String) throws -> Double? {
            var value: Double?
            var nested = 0
            while true {
                switch try s.next() {
                case .eof:
                    throw s.malformed(s.count, "the file ends inside <\(what)> (truncated file)")
                case .start(let ns, let nn, _, _, let selfClosing):
                    if selfClosing { continue }
                    nested += 1
                    if nested == 1, TCXTag.classify(s.p + ns, nn) == .value {
                        let v = try numberText(&s, "\(what)/Value")
                        if v.isFinite { value = v }
                    }
                case .end:
                    if nested == 0 { return value }
                    nested -= 1
                }
            }
        }

        loop: while true {
            let token = try scanner.next()
            switch token {
            case .eof:
                break loop
            case .start(let ns, let nn, let attributesStart, let attributesEnd, let selfClosing):
                let tag = TCXTag.classify(scanner.p + ns, nn)
                if !sawRoot {
                    guard tag == .trainingCenterDatabase else {
                        // Shown escaped and cut: the "name" of a file that is not XML at all is any bytes.
                        let raw = String(decoding: UnsafeBufferPointer(start: scanner.p + ns, count: min(nn, 40)), as: UTF8.self)
                        let name = ShownName.of(raw) + (nn > 40 ? "…" : "")
                        throw ActivityError.notFormat(
                            path: source, format: "TCX",
                            reason: "the root element is <\(name)> at line \(scanner.line(of: scanner.tokenOffset)), expected <TrainingCenterDatabase>")
                    }
                    sawRoot = true
                }
                if selfClosing { continue }
                depth += 1
                if trackpointDepth > 0 {
                    switch tag {
                    case .time:
                        let (s, n) = scanner.text()
                        if n > 0 {
                            guard let parsed = Timestamps.parse(scanner.p + s, count: n) else {
                                let text = String(decoding: UnsafeBufferPointer(start: scanner.p + s, count: min(n, 4 * ShownValue.limit)), as: UTF8.self)
                                throw scanner.malformed(s, "<Time> holds \(ShownValue.quoted(text)), not an ISO 8601 time")
                            }
                            time = parsed.epoch
                            if !offsetSeen {
                                offsetSeen = true
                                let last = scanner.p[s + n - 1]
                                if let offset = parsed.offsetSeconds, last != 0x5A, last != 0x7A {
                                    current.utcOffsetSeconds = offset
                                }
                            }
                        }
                    case .latitude: lat = try numberText(&scanner, "LatitudeDegrees")
                    case .longitude: lon = try numberText(&scanner, "LongitudeDegrees")
                    case .altitude: ele = try numberText(&scanner, "AltitudeMeters")
                    case .distance: dist = try numberText(&scanner, "DistanceMeters")
                    case .heartRate: heartRateDepth = depth
                    case .value: if heartRateDepth > 0 { hr = try numberText(&scanner, "Value") }
                    case .cadence: cad = try numberText(&scanner, "Cadence")
                    case .runCadence: runCad = try numberText(&scanner, "RunCadence")
                    default: break
                    }
                    continue
                }
                switch tag {
                case .activity:
                    guard activityDepth == 0 else { continue }
                    activityDepth = depth
                    activityOffset = scanner.tokenOffset
                    current = Track(source: source)
                    current.format = .tcx
                    offsetSeen = false
                    lapDistances = []; lapTimers = []; lastOdometer = .nan; odometerReset = false
                    if let (s, n) = scanner.attribute("Sport", from: attributesStart, to: attributesEnd) {
                        current.sport = String(decoding: UnsafeBufferPointer(start: scanner.p + s, count: n), as: UTF8.self)
                    }
                case .creator where activityDepth > 0 && depth == activityDepth + 1:
                    creatorDepth = depth
                case .name where creatorDepth > 0 && depth == creatorDepth + 1:
                    // The device: `<Creator xsi:type="Device_t"><Name>Forerunner 945</Name>`.
                    let name = scanner.decodedText()
                    if !name.isEmpty { current.device = name }
                case .id where activityDepth > 0 && depth == activityDepth + 1:
                    let name = scanner.decodedText()
                    if !name.isEmpty { current.name = name }
                case .lap where activityDepth > 0:
                    lapDepth = depth
                    lap = Lap()
                    if let (s, n) = scanner.attribute("StartTime", from: attributesStart, to: attributesEnd),
                        let parsed = Timestamps.parse(scanner.p + s, count: n)
                    {
                        lap.start = parsed.epoch
                    }
                case .totalTime where lapDepth > 0 && depth == lapDepth + 1:
                    let v = try numberText(&scanner, "TotalTimeSeconds")
                    if v.isFinite { lap.timerSeconds = v }
                case .distance where lapDepth > 0 && depth == lapDepth + 1:
                    let v = try numberText(&scanner, "DistanceMeters")
                    if v.isFinite { lap.distanceMeters = DeviceNumber.intended(v) }
                case .averageHeartRate where lapDepth > 0 && depth == lapDepth + 1:
                    // Read to its end here, so that the loop keeps no state for it (it runs for every tag).
                    lap.averageHeartRate = try lapValue(&scanner, "AverageHeartRateBpm")
                    depth -= 1
                case .maximumHeartRate where lapDepth > 0 && depth == lapDepth + 1:
                    lap.maximumHeartRate = try lapValue(&scanner, "MaximumHeartRateBpm")
                    depth -= 1
                case .triggerMethod where lapDepth > 0 && depth == lapDepth + 1:
                    let word = scanner.decodedText()
                    if !word.isEmpty { lap.trigger = Lap.tcxTriggers[word] ?? word.lowercased() }
                case .intensity where lapDepth > 0 && depth == lapDepth + 1:
                    let word = scanner.decodedText()
                    if !word.isEmpty { lap.intensity = Lap.tcxIntensities[word] ?? word.lowercased() }
                case .track where activityDepth > 0:
                    current.startSegment()
                case .trackpoint where activityDepth > 0:
                    trackpointDepth = depth
                    lat = .nan; lon = .nan; ele = .nan; time = .nan; hr = .nan; cad = .nan; runCad = .nan; dist = .nan
                default:
                    break
                }
            case .end:
                let closing = depth
                depth = max(0, depth - 1)
                if closing == heartRateDepth { heartRateDepth = 0 }
                if closing == creatorDepth { creatorDepth = 0 }
                if closing == trackpointDepth {
                    trackpointDepth = 0
                    if dist.isFinite {
                        if lastOdometer.isFinite, dist < lastOdometer - 10 { odometerReset = true }
                        lastOdometer = dist
                    }
                    current.append(
                        latitude: lat, longitude: lon, elevation: ele, time: time, heartRate: hr,
                        cadence: cad.isFinite ? cad : runCad, deviceDistance: dist)
                    continue
                }
                if closing == lapDepth {
                    lapDepth = 0
                    current.laps.append(lap)
                    if let d = lap.distanceMeters { lapDistances.append(d) }
                    if let t = lap.timerSeconds { lapTimers.append(t) }
                    continue
                }
                if closing == activityDepth {
                    activityDepth = 0
                    if current.isEmpty {
                        emptyActivities += 1
                        continue
                    }
                    // The odometer, unless it restarts (per-lap odometers) and the laps have totals.
                    let lapSum = lapDistances.isEmpty ? nil : lapDistances.reduce(0, +)
                    current.deviceDistanceMeters = lastOdometer.isFinite && !(odometerReset && lapSum != nil)
                        ? DeviceNumber.intended(lastOdometer) : lapSum
                    current.deviceTimerSeconds = lapTimers.isEmpty ? nil : lapTimers.reduce(0, +)
                    TCXParser.deviceTotals(of: &current)
                    current.settlePositions()
                    tracks.append(current)
                }
            }
        }
        if !sawRoot {
            throw ActivityError.notFormat(path: source, format: "TCX", reason: "no XML element found")
        }
        if activityDepth > 0 {
            throw scanner.malformed(scanner.count, "the file ends inside the <Activity> opened at line \(scanner.line(of: activityOffset)) (truncated file)")
        }
        if tracks.isEmpty {
            let reason = emptyActivities > 0
                ? "\(emptyActivities) <Activity> element(s) without any <Trackpoint>"
                : "no <Activity> element (a TCX course or an empty export?)"
            throw ActivityError.noUsablePoints(path: source, reason: reason)
        }
        return tracks
    }
}
