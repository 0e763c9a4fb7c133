import RunFixtures
import Foundation
import RunFiles
import XCTest

/// Issue 47, item 2 ("no trap on any number"), end to end through the built binary: every numeric
/// field of every text reader (GPX, TCX, SML, Suunto JSON, Polar JSON, the JSON summary, Apple
/// Health) is given `nan`, `±inf`, `±1e308`, `-1e300` and 2^63-1 (its date fields impossible
/// dates), one field at a time, in one point and in all of them, and every command a runner uses
/// on such files (summarize and evaluate as table and JSON, report, add, the worker, the league)
/// must end with a status (0, 1 or 2), never a signal. (FIT is left out of the walk: its fields
/// are fixed-width integers with scales, read as such; its timestamps are 32-bit seconds from 1989.)
final class HostileNumbersEndToEndTests: XCTestCase {
    /// What a number field is given.
    static let numbers = ["nan", "NaN", "inf", "-inf", "1e308", "-1e308", "-1e300", "9223372036854775807"]
    /// What a JSON number field is given (JSON has no nan or inf: a literal past a double's range is inf to most readers).
    static let jsonNumbers = ["1e308", "-1e308", "-1e300", "9223372036854775807", "1e999", "-1e999", "\"nan\""]
    /// What a date field is given (ISO 8601 form).
    static let isoDates = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-02-30T07:00:00Z", "2026-03-01T07:00:00+99:99",
                           "1899-12-31T23:59:59Z", "2201-01-01T00:00:00Z", "-1e300"]

    /// A file format's template: `{{field}}` placeholders, each with its sound value, and for each
    /// the values it is walked with.
    struct Template {
        var name: String
        var suffix: String
        var text: String
        var fields: [String: (sound: String, hostile: [String])]

        /// The template with every field sound but `field`, given `value` in point `point` (nil: in
        /// every point; placeholders are numbered `{{field}}` in every point, their occurrences counted).
        func filled(_ field: String?, _ value: String, point: Int?) -> String {
            var out = text
            for (name, entry) in fields {
                let marker = "{{\(name)}}"
                var occurrence = 0
                while let range = out.range(of: marker) {
                    let hostile = name == field && (point == nil || point == occurrence)
                    out.replaceSubrange(range, with: hostile ? value : entry.sound)
                    occurrence += 1
                }
            }
            return out
        }
    }

    static let start = 1_772_348_400.0  // 2026-03-01T07:00:00Z
    static func iso(_ k: Int) -> String { Timestamps.iso8601(start + Double(k) * 10) }

    static let gpx: Template = {
        var points = ""
        for k in 0..<4 {
            points += "<trkpt lat=\"{{lat\(k)}}\" lon=\"{{lon\(k)}}\"><ele>{{ele}}</ele><time>{{time\(k)}}</time>"
                + "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>{{hr}}</gpxtpx:hr><gpxtpx:cad>{{cad}}</gpxtpx:cad>"
                + "</gpxtpx:TrackPointExtension></extensions></trkpt>\n"
        }
        var fields: [String: (String, [String])] = ["ele": ("12.5", numbers), "hr": ("150", numbers), "cad": ("85", numbers)]
        for k in 0..<4 {
            fields["lat\(k)"] = (String(52.37 + Double(k) * 0.0003), numbers)
            fields["lon\(k)"] = ("4.89", numbers)
            fields["time\(k)"] = (iso(k), isoDates)
        }
        return Template(name: "gpx", suffix: "gpx", text: """
            <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><trkseg>
            \(points)</trkseg></trk></gpx>
            """, fields: fields)
    }()

    static let tcx: Template = {
        var points = ""
        for k in 0..<4 {
            points += "<Trackpoint><Time>{{time\(k)}}</Time><Position><LatitudeDegrees>{{lat}}</LatitudeDegrees>"
                + "<LongitudeDegrees>{{lon\(k)}}</LongitudeDegrees></Position><AltitudeMeters>{{ele}}</AltitudeMeters>"
                + "<DistanceMeters>{{dist\(k)}}</DistanceMeters><HeartRateBpm><Value>{{hr}}</Value></HeartRateBpm>"
                + "<Cadence>{{cad}}</Cadence></Trackpoint>\n"
        }
        var fields: [String: (String, [String])] = [
            "lat": ("52.37", numbers), "ele": ("3", numbers), "hr": ("140", numbers), "cad": ("88", numbers),
            "lapStart": (iso(0), isoDates), "lapTime": ("30", numbers), "lapDist": ("60", numbers),
            "lapAvg": ("140", numbers), "lapMax": ("150", numbers), "calories": ("10", numbers),
        ]
        for k in 0..<4 {
            fields["time\(k)"] = (iso(k), isoDates)
            fields["lon\(k)"] = (String(4.89 + Double(k) * 0.0003), numbers)
            fields["dist\(k)"] = (String(Double(k) * 20), numbers)
        }
        return Template(name: "tcx", suffix: "tcx", text: """
            <?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Id>{{lapStart}}</Id><Lap StartTime="{{lapStart}}">
            <TotalTimeSeconds>{{lapTime}}</TotalTimeSeconds><DistanceMeters>{{lapDist}}</DistanceMeters><Calories>{{calories}}</Calories>
            <AverageHeartRateBpm><Value>{{lapAvg}}</Value></AverageHeartRateBpm><MaximumHeartRateBpm><Value>{{lapMax}}</Value></MaximumHeartRateBpm>
            <Track>
            \(points)</Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """, fields: fields)
    }()

    static let sml: Template = {
        var samples = ""
        for k in 0..<4 {
            samples += "<Sample><HR>{{hr}}</HR><Altitude>{{alt}}</Altitude><Distance>{{dist\(k)}}</Distance><Cadence>{{cad}}</Cadence>"
                + "<Time>{{time\(k)}}</Time><SampleType>periodic</SampleType><UTC>{{utc\(k)}}</UTC></Sample>\n"
                + "<Sample><Latitude>{{lat}}</Latitude><Longitude>{{lon\(k)}}</Longitude><Time>{{time\(k)}}</Time>"
                + "<UTC>{{utc\(k)}}</UTC><SampleType>gps-base</SampleType></Sample>\n"
        }
        var fields: [String: (String, [String])] = [
            "duration": ("30", numbers), "avg": ("2.5", numbers), "max": ("2.7", numbers), "type": ("3", numbers),
            "distance": ("60", numbers), "datetime": ("2026-03-01T08:00:00", isoDates), "hr": ("2.4", numbers), "alt": ("5", numbers),
            "cad": ("1.4", numbers), "lat": ("0.914", numbers), "rr": ("400 410 420", numbers),
        ]
        for k in 0..<4 {
            fields["time\(k)"] = (String(k * 10), numbers)
            fields["utc\(k)"] = (iso(k), isoDates)
            fields["dist\(k)"] = (String(k * 20), numbers)
            fields["lon\(k)"] = (String(0.0853 + Double(k) * 0.000005), numbers)
        }
        return Template(name: "sml", suffix: "sml", text: """
            <?xml version="1.0" encoding="utf-8"?><sml xmlns="http://www.suunto.com/schemas/sml"><DeviceLog><Header>
            <Duration>{{duration}}</Duration><HR><Avg>{{avg}}</Avg><Max>{{max}}</Max></HR><ActivityType>{{type}}</ActivityType>
            <Activity>Running</Activity><Distance>{{distance}}</Distance><DateTime>{{datetime}}</DateTime></Header>
            <R-R><Data>{{rr}}</Data></R-R><Samples>
            \(samples)</Samples></DeviceLog></sml>
            """, fields: fields)
    }()

    static let suunto: Template = {
        var samples = ["{\"Events\":[{\"Activity\":{\"ActivityType\":{{etype}}}}],\"TimeISO8601\":\"{{t0}}\"}"]
        for k in 0..<4 {
            samples.append("{\"Distance\":{{dist\(k)}},\"Altitude\":{{alt}},\"HR\":{{hr}},\"TimeISO8601\":\"{{t\(k)}}\"}")
            samples.append("{\"Latitude\":{{lat}},\"Longitude\":{{lon\(k)}},\"TimeISO8601\":\"{{t\(k)}}\"}")
        }
        var fields: [String: (String, [String])] = [
            "etype": ("3", jsonNumbers), "type": ("3", jsonNumbers), "distance": ("60", jsonNumbers), "duration": ("30", jsonNumbers),
            "pause": ("0", jsonNumbers), "avg": ("2.5", jsonNumbers), "max": ("2.7", jsonNumbers), "datetime": (iso(0), isoDates),
            "alt": ("5", jsonNumbers), "hr": ("2.4", jsonNumbers), "lat": ("0.914", jsonNumbers), "rr": ("400", jsonNumbers),
        ]
        for k in 0..<4 {
            fields["t\(k)"] = (iso(k), isoDates)
            fields["dist\(k)"] = (String(k * 20), jsonNumbers)
            fields["lon\(k)"] = (String(0.0853 + Double(k) * 0.000005), jsonNumbers)
        }
        return Template(name: "suunto", suffix: "json", text: """
            {"DeviceLog":{"Header":{"Activity":"Running","ActivityType":{{type}},"Distance":{{distance}},"Duration":{{duration}},\
            "PauseDuration":{{pause}},"HR":{"Avg":{{avg}},"Max":{{max}}},"DateTime":"{{datetime}}"},\
            "Samples":[\(samples.joined(separator: ","))],"R-R":{"Data":[{{rr}},{{rr}},{{rr}}]}}}
            """, fields: fields)
    }()

    static let polar: Template = {
        var route: [String] = [], heart: [String] = []
        for k in 0..<4 {
            route.append("{\"dateTime\":\"{{rt\(k)}}\",\"longitude\":{{lon\(k)}},\"latitude\":{{lat}},\"altitude\":{{alt}}}")
            heart.append("{\"dateTime\":\"{{rt\(k)}}\",\"value\":{{hr}}}")
        }
        var fields: [String: (String, [String])] = [
            "offset": ("60", jsonNumbers), "start": ("2026-03-01T08:00:00.000", isoDates), "stop": ("2026-03-01T08:00:30.000", isoDates),
            "duration": ("PT30S", ["PT99999999999999999999H", "PT1e308S", "PTnanS", "PT-1e300S", "PT9223372036854775807M"]),
            "distance": ("60", jsonNumbers), "avg": ("140", jsonNumbers), "max": ("150", jsonNumbers), "alt": ("5", jsonNumbers),
            "hr": ("140", jsonNumbers), "lat": ("52.37", jsonNumbers),
        ]
        for k in 0..<4 {
            fields["rt\(k)"] = ("2026-03-01T08:00:\(k)0.000", isoDates)
            fields["lon\(k)"] = (String(4.89 + Double(k) * 0.0003), jsonNumbers)
        }
        let exercise = """
            {"startTime":"{{start}}","stopTime":"{{stop}}","timezoneOffset":{{offset}},"duration":"{{duration}}",\
            "distance":{{distance}},"sport":"RUNNING","heartRate":{"avg":{{avg}},"max":{{max}}},\
            "samples":{"heartRate":[\(heart.joined(separator: ","))],"recordedRoute":[\(route.joined(separator: ","))]}}
            """
        return Template(name: "polar", suffix: "json", text: """
            {"exportVersion":"1.3","name":"Laufen","startTime":"{{start}}","timeZoneOffset":{{offset}},"exercises":[\(exercise)]}
            """, fields: fields)
    }()

    static let summary = Template(name: "summary", suffix: "json", text: """
        {"start":"{{start}}","distance_m":{{distance}},"duration_s":{{duration}},"moving_s":{{moving}},"sport":"running"}
        """, fields: [
            "start": (iso(0), isoDates), "distance": ("5000", jsonNumbers), "duration": ("1500", jsonNumbers), "moving": ("1400", jsonNumbers),
        ])

    static let health: Template = {
        func date(_ k: Int) -> String {
            Timestamps.localTime(start + Double(k) * 10, offsetSeconds: 3600).replacingOccurrences(of: "T", with: " ") + " +0100"
        }
        var locations = ""
        for k in 0..<4 {
            locations += "<Location date=\"{{ld\(k)}}\" latitude=\"{{lat}}\" longitude=\"{{lon\(k)}}\" altitude=\"{{alt}}\"/>\n"
        }
        var fields: [String: (String, [String])] = [
            "hrdate": (date(1), ["0001-01-01 00:00:00 +0000", "9999-12-31 23:59:59 +0000", "2026-02-30 08:00:00 +0100", "2026-03-01 08:00:10 +9999"]),
            "hrvalue": ("150", numbers), "start": (date(0), ["0001-01-01 00:00:00 +0000", "9999-12-31 23:59:59 +0000", "2026-02-30 08:00:00 +0100",
                                                                "2026-03-01 08:00:00 +9999", "99999-01-01 00:00:00 +0000", "-001-01-01 00:00:00 +0000"]),
            "end": (date(3), ["0001-01-01 00:00:00 +0000", "9999-12-31 23:59:59 +0000", "2026-02-30 08:00:00 +0100", "2026-03-01 08:00:30 +9999",
                              "2026-03-01 07:00:00 +0100", "99999-01-01 00:00:00 +0000"]),
            "duration": ("0.5", numbers), "total": ("0.06", numbers), "sum": ("0.06", numbers), "average": ("140", numbers),
            "maximum": ("150", numbers), "indoor": ("0", numbers), "lat": ("52.37", numbers), "alt": ("5", numbers),
        ]
        for k in 0..<4 {
            fields["ld\(k)"] = (date(k), ["0001-01-01 00:00:00 +0000", "9999-12-31 23:59:59 +0000", "2026-02-30 08:00:00 +0100"])
            fields["lon\(k)"] = (String(4.89 + Double(k) * 0.0003), numbers)
        }
        return Template(name: "health", suffix: "xml", text: """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_GB">
             <Record type="HKQuantityTypeIdentifierHeartRate" unit="count/min" startDate="{{hrdate}}" endDate="{{hrdate}}" value="{{hrvalue}}"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="{{duration}}" durationUnit="min" \
            totalDistance="{{total}}" totalDistanceUnit="km" startDate="{{start}}" endDate="{{end}}">
              <MetadataEntry key="HKIndoorWorkout" value="{{indoor}}"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" sum="{{sum}}" unit="km"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" average="{{average}}" maximum="{{maximum}}" unit="count/min"/>
              <WorkoutRoute>
            \(locations)  </WorkoutRoute>
             </Workout>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" \
            startDate="2026-03-02 08:00:00 +0100" endDate="2026-03-02 08:30:00 +0100"/>
            </HealthData>
            """, fields: fields)
    }()

    static let templates = [gpx, tcx, sml, suunto, polar, summary, health]

    /// Writes every variant of `template` into `folder` (Apple Health exports each in a folder of their
    /// own, as `export.xml`); returns the files' paths (relative to `folder`).
    static func writeVariants(_ template: Template, into folder: URL) throws -> [String] {
        var written: [String] = []
        var index = 0
        func write(_ text: String) throws {
            let relative = template.name == "health" ? "h\(index)/export.xml" : "\(template.name)-\(index).\(template.suffix)"
            let url = folder.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            written.append(relative)
            index += 1
        }
        try write(template.filled(nil, "", point: nil))
        for (field, entry) in template.fields.sorted(by: { $0.key < $1.key }) {
            for value in entry.hostile {
                try write(template.filled(field, value, point: 1))
                try write(template.filled(field, value, point: nil))
            }
        }
        return written
    }

    /// Every command on the variants of one format ends with a status, never a signal.
    func walk(_ template: Template) throws {
        let folder = try TemporaryFolder()
        let runs = folder.url.appendingPathComponent("runs")
        let files = try Self.writeVariants(template, into: runs)
        let common = ["--rules", "rules", "--badges", "badges.json", "--tz", "UTC"]
        func check(_ arguments: [String], stdin: String? = nil, _ what: String) throws {
            let output = try CLI.run(arguments, stdin: stdin)
            XCTAssertTrue([0, 1, 2].contains(output.status),
                          "\(template.name): \(what) ended with status \(output.status) (a signal?): \(output.stderr.suffix(2000))")
        }
        let paths = files.map { runs.appendingPathComponent($0).path }
        let cache = folder.url.appendingPathComponent("cache.sqlite").path
        try check(["summarize"] + paths + ["--tz", "UTC", "--no-cache"], "summarize")
        try check(["summarize"] + paths + ["--tz", "UTC", "--format", "json", "--no-cache"], "summarize --format json")
        for round in 0..<2 {  // the second from the cache the first wrote
            try check(["evaluate", runs.path, "--cache", cache] + common, "evaluate (round \(round))")
            try check(["evaluate", runs.path, "--format", "json", "--cache", cache] + common, "evaluate --format json (round \(round))")
        }
        try check(["report", runs.path, "-o", folder.url.appendingPathComponent("report.html").path, "--no-cache"] + common, "report")
        let state = folder.url.appendingPathComponent("state").path
        let empty = folder.url.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let good = try CLI.run(["evaluate", "runs", "--state", state, "--no-cache"] + common)
        XCTAssertTrue([0, 2].contains(good.status), good.stderr)
        try check(["add", "--state", state] + paths + ["--rules", "rules", "--badges", "badges.json", "--no-cache"], "add")
        // The worker and the league take file runs by path; Apple Health exports are not worker input.
        let lines = files.filter { !$0.hasSuffix("export.xml") }.enumerated().map { k, file in
            #"{"athlete": "a\#(k)", "tz": "UTC", "path": "\#(file)"}"#
        }.joined(separator: "\n") + "\n"
        if !lines.isEmpty {
            try check(["worker", "--root", runs.path, "--no-cache", "--rules", "rules", "--badges", "badges.json"], stdin: lines, "worker")
            try check(["league", "--root", runs.path, "--no-cache", "--rules", "rules", "--badges", "badges.json", "--format", "table"],
                      stdin: lines, "league")
        }
    }

    func testGPXNumbersNeverTrap() throws { try walk(Self.gpx) }
    func testTCXNumbersNeverTrap() throws { try walk(Self.tcx) }
    func testSMLNumbersNeverTrap() throws { try walk(Self.sml) }
    func testSuuntoJSONNumbersNeverTrap() throws { try walk(Self.suunto) }
    func testPolarJSONNumbersNeverTrap() throws { try walk(Self.polar) }
    func testSummaryNumbersNeverTrap() throws { try walk(Self.summary) }
    func testAppleHealthNumbersNeverTrap() throws { try walk(Self.health) }

    /// The worker's summaries on its input lines walk the same numbers.
    func testWorkerSummaryLinesNeverTrap() throws {
        var lines: [String] = []
        for (field, entry) in Self.summary.fields.sorted(by: { $0.key < $1.key }) {
            for value in entry.hostile {
                lines.append(#"{"athlete": "w\#(lines.count)", "tz": "UTC", "summary": \#(Self.summary.filled(field, value, point: nil))}"#)
            }
        }
        for command in [["worker"], ["league", "--format", "table"]] {
            let output = try CLI.run(command + ["--rules", "rules", "--badges", "badges.json"], stdin: lines.joined(separator: "\n") + "\n")
            XCTAssertTrue([0, 1, 2].contains(output.status), "\(command): status \(output.status): \(output.stderr.suffix(2000))")
        }
    }
}
