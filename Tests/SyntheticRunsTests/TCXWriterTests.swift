@testable import RunAnalysis
@testable import RunFiles
@testable import RunFixtures
@testable import SyntheticRuns
import XCTest

/// TCXWriter, checked with `RunGeneratorTests.assertSame` like the GPX writer.
extension RunGeneratorTests {
    /// What the writer puts in a TCX file, the TCX reader gives back: every point, every segment,
    /// the odometer growing with the measured distance.
    func testTCXRoundTripThroughTheReader() throws {
        var g = RunGenerator(seed: 5, distanceMeters: 2500)
        g.pauseCount = 1
        g.pauseStyle = .newSegment
        let generated = g.track()
        let tracks = try TCXReader.read(bytes: TCXWriter.encode(track: generated), source: "gen.tcx")
        XCTAssertEqual(tracks.count, 1)
        let read = try XCTUnwrap(tracks.first)
        assertSame(read, generated, positionTolerance: 1e-12)
        XCTAssertEqual(read.format, .tcx)
        XCTAssertEqual(read.sport, "Running")
        XCTAssertEqual(read.segmentStarts.count, 2)
        XCTAssertEqual(read.deviceDistances.count, read.count)
        let summary = RunAnalyzer().summarize(read, id: "gen.tcx")
        XCTAssertEqual(read.deviceDistance(at: read.count - 1), summary.distanceMeters, accuracy: 0.01)
    }
}
