import Foundation

/// Reads the workouts of an Apple Health export (`apple_health_export/export.xml`, alone or in its
/// `export.zip`), streamed: a real account's file is gigabytes, mostly `Record` elements, and
/// memory holds only the workouts and the heart-rate samples that fall inside them.
///
/// Two passes over the bytes (`open` gives a fresh stream each time): the first keeps every
/// `Workout` (its sport, dates with their UTC offset, `duration`, distance from its own
/// `WorkoutStatistics` or the older `totalDistance`, heart-rate statistics, `HKTimeZone`, the
/// route files its `WorkoutRoute`s name, or an older export's inline `Location`s); the second keeps
/// the heart-rate `Record`s whose time falls inside a workout. The export writes its records before
/// its workouts, so one pass would have to keep every heart-rate record of a lifetime.
public enum AppleHealthReader {
    /// One `Workout` element as the export wrote it.
    public struct Workout: Sendable {
        /// `workoutActivityType` (`HKWorkoutActivityTypeRunning`).
        public var activityType: String
        /// Epoch seconds of `startDate` and `endDate`; the UTC offset they were written with.
        public var start: Double
        public var end: Double
        public var offsetSeconds: Int?
        /// `duration` in seconds (the workout's active time, pauses left out).
        public var durationSeconds: Double?
        /// The workout's distance in metres (`WorkoutStatistics` of a distance type, else `totalDistance`).
        public var distanceMeters: Double?
        /// Heart-rate statistics of the whole workout, in bpm.
        public var averageHeartRate: Double?
        public var maximumHeartRate: Double?
        /// The `HKTimeZone` metadata (`Europe/Paris`).
        public var zoneName: String?
        /// The `HKIndoorWorkout` metadata: true for `1` (a treadmill, an indoor track), false for `0`;
        /// nil when the workout does not say.
        public var indoor: Bool?
        /// `FileReference` paths of its routes as written (`/workout-routes/route_2025-09-16_6.15pm.gpx`).
        public var routeFiles: [String] = []
        /// Inline `Location` points (older exports): epoch seconds, degrees, metres.
        public var locationTimes: [Double] = []
        public var latitudes: [Double] = []
        public var longitudes: [Double] = []
        public var altitudes: [Double] = []
        /// Heart-rate records inside the workout (epoch seconds, bpm), in time order.
        public var heartRateTimes: [Double] = []
        public var heartRates: [Double] = []
        /// The byte offset of its `<Workout` tag, for messages (`line(at:open:)` gives its line).
        public var offset: Int
    }

    /// Why a file named `export.xml` is not read as an Apple Health export.
    static let notExport = "not an Apple Health export: no <HealthData> element"

    /// Fills a buffer with the next bytes of the export; 0 at the end.
    public typealias Fill = (UnsafeMutablePointer<UInt8>, Int) throws -> Int

    /// True when a file's first bytes are an Apple Health export (`<HealthData` before the first 4 KiB end).
    public static func looksLikeExport(_ prefix: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: prefix.prefix(4096), as: UTF8.self)
        return text.contains("<HealthData") || text.contains("HealthData [")
    }

    /// What was not read, and why: a `Workout` whose dates cannot be read, are not from 1900–2200,
    /// name a day its month does not have or an offset beyond ±14:00, or that ends before it starts;
    /// a tag past `maximumTagBytes`; the workouts past `maximumWorkouts`. One bad workout costs only
    /// itself: the others are read.
    public struct Skip: Sendable, Equatable {
        /// The byte offset of its tag (`line(at:open:)` gives its line); nil for the workouts past the limit.
        public var offset: Int?
        public var reason: String
    }

    /// What an export holds: its workouts, in the file's order, and the workouts it could not read.
    public struct Export: Sendable {
        public var workouts: [Workout]
        public var skipped: [Skip]
    }

    /// Every workout of the export, in the file's order, with its heart-rate records. `open` gives a
    /// fresh stream of the export's bytes (called twice); `source` names it in messages.
    public static func workouts(source: String, open: () throws -> Fill) throws -> [Workout] {
        try read(source: source, open: open).workouts
    }

    /// At most this many workouts are read from one export; those past it are a named skip. A run
    /// costs a few kilobytes from its workout to its summary (300,000 workouts of a 1.7 MB zip took
    /// 2.6 GB); 50,000 is more than one a day for 130 years, and holds under 500 MB.
    public static let maximumWorkouts = 50_000

    /// A tag longer than this (no `>` within 1 MiB of its `<`) is a named skip: the export writes
    /// tags of a few hundred bytes, its DOCTYPE a few kilobytes.
    public static let maximumTagBytes = 1 << 20

    /// Every workout of the export with its heart-rate records, up to `maximumWorkouts`, and what was
    /// skipped (`Skip`: a workout that cannot be read, an over-long tag, the workouts past the limit).
    /// Throws only when the export itself cannot be read (no `<HealthData>`, a tag the file ends inside).
    public static func read(source: String, maximumWorkouts: Int = maximumWorkouts, open: () throws -> Fill) throws -> Export {
        do {
            return try scanBoth(source: source, maximumWorkouts: maximumWorkouts, open: open)
        } catch ActivityError.malformed(let path, nil, let offset?, let reason) {
            // Lines are counted only for a message: a pass that counted them all would cost a third of the time.
            throw ActivityError.malformed(path: path, line: try? line(at: offset, open: open), offset: offset, reason: reason)
        }
    }

    /// The 1-based line of byte `offset` of the stream `open` gives (read again up to it).
    public static func line(at offset: Int, open: () throws -> Fill) throws -> Int {
        let fill = try open()
        let size = 1 << 16
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { buffer.deallocate() }
        var line = 1, position = 0
        while position < offset {
            let n = try fill(buffer, min(size, offset - position))
            if n == 0 { break }
            line += XMLBytes.countNewlines(buffer, count: n)
            position += n
        }
        return line
    }

    private static func scanBoth(source: String, maximumWorkouts: Int, open: () throws -> Fill) throws -> Export {
        var scanner = Scanner(source: source, pass: .workouts)
        scanner.maximumWorkouts = maximumWorkouts
        try scanner.run(open())
        guard scanner.sawRoot else {
            throw ActivityError.malformed(path: source, line: nil, offset: nil, reason: notExport)
        }
        var workouts = scanner.workouts
        var skipped = scanner.skipped
        if scanner.workoutsPastLimit > 0 {
            skipped.append(Skip(offset: nil, reason: "\(scanner.workoutsPastLimit) workouts after the first \(maximumWorkouts) are not read "
                + "(the limit of workouts read from one export)"))
        }
        guard !workouts.isEmpty else { return Export(workouts: [], skipped: skipped) }
        // Heart rate: the records inside a workout's time (sorted intervals, found by binary search).
        var order = Array(workouts.indices)
        order.sort { workouts[$0].start < workouts[$1].start }
        var second = Scanner(source: source, pass: .heartRate)
        second.intervals = order.map { (workouts[$0].start, workouts[$0].end, $0) }
        try second.run(open())
        for (index, samples) in second.samples {
            let sorted = samples.sorted { $0.0 < $1.0 }
            workouts[index].heartRateTimes = sorted.map(\.0)
            workouts[index].heartRates = sorted.map(\.1)
        }
        return Export(workouts: workouts, skipped: skipped)
    }

    /// The track of a workout: its route files' tracks (read by the caller, joined here in time
    /// order), else its inline locations, else its start and end only (a treadmill run: totals
    /// only). Heart rate from its records; the device's totals and the file's UTC offset.
    public static func track(_ workout: Workout, routes: [Track], source: String) -> Track {
        var track = Track(source: source)
        track.format = .appleHealth
        track.sport = workout.activityType
        track.utcOffsetSeconds = zoneOffset(workout)
        // `run.indoor`: what the watch recorded (an indoor run of a workout type); else the sport word's say.
        if let indoor = workout.indoor { track.indoor = indoor }
        let routes = routes.filter { !$0.isEmpty }.sorted { ($0.times.first ?? 0) < ($1.times.first ?? 0) }
        func heartRate(at time: Double) -> Double {
            let times = workout.heartRateTimes
            guard !times.isEmpty, !time.isNaN else { return .nan }
            // The last record at or before `time`, else the first after it, within a minute.
            var low = 0, high = times.count
            while low < high {
                let mid = (low + high) / 2
                if times[mid] <= time { low = mid + 1 } else { high = mid }
            }
            if low > 0, time - times[low - 1] <= 60 { return workout.heartRates[low - 1] }
            if low < times.count, times[low] - time <= 60 { return workout.heartRates[low] }
            return .nan
        }
        // A route whose points give (almost) no distance (two identical points: a watch that lost its
        // fix) says nothing of how far the run went, while the workout's own total does: such a workout
        // is read as one without a route, the total as its odometer.
        var routeMeters = 0.0, routePoints = 0
        func measure(_ lat: [Double], _ lon: [Double], _ range: Range<Int>) {
            var last: (Double, Double)? = nil
            for i in range where i < lat.count && i < lon.count && Geodesy.isValid(latitude: lat[i], longitude: lon[i]) {
                if let (a, b) = last { routeMeters += Geodesy.distance(lat1: a, lon1: b, lat2: lat[i], lon2: lon[i]) }
                last = (lat[i], lon[i])
                routePoints += 1
            }
        }
        for route in routes { for range in route.segmentRanges { measure(route.latitudes, route.longitudes, range) } }
        if routes.isEmpty { measure(workout.latitudes, workout.longitudes, workout.latitudes.indices) }
        let total = workout.distanceMeters ?? 0
        let routeGivesNoDistance = routePoints > 0 && total.isFinite && total > 0 && routeMeters < max(1, total * 0.01)
        if routeGivesNoDistance {
            track.drop("route without distance (\(Int(routeMeters.rounded())) m; the workout's own \(Int(total.rounded())) m used)", count: routePoints)
        }
        if !routes.isEmpty && !routeGivesNoDistance {
            for route in routes {
                for range in route.segmentRanges {
                    track.startSegment()
                    for i in range {
                        track.append(latitude: route.latitudes[i], longitude: route.longitudes[i], elevation: route.elevations[i],
                                     time: route.times[i], heartRate: heartRate(at: route.times[i]))
                    }
                }
                for (reason, count) in route.dropped { track.drop(reason, count: count) }
            }
        } else if !workout.locationTimes.isEmpty && !routeGivesNoDistance {
            for i in workout.locationTimes.indices {
                track.append(latitude: workout.latitudes[i], longitude: workout.longitudes[i], elevation: workout.altitudes[i],
                             time: workout.locationTimes[i], heartRate: heartRate(at: workout.locationTimes[i]))
            }
        } else {
            // No route: the start and the end, with the device's distance as the odometer.
            track.hasPositions = false
            track.append(latitude: .nan, longitude: .nan, time: workout.start, heartRate: heartRate(at: workout.start), deviceDistance: 0)
            for (time, bpm) in zip(workout.heartRateTimes, workout.heartRates) where time > workout.start && time < workout.end {
                track.append(latitude: .nan, longitude: .nan, time: time, heartRate: bpm)
            }
            track.append(latitude: .nan, longitude: .nan, time: workout.end, heartRate: heartRate(at: workout.end),
                         deviceDistance: workout.distanceMeters ?? .nan)
        }
        track.recordedFirstTime = min(workout.start, track.times.first ?? workout.start)
        track.recordedLastTime = max(workout.end, track.times.last ?? workout.end)
        track.deviceDistanceMeters = workout.distanceMeters
        track.deviceTimerSeconds = workout.durationSeconds
        track.deviceElapsedSeconds = workout.end - workout.start
        track.deviceAverageHeartRate = workout.averageHeartRate
        track.deviceMaximumHeartRate = workout.maximumHeartRate
        return track
    }

    /// The UTC offset of the workout's local time: its `HKTimeZone` (the zone the watch was in) at
    /// its start when the zone is known, else the offset its dates were written with (the phone's
    /// zone when the export was made, which a runner who travelled since no longer is in).
    public static func zoneOffset(_ workout: Workout) -> Int? {
        if let name = workout.zoneName, let zone = TimeZone(identifier: name) {
            return zone.secondsFromGMT(for: Date(timeIntervalSince1970: workout.start))
        }
        return workout.offsetSeconds
    }

    /// Metres in one `unit` of distance as the export writes it (`km`, `mi`, `m`, `yd`, `ft`), nil for others.
    static func metres(per unit: String) -> Double? {
        switch unit {
        case "m": return 1
        case "km": return 1000
        case "mi": return 1609.344
        case "yd": return 0.9144
        case "ft": return 0.3048
        case "cm": return 0.01
        default: return nil
        }
    }

    /// Seconds in one `durationUnit` (`min`, `s`, `hr`), nil for others.
    static func seconds(per unit: String) -> Double? {
        switch unit {
        case "s", "sec": return 1
        case "min": return 60
        case "hr", "h": return 3600
        case "ms": return 0.001
        default: return nil
        }
    }

    /// The byte scanner of one pass: finds the tags it needs in the stream and skips everything else.
    struct Scanner {
        enum Pass { case workouts, heartRate }
        let source: String
        let pass: Pass
        var sawRoot = false
        var workouts: [Workout] = []
        /// Pass 1: what was not read, and why (`Skip`); workouts left out past `maximumWorkouts`.
        var skipped: [Skip] = []
        var maximumWorkouts = AppleHealthReader.maximumWorkouts
        var workoutsPastLimit = 0
        /// A tag left unfinished at the end of the last window: its stream offset, and how many of its
        /// bytes were searched for its `>` already (the search resumes there, never rescans).
        private var pendingTag = -1
        private var pendingSearched = 0
        /// Inside a tag longer than `maximumTagBytes`: its bytes are passed over up to its `>`.
        private var skippingTag = false
        /// Pass 2: workouts' (start, end, index) by start; samples found per workout index.
        var intervals: [(Double, Double, Int)] = []
        var samples: [Int: [(Double, Double)]] = [:]
        /// Pass 1: the workout being read and the element depth inside it.
        private var current: Workout?
        private var depth = 0
        private var inRoute = false
        private var dayCache = Timestamps.DayCache()

        init(source: String, pass: Pass) {
            self.source = source
            self.pass = pass
        }

        mutating func run(_ fill: @escaping Fill) throws {
            let reader = ChunkedFileReader(chunkSize: 1 << 20, fill: fill)
            var consumed = 0
            while let window = try reader.next(consumed: consumed) {
                consumed = try scan(window.bytes, count: window.count, final: window.isFinal, offset: window.offset)
                if window.isFinal { break }
            }
            if pass == .workouts, let open = current {
                throw ActivityError.malformed(path: source, line: nil, offset: open.offset, reason: "the export ends inside this <Workout> (truncated?)")
            }
        }

        /// Keeps a workout read in pass 1, up to `maximumWorkouts`.
        private mutating func keep(_ workout: Workout) {
            if workouts.count < maximumWorkouts { workouts.append(workout) } else { workoutsPastLimit += 1 }
        }

        /// Scans the window; returns how many bytes were used (up to the start of an unfinished tag).
        private mutating func scan(_ p: UnsafePointer<UInt8>, count n: Int, final: Bool, offset: Int) throws -> Int {
            var i = 0
            if skippingTag {
                // The rest of an over-long tag: up to its `>`, with nothing kept meanwhile.
                guard let closing = memchr(p, 0x3E, n) else { return n }
                skippingTag = false
                i = UnsafePointer<UInt8>(closing.assumingMemoryBound(to: UInt8.self)) - p + 1
            }
            while i < n {
                guard let found = memchr(p + i, 0x3C, n - i) else { return n }
                let lt = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - p
                // Most tags cannot matter to this pass: passed over on their first letter, their end
                // never looked for (outside a workout the first pass needs `Workout` and `HealthData`;
                // the second, `Record`).
                if lt + 1 < n {
                    let first = p[lt + 1]
                    let wanted: Bool
                    switch pass {
                    case .heartRate: wanted = first == 0x52
                    case .workouts: wanted = current != nil || first == 0x57 || (!sawRoot && (first == 0x48 || first == 0x21 || first == 0x3F))
                    }
                    if !wanted {
                        i = lt + 1
                        continue
                    }
                }
                // The tag's end: the next '>' (attribute values never hold a raw '<' or, as the
                // export writes them, '>'). A tag left unfinished by the last window is searched on
                // from where that search stopped: a long tag is read once, not once per window.
                let searched = offset + lt == pendingTag ? pendingSearched : 0
                pendingTag = -1
                guard let closing = memchr(p + lt + searched, 0x3E, n - lt - searched) else {
                    if final { throw ActivityError.malformed(path: source, line: nil, offset: offset + lt, reason: "the export ends inside a tag") }
                    if n - lt > AppleHealthReader.maximumTagBytes {
                        // Named once (pass 1), passed over up to its end; the rest of the export is read.
                        if pass == .workouts {
                            skipped.append(Skip(offset: offset + lt, reason: "the tag runs past \(AppleHealthReader.maximumTagBytes >> 20) MiB "
                                + "without its '>' (the longest tag read); skipped up to its end"))
                        }
                        skippingTag = true
                        return n
                    }
                    pendingTag = offset + lt
                    pendingSearched = n - lt
                    return lt
                }
                let gt = UnsafePointer<UInt8>(closing.assumingMemoryBound(to: UInt8.self)) - p
                try tag(p, from: lt + 1, to: gt, offset: offset + lt)
                i = gt + 1
            }
            return n
        }

        /// The name at `p[from...]` is `name` followed by a space, `/` or the end.
        private static func named(_ name: StaticString, _ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Bool {
            let count = name.utf8CodeUnitCount
            guard to - from >= count, XMLBytes.equal(p + from, name.utf8Start, count) else { return false }
            return to - from == count || XMLBytes.isSpace(p[from + count]) || p[from + count] == 0x2F
        }

        /// One tag's bytes between `<` and `>`.
        private mutating func tag(_ p: UnsafePointer<UInt8>, from: Int, to: Int, offset: Int) throws {
            guard from < to else { return }
            let selfClosing = p[to - 1] == 0x2F
            switch pass {
            case .heartRate:
                guard p[from] == 0x52, Self.named("Record", p, from: from, to: to) else { return }
                let time: Double, value: Double
                if Self.startsWith(p, from + 7, to, Self.typeAttribute) {
                    // The export writes `type` first: a record of another type is passed over on its first bytes.
                    guard Self.startsWith(p, from + 7 + Self.typeAttribute.count, to, Self.heartRateType),
                          let date = Self.valueRange(Self.startDateAttribute, p, from: from, to: to),
                          let number = Self.valueRange(Self.valueAttribute, p, from: from, to: to),
                          let parsed = parseDate(p + date.lowerBound, count: date.count)?.epoch,
                          let bpm = XMLBytes.parseDouble(p + number.lowerBound, count: number.count) else { return }
                    time = parsed
                    value = bpm
                } else {
                    let attributes = Self.attributes(p, from: from + 6, to: to, only: ["type", "startDate", "value"])
                    guard attributes["type"] == "HKQuantityTypeIdentifierHeartRate", let date = attributes["startDate"],
                          let parsed = parseDate(date)?.epoch, let bpm = attributes["value"].flatMap(Double.init) else { return }
                    time = parsed
                    value = bpm
                }
                guard value.isFinite else { return }
                // The last workout starting at or before `time`, if `time` is inside it (workouts do not overlap).
                var low = 0, high = intervals.count
                while low < high {
                    let mid = (low + high) / 2
                    if intervals[mid].0 <= time { low = mid + 1 } else { high = mid }
                }
                var k = low - 1
                while k >= 0, intervals[k].0 <= time {
                    if time <= intervals[k].1 { samples[intervals[k].2, default: []].append((time, value)); break }
                    k -= 1
                    if low - 1 - k > 4 { break }
                }
            case .workouts:
                if p[from] == 0x3F || p[from] == 0x21 { return }  // <?xml ...?>, <!DOCTYPE, <!-- -->
                if p[from] == 0x2F {
                    // A closing tag.
                    guard current != nil else { return }
                    if Self.named("Workout", p, from: from + 1, to: to) {
                        if let workout = current { keep(workout) }
                        current = nil
                        return
                    }
                    if Self.named("WorkoutRoute", p, from: from + 1, to: to) { inRoute = false }
                    depth -= 1
                    return
                }
                if current == nil {
                    if !sawRoot, Self.named("HealthData", p, from: from, to: to) { sawRoot = true }
                    guard p[from] == 0x57, Self.named("Workout", p, from: from, to: to) else { return }
                    startWorkout(Self.attributes(p, from: from + 7, to: to, only: nil), offset: offset)
                    if selfClosing, let workout = current {
                        keep(workout)
                        current = nil
                    }
                    return
                }
                let childDepth = depth
                if !selfClosing { depth += 1 }
                if Self.named("WorkoutStatistics", p, from: from, to: to), childDepth == 0 {
                    statistics(Self.attributes(p, from: from + 17, to: to, only: ["type", "sum", "unit", "average", "maximum"]))
                } else if Self.named("MetadataEntry", p, from: from, to: to), childDepth == 0 {
                    let attributes = Self.attributes(p, from: from + 13, to: to, only: ["key", "value"])
                    if attributes["key"] == "HKTimeZone" { current?.zoneName = attributes["value"] }
                    if attributes["key"] == "HKIndoorWorkout", let value = attributes["value"].flatMap(Double.init) { current?.indoor = value != 0 }
                } else if Self.named("WorkoutRoute", p, from: from, to: to) {
                    inRoute = !selfClosing
                } else if inRoute, Self.named("FileReference", p, from: from, to: to) {
                    if let path = Self.attributes(p, from: from + 13, to: to, only: ["path"])["path"] { current?.routeFiles.append(path) }
                } else if inRoute, Self.named("Location", p, from: from, to: to) {
                    let a = Self.attributes(p, from: from + 8, to: to, only: ["date", "latitude", "longitude", "altitude"])
                    guard let time = a["date"].flatMap({ parseDate($0)?.epoch }), let lat = a["latitude"].flatMap(Double.init),
                          let lon = a["longitude"].flatMap(Double.init), (-90...90).contains(lat), (-180...180).contains(lon) else { return }
                    current?.locationTimes.append(time)
                    current?.latitudes.append(lat)
                    current?.longitudes.append(lon)  // a date outside 1900–2200 is dropped by name (Track.dropImplausible)
                    current?.altitudes.append(a["altitude"].flatMap(Double.init) ?? .nan)
                }
            }
        }

        /// `2025-09-16 16:14:50 +0100` (the export's form) or ISO 8601.
        mutating func parseDate(_ text: String) -> (epoch: Double, offsetSeconds: Int?)? {
            var bytes = Array(text.utf8)
            return bytes.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return nil }
                return parseDate(UnsafePointer(base), count: buffer.count)
            }
        }

        /// The same over bytes (the export writes "+0100" after a space; the parser reads it right after the time).
        mutating func parseDate(_ p: UnsafePointer<UInt8>, count: Int) -> (epoch: Double, offsetSeconds: Int?)? {
            guard count >= 25, count <= 40, p[19] == 0x20, p[20] == 0x2B || p[20] == 0x2D else {
                return Timestamps.parse(p, count: count, cache: &dayCache)
            }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
                guard let base = buffer.baseAddress else { return nil }
                base.update(from: p, count: 19)
                (base + 19).update(from: p + 20, count: count - 20)
                return Timestamps.parse(UnsafePointer(base), count: count - 1, cache: &dayCache)
            }
        }

        static let typeAttribute = Array("type=\"".utf8)
        static let heartRateType = Array("HKQuantityTypeIdentifierHeartRate\"".utf8)
        static let startDateAttribute = Array(" startDate=\"".utf8)
        static let valueAttribute = Array(" value=\"".utf8)

        /// `p[at..<to]` starts with `bytes`.
        static func startsWith(_ p: UnsafePointer<UInt8>, _ at: Int, _ to: Int, _ bytes: [UInt8]) -> Bool {
            guard to - at >= bytes.count else { return false }
            return bytes.withUnsafeBufferPointer { b in b.baseAddress.map { XMLBytes.equal(p + at, $0, bytes.count) } ?? false }
        }

        /// The value of the attribute whose ` name="` is `marker`, in `p[from..<to]` (the first occurrence).
        static func valueRange(_ marker: [UInt8], _ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Range<Int>? {
            guard let head = marker.first else { return nil }
            var at = from
            var start = -1
            marker.withUnsafeBufferPointer { m in
                guard let base = m.baseAddress else { return }
                while at + m.count <= to, let hit = memchr(p + at, Int32(head), to - at - m.count + 1) {
                    let index = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
                    if XMLBytes.equal(p + index, base, m.count) { start = index + m.count; return }
                    at = index + 1
                }
            }
            guard start >= 0 else { return nil }
            guard let close = memchr(p + start, 0x22, to - start) else { return nil }
            let end = UnsafePointer<UInt8>(close.assumingMemoryBound(to: UInt8.self)) - p
            return start..<end
        }

        /// Opens the workout the tag's attributes `a` describe, or skips it (`skipped`) when its dates
        /// are not a run's: the scan goes on, and its children are passed over (no workout is open).
        private mutating func startWorkout(_ a: [String: String], offset: Int) {
            current = nil
            func skip(_ reason: String) { skipped.append(Skip(offset: offset, reason: reason + "; this workout is skipped, the others are read")) }
            /// The date of attribute `name`, or nil once the workout is skipped for it.
            func date(_ name: String) -> (epoch: Double, offsetSeconds: Int?)? {
                guard let text = a[name], let parsed = parseDate(text) else {
                    skip("a <Workout> without a readable \(name) (\(a[name].map { ShownValue.quoted($0) } ?? "none"))")
                    return nil
                }
                if let problem = Timestamps.calendarProblem(text) {
                    skip("a <Workout> whose \(name) \(ShownValue.quoted(text)) is not a real time: \(problem)")
                    return nil
                }
                guard Plausible.isEpoch(parsed.epoch) else {
                    skip("a <Workout> whose \(name) \(ShownValue.quoted(text)) is not from \(Plausible.years)")
                    return nil
                }
                return parsed
            }
            guard let start = date("startDate"), let end = date("endDate") else { return }
            guard end.epoch >= start.epoch else {
                skip("a <Workout> whose endDate \(ShownValue.quoted(a["endDate"] ?? "")) is before its startDate \(ShownValue.quoted(a["startDate"] ?? ""))")
                return
            }
            var workout = Workout(activityType: a["workoutActivityType"] ?? "", start: start.epoch, end: end.epoch,
                                  offsetSeconds: start.offsetSeconds, offset: offset)
            if let value = a["duration"].flatMap(Double.init), let unit = Self.seconds(per: a["durationUnit"] ?? "min") {
                workout.durationSeconds = Self.plausible(value * unit, atMost: Self.maximumDurationSeconds)
            }
            if let value = a["totalDistance"].flatMap(Double.init), let unit = Self.metres(per: a["totalDistanceUnit"] ?? "km") {
                workout.distanceMeters = Self.plausible(value * unit, atMost: SummaryReader.maximumDistanceMeters)
            }
            current = workout
            depth = 0
            inRoute = false
        }

        /// The longest workout duration taken from a file (30 days); a longer one is not a run's.
        static let maximumDurationSeconds = 30 * 86_400.0

        /// `value` when it is a finite figure from 0 to `atMost` (a device total a run can have); nil
        /// otherwise, so a damaged or hostile export's total (`sum="5.7e39"`) is not taken as the run's.
        static func plausible(_ value: Double, atMost: Double) -> Double? {
            value.isFinite && value >= 0 && value <= atMost ? value : nil
        }

        private mutating func statistics(_ a: [String: String]) {
            guard let type = a["type"] else { return }
            if type.hasPrefix("HKQuantityTypeIdentifierDistance"), let sum = a["sum"].flatMap(Double.init),
               let unit = Self.metres(per: a["unit"] ?? ""), let metres = Self.plausible(sum * unit, atMost: SummaryReader.maximumDistanceMeters) {
                current?.distanceMeters = metres
            } else if type == "HKQuantityTypeIdentifierHeartRate" {
                current?.averageHeartRate = a["average"].flatMap(Double.init)
                current?.maximumHeartRate = a["maximum"].flatMap(Double.init)
            }
        }

        static func metres(per unit: String) -> Double? { AppleHealthReader.metres(per: unit) }
        static func seconds(per unit: String) -> Double? { AppleHealthReader.seconds(per: unit) }

        /// The attributes of a tag (entities decoded), only those named in `only` when given.
        static func attributes(_ p: UnsafePointer<UInt8>, from: Int, to: Int, only: Set<String>?) -> [String: String] {
            var result: [String: String] = [:]
            var i = from
            while i < to {
                while i < to, XMLBytes.isSpace(p[i]) || p[i] == 0x2F { i += 1 }
                let nameStart = i
                while i < to, p[i] != 0x3D, !XMLBytes.isSpace(p[i]) { i += 1 }
                let nameEnd = i
                while i < to, p[i] != 0x22, p[i] != 0x27 { i += 1 }
                guard i < to else { break }
                let quote = p[i]
                let valueStart = i + 1
                i = valueStart
                while i < to, p[i] != quote { i += 1 }
                let valueEnd = i
                i += 1
                guard nameEnd > nameStart else { continue }
                let name = String(decoding: UnsafeBufferPointer(start: p + nameStart, count: nameEnd - nameStart), as: UTF8.self)
                if let only, !only.contains(name) { continue }
                var value: [UInt8] = []
                XMLBytes.appendDecoded(p, from: valueStart, to: valueEnd, into: &value)
                result[name] = String(decoding: value, as: UTF8.self)
            }
            return result
        }
    }
}
