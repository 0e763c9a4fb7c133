import RunFixtures
@testable import RunAnalysis
@testable import RunFiles
@testable import RunLibrary
import XCTest

/// Local time of day (`local_start`, `local_offset_s`) and JSON summaries whose start has no zone:
/// a wall-clock time resolved in the chosen zone after the cache, so one cached row serves every zone.
final class LocalTimeTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder = ""

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
        try FileManager.default.createDirectory(atPath: folder + "/runs", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func zone(_ name: String) throws -> TimeZone { try XCTUnwrap(TimeZone(identifier: name)) }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/runs/" + name))
    }

    /// A GPX start in UTC (`Z`): the zone gives the local time; an offset the file wrote wins over it.
    func testLocalStartComesFromTheFilesOffsetElseTheZone() throws {
        try write("a.gpx", """
            <gpx><trk><trkseg><trkpt lat="48.85" lon="2.35"><time>2024-06-01T20:30:00Z</time></trkpt>
            <trkpt lat="48.86" lon="2.35"><time>2024-06-01T20:40:00Z</time></trkpt></trkseg></trk></gpx>
            """)
        try write("b.json", #"{ "start": "2024-06-01T23:15:00+05:30", "distance_m": 5000, "duration_s": 1800 }"#)
        let paris = try RunFolder.read(folder + "/runs", zone: zone("Europe/Paris")).runs
        XCTAssertEqual(paris.map(\.localStart), ["2024-06-01T22:30:00", "2024-06-01T23:15:00"])
        XCTAssertEqual(paris.map(\.localOffsetSeconds), [7200, 19_800])
        XCTAssertEqual(paris.map(\.utcOffsetSeconds), [nil, 19_800])
        let utc = try RunFolder.read(folder + "/runs", zone: zone("UTC")).runs
        XCTAssertEqual(utc.map(\.localStart), ["2024-06-01T20:30:00", "2024-06-01T23:15:00"])
        XCTAssertEqual(utc.map(\.localOffsetSeconds), [0, 19_800])
    }

    /// `"start": "2026-11-22T23:30:00"` is 23:30 on the wall in the `--tz` zone, through the cache too:
    /// read once in Paris (cached), then from the cache in New York and in UTC.
    func testAZonelessJSONStartIsLocalInTheZoneAndFloatsThroughTheCache() throws {
        try write("treadmill.json", #"{ "start": "2026-11-22T23:30:00", "distance_m": 8000, "duration_s": 2700 }"#)
        var warning: String?
        let cache = try XCTUnwrap(RunCache.open(path: folder + "/cache.sqlite", warning: &warning))
        let paris = try XCTUnwrap(RunFolder.read(folder + "/runs", zone: zone("Europe/Paris"), cache: cache).runs.first)
        XCTAssertEqual(paris.start, "2026-11-22T22:30:00Z")
        XCTAssertEqual(paris.localStart, "2026-11-22T23:30:00")
        XCTAssertEqual(paris.localDate, "2026-11-22")
        XCTAssertEqual(paris.localOffsetSeconds, 3600)
        XCTAssertNil(paris.utcOffsetSeconds)
        XCTAssertNil(paris.floatingStart)
        let reopened = try XCTUnwrap(RunCache.open(path: folder + "/cache.sqlite", warning: &warning))
        let newYork = try XCTUnwrap(RunFolder.read(folder + "/runs", zone: zone("America/New_York"), cache: reopened).runs.first)
        XCTAssertEqual(newYork.start, "2026-11-23T04:30:00Z")
        XCTAssertEqual(newYork.localStart, "2026-11-22T23:30:00")
        XCTAssertEqual(newYork.localOffsetSeconds, -18_000)
        let utc = try XCTUnwrap(RunFolder.read(folder + "/runs", zone: zone("UTC"), cache: reopened).runs.first)
        XCTAssertEqual(utc.start, "2026-11-22T23:30:00Z")
        // The JSON contract never shows the floating flag.
        let json = String(decoding: try JSONEncoder().encode(utc), as: UTF8.self)
        XCTAssertFalse(json.contains("start_floating"), json)
        XCTAssertTrue(json.contains(#""local_start":"2026-11-22T23:30:00""#), json)
    }

    /// Daylight saving: a wall time in the spring gap reads with the offset before the change; one in
    /// the autumn overlap is the first of its two instants.
    func testWallClockTimesAcrossDaylightSavingChanges() throws {
        let paris = try zone("Europe/Paris")
        func resolved(_ text: String) throws -> String {
            let wall = try XCTUnwrap(Timestamps.parse(text)).epoch
            return Timestamps.iso8601(RunAnalyzer.resolve(wallClock: wall, in: paris))
        }
        XCTAssertEqual(try resolved("2024-07-01T12:00:00"), "2024-07-01T10:00:00Z")
        XCTAssertEqual(try resolved("2024-01-01T12:00:00"), "2024-01-01T11:00:00Z")
        XCTAssertEqual(try resolved("2024-03-31T02:30:00"), "2024-03-31T01:30:00Z")  // the gap: 02:00 -> 03:00
        XCTAssertEqual(try resolved("2024-10-27T02:30:00"), "2024-10-27T00:30:00Z")  // the overlap: first 02:30 (+02:00)
    }
}
