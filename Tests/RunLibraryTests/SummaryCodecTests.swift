import RunFixtures
import GRDB
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
@testable import RunLibrary
import XCTest

/// The cache's binary summaries (`SummaryCodec`): its tables cover every stored property of the types
/// they write, every field comes back as it went in, and damaged bytes are an error, never a trap, after
/// which the file is read again and its row rebuilt.
final class SummaryCodecTests: XCTestCase {
    /// A run with every stored property set (no nil, no empty list), each record too. When `RunSummary`
    /// or a record type gains a property, `testEveryFieldIsFilledIn` fails until it is set here, and
    /// `testTablesCoverEveryStoredProperty` until the codec writes it.
    static func everyFieldSet(id: String = "2024/05-01.gpx") -> RunSummary {
        var run = RunSummary(
            id: id, start: "2024-05-01T06:30:00Z", startEpochSeconds: 1_714_545_000.25, utcOffsetSeconds: 7200,
            localDate: "2024-05-01", name: "Morning run", sport: "running", format: "gpx", points: 3601,
            distanceMeters: 10_123.5, elapsedSeconds: 3600.5, timerSeconds: 3500, movingSeconds: 3400.75,
            deviceDistanceMeters: 10_100,
            checkpoints: [Checkpoint(badge: "sea", name: "pier", distanceMeters: 5000, latitude: 51.5, longitude: -0.12, elapsedSeconds: 1700)],
            splitsKilometre: [Split(index: 1, distanceMeters: 1000, elapsedSeconds: 350, cumulativeSeconds: 350, partial: false),
                              Split(index: 2, distanceMeters: 123.5, elapsedSeconds: 40, cumulativeSeconds: 390, partial: true)],
            splitsMile: [Split(index: 1, distanceMeters: 1609.344, elapsedSeconds: 560, cumulativeSeconds: 560, partial: false)],
            efforts: [Effort(name: "5km", distanceMeters: 5000, elapsedSeconds: 1500, startDistanceMeters: 12.5, startElapsedSeconds: 4)],
            elevation: Elevation(gainMeters: 120.5, lossMeters: 118, minMeters: 3, maxMeters: 88),
            heartRate: SensorStats(average: 151.5, maximum: 178, weighting: .sample),
            cadence: SensorStats(average: 86, maximum: 95),
            dropped: [Dropped(reason: "clock_jump", count: 2)])
        run.localStart = "2024-05-01T08:30:00"
        run.localOffsetSeconds = 7200
        run.zoneSource = "file"
        run.floatingStart = true
        run.deviceTimerSeconds = 3490
        run.deviceElapsedSeconds = 3601
        run.deviceAscentMeters = 110
        run.deviceDescentMeters = 109
        run.deviceMovingSeconds = 3390
        run.deviceAverageHeartRate = 150
        run.deviceMaximumHeartRate = 177
        run.deviceLaps = 11
        run.gps = true
        run.indoor = false
        run.manual = false
        run.device = "Forerunner 965"
        run.laps = [RunLap(index: 1, startElapsedSeconds: 0, distanceMeters: 1000, elapsedSeconds: 352, timerSeconds: 350,
                           averageHeartRate: 149, maximumHeartRate: 160, trigger: "distance", intensity: "active")]
        run.route = RouteTrace(latitudes: [51.5, 51.6], longitudes: [-0.1, -0.2], speedsMetersPerSecond: [3.1, nil], segmentStarts: [0, 1])
        return run
    }

    /// The labels of a value's stored properties (a property wrapper's `_` taken off).
    func labels(_ value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap { $0.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } })
    }

    func testTablesCoverEveryStoredProperty() {
        let run = Self.everyFieldSet()
        let stored = Set(SummaryCodec.runFields.map(\.name))
        XCTAssertEqual(stored.count, SummaryCodec.runFields.count, "a property written twice")
        XCTAssertEqual(labels(run).subtracting(stored).subtracting(SummaryCodec.notStored.keys), [],
                       "stored properties of RunSummary the codec leaves out: add them to SummaryCodec.runFields (or notStored, with the reason)")
        XCTAssertEqual(stored.union(SummaryCodec.notStored.keys).subtracting(labels(run)), [], "names in the codec's table that RunSummary has not")
        XCTAssertTrue(stored.isDisjoint(with: SummaryCodec.notStored.keys))
        let records: [(String, Set<String>, Any)] = [
            ("Checkpoint", Set(SummaryCodec.checkpoint.fields.map(\.name)), run.checkpoints[0]),
            ("Split", Set(SummaryCodec.split.fields.map(\.name)), run.splitsKilometre[0]),
            ("Effort", Set(SummaryCodec.effort.fields.map(\.name)), run.efforts[0]),
            ("RunLap", Set(SummaryCodec.lap.fields.map(\.name)), run.laps[0]),
            ("Elevation", Set(SummaryCodec.elevation.fields.map(\.name)), run.elevation as Any),
            ("SensorStats", Set(SummaryCodec.sensor.fields.map(\.name)), run.heartRate as Any),
            ("Dropped", Set(SummaryCodec.dropped.fields.map(\.name)), run.dropped[0]),
            ("RouteTrace", Set(SummaryCodec.route.fields.map(\.name)), run.route as Any),
        ]
        for (name, fields, sample) in records {
            let unwrapped = Mirror(reflecting: sample).displayStyle == .optional ? Mirror(reflecting: sample).children.first?.value ?? sample : sample
            XCTAssertEqual(labels(unwrapped).subtracting(fields), [], "stored properties of \(name) its SummaryCodec table leaves out")
            XCTAssertEqual(fields.subtracting(labels(unwrapped)), [], "names in \(name)'s SummaryCodec table that it has not")
        }
    }

    /// Where the fixture leaves something unset: a nil, an empty list, all the way down (a nil inside a list excepted).
    func unset(_ value: Any, path: String, skipping: Set<String> = []) -> [String] {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return [path] }
            return unset(wrapped, path: path)
        case .collection, .dictionary, .set:
            guard !mirror.children.isEmpty else { return [path] }
            // A nil element of a list of optionals is a value of its own (the route's speeds hold one on purpose).
            return mirror.children.enumerated().flatMap { element -> [String] in
                let value = Mirror(reflecting: element.element.value)
                if value.displayStyle == .optional, value.children.isEmpty { return [] }
                return unset(element.element.value, path: "\(path)[\(element.offset)]")
            }
        case .struct:
            return mirror.children.flatMap { child -> [String] in
                let label = child.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } ?? "?"
                if skipping.contains(label) { return [] }
                // A property wrapper (`NullEncoded`, `EmptyIfAbsent`) holds its value under `wrappedValue`.
                return unset(child.value, path: label == "wrappedValue" ? path : "\(path).\(label)")
            }
        default:
            return []
        }
    }

    func testEveryFieldIsFilledInAndComesBack() throws {
        let run = Self.everyFieldSet()
        XCTAssertEqual(unset(run, path: "run", skipping: Set(SummaryCodec.notStored.keys)), [],
                       "the fixture sets every field, so that the round trip below checks it")
        var second = Self.everyFieldSet(id: "2024/05-02.fit#2")
        second.start = nil; second.laps = []; second.route = nil; second.heartRate = nil; second.gps = nil
        let decoded = try SummaryCodec.decode(SummaryCodec.encode([run, second]))
        XCTAssertEqual(decoded, [run, second])
        // Field by field as well, so that a failure names the field.
        for field in SummaryCodec.runFields {
            var single = SummaryCodec.summary.blank
            var writer = SummaryCodec.Writer()
            field.write(run, &writer)
            try writer.bytes.withUnsafeBytes { raw in
                var cursor = SummaryCodec.Reader(bytes: raw)
                try field.read(&single, &cursor)
                XCTAssertEqual(cursor.remaining, 0, field.name)
            }
            let expected = Mirror(reflecting: run).children.first { $0.label == field.name || $0.label == "_" + field.name }
            let got = Mirror(reflecting: single).children.first { $0.label == field.name || $0.label == "_" + field.name }
            XCTAssertEqual(String(describing: got?.value), String(describing: expected?.value), field.name)
        }
        XCTAssertEqual(try SummaryCodec.decode(SummaryCodec.encode([])), [])
        // The JSON is made from the same table (`RunSchema.fields`' access column): every field comes
        // back from it too (the measures are not in the JSON).
        var json = run
        json.measures = [:]
        XCTAssertEqual(try JSONDecoder().decode(RunSummary.self, from: JSONEncoder().encode(json)), json)
        XCTAssertEqual(Array(SummaryCodec.runFields.map(\.name).prefix(RunSchema.jsonFields.count)), RunSchema.jsonFields.compactMap(\.property),
                       "the cache writes RunSchema's fields, in its order")
    }

    /// Any prefix, any byte changed, any junk: an error or some summaries, never a trap (the test
    /// process would end). Seeded, so a failure comes back on the next run.
    func testDamagedBytesNeverTrap() {
        let encoded = SummaryCodec.encode([Self.everyFieldSet(), Self.everyFieldSet(id: "b")])
        var failures = 0
        for cut in 0..<encoded.count where (try? SummaryCodec.decode(encoded.prefix(cut))) == nil { failures += 1 }
        XCTAssertEqual(failures, encoded.count, "every truncation is an error")
        var random = SplitMix64(seed: 31)
        for _ in 0..<3000 {
            var damaged = encoded
            for _ in 0..<(1 + Int(random.next() % 4)) {
                damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            _ = try? SummaryCodec.decode(damaged)
        }
        for length in [0, 1, 4, 8, 64, 4096] {
            _ = try? SummaryCodec.decode(Data((0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
            _ = try? SummaryCodec.decode(Data(SummaryCodec.magic) + Data(repeating: 0xFF, count: length))
        }
    }

    /// Bad bytes in a row (truncated, damaged, another layout, junk) are a miss: the file is read again,
    /// its summaries are the same as without a cache, nothing is reported, and the row is rebuilt.
    func testDamagedRowIsRebuiltFromTheFile() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        let runs = folder + "/runs"
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        let path = runs + "/run.gpx"
        try Data(RunGenerator(seed: 4, distanceMeters: 3000).gpxBytes()).write(to: URL(fileURLWithPath: path))
        let zone = TimeZone(identifier: "UTC") ?? .current
        let uncached = try RunFolder.read(runs, zone: zone)
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        let good = SummaryCodec.encode(try RunLoader.load(path: path, id: "run.gpx", analyzer: RunAnalyzer(), zoneOffsetSeconds: nil))
        var random = SplitMix64(seed: 7)
        var variants: [(String, Data)] = [("empty", Data()), ("the magic alone", Data(SummaryCodec.magic)),
                                          ("another layout", Data("BCS1".utf8) + good.dropFirst(4)),
                                          ("a byte more", good + [1]), ("a huge count", Data(SummaryCodec.magic + [0xFF, 0xFF, 0xFF, 0x7F]))]
        for cut in [5, 8, good.count / 3, good.count - 1] { variants.append(("cut at \(cut)", good.prefix(cut))) }
        for k in 0..<4 {
            var flipped = good
            flipped[4 + Int(random.next() % UInt64(good.count - 4))] ^= 0xFF
            variants.append(("flipped \(k)", flipped))
        }
        variants.append(("junk", Data((0..<good.count).map { _ in UInt8(truncatingIfNeeded: random.next()) })))
        for (name, bytes) in variants {
            let cachePath = folder + "/cache-\(variants.firstIndex { $0.0 == name } ?? 0).sqlite"
            var warning: String?
            _ = try XCTUnwrap(RunCache.open(path: cachePath, warning: &warning))
            let writer = try DatabaseQueue(path: cachePath)
            try writer.write {
                try $0.execute(sql: "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                               arguments: [RunFolder.absolutePath(path), stamp.sizeBytes, stamp.modifiedNanoseconds, 0,
                                           RunCache.key(checkpoints: []), "run.gpx", bytes])
            }
            try writer.close()
            let cache = try XCTUnwrap(RunCache.open(path: cachePath, warning: &warning))
            let read = try RunFolder.read(runs, zone: zone, cache: cache)
            // A flipped byte may still decode (a float changed): then the cache's summaries are what it holds.
            if (try? SummaryCodec.decode(bytes)) == nil {
                XCTAssertEqual(read.runs, uncached.runs, name)
                let entry = try XCTUnwrap(cache.lookup(path: RunFolder.absolutePath(path), sizeBytes: stamp.sizeBytes,
                                                       modifiedNanoseconds: stamp.modifiedNanoseconds, key: RunCache.key(checkpoints: [])), name)
                XCTAssertEqual(entry.summaries, good, "\(name): the row is rebuilt from the file")
            }
            XCTAssertTrue(read.errors.isEmpty, name)
            XCTAssertEqual(cache.warnings, [], name)
            XCTAssertNil(warning, name)
        }
    }
}

/// Issue 47: a blob's declared counts and numbers are checked before they are used.
final class SummaryCodecHostileTests: XCTestCase {
    /// A blob declaring a million runs in a megabyte of bytes (the count passes the bytes-left check)
    /// reserves no more than its bytes can fill (it reserved count x 648 bytes: 4 billion runs,
    /// 2.6 TB), and is `Malformed`.
    func testAHugeDeclaredCountReservesNoMoreThanTheBytes() throws {
        let count = 1 << 20
        var blob = Array("BSR1".utf8) + withUnsafeBytes(of: UInt32(count).littleEndian) { Array($0) }
        blob += [UInt8](repeating: 0xFF, count: count)
        XCTAssertThrowsError(try SummaryCodec.decode(Data(blob)))
        try blob.withUnsafeBytes { raw in
            var reader = SummaryCodec.Reader(bytes: raw)
            reader.offset = 8
            let reserved = SummaryCodec.reservation(count, &reader, RunSummary.self)
            XCTAssertLessThanOrEqual(reserved * MemoryLayout<RunSummary>.stride, try XCTUnwrap(Optional(count)) + 16 * MemoryLayout<RunSummary>.stride)
        }
    }

    /// A run whose offsets or counts no summary has (a tampered blob) is `Malformed`.
    func testImpossibleFiguresAreMalformed() {
        var run = SummaryCodecTests.everyFieldSet()
        run.utcOffsetSeconds = Int.min
        XCTAssertThrowsError(try SummaryCodec.decode(SummaryCodec.encode([run]))) { error in
            XCTAssertTrue("\(error)".contains("utcOffsetSeconds"), "\(error)")
        }
        run = SummaryCodecTests.everyFieldSet()
        run.startEpochSeconds = .nan
        XCTAssertThrowsError(try SummaryCodec.decode(SummaryCodec.encode([run])))
        XCTAssertNoThrow(try SummaryCodec.decode(SummaryCodec.encode([SummaryCodecTests.everyFieldSet()])))
    }
}
