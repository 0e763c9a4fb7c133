@testable import RunAnalysis
@testable import RunFiles
import XCTest

/// Optional columns (heart rate, cadence, device distance) and the profile's index map cost
/// memory only when they say something: a 1,000,000-point file must be read in under 100 MB.
final class TrackColumnsTests: XCTestCase {
    func testAColumnWithNoValueStaysEmptyAndReadsAsNaN() {
        var track = Track(source: "t")
        for k in 0..<5 { track.append(latitude: 1, longitude: Double(k) * 1e-4, time: Double(k)) }
        XCTAssertEqual(track.heartRates.count, 0)
        XCTAssertEqual(track.cadences.count, 0)
        XCTAssertEqual(track.deviceDistances.count, 0)
        XCTAssertTrue(track.heartRate(at: 3).isNaN)
        XCTAssertTrue(track.deviceDistance(at: 4).isNaN)
        XCTAssertNil(RunAnalyzer().summarize(track, id: "t").heartRate)
    }

    func testAFirstValueLaterFillsThePointsBeforeItWithNaN() {
        var track = Track(source: "t")
        for k in 0..<6 {
            track.append(latitude: 1, longitude: Double(k) * 1e-4, time: Double(k),
                         heartRate: k >= 3 ? Double(140 + k) : .nan, cadence: k == 5 ? 88 : .nan)
        }
        XCTAssertEqual(track.heartRates.count, 6)
        XCTAssertEqual(track.heartRates.prefix(3).filter { !$0.isNaN }.count, 0)
        XCTAssertEqual(Array(track.heartRates.suffix(3)), [143, 144, 145])
        XCTAssertEqual(track.cadences.count, 6)
        XCTAssertEqual(track.cadence(at: 5), 88)
        XCTAssertTrue(track.cadence(at: 4).isNaN)
        let summary = RunAnalyzer().summarize(track, id: "t")
        XCTAssertEqual(summary.heartRate, SensorStats(average: 144, maximum: 145))
        // One reading covers no time: its average is the plain mean, and says so.
        XCTAssertEqual(summary.cadence, SensorStats(average: 88, maximum: 88, weighting: .sample))
    }

    func testTheProfileKeepsNoIndexMapWhileEveryPointIsKept() {
        var track = Track(source: "t")
        for k in 0..<50 { track.append(latitude: 1, longitude: Double(k) * 1e-4, time: Double(k)) }
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.count, 50)
        XCTAssertTrue(profile.keptIndices.isEmpty)
        XCTAssertEqual(profile.indices, Array(0..<50))
        XCTAssertEqual(profile.pointIndex(49), 49)

        // A backwards timestamp at point 10: from there on the map is kept, and right.
        track.times[10] = 2
        let dropped = RunAnalyzer.profile(of: track)
        XCTAssertEqual(dropped.count, 49)
        XCTAssertEqual(dropped.indices, Array(0..<10) + Array(11..<50))
        XCTAssertEqual(dropped.pointIndex(10), 11)
    }
}
