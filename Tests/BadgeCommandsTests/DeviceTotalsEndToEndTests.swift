import RunFixtures
import Foundation
import RunFiles
import SyntheticRuns
import XCTest

/// Issue V end to end: FIT files whose watch recorded its own climb, heart rate and laps, through
/// `summarize` (table and JSON) and the shipped Everest badge through `explain`.
final class DeviceTotalsEndToEndTests: XCTestCase {
    /// A 2 km run on `day` whose watch counted `ascent` metres of climb, in two laps.
    static func watchRun(day: Int, ascent: Double) -> [UInt8] {
        var generator = RunGenerator(seed: UInt64(40 + day), distanceMeters: 2000, paceSecondsPerKilometre: 360)
        generator.startEpochSeconds += Double(day) * 86_400
        var track = generator.track()
        let start = track.times[0]
        track.laps = [
            Lap(start: start, elapsedSeconds: 360, timerSeconds: 360, distanceMeters: 1000, averageHeartRate: 148, maximumHeartRate: 160,
                trigger: "distance", intensity: "active"),
            Lap(start: start + 360, elapsedSeconds: 360, timerSeconds: 358, distanceMeters: 1000, averageHeartRate: 155, maximumHeartRate: 171,
                trigger: "manual"),
        ]
        track.deviceAscentMeters = ascent; track.deviceDescentMeters = ascent - 10
        track.deviceAverageHeartRate = 152; track.deviceMaximumHeartRate = 171; track.deviceLapCount = 2
        return FITWriter.encode(track: track)
    }

    func testSummarizeShowsTheDevicesTotalsAndLaps() throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("hill.fit").path
        try Data(Self.watchRun(day: 0, ascent: 420)).write(to: URL(fileURLWithPath: path))
        let table = try CLI.run(["summarize", path, "--tz", "UTC"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("  device     climb +420 m / -410 m   heart rate avg 152  max 171 bpm   2 laps"), table.stdout)
        XCTAssertTrue(table.stdout.contains("  lap 1      1.00 km in 6:00 (6:00/km)  avg 148 max 160 bpm  distance, active"), table.stdout)
        XCTAssertTrue(table.stdout.contains("  lap 2      1.00 km in 5:58 (5:58/km)  avg 155 max 171 bpm  manual"), table.stdout)
        XCTAssertTrue(table.stdout.contains("bpm   (average by time)"), table.stdout)

        let json = try CLI.run(["summarize", path, "--format", "json", "--tz", "UTC"])
        let runs = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["runs"] as? [[String: Any]])
        let run = try XCTUnwrap(runs.first)
        XCTAssertEqual(run["device_ascent_m"] as? Double, 420)
        XCTAssertEqual(run["device_laps"] as? Int, 2)
        XCTAssertEqual((run["heart_rate"] as? [String: Any])?["avg_weighting"] as? String, "time")
        let laps = try XCTUnwrap(run["laps"] as? [[String: Any]])
        XCTAssertEqual(laps.map { $0["trigger"] as? String }, ["distance", "manual"])
        XCTAssertEqual(laps.map { $0["start_elapsed_s"] as? Double }, [0, 360])
        XCTAssertTrue(laps[1]["intensity"] is NSNull, "a field the lap does not have is null")
    }

    func testEverestCountsTheWatchsClimbAndExplainSaysSo() throws {
        // Three short runs whose computed climb is a few dozen metres: only the watch's 3,000 m each reach 8,848 m.
        let folder = try TemporaryFolder()
        for day in 0..<3 {
            try Data(Self.watchRun(day: day, ascent: 3000)).write(to: folder.url.appendingPathComponent("day\(day).fit"))
        }
        let output = try CLI.run(["explain", "everest", folder.path, "--rules", "rules/lifetime", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("9000 m of climb over 3 runs"), output.stdout)
        XCTAssertTrue(output.stdout.contains("gain_source"), output.stdout)
        XCTAssertTrue(output.stdout.contains("device"), output.stdout)
        XCTAssertTrue(output.stdout.contains("day2.fit"), output.stdout)
    }
}
