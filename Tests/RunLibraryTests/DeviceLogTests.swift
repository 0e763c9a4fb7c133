import Foundation
import XCTest

@testable import RunAnalysis
@testable import RunFiles
@testable import RunFixtures
@testable import SyntheticRuns
@testable import RunLibrary

/// Suunto SML, Suunto device-log JSON and Polar Flow sessions (issue 27 item 3), read as `evaluate`
/// reads a file (`RunFolder.read`), from logs the fixtures write in the real files' shapes.
final class DeviceLogTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: String!
    let tokyo = TimeZone(identifier: "Asia/Tokyo")!

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func load(_ bytes: [UInt8], _ name: String) throws -> RunFolder {
        let path = (folder as NSString).appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return try RunFolder.read(path, zone: tokyo, serial: true)
    }

    let track = RunGenerator(seed: 7, distanceMeters: 3000).track()
    var generatedDistance: Double { RunAnalyzer().summarize(track, id: "g", zoneOffsetSeconds: 0).distanceMeters }

    func testSMLRunWithTotalsTrackHeartRateAndZone() throws {
        let read = try load(DeviceLogWriter.sml(track), "ambit.sml")
        XCTAssertEqual(read.errors, [])
        let run = try XCTUnwrap(read.runs.first)
        XCTAssertEqual(run.format, "sml")
        XCTAssertEqual(run.sport, "running")
        XCTAssertEqual(run.points, track.count)
        XCTAssertEqual(run.distanceMeters, generatedDistance, accuracy: 1)
        XCTAssertEqual(run.deviceDistanceMeters ?? 0, generatedDistance, accuracy: 1)
        XCTAssertEqual(run.deviceElapsedSeconds ?? 0, (track.times.last ?? 0) - (track.times.first ?? 0), accuracy: 0.01)
        // Heart rate in Hz, read as bpm.
        let rates = track.heartRates.filter { !$0.isNaN }
        XCTAssertEqual(run.heartRate?.maximum ?? 0, rates.max() ?? -1, accuracy: 0.01)
        // DateTime is local: -07:00 against the samples' UTC, whatever --tz says.
        XCTAssertEqual(run.utcOffsetSeconds, -25_200)
        XCTAssertEqual(run.zoneSource, "file")
        XCTAssertEqual(run.localStart, Timestamps.localTime(track.times[0], offsetSeconds: -25_200))

        let ride = try load(DeviceLogWriter.sml(track, activity: "Cycling", activityType: 4), "ride.sml")
        XCTAssertEqual(ride.runs.first?.sport, "cycling")
        // A mode name Sport does not know falls back to the ActivityType number.
        let renamed = try load(DeviceLogWriter.sml(track, activity: "My Mode", activityType: 4), "mode.sml")
        XCTAssertEqual(renamed.runs.first?.sport, "cycling")
    }

    func testSuuntoJSONHeartRateFromRRIntervals() throws {
        let read = try load(DeviceLogWriter.suuntoJSON(track), "suunto9.json")
        XCTAssertEqual(read.errors, [])
        let run = try XCTUnwrap(read.runs.first)
        XCTAssertEqual(run.format, "suunto_json")
        XCTAssertEqual(run.sport, "running")
        XCTAssertEqual(run.distanceMeters, generatedDistance, accuracy: 1)
        XCTAssertEqual(run.deviceDistanceMeters ?? 0, generatedDistance.rounded(), accuracy: 1)
        XCTAssertEqual(run.utcOffsetSeconds, 3600)
        let rates = track.heartRates.filter { !$0.isNaN }
        let mean = rates.reduce(0, +) / Double(rates.count)
        XCTAssertEqual(run.heartRate?.average ?? 0, mean, accuracy: 2, "R-R intervals give the heart rate back")
    }

    func testPolarSessionRouteOnAnotherClockIsMovedToTheStart() throws {
        let read = try load(DeviceLogWriter.polarJSON(track), "polar.json")
        XCTAssertEqual(read.errors, [])
        let run = try XCTUnwrap(read.runs.first)
        XCTAssertEqual(run.format, "polar_json")
        XCTAssertEqual(run.sport, "running")
        XCTAssertEqual(run.startEpochSeconds ?? 0, track.times[0], accuracy: 0.01)
        XCTAssertEqual(run.localStart, Timestamps.localTime(track.times[0], offsetSeconds: 3600))
        XCTAssertEqual(run.distanceMeters, generatedDistance, accuracy: 1)
        // Heart rate joined to the route once both are on one clock.
        let rates = track.heartRates.filter { !$0.isNaN }
        XCTAssertEqual(run.heartRate?.maximum ?? 0, rates.max() ?? -1, accuracy: 0.5)
        XCTAssertEqual(run.deviceTimerSeconds ?? 0, (track.times.last ?? 0) - track.times[0], accuracy: 0.01)
    }

    func testBrokenLogsAreNamed() throws {
        var sml = DeviceLogWriter.sml(track)
        sml.removeLast(40)
        let cut = try load(sml, "cut.sml")
        XCTAssertTrue(cut.errors.first?.message.contains("cut.sml") ?? false, "\(cut.errors)")
        XCTAssertTrue(cut.errors.first?.message.contains("ends inside") ?? false, "\(cut.errors)")
        let polar = try load(Array("{\"exportVersion\":\"1.3\",\"exercises\":[]}".utf8), "empty.json")
        XCTAssertTrue(polar.errors.first?.message.hasSuffix("empty.json: field 'exercises': missing, empty, or not an array") ?? false,
                      "\(polar.errors)")
        let summary = try load(Array("{\"start\":\"2024-05-01T06:30:00Z\",\"distance_m\":5000,\"duration_s\":1500}".utf8), "summary.json")
        XCTAssertEqual(summary.runs.first?.format, "json", "a summary is still a summary: \(summary.errors)")
    }

    func testSameRunFromAppleHealthAndItsFITIsOneRunTheFITKept() throws {
        // Item 5: one activity, several archives: the FIT wins (laps, timer events), then the device logs, then Apple Health, then GPX.
        let fit = RunSummary(id: "a.fit", startEpochSeconds: 1000, format: "fit", distanceMeters: 5000, elapsedSeconds: 1500)
        let apple = RunSummary(id: "export.xml#1", startEpochSeconds: 1010, format: "apple_health", distanceMeters: 5020, elapsedSeconds: 1495)
        let gpx = RunSummary(id: "strava/1.gpx", startEpochSeconds: 1001, format: "gpx", distanceMeters: 4990, elapsedSeconds: 1500)
        let polar = RunSummary(id: "polar.json", startEpochSeconds: 1005, format: "polar_json", distanceMeters: 5001, elapsedSeconds: 1500)
        let (kept, duplicates) = Duplicates.removeSameActivity(from: [gpx, apple, fit, polar])
        XCTAssertEqual(kept.map(\.id), ["a.fit"])
        XCTAssertEqual(Set(duplicates.map(\.id)), ["export.xml#1", "strava/1.gpx", "polar.json"])
        XCTAssertEqual(Duplicates.removeSameActivity(from: [gpx, apple, polar]).kept.map(\.id), ["polar.json"])
        let (appleKept, _) = Duplicates.removeSameActivity(from: [gpx, apple])
        XCTAssertEqual(appleKept.map(\.id), ["export.xml#1"], "Apple Health's device totals before a re-exported GPX")
    }
}
