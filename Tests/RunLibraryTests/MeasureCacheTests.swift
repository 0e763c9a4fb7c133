import Foundation
@testable import RunAnalysis
@testable import RunFiles
@testable import RunFixtures
@testable import RunLibrary
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Measures in the cache: one row per file content and definition. A warm read with the same measures
/// reads no file; a new measure re-reads each file once and leaves the other measures' rows alone; a
/// run's sun times follow the zone it is read in, cached or not.
final class MeasureCacheTests: XCTestCase {
    var folder = ""
    var runs: String { folder + "/runs" }
    let utc = TimeZone(identifier: "UTC") ?? .current

    let best1k = MeasureDefinition(kind: "effort", parameters: ["distance_m": .number(1000)])
    let stops = MeasureDefinition(kind: "stops", parameters: ["min_s": .number(10)])
    let sun = MeasureDefinition(kind: "sun")

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "measurecache-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        for index in 1...3 {
            var generator = RunGenerator(seed: UInt64(index), distanceMeters: 1500 + Double(index) * 500)
            generator.pauseCount = index - 1
            try Data(generator.gpxBytes()).write(to: URL(fileURLWithPath: runs + "/run-\(index).gpx"))
        }
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

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
}
