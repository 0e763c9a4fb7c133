@testable import RunAnalysis
@testable import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// Issue V: the watch's own totals and laps, read from FIT sessions and laps and from TCX laps (files
/// written by the fixture writers), beside the figures badgectl computes; numbers as the device meant them.
final class DeviceTotalsTests: XCTestCase {
    /// A 3 km run at 1 s whose device recorded three laps and its own totals.
    static func lapped() -> Track {
        var track = RunGenerator(seed: 21, distanceMeters: 3000, paceSecondsPerKilometre: 300).track()
        let start = track.times[0]
        track.laps = [
            Lap(start: start, elapsedSeconds: 300, timerSeconds: 300, distanceMeters: 1000, averageHeartRate: 150, maximumHeartRate: 161,
                trigger: "distance", intensity: "active"),
            Lap(start: start + 300, elapsedSeconds: 310, timerSeconds: 305.25, distanceMeters: 1000, averageHeartRate: 158,
                maximumHeartRate: 170, trigger: "position", intensity: "rest"),
            Lap(start: start + 610, elapsedSeconds: 290, timerSeconds: 289.5, distanceMeters: 1000.5, averageHeartRate: 165,
                maximumHeartRate: 175, trigger: "manual"),
        ]
        track.deviceAscentMeters = 63; track.deviceDescentMeters = 58; track.deviceMovingSeconds = 880.5
        track.deviceAverageHeartRate = 158; track.deviceMaximumHeartRate = 179; track.deviceLapCount = 3
        return track
    }

    func testTheFITSessionAndLapsAreRead() throws {
        let written = Self.lapped()
        let read = try XCTUnwrap(FITReader.read(bytes: FITWriter.encode(track: written), source: "laps.fit").first)
        XCTAssertEqual(read.deviceAscentMeters, 63)
        XCTAssertEqual(read.deviceDescentMeters, 58)
        XCTAssertEqual(read.deviceMovingSeconds, 880.5)
        XCTAssertEqual(read.deviceAverageHeartRate, 158)
        XCTAssertEqual(read.deviceMaximumHeartRate, 179)
        XCTAssertEqual(read.deviceLapCount, 3)
        XCTAssertEqual(read.laps, written.laps)

        let summary = RunAnalyzer().summarize(read, id: "laps.fit")
        XCTAssertEqual(summary.deviceAscentMeters, 63)
        XCTAssertEqual(summary.deviceDescentMeters, 58)
        XCTAssertEqual(summary.deviceMovingSeconds, 880.5)
        XCTAssertEqual(summary.deviceAverageHeartRate, 158)
        XCTAssertEqual(summary.deviceMaximumHeartRate, 179, "the session's maximum, not the records' largest")
        XCTAssertNotEqual(summary.heartRate?.maximum, 179)
        XCTAssertEqual(summary.deviceLaps, 3)
        XCTAssertEqual(summary.laps.map(\.index), [1, 2, 3])
        XCTAssertEqual(summary.laps.map(\.startElapsedSeconds), [0, 300, 610])
        XCTAssertEqual(summary.laps.map(\.timerSeconds), [300, 305.25, 289.5])
        XCTAssertEqual(summary.laps.map(\.trigger), ["distance", "position", "manual"])
        XCTAssertEqual(summary.laps.map(\.intensity), ["active", "rest", nil])
        XCTAssertEqual(summary.laps[1].paceSecondsPerKilometre, 305.25, "timer over distance")
        XCTAssertEqual(try XCTUnwrap(summary.laps[2].paceSecondsPerKilometre), 289.5 / 1.0005, accuracy: 1e-9)
        XCTAssertEqual(summary.laps[2].averageHeartRate, 165)
    }

    func testAFITFileWithoutTotalsHasNone() throws {
        let plain = RunGenerator(seed: 22, distanceMeters: 1000).track()
        let read = try XCTUnwrap(FITReader.read(bytes: FITWriter.encode(track: plain), source: "plain.fit").first)
        let summary = RunAnalyzer().summarize(read, id: "plain.fit")
        XCTAssertNil(summary.deviceAscentMeters)
        XCTAssertNil(summary.deviceDescentMeters)
        XCTAssertNil(summary.deviceMovingSeconds)
        XCTAssertNil(summary.deviceAverageHeartRate)
        XCTAssertNil(summary.deviceMaximumHeartRate)
        // No num_laps in the session: its one lap message is the count.
        XCTAssertEqual(summary.deviceLaps, 1)
        XCTAssertEqual(summary.laps.map(\.trigger), [nil], "the writer's one lap says nothing of its trigger")
        // A GPX records none of it.
        let gpx = try GPXReader.read(bytes: RunGenerator(seed: 22, distanceMeters: 1000).gpxBytes(), source: "plain.gpx")
        let fromGPX = RunAnalyzer().summarize(gpx, id: "plain.gpx")
        XCTAssertNil(fromGPX.deviceLaps)
        XCTAssertEqual(fromGPX.laps, [])
    }

    func testTheSessionsOwnLapCountWins() throws {
        var track = Self.lapped()
        track.deviceLapCount = 5  // the session says 5; two of its laps were not written
        let read = try XCTUnwrap(FITReader.read(bytes: FITWriter.encode(track: track), source: "five.fit").first)
        XCTAssertEqual(read.deviceLapCount, 5)
        XCTAssertEqual(read.laps.count, 3)
    }

    func testTCXLapsGiveHeartRatesTriggersAndTheirCount() throws {
        let tcx = try XCTUnwrap(TCXReader.read(bytes: TCXWriter.encode(track: Self.lapped()), source: "laps.tcx").first)
        XCTAssertEqual(tcx.laps.count, 3)
        XCTAssertEqual(tcx.laps.map(\.averageHeartRate), [150, 158, 165])
        XCTAssertEqual(tcx.laps.map(\.maximumHeartRate), [161, 170, 175])
        XCTAssertEqual(tcx.laps.map(\.trigger), ["distance", "position", "manual"], "Location reads as position")
        XCTAssertEqual(tcx.laps.map(\.intensity), ["active", "rest", nil])
        XCTAssertEqual(tcx.laps.map(\.timerSeconds), [300, 305.25, 289.5])
        XCTAssertEqual(tcx.laps.map(\.distanceMeters), [1000, 1000, 1000.5])
        // The laps' averages weighted by their time; the largest maximum; no ascent in TCX.
        let weighted: Double = 150.0 * 300 + 158.0 * 305.25 + 165.0 * 289.5
        XCTAssertEqual(try XCTUnwrap(tcx.deviceAverageHeartRate), weighted / 894.75, accuracy: 1e-9)
        XCTAssertEqual(tcx.deviceMaximumHeartRate, 175)
        XCTAssertEqual(tcx.deviceLapCount, 3)
        XCTAssertNil(tcx.deviceAscentMeters)
        // The points of each lap are in it: the run reads as the same run.
        XCTAssertEqual(tcx.count, Self.lapped().count)
    }

    func testASinglePrecisionDistanceReadsAsTheDecimalTheDeviceMeant() throws {
        // A treadmill TCX whose exporter wrote 32-bit floats in full: 10630.37 as 10630.3701171875.
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Id>2021-06-01T06:00:00Z</Id>
            <Lap StartTime="2021-06-01T06:00:00Z"><TotalTimeSeconds>3098</TotalTimeSeconds><DistanceMeters>10630.3701171875</DistanceMeters>
            <Track>
            <Trackpoint><Time>2021-06-01T06:00:00Z</Time><DistanceMeters>0.0</DistanceMeters></Trackpoint>
            <Trackpoint><Time>2021-06-01T06:25:00Z</Time><DistanceMeters>5117.68994140625</DistanceMeters></Trackpoint>
            <Trackpoint><Time>2021-06-01T06:51:38Z</Time><DistanceMeters>10630.3701171875</DistanceMeters></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let track = try XCTUnwrap(TCXReader.read(bytes: Array(xml.utf8), source: "treadmill.tcx").first)
        XCTAssertEqual(track.deviceDistanceMeters, 10630.37)
        XCTAssertEqual(track.laps.first?.distanceMeters, 10630.37)
        let summary = RunAnalyzer().summarize(track, id: "treadmill.tcx")
        XCTAssertEqual(summary.deviceDistanceMeters, 10630.37)
        let json = try XCTUnwrap(String(data: JSONEncoder().encode(summary), encoding: .utf8))
        // Written as the short decimal, whatever key follows it (the encoder's key order is not fixed).
        let written = try XCTUnwrap(json.range(of: "\"device_distance_m\":10630.37"), json)
        XCTAssertTrue(written.upperBound == json.endIndex || [",", "}"].contains(json[written.upperBound]), json)

        // The writer's single-precision mode round trip: the device total is the short decimal.
        let run = RunGenerator(seed: 23, distanceMeters: 2000).track()
        let read = try XCTUnwrap(TCXReader.read(bytes: TCXWriter.encode(track: run, singlePrecision: true), source: "f.tcx").first)
        let total = try XCTUnwrap(read.deviceDistanceMeters)
        XCTAssertEqual(total, Double(Float(total).description))
        XCTAssertEqual(total, read.deviceDistance(at: read.count - 1), accuracy: 0.001)
    }

    func testABrokenLapHeartRateIsAClearError() throws {
        let head = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Id>x</Id>
            <Lap StartTime="2021-06-01T06:00:00Z"><TotalTimeSeconds>60</TotalTimeSeconds>
            """
        let track = """
            <Track><Trackpoint><Time>2021-06-01T06:00:00Z</Time><Position><LatitudeDegrees>1</LatitudeDegrees>\
            <LongitudeDegrees>1</LongitudeDegrees></Position></Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        XCTAssertThrowsError(try TCXReader.read(bytes: Array((head + "<AverageHeartRateBpm><Value>fast</Value></AverageHeartRateBpm>" + track).utf8),
                                                source: "bad.tcx")) { error in
            XCTAssertTrue("\(error)".contains("<AverageHeartRateBpm/Value> holds 'fast', not a number"), "\(error)")
            XCTAssertTrue("\(error)".contains("bad.tcx"), "\(error)")
        }
        XCTAssertThrowsError(try TCXReader.read(bytes: Array((head + "<MaximumHeartRateBpm><Value>170").utf8), source: "cut.tcx")) { error in
            XCTAssertTrue("\(error)".contains("the file ends inside <MaximumHeartRateBpm>"), "\(error)")
        }
        // A lap heart rate without a Value, or an empty one, is no figure; the lap still reads.
        let read = try XCTUnwrap(TCXReader.read(bytes: Array((head + "<AverageHeartRateBpm></AverageHeartRateBpm><MaximumHeartRateBpm><Value/></MaximumHeartRateBpm>" + track).utf8),
                                                source: "empty.tcx").first)
        XCTAssertNil(read.laps.first?.averageHeartRate)
        XCTAssertNil(read.laps.first?.maximumHeartRate)
        XCTAssertEqual(read.laps.first?.timerSeconds, 60)
    }

    func testDeviceNumberIntended() {
        XCTAssertEqual(DeviceNumber.intended(14004.849609375), 14004.85)
        XCTAssertEqual(DeviceNumber.intended(10630.3701171875), 10630.37)
        XCTAssertEqual(DeviceNumber.intended(1.190000057220459), 1.19)
        XCTAssertEqual(DeviceNumber.intended(-147.1999969482421875), -147.2)
        // Values that are no float's expansion, or whose shortest form is themselves, stay as they are.
        XCTAssertEqual(DeviceNumber.intended(10630.37), 10630.37)
        XCTAssertEqual(DeviceNumber.intended(0.5), 0.5)
        XCTAssertEqual(DeviceNumber.intended(4489.39), 4489.39)
        XCTAssertEqual(DeviceNumber.intended(16_777_216), 16_777_216)
        XCTAssertEqual(DeviceNumber.intended(0), 0)
        XCTAssertTrue(DeviceNumber.intended(.nan).isNaN)
    }
}
