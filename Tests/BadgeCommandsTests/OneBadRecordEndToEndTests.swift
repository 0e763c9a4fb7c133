import Foundation
import GRDB
import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// Issue 47 (S2) through the built binary: one bad record costs only itself (Apple Health, SML,
/// Polar), dates outside 1900–2200 and impossible days are refused by name for their record, a
/// relative Apple Health folder reads as an absolute one, names from files are printed escaped,
/// and the numbers of a state and of another shard's facts are checked before they are used.
final class OneBadRecordEndToEndTests: XCTestCase {
    static let start = 1_772_348_400.0  // 2026-03-01T07:00:00Z

    /// An export of ten good 30-minute runs, one a day, and `bad` workouts (their `startDate`,
    /// `endDate` as written) after them.
    static func export(bad: [(start: String, end: String)]) -> String {
        var xml = AppleHealthFixture.header
        for day in 0..<10 {
            xml += AppleHealthFixture.workout(.init(start: start + Double(day) * 86_400, minutes: 30, kilometres: 6), offset: 3600)
        }
        for (start, end) in bad {
            xml += "<Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\" "
                + "startDate=\"\(start)\" endDate=\"\(end)\">\n"
                + "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sum=\"6\" unit=\"km\"/>\n</Workout>\n"
        }
        return xml + "</HealthData>\n"
    }

    static func runs(_ output: CLI.Output) throws -> [[String: Any]] {
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], output.stderr)
        return try XCTUnwrap(report["runs"] as? [[String: Any]])
    }

    /// Ten good workouts and one bad give ten runs and a skip naming the bad one, its line and why:
    /// an end before its start, a year 99999 or -1, year 0001 or 9999, 30 February, a +9999 offset.
    func testOneBadAppleHealthWorkoutCostsOnlyItself() throws {
        let cases: [(start: String, end: String, said: String)] = [
            ("2026-03-20 08:00:00 +0100", "2026-03-20 07:00:00 +0100", "is before its startDate"),
            ("2026-03-20 08:00:00 +0100", "99999-03-20 08:30:00 +0100", "without a readable endDate"),
            ("-001-03-20 08:00:00 +0100", "2026-03-20 08:30:00 +0100", "without a readable startDate"),
            ("0001-03-20 08:00:00 +0100", "2026-03-20 08:30:00 +0100", "is not from 1900–2200"),
            ("2026-03-20 08:00:00 +0100", "9999-03-20 08:30:00 +0100", "is not from 1900–2200"),
            ("2026-02-30 08:00:00 +0100", "2026-02-30 08:30:00 +0100", "February 2026 has no day 30"),
            ("2026-03-20 08:00:00 +9999", "2026-03-20 08:30:00 +0100", "the UTC offset +9999 has 99 minutes"),
        ]
        for (start, end, said) in cases {
            let folder = try TemporaryFolder()
            try folder.write("apple_health_export/export.xml", Self.export(bad: [(start, end)]))
            let output = try CLI.run(["evaluate", folder.path + "/apple_health_export", "--format", "json", "--tz", "UTC", "--no-cache"])
            XCTAssertEqual(output.status, 2, "\(start) – \(end): a skip makes the status say so: \(output.stderr)")
            XCTAssertEqual(try Self.runs(output).count, 10, "\(start) – \(end): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains("export.xml:") && output.stderr.contains(said)
                && output.stderr.contains("this workout is skipped, the others are read"), "\(start) – \(end): \(output.stderr)")
            // The line of the bad workout (the header's 6 lines, then ten workouts) is named.
            XCTAssertTrue(output.stderr.range(of: #"export\.xml:\d+"#, options: .regularExpression) != nil, output.stderr)
        }
    }

    /// An SML sample whose `Time` is `-1e300` (or whose `UTC` is year 9999) is one dropped sample,
    /// named, and the run is read from the others; a Polar session's exercise that starts in year
    /// 0001 is skipped by name and its other exercise read.
    func testOneBadDeviceLogRecordCostsOnlyItself() throws {
        let folder = try TemporaryFolder()
        func sample(_ time: String, _ utc: String, _ distance: Int) -> String {
            "<Sample><HR>2.4</HR><Distance>\(distance)</Distance><Time>\(time)</Time><UTC>\(utc)</UTC></Sample>\n"
        }
        var samples = sample("-1e300", "2026-03-01T07:00:00Z", 0) + sample("0", "9999-03-01T07:00:00Z", 0)
        for k in 1...30 { samples += sample(String(k * 10), Timestamps.iso8601(Self.start + Double(k) * 10), k * 30) }
        try folder.write("log.sml", """
            <?xml version="1.0"?><sml><DeviceLog><Header><Activity>Running</Activity></Header><Samples>
            \(samples)</Samples></DeviceLog></sml>
            """)
        func exercise(_ start: String) -> String {
            "{\"startTime\":\"\(start)\",\"stopTime\":\"2026-03-02T08:30:00.000\",\"timezoneOffset\":60,\"duration\":\"PT1800S\","
                + "\"distance\":6000,\"sport\":\"RUNNING\"}"
        }
        try folder.write("polar.json", "{\"exportVersion\":\"1.3\",\"name\":\"Laufen\",\"timeZoneOffset\":60,\"exercises\":["
                         + exercise("0001-03-02T08:00:00.000") + "," + exercise("2026-03-02T08:00:00.000") + "]}")
        let output = try CLI.run(["summarize", folder.path + "/log.sml", folder.path + "/polar.json", "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stdout.contains("dropped    1 × a sample's Time not a plausible figure"), output.stdout)
        XCTAssertTrue(output.stdout.contains("dropped    1 × a time not from 1900–2200 (or not a number)"), output.stdout)
        XCTAssertTrue(output.stdout.contains("distance   900 m"), output.stdout)
        XCTAssertTrue(output.stdout.contains("an exercise not read: exercises[0].startTime: not from 1900–2200"), output.stdout)
        XCTAssertTrue(output.stdout.contains("(device: 6.00 km)"), output.stdout)
    }

    /// A JSON summary starting in 1899 or 2201 is refused by name; a GPX timed from year 0001 to
    /// 9999 keeps the points dated 1900–2200 and names the others.
    func testDatesOutsideTheCenturiesAreRefusedByName() throws {
        let folder = try TemporaryFolder()
        try folder.write("old.json", #"{"start":"1899-12-31T23:00:00Z","distance_m":5000,"duration_s":1500}"#)
        try folder.write("far.json", #"{"start":"2201-01-01T07:00:00Z","distance_m":5000,"duration_s":1500}"#)
        var points = "<trkpt lat=\"52.37\" lon=\"4.89\"><time>0001-01-01T00:00:00Z</time></trkpt>\n"
        for k in 0..<20 { points += "<trkpt lat=\"\(52.37 + Double(k) * 0.0003)\" lon=\"4.89\"><time>\(Timestamps.iso8601(Self.start + Double(k) * 10))</time></trkpt>\n" }
        points += "<trkpt lat=\"52.3760000000001\" lon=\"4.89\"><time>9999-12-31T23:59:59Z</time></trkpt>\n"
        try folder.write("wide.gpx", "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n\(points)</trkseg></trk></gpx>")
        let output = try CLI.run(["summarize", folder.path + "/old.json", folder.path + "/far.json", folder.path + "/wide.gpx",
                                  "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("old.json: field 'start': '1899-12-31T23:00:00Z' is not from 1900–2200"), output.stderr)
        XCTAssertTrue(output.stderr.contains("far.json: field 'start': '2201-01-01T07:00:00Z' is not from 1900–2200"), output.stderr)
        XCTAssertTrue(output.stdout.contains("dropped    2 × a time not from 1900–2200 (or not a number)"), output.stdout)
        XCTAssertTrue(output.stdout.contains("elapsed    3:10"), output.stdout)

        // An Apple Health workout's inline Location dated 9999 is one named drop; the others are its route.
        var locations = ""
        for (k, date) in ["2026-03-01 08:00:00 +0100", "9999-03-01 08:00:10 +0100", "2026-03-01 08:00:20 +0100", "2026-03-01 08:00:30 +0100"].enumerated() {
            locations += "<Location date=\"\(date)\" latitude=\"\(52.37 + Double(k) * 0.0003)\" longitude=\"4.89\" altitude=\"5\"/>\n"
        }
        try folder.write("health/export.xml", AppleHealthFixture.header + """
            <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="0.5" durationUnit="min" \
            startDate="2026-03-01 08:00:00 +0100" endDate="2026-03-01 08:00:30 +0100"><WorkoutRoute>
            \(locations)</WorkoutRoute></Workout></HealthData>
            """)
        let health = try CLI.run(["evaluate", folder.path + "/health", "--format", "json", "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(health.status, 0, health.stderr)
        let run = try XCTUnwrap(try Self.runs(health).first)
        XCTAssertEqual(run["points"] as? Int, 3, "\(run)")
        let dropped = try XCTUnwrap(run["dropped"] as? [[String: Any]], "\(run)")
        XCTAssertTrue(dropped.contains { $0["reason"] as? String == "a time not from 1900–2200 (or not a number)" && $0["count"] as? Int == 1 }, "\(dropped)")
    }

    /// An Apple Health folder given by a relative path reads its routes as the same folder given by
    /// its absolute path does (the relative base was joined twice: "route file … is not in the export").
    func testARelativeAppleHealthFolderKeepsItsRoutes() throws {
        let folder = try TemporaryFolder()
        let route = RunGenerator(seed: 5, distanceMeters: 3000).gpxBytes()
        let workout = AppleHealthFixture.Workout(start: RunGenerator(seed: 5).startEpochSeconds, minutes: 20, kilometres: 3,
                                                 routeFiles: ["route_1.gpx"])
        try folder.write("apple_health_export/export.xml", AppleHealthFixture.header + AppleHealthFixture.workout(workout, offset: 0) + "</HealthData>\n")
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("apple_health_export/workout-routes"), withIntermediateDirectories: true)
        try Data(route).write(to: folder.url.appendingPathComponent("apple_health_export/workout-routes/route_1.gpx"))
        let absolute = try CLI.run(["evaluate", folder.path + "/apple_health_export", "--format", "json", "--tz", "UTC", "--no-cache"])
        let relative = try CLI.run(["evaluate", "apple_health_export", "--format", "json", "--tz", "UTC", "--no-cache",
                                    "--rules", CLI.repository.path + "/rules", "--badges", CLI.repository.path + "/badges.json"], in: folder.url)
        XCTAssertEqual(absolute.status, 0, absolute.stderr)
        XCTAssertEqual(relative.status, 0, relative.stderr)
        XCTAssertFalse(relative.stderr.contains("is not in the export"), relative.stderr)
        let points = { (output: CLI.Output) in try Self.runs(output).map { $0["points"] as? Int ?? -1 } }
        XCTAssertEqual(try points(relative), try points(absolute))
        XCTAssertGreaterThan(try points(relative).first ?? 0, 100)
    }

    /// A zip entry named with ESC, a newline or NUL is printed escaped in every message; the league
    /// table prints an athlete's name escaped.
    func testNamesFromFilesArePrintedEscaped() throws {
        let folder = try TemporaryFolder()
        let zip = ZipWriter([ZipWriter.Entry("runs/a.gpx", RunGenerator(seed: 2).gpxBytes()),
                             ZipWriter.Entry("x\u{1B}[31mred\nforged: line.gpx", Array("not a gpx".utf8)),
                             ZipWriter.Entry("nul\u{0}.gpx", Array("x".utf8))]).finish()
        let path = folder.url.appendingPathComponent("runs.zip").path
        try Data(zip).write(to: URL(fileURLWithPath: path))
        for command in [["evaluate", path], ["summarize", path], ["report", path, "-o", folder.path + "/r.html"]] {
            let output = try CLI.run(command + ["--tz", "UTC", "--no-cache"])
            XCTAssertEqual(output.status, 2, output.stderr)
            XCTAssertFalse(output.stderr.contains("\u{1B}") || output.stderr.contains("\u{0}"), "\(command): \(output.stderr)")
            XCTAssertFalse(output.stderr.contains("\nforged"), "\(command): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains("x\\u{1B}[31mred\\nforged: line.gpx"), "\(command): \(output.stderr)")
        }
        // A population lapping the places pack's segment (crowns name athletes), one athlete renamed.
        let population = LeaguePopulation(athletes: [
            .init(name: "ana", paceSecondsPerKilometre: 300, runs: 1, laps: 1, firstDay: Timestamps.daysFromCivil(year: 2026, month: 3, day: 1), seed: 1),
        ])
        let lines = try population.write(to: folder.path).map { $0.replacingOccurrences(of: #""athlete":"ana""#, with: #""athlete":"eve\u001b[2J\nforged""#) }
        XCTAssertTrue(lines.allSatisfy { $0.contains("forged") }, "\(lines)")
        let league = try CLI.run(["league", "--root", folder.path, "--rules", "rules/places", "--format", "table", "--no-cache", "--tz", "UTC"],
                                 stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertTrue([0, 2].contains(league.status), league.stderr)
        XCTAssertTrue(league.stdout.contains("eve\\u{1B}[2J\\nforged"), league.stdout)
        XCTAssertFalse(league.stdout.contains("\u{1B}"), league.stdout)
    }

    /// `league --from-facts` refuses, by name, facts lines whose numbers no shard writes (2^63-1
    /// athletes, a `latest_end` of 1e19, an effort at year 9999) and reads the rest.
    func testFactsWithImpossibleNumbersAreRefusedByName() throws {
        let lines = [
            "0\t{\"athlete\":\"ana\",\"athletes\":1,\"latest_end\":1772348400}",
            "0\t{\"athletes\":9223372036854775807}",
            "0\t{\"athlete\":\"ben\",\"athletes\":1,\"latest_end\":1e19}",
            "0\t{\"athlete\":\"cai\",\"athletes\":2147483647}",
            "0\t{\"athlete\":\"dee\",\"athletes\":2147483647}",
        ]
        let output = try CLI.run(["league", "--from-facts", "--rules", "rules/places", "--no-cache"], stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(output.status, 2, output.stderr)
        XCTAssertTrue(output.stderr.contains("field 'athletes': 9223372036854775807 is not a count of athletes"), output.stderr)
        XCTAssertTrue(output.stderr.contains("field 'latest_end': 1e+19 is not an instant from 1900–2200"), output.stderr)
        XCTAssertTrue(output.stderr.contains("the athletes counted come to more than 2147483647"), output.stderr)
    }

    /// A state whose rule row says `next_seq = 2^63-1` is refused by name, never a trap in `add`.
    func testAStatesImpossibleSequenceIsRefusedByName() throws {
        let folder = try TemporaryFolder()
        let runs = folder.url.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        try Data(RunGenerator(seed: 2).gpxBytes()).write(to: runs.appendingPathComponent("a.gpx"))
        var later = RunGenerator(seed: 3)
        later.startEpochSeconds += 86_400
        let late = folder.url.appendingPathComponent("late.gpx")
        try Data(later.gpxBytes()).write(to: late)
        let state = folder.url.appendingPathComponent("state").path
        let saved = try CLI.run(["evaluate", runs.path, "--state", state, "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let queue = try DatabaseQueue(path: state + "/state.sqlite")
        try queue.write { try $0.execute(sql: "UPDATE rule SET next_seq = 9223372036854775807") }
        let added = try CLI.run(["add", "--state", state, late.path, "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(added.status, 1, added.stderr)
        XCTAssertTrue(added.stderr.contains("next_seq 9223372036854775807, not a count of awards"), added.stderr)
    }
}
