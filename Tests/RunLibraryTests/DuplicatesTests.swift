import Foundation
import RunFiles
import RunLibrary
import XCTest

/// `Duplicates.removeSameActivity`: one activity kept as several files.
final class DuplicatesTests: XCTestCase {
    static func run(_ id: String, format: String, start: Double?, elapsed: Double?, meters: Double, points: Int = 100) -> RunSummary {
        RunSummary(id: id, startEpochSeconds: start, format: format, points: points, distanceMeters: meters, elapsedSeconds: elapsed)
    }

    func testTheRichestExportIsKeptAndTheOthersListed() {
        let runs = [
            Self.run("a.gpx", format: "gpx", start: 1000, elapsed: 3600, meters: 10_000),
            Self.run("a.tcx", format: "tcx", start: 1001, elapsed: 3598, meters: 10_020),
            Self.run("a.fit", format: "fit", start: 1000, elapsed: 3605, meters: 9_990),
            Self.run("b.gpx", format: "gpx", start: 1000 + 86_400, elapsed: 3600, meters: 10_000),
        ]
        let (kept, duplicates) = Duplicates.removeSameActivity(from: runs)
        XCTAssertEqual(kept.map(\.id), ["a.fit", "b.gpx"])
        XCTAssertEqual(duplicates, [
            RunDuplicate(id: "a.gpx", sameAs: "a.fit", reason: .sameActivity),
            RunDuplicate(id: "a.tcx", sameAs: "a.fit", reason: .sameActivity),
        ])
        let json = String(decoding: try! JSONEncoder().encode(duplicates[0]), as: UTF8.self)
        XCTAssertTrue(json.contains("\"same_as\":\"a.fit\"") && json.contains("\"reason\":\"same activity\""), json)
    }

    func testTheBoundsOfTheRule() {
        let base = Self.run("a.fit", format: "fit", start: 1000, elapsed: 3600, meters: 10_000)
        // Start 61 s apart, end 61 s apart, 6% longer, no times: all different runs.
        for other in [
            Self.run("b.gpx", format: "gpx", start: 1061, elapsed: 3600, meters: 10_000),
            Self.run("b.gpx", format: "gpx", start: 1000, elapsed: 3661, meters: 10_000),
            Self.run("b.gpx", format: "gpx", start: 1000, elapsed: 3600, meters: 10_640),
            Self.run("b.gpx", format: "gpx", start: nil, elapsed: nil, meters: 10_000),
        ] {
            XCTAssertEqual(Duplicates.removeSameActivity(from: [base, other]).kept.count, 2, "\(other)")
        }
        // 60 s and 5% exactly: the same activity; of two GPX files the one with more points is kept.
        let close = Self.run("b.gpx", format: "gpx", start: 1060, elapsed: 3600, meters: 10_500, points: 300)
        let thin = Self.run("c.gpx", format: "gpx", start: 1000, elapsed: 3660, meters: 10_000, points: 200)
        XCTAssertEqual(Duplicates.removeSameActivity(from: [thin, close]).kept.map(\.id), ["b.gpx"])
    }
}
