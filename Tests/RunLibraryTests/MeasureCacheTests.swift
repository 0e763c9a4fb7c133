import RunFixtures
import Foundation
import GRDB
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
@testable import RunLibrary
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Measures in the cache: one set per file content, an entry per definition. A warm read with the same
/// measures reads no file; a new measure re-reads each file once and leaves the other measures' entries
/// alone; a run's sun times follow the zone it is read in, cached or not; a cache of the earlier layout
/// (a row per content and definition) keeps its measures.
final class MeasureCacheTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder = ""
    var runs: String { folder + "/runs" }
    let utc = TimeZone(identifier: "UTC") ?? .current

    let best1k = MeasureDefinition(kind: "effort", parameters: ["distance_m": .number(1000)])
    let stops = MeasureDefinition(kind: "stops", parameters: ["min_s": .number(10)])
    let sun = MeasureDefinition(kind: "sun")

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        for index in 1...3 {
            var generator = RunGenerator(seed: UInt64(index), distanceMeters: 1500 + Double(index) * 500)
            generator.pauseCount = index - 1
            try Data(generator.gpxBytes()).write(to: URL(fileURLWithPath: runs + "/run-\(index).gpx"))
        }
    }

    override func tearDownWithError() throws { temporary = nil }

    func openCache() throws -> RunCache {
        var warning: String?
        return try XCTUnwrap(RunCache.open(path: folder + "/cache.sqlite", warning: &warning))
    }

    /// Junk bytes of the same size and time: only a read of the file can tell.
    func spoilKeepingStamp(_ path: String) throws {
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        try Data(repeating: UInt8(ascii: "x"), count: Int(stamp.sizeBytes)).write(to: URL(fileURLWithPath: path))
        let spec = timespec(tv_sec: Int(stamp.modifiedNanoseconds / 1_000_000_000), tv_nsec: Int(stamp.modifiedNanoseconds % 1_000_000_000))
        var times = [spec, spec]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    }

    func testAWarmReadGivesTheMeasuresWithoutReadingAFile() throws {
        let analyzer = RunAnalyzer(measures: [best1k, stops])
        let fresh = try RunFolder.read(runs, analyzer: analyzer, zone: utc)
        XCTAssertEqual(fresh.runs.map { $0.measures.count }, [2, 2, 2])
        XCTAssertEqual(fresh.runs.map { $0.measures[stops.key]?["count"] }, [.integer(0), .integer(1), .integer(2)], "the planted pauses")
        let cache = try openCache()
        XCTAssertEqual(try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache).runs, fresh.runs)
        XCTAssertEqual(cache.measureCount, 6)
        for index in 1...3 { try spoilKeepingStamp(runs + "/run-\(index).gpx") }
        let warm = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: try openCache())
        XCTAssertEqual(warm.errors, [])
        XCTAssertEqual(warm.runs, fresh.runs)
        // Fewer measures (a pack removed, or a rule edited to read fewer): still all from the cache.
        XCTAssertEqual(try RunFolder.read(runs, analyzer: RunAnalyzer(measures: [stops]), zone: utc, cache: cache).errors, [])
        XCTAssertEqual(try RunFolder.read(runs, analyzer: RunAnalyzer(), zone: utc, cache: cache).errors, [])
    }

    func testANewMeasureReReadsEachFileOnceAndLeavesTheOthersRows() throws {
        let cache = try openCache()
        _ = try RunFolder.read(runs, analyzer: RunAnalyzer(measures: [best1k]), zone: utc, cache: cache)
        let key = RunCache.measureKey(best1k)
        let hashes = try (1...3).map { try XCTUnwrap(RunCache.hash(path: runs + "/run-\($0).gpx")) }
        let sizes = try (1...3).map { try XCTUnwrap(RunCache.stamp(path: runs + "/run-\($0).gpx")).sizeBytes }
        let before = zip(hashes, sizes).map { cache.lookupMeasures(hash: $0, sizeBytes: $1, keys: [key])[key] }
        XCTAssertEqual(cache.measureCount, 3)
        // Another pack asks for stops too: the files are read again, once, for it.
        let both = RunAnalyzer(measures: [best1k, stops])
        let second = try RunFolder.read(runs, analyzer: both, zone: utc, cache: cache)
        XCTAssertEqual(second.runs.map { $0.measures.count }, [2, 2, 2])
        XCTAssertEqual(cache.measureCount, 6)
        XCTAssertEqual(cache.count, 3, "the summaries were cached already")
        let after = zip(hashes, sizes).map { cache.lookupMeasures(hash: $0, sizeBytes: $1, keys: [key])[key] }
        XCTAssertEqual(after, before, "the first measure's rows are as they were")
        for index in 1...3 { try spoilKeepingStamp(runs + "/run-\(index).gpx") }
        let warm = try RunFolder.read(runs, analyzer: both, zone: utc, cache: cache)
        XCTAssertEqual(warm.errors, [])
        XCTAssertEqual(warm.runs, second.runs)
    }

    func testAMovedFileKeepsItsMeasures() throws {
        let analyzer = RunAnalyzer(measures: [best1k])
        let cache = try openCache()
        let first = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache)
        try FileManager.default.moveItem(atPath: runs + "/run-2.gpx", toPath: runs + "/renamed.gpx")
        let moved = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache)
        XCTAssertEqual(moved.runs.first { $0.id == "renamed.gpx" }?.measures, first.runs.first { $0.id == "run-2.gpx" }?.measures)
        XCTAssertEqual(cache.measureCount, 3, "found by content: no new rows")
    }

    func testSunTimesFollowTheZoneCachedOrNot() throws {
        // RunGenerator starts at 2024-05-01T06:30:00Z at Amsterdam; the file has no UTC offset.
        let analyzer = RunAnalyzer(measures: [sun])
        let cache = try openCache()
        let inUTC = try RunFolder.read(runs + "/run-1.gpx", analyzer: analyzer, zone: utc, cache: cache)
        let amsterdam = try XCTUnwrap(TimeZone(identifier: "Europe/Amsterdam"))
        let local = try RunFolder.read(runs + "/run-1.gpx", analyzer: analyzer, zone: amsterdam, cache: cache)
        guard case .string(let utcSunrise)? = inUTC.runs.first?.measures[sun.key]?["sunrise"],
              case .string(let localSunrise)? = local.runs.first?.measures[sun.key]?["sunrise"] else {
            return XCTFail("no sunrise")
        }
        XCTAssertEqual(utcSunrise.prefix(16), "2024-05-01T04:08")
        XCTAssertEqual(localSunrise.prefix(16), "2024-05-01T06:08")
        XCTAssertEqual(local.runs.first?.measures[sun.key]?["daylight"], .boolean(true))
    }

    func testTheRowBytesRoundTripAndJunkIsAMiss() {
        let values: [MeasureValue?] = [
            MeasureValue(["elapsed_s": .float(1000), "count": .integer(3), "daylight": .boolean(true), "sunrise": .string("2024-05-01T06:08:47")]),
            nil, MeasureValue(), MeasureValue(["places": .list([.string("Vondelpark"), .list([.float(52.36), .float(4.87)])])]),
            // A segment's efforts (records in a list) and a run's tiles (integer keys).
            MeasureValue(["count": .integer(2), "efforts": .list([.record(["elapsed_s": .float(335.5), "start_lat": .float(52.36)]),
                                                                  .record(["elapsed_s": .float(339.3), "gates": .record(["n": .integer(1)])])]),
                          "tiles": .list([.integer(141_180_912_640), .integer(141_180_912_641)])]),
        ]
        let bytes = MeasureCodec.encode(values)
        XCTAssertEqual(MeasureCodec.decode(bytes), values)
        XCTAssertEqual(MeasureCodec.encode(values), bytes, "the same values give the same bytes")
        XCTAssertNil(MeasureCodec.decode(bytes.dropLast()))
        XCTAssertNil(MeasureCodec.decode(Data("[{\"elapsed_s\": 1}]".utf8)))
        XCTAssertNil(MeasureCodec.decode(bytes + Data([0])))
        // Any bytes at all: an answer or nil, never a trap (a row is data from a file).
        var generator = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            var junk = [UInt8](bytes)
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                junk[Int(generator.next() % UInt64(junk.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = MeasureCodec.decode(Data(junk.prefix(Int(generator.next() % UInt64(junk.count + 1)))))
        }
    }
    // MARK: - Sets

    /// The file's content hash and size, as the cache keys its measures.
    func content(_ index: Int) throws -> (hash: UInt64, sizeBytes: Int64) {
        let path = runs + "/run-\(index).gpx"
        return (try XCTUnwrap(RunCache.hash(path: path)), try XCTUnwrap(RunCache.stamp(path: path)).sizeBytes)
    }

    func testACacheOfTheEarlierLayoutKeepsItsMeasures() throws {
        let analyzer = RunAnalyzer(measures: [best1k, stops])
        let path = folder + "/cache.sqlite"
        let first = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: try openCache())
        let keys = [best1k, stops].map { RunCache.measureKey($0) }
        let stored = try (1...3).map { index -> [String: Data] in
            let file = try content(index)
            return try openCache().lookupMeasures(hash: file.hash, sizeBytes: file.sizeBytes, keys: keys)
        }
        // The layout before sets: a row per file content and measure, and no table of sets.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE measure_sets")
            try db.execute(sql: "CREATE TABLE measures (hash INTEGER NOT NULL, size INTEGER NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (hash, size, key))")
            for (index, values) in stored.enumerated() {
                let file = try content(index + 1)
                for (key, value) in values {
                    try db.execute(sql: "INSERT INTO measures VALUES (?, ?, ?, ?)", arguments: [Int64(bitPattern: file.hash), file.sizeBytes, key, value])
                }
            }
            // A row of the wrong types (made by hand) is left out, never a trap.
            try db.execute(sql: "INSERT INTO measures VALUES ('x', 1, 2, 3)")
        }
        try queue.close()
        var warning: String?
        let cache = try XCTUnwrap(RunCache.open(path: path, warning: &warning))
        XCTAssertNil(warning)
        XCTAssertEqual(cache.warnings, [], "an upgrade is not news for the user")
        XCTAssertEqual(cache.measureCount, 6)
        for index in 1...3 {
            let file = try content(index)
            XCTAssertEqual(cache.lookupMeasures(hash: file.hash, sizeBytes: file.sizeBytes, keys: keys), stored[index - 1])
        }
        let tables = try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        XCTAssertEqual(tables, ["measure_sets", "meta", "runs"], "the earlier table is gone")
        // Nothing is read again: the files are junk now, and the measures still come.
        for index in 1...3 { try spoilKeepingStamp(runs + "/run-\(index).gpx") }
        let warm = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache)
        XCTAssertEqual(warm.errors, [])
        XCTAssertEqual(warm.runs, first.runs)
    }

    func testASetKeepsItsOtherEntriesDropsOtherVersionsAndIsBounded() throws {
        let cache = try openCache()
        func row(_ key: String, _ value: UInt8) -> RunCache.MeasureRow {
            RunCache.MeasureRow(hash: 7, sizeBytes: 100, key: key, value: Data([value]))
        }
        let current = "v\(RunCache.summaryVersion)|m1|"
        cache.storeMeasures([row(current + "a", 1), row(current + "b", 2), row("v1|m1|old", 3)])
        XCTAssertEqual(cache.lookupMeasures(hash: 7, sizeBytes: 100, keys: [current + "a", current + "b", "v1|m1|old"]),
                       [current + "a": Data([1]), current + "b": Data([2]), "v1|m1|old": Data([3])], "what one write gives is kept")
        cache.storeMeasures([row(current + "c", 4), row(current + "b", 5)])
        XCTAssertEqual(cache.lookupMeasures(hash: 7, sizeBytes: 100, keys: [current + "a", current + "b", current + "c", "v1|m1|old"]),
                       [current + "a": Data([1]), current + "b": Data([5]), current + "c": Data([4])],
                       "the other entry as it was, the rewritten one replaced, another version's dropped")
        XCTAssertEqual(cache.lookupMeasures(hash: 8, sizeBytes: 100, keys: [current + "a"]), [:], "another content has none")
        // Definitions edited away: the oldest writes go beyond the limit, never one being written.
        for index in 0..<RunCache.measureSetLimit { cache.storeMeasures([row(current + "edit\(index)", 9)]) }
        XCTAssertEqual(cache.measureCount, RunCache.measureSetLimit)
        XCTAssertEqual(cache.lookupMeasures(hash: 7, sizeBytes: 100, keys: [current + "a", current + "b", current + "c"]), [:])
        let many = (0..<(RunCache.measureSetLimit + 5)).map { row(current + "many\($0)", 1) }
        cache.storeMeasures(many)
        XCTAssertEqual(cache.measureCount, many.count)
    }

    func testALookupGivesTheSetOnlyWhenAsked() throws {
        let cache = try openCache()
        _ = try RunFolder.read(runs, analyzer: RunAnalyzer(measures: [stops]), zone: utc, cache: cache)
        let path = RunFolder.absolutePath(runs + "/run-1.gpx")
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        let key = RunCache.key(checkpoints: [])
        let plain = try XCTUnwrap(cache.lookup(path: path, sizeBytes: stamp.sizeBytes, modifiedNanoseconds: stamp.modifiedNanoseconds, key: key))
        XCTAssertEqual(plain.measures, Data())
        let measured = try XCTUnwrap(cache.lookup(path: path, sizeBytes: stamp.sizeBytes, modifiedNanoseconds: stamp.modifiedNanoseconds, key: key, measures: true))
        XCTAssertEqual(measured.summaries, plain.summaries)
        XCTAssertEqual(MeasureCodec.entries(ofSet: measured.measures)?.map(\.key), [RunCache.measureKey(stops)])
        let byHash = try XCTUnwrap(cache.lookup(hash: measured.hash, sizeBytes: stamp.sizeBytes, key: key, measures: true))
        XCTAssertEqual(byHash.measures, measured.measures)
    }

    func testAJunkSetIsReadAgainNotTrusted() throws {
        let analyzer = RunAnalyzer(measures: [best1k, stops])
        let path = folder + "/cache.sqlite"
        let first = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: try openCache())
        let file = try content(2)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE measure_sets SET measures = ? WHERE hash = ? AND size = ?",
                           arguments: [Data("BCS1 junk".utf8), Int64(bitPattern: file.hash), file.sizeBytes])
        }
        try queue.close()
        let cache = try openCache()
        let again = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache)
        XCTAssertEqual(again.runs, first.runs)
        XCTAssertEqual(cache.measureCount, 6, "the junk set was replaced by the measures read again")
    }

    func testSetBytesRoundTripAndJunkNeverTraps() throws {
        let values: [MeasureValue?] = [MeasureValue(["count": .integer(2), "longest_s": .float(31.5)]), nil]
        let entries: [(key: String, value: Data)] = [("v5|m1|stops(min_s=10)", MeasureCodec.encode(values)), ("v5|m1|sun()", MeasureCodec.encode([nil, nil]))]
        let set = MeasureCodec.encodeSet(entries)
        XCTAssertEqual(MeasureCodec.entries(ofSet: set)?.map(\.key), entries.map(\.key))
        XCTAssertEqual(MeasureCodec.entries(ofSet: set)?.map(\.value), entries.map(\.value))
        let decoded = MeasureCodec.decodeSet(set, keys: [Array("v5|m1|sun()".utf8), Array("v5|m1|nothing".utf8), Array("v5|m1|stops(min_s=10)".utf8)])
        XCTAssertEqual(decoded.count, 3)
        XCTAssertEqual(decoded[0], [nil, nil])
        XCTAssertNil(decoded[1])
        XCTAssertEqual(decoded[2], values)
        XCTAssertNil(MeasureCodec.entries(ofSet: set.dropLast()))
        XCTAssertNil(MeasureCodec.entries(ofSet: MeasureCodec.encode(values)), "a measure's bytes are not a set")
        var generator = SplitMix64(seed: 5)
        for _ in 0..<2000 {
            var junk = [UInt8](set)
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                junk[Int(generator.next() % UInt64(junk.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            let cut = Data(junk.prefix(Int(generator.next() % UInt64(junk.count + 1))))
            _ = MeasureCodec.entries(ofSet: cut)
            let keys = [Array("v5|m1|sun()".utf8), Array("v5|m1|stops(min_s=10)".utf8)]
            // Kept as bytes or made at once: the same verdict and the same values.
            let made = MeasureCodec.decodeSet(cut, keys: keys)
            let kept = MeasureCodec.decodeSet(cut, keys: keys, encoded: true)
            XCTAssertEqual(kept, made)
            for case let value? in (kept.compactMap { $0 }.joined()) {
                var seen: [String: MeasureScalar] = [:]
                value.forEachField { seen[String(decoding: $0, as: UTF8.self)] = $1 }
                XCTAssertEqual(seen, value.fields)
                XCTAssertEqual(Rebuilt.fields(of: value), value.fields, "visited as read")
                XCTAssertEqual(value.fieldCount, value.fields.count)
                for (name, field) in value.fields { XCTAssertEqual(value[name], field) }
            }
        }
    }

    func testAWarmReadsValuesReadAsTheFreshOnes() throws {
        let analyzer = RunAnalyzer(measures: [best1k, stops, sun])
        let fresh = try RunFolder.read(runs, analyzer: analyzer, zone: utc)
        let cache = try openCache()
        _ = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache)
        let warm = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache)
        XCTAssertEqual(warm.runs, fresh.runs)
        for (cached, read) in zip(warm.runs, fresh.runs) {
            for definition in [best1k, stops, sun] {
                let value = try XCTUnwrap(cached.measures[definition.key]), original = try XCTUnwrap(read.measures[definition.key])
                XCTAssertEqual(value.fields, original.fields)
                XCTAssertEqual(value.fieldCount, original.fields.count)
                XCTAssertEqual(value.text(kind: definition.kind), original.text(kind: definition.kind))
                var seen: [String: MeasureScalar] = [:]
                value.forEachField { seen[String(decoding: $0, as: UTF8.self)] = $1 }
                XCTAssertEqual(seen, original.fields)
                XCTAssertEqual(Rebuilt.fields(of: value), original.fields, "visited from the bytes")
                XCTAssertEqual(Rebuilt.fields(of: original), original.fields, "visited from the fields")
                for name in original.fields.keys { XCTAssertEqual(value[name], original[name], name) }
                XCTAssertNil(value["no_such_field"])
                // Changed, it holds its fields as any value does.
                var changed = value
                changed["count"] = .integer(99)
                XCTAssertEqual(changed["count"], .integer(99))
                XCTAssertEqual(changed.fields.count, original.fields.count + (original["count"] == nil ? 1 : 0))
                XCTAssertEqual(value, original, "the copy read from the cache is unchanged")
            }
        }
    }

    func testAMalformedValueInASoundSetIsReadAgain() throws {
        let analyzer = RunAnalyzer(measures: [stops])
        let fresh = try RunFolder.read(runs, analyzer: analyzer, zone: utc)
        let cache = try openCache()
        _ = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: cache)
        // A set of the right shape whose value has a field of no known type.
        var bytes = [UInt8](MeasureCodec.encode([MeasureValue(["count": .integer(1)])]))
        XCTAssertEqual(bytes[17], 1, "the type byte of the field")
        bytes[17] = 200
        let key = RunCache.measureKey(stops)
        let file = try content(1)
        let queue = try DatabaseQueue(path: folder + "/cache.sqlite")
        try queue.write { db in
            try db.execute(sql: "UPDATE measure_sets SET measures = ? WHERE hash = ? AND size = ?",
                           arguments: [MeasureCodec.encodeSet([(key, Data(bytes))]), Int64(bitPattern: file.hash), file.sizeBytes])
        }
        try queue.close()
        let again = try RunFolder.read(runs, analyzer: analyzer, zone: utc, cache: try openCache())
        XCTAssertEqual(again.runs, fresh.runs)
        XCTAssertNotEqual(try openCache().lookupMeasures(hash: file.hash, sizeBytes: file.sizeBytes, keys: [key])[key], Data(bytes), "stored again")
    }
}

/// Makes a value's fields again from what `MeasureValue.visit` hands over (the rules host builds
/// Lua tables from the same calls): a visit must give exactly the fields.
private struct Rebuilt: MeasureVisitor {
    /// Open records (their fields, the name of the field being read) and lists.
    private enum Open { case record([String: MeasureScalar], String?), list([MeasureScalar]) }
    private var open: [Open] = []
    private var result: [String: MeasureScalar]?

    static func fields(of value: MeasureValue) -> [String: MeasureScalar]? {
        var rebuilt = Rebuilt()
        guard value.visit(&rebuilt), rebuilt.open.isEmpty else { return nil }
        return rebuilt.result
    }

    mutating func beginRecord(count: Int) { open.append(.record([:], nil)) }
    mutating func beginList(count: Int) { open.append(.list([])) }
    mutating func end() {
        switch open.removeLast() {
        case .record(let fields, _): if open.isEmpty { result = fields } else { place(.record(fields)) }
        case .list(let values): place(.list(values))
        }
    }
    mutating func name(_ utf8: UnsafeRawBufferPointer) {
        guard case .record(let fields, _) = open.removeLast() else { return }
        open.append(.record(fields, String(decoding: utf8, as: UTF8.self)))
    }
    mutating func float(_ value: Double) { place(.float(value)) }
    mutating func integer(_ value: Int) { place(.integer(value)) }
    mutating func boolean(_ value: Bool) { place(.boolean(value)) }
    mutating func string(_ utf8: UnsafeRawBufferPointer) { place(.string(String(decoding: utf8, as: UTF8.self))) }

    private mutating func place(_ value: MeasureScalar) {
        switch open.removeLast() {
        case .record(var fields, let name?): fields[name] = value; open.append(.record(fields, nil))
        case .record(let fields, nil): open.append(.record(fields, nil))  // a value without a name: lost, the test fails
        case .list(var values): values.append(value); open.append(.list(values))
        }
    }
}
