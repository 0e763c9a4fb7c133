import RunAnalysis
import RunFiles
import SyntheticRuns
import XCTest

/// A watch often records a time before its first GPS fix; that record is dropped from the route,
/// but the run still started then.
final class RecordedSpanTests: XCTestCase {
    func testElapsedCountsRecordsWithoutPosition() {
        var track = Track(source: "t.fit")
        let t0 = 1_700_000_000.0
        for i in 0..<11 {
            // 0.00003° of longitude (3.3 m) a second along the equator.
            track.append(latitude: 0, longitude: Double(i) * 0.00003, time: t0 + 7 + Double(i))
        }
        let plain = RunAnalyzer().summarize(track, id: "a")
        XCTAssertEqual(plain.elapsedSeconds, 10)
        XCTAssertEqual(plain.start, Timestamps.iso8601(t0 + 7))

        track.recordedFirstTime = t0        // a record 7 s earlier had no position
        track.recordedLastTime = t0 + 17
        let summary = RunAnalyzer().summarize(track, id: "a")
        XCTAssertEqual(summary.elapsedSeconds, 17)
        XCTAssertEqual(summary.startEpochSeconds, t0)
        XCTAssertEqual(summary.start, Timestamps.iso8601(t0))
        XCTAssertEqual(summary.distanceMeters, plain.distanceMeters)
    }

    func testFITRecordWithoutPositionStartsTheRun() throws {
        var track = Track(source: "gen")
        let t0 = 1_700_000_000.0
        track.append(latitude: .nan, longitude: .nan, time: t0)     // before the first fix
        for i in 1...10 { track.append(latitude: 0, longitude: Double(i) * 0.00003, time: t0 + 5 + Double(i)) }
        let bytes = FITWriter.encode(track: track, sport: 1)
        let read = try FITReader.read(bytes: bytes, source: "x.fit")
        XCTAssertEqual(read.count, 1)
        let summary = RunAnalyzer().summarize(read[0], id: "x.fit")
        XCTAssertEqual(summary.points, 10)
        XCTAssertEqual(summary.elapsedSeconds ?? 0, 15, accuracy: 1e-9)
        XCTAssertEqual(summary.dropped, [Dropped(reason: "no position", count: 1)])
    }
}
