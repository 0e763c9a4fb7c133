import RunFixtures
import Foundation
import RunFiles
import RunLibrary
import SyntheticRuns
import XCTest

final class RunSelectionTests: XCTestCase {
    func run(_ id: String, sport: String = "running", meters: Double, seconds: Double) -> RunSummary {
        RunSummary(id: id, startEpochSeconds: 0, sport: sport, format: "json", distanceMeters: meters, elapsedSeconds: seconds)
    }

    func testRecordSpeeds() {
        XCTAssertEqual(RunSelection.recordSpeed(forDistance: 5000), 6.62)
        XCTAssertEqual(RunSelection.recordSpeed(forDistance: 100), 9.30)
        XCTAssertEqual(RunSelection.recordSpeed(forDistance: 300_000), 4.72)
        // Between 5 km and 10 km, on the log of the distance: halfway in log terms is √(5000·10000).
        XCTAssertEqual(RunSelection.recordSpeed(forDistance: (5000.0 * 10000).squareRoot()), (6.62 + 6.37) / 2, accuracy: 1e-9)
    }

    func testRunningIsTheDefaultAndImplausibleRunsAreLeftOut() {
        let runs = [
            run("ok.gpx", meters: 5000, seconds: 1200),            // 4.17 m/s
            run("ride.gpx", sport: "cycling", meters: 30000, seconds: 3600),
            run("car.gpx", meters: 5000, seconds: 600),            // 8.33 m/s over 5 km: faster than 12:35
            run("record.gpx", meters: 5000, seconds: 756),         // 6.61 m/s: just slower than the record
            run("swim.fit", sport: "swimming", meters: 1500, seconds: 1800),
        ]
        let (selected, excluded) = RunSelection().apply(runs)
        XCTAssertEqual(selected.map(\.id), ["ok.gpx", "record.gpx"])
        XCTAssertEqual(excluded.map(\.id), ["ride.gpx", "car.gpx", "swim.fit"])
        XCTAssertTrue(excluded[1].reason.contains("implausible"), excluded[1].reason)
        XCTAssertTrue(excluded[0].reason.contains("cycling"), excluded[0].reason)
    }

    func testSportOption() {
        let runs = [run("a", meters: 5000, seconds: 1500), run("b", sport: "cycling", meters: 20000, seconds: 3600),
                    run("c", sport: "walking", meters: 3000, seconds: 2000)]
        XCTAssertEqual(RunSelection(option: "all").apply(runs).selected.map(\.id), ["a", "b", "c"])
        XCTAssertEqual(RunSelection(option: "Run, walk").apply(runs).selected.map(\.id), ["a", "c"])
        XCTAssertEqual(RunSelection(option: "Ride").apply(runs).selected.map(\.id), ["b"])
        XCTAssertEqual(RunSelection(option: "9").sports, ["running"])  // Strava's GPX code for a run
    }

    /// A Strava bulk export: the CSV's name and type win over what the file says.
    func testStravaExportAnnotatesRuns() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let dir = temporary.url
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("activities"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("media"), withIntermediateDirectories: true)
        var generator = RunGenerator(seed: 3, distanceMeters: 2000, paceSecondsPerKilometre: 300)
        try generator.writeGPX(to: dir.appendingPathComponent("activities/101.gpx").path)
        generator.seed = 4
        try generator.writeGPX(to: dir.appendingPathComponent("activities/102.gpx").path)
        try Data("jpeg".utf8).write(to: dir.appendingPathComponent("media/photo.jpg"))
        try """
            Activity ID,Activity Date,Activity Name,Activity Type,Elapsed Time,Distance,Filename,Elapsed Time,Distance
            101,"Apr 30, 2024, 6:30:00 AM",Easy \"loop\",Run,600,2.0,activities/101.gpx,600.0,2000.0
            102,"May 1, 2024, 6:30:00 AM",Commute,Ride,600,2.0,activities/102.gpx,600.0,2000.0

            """.write(to: dir.appendingPathComponent("activities.csv"), atomically: true, encoding: .utf8)
        let folder = try RunFolder.read(dir.path)
        XCTAssertEqual(folder.runs.map(\.id), ["activities/101.gpx", "activities/102.gpx"])
        XCTAssertEqual(folder.ignored, ["activities.csv", "media/photo.jpg"])
        let runs = try StravaExport.annotate(folder.runs, directory: dir.path)
        XCTAssertEqual(runs.map(\.sport), ["running", "cycling"])
        XCTAssertEqual(runs.map(\.name), ["Easy \"loop\"", "Commute"])
        XCTAssertEqual(RunSelection().apply(runs).selected.map(\.id), ["activities/101.gpx"])
    }
}
