import Foundation
@testable import RunAnalysis
@testable import RunFiles
import SyntheticRuns
import XCTest

/// A pool swim in FIT: no positions, its distance in `length` messages and the session's pool
/// length (issue I item 6). Written with the FIT writer's messages.
final class FITPoolSwimTests: XCTestCase {
    static let start = 1_714_545_000.0

    /// A 25 m pool swim: three lengths of 30 s, a 60 s rest (idle length), a fourth length;
    /// `records` adds a heart-rate record every 10 s (no position, no distance).
    static func swim(records: Bool) -> [UInt8] {
        FITWriter.encodePoolSwim(
            start: start, poolLengthMeters: 25, lengths: [(30, true), (30, true), (30, true), (60, false), (30, true)],
            recordEvery: records ? 10 : nil)
    }

    func testLengthsGiveAPoolSwimWithoutRecordsItsDistanceAndTimes() throws {
        let track = try XCTUnwrap(FITReader.read(bytes: Self.swim(records: false), source: "swim.fit").first)
        let summary = RunAnalyzer().summarize(track, id: "swim.fit")
        XCTAssertEqual(summary.sport, "swimming")
        XCTAssertEqual(summary.distanceMeters, 100, accuracy: 1e-9)
        XCTAssertEqual(summary.elapsedSeconds, 180)
        XCTAssertEqual(summary.timerSeconds, 180)
        XCTAssertEqual(summary.start, "2024-05-01T06:30:00Z")
    }

    func testRecordsKeepTheirHeartRateAndGetTheDistanceSwumByTheirTime() throws {
        let track = try XCTUnwrap(FITReader.read(bytes: Self.swim(records: true), source: "swim.fit").first)
        XCTAssertFalse(track.hasPositions)
        // At 0 s nothing swum, at 30 s one length, at 180 s four.
        XCTAssertEqual(track.deviceDistances.first, 0)
        XCTAssertEqual(track.deviceDistances[3], 25)
        XCTAssertEqual(track.deviceDistances.last, 100)
        let summary = RunAnalyzer().summarize(track, id: "swim.fit")
        XCTAssertEqual(summary.distanceMeters, 100, accuracy: 1e-9)
        XCTAssertEqual(summary.elapsedSeconds, 180)
        XCTAssertNotNil(summary.heartRate)
    }
}
