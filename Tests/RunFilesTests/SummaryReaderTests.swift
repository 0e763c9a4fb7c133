import RunFixtures
@testable import RunFiles
import XCTest

final class SummaryReaderTests: XCTestCase {
    func read(_ json: String, zone: Int = 0) throws -> RunSummary {
        try SummaryReader.read(data: Data(json.utf8), source: "run.json", id: "runs/run.json", zoneOffsetSeconds: zone)
    }

    func testValidSummaryWithOffset() throws {
        let s = try read("""
            {"start": "2024-05-01T08:30:00+02:00", "distance_m": 8000, "duration_s": 2700.5,
             "moving_s": 2600, "name": "Treadmill intervals", "sport": "treadmill", "shoes": ["ignored"]}
            """, zone: -7 * 3600)
        XCTAssertEqual(s.id, "runs/run.json")
        XCTAssertEqual(s.format, "json")
        XCTAssertEqual(s.points, 0)
        XCTAssertEqual(s.start, "2024-05-01T06:30:00Z")
        XCTAssertEqual(s.startEpochSeconds, 1_714_545_000)
        XCTAssertEqual(s.utcOffsetSeconds, 7200)
        XCTAssertEqual(s.localDate, "2024-05-01", "the file's own offset wins over the zone")
        XCTAssertEqual(s.name, "Treadmill intervals")
        XCTAssertEqual(s.sport, "running")
        XCTAssertEqual(s.distanceMeters, 8000)
        XCTAssertEqual(s.elapsedSeconds, 2700.5)
        XCTAssertEqual(s.timerSeconds, 2700.5)
        XCTAssertEqual(s.movingSeconds, 2600)
        XCTAssertEqual(try XCTUnwrap(s.paceSecondsPerKilometre), 2700.5 / 8, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(s.movingPaceSecondsPerKilometre), 325, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(s.speedMetersPerSecond), 8000 / 2700.5, accuracy: 1e-12)
    }

    func testUTCStartTakesTheLocalDateFromTheZone() throws {
        let s = try read(#"{"start": "2024-05-01T03:00:00Z", "distance_m": 5000, "duration_s": 1500}"#, zone: -5 * 3600)
        XCTAssertNil(s.utcOffsetSeconds)
        XCTAssertEqual(s.localDate, "2024-04-30")
        XCTAssertNil(s.movingSeconds)
        XCTAssertNil(s.name)
        XCTAssertEqual(s.sport, "running")
        XCTAssertNil(s.movingPaceSecondsPerKilometre)
    }

    func testZeroDistanceIsAllowed() throws {
        let s = try read(#"{"start": "2024-05-01T03:00:00Z", "distance_m": 0, "duration_s": 60, "name": null}"#)
        XCTAssertEqual(s.distanceMeters, 0)
        XCTAssertNil(s.paceSecondsPerKilometre)
    }

    func testInvalidFieldsNameTheField() {
        let base = #""start": "2024-05-01T06:30:00Z", "distance_m": 5000, "duration_s": 1500"#
        let cases: [(String, String, String)] = [
            (#"{"distance_m": 5000, "duration_s": 1500}"#, "start", "missing"),
            (#"{"start": "yesterday", "distance_m": 5000, "duration_s": 1500}"#, "start", "ISO 8601"),
            (#"{"start": 1714545000, "distance_m": 5000, "duration_s": 1500}"#, "start", "must be a string, not a number"),
            (#"{"start": "2024-05-01T06:30:00Z", "duration_s": 1500}"#, "distance_m", "missing"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": "5 km", "duration_s": 1500}"#, "distance_m", "not a string"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": true, "duration_s": 1500}"#, "distance_m", "not a boolean"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": -1, "duration_s": 1500}"#, "distance_m", "≥ 0"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 5000}"#, "duration_s", "missing"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 5000, "duration_s": 0}"#, "duration_s", "> 0"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 5000, "duration_s": null}"#, "duration_s", "missing"),
            ("{\(base), \"moving_s\": 1600}", "moving_s", "must not exceed"),
            ("{\(base), \"moving_s\": -5}", "moving_s", "≥ 0"),
            ("{\(base), \"moving_s\": [1]}", "moving_s", "not an array"),
            ("{\(base), \"name\": 42}", "name", "must be a string"),
            ("{\(base), \"sport\": {\"a\": 1}}", "sport", "not an object"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 5200, "duration_s": 5e-324}"#, "duration_s",
             "5e-324 s for 5200.0 m gives a speed that is not a finite number"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 5e-324, "duration_s": 1700}"#, "distance_m",
             "5e-324 m in 1700.0 s gives a pace that is not a finite number"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 1e-320, "duration_s": 8e6, "moving_s": 8e6}"#, "distance_m",
             "gives a pace that is not a finite number"),
        ]
        for (json, field, fragment) in cases {
            XCTAssertThrowsError(try read(json), json) { error in
                guard case .badSummary(let path, let f, let reason)? = error as? ActivityError else { return XCTFail("\(json): \(error)") }
                XCTAssertEqual(path, "run.json")
                XCTAssertEqual(f, field, json)
                XCTAssertTrue(reason.contains(fragment), "\(json): \(reason)")
            }
        }
    }

    /// Issue S: `Timestamps.parse` reads 2024-02-30 as 1 March and +25:00 as 90,000 s; a summary says no.
    func testStartMustBeARealTime() throws {
        let cases: [(String, String)] = [
            ("2024-02-30T07:00:00Z", "'2024-02-30T07:00:00Z' is not a real time: February 2024 has no day 30 (it has 29 days)"),
            ("2023-02-29T07:00:00Z", "February 2023 has no day 29 (it has 28 days)"),
            ("2024-04-31T07:00:00+02:00", "April 2024 has no day 31 (it has 30 days)"),
            ("2024-05-01T07:00:00+25:00", "the UTC offset +25:00 is beyond ±14:00, the widest any time zone uses"),
            ("2024-05-01T07:00:00-14:30", "the UTC offset -14:30 is beyond ±14:00"),
            ("2024-05-01T07:00:00+0575", "the UTC offset +0575 has 75 minutes (at most 59)"),
            ("2024-05-01T07:00:00.250+99", "the UTC offset +99 is beyond ±14:00"),
        ]
        for (start, fragment) in cases {
            let json = #"{"start": "\#(start)", "distance_m": 5000, "duration_s": 1500}"#
            XCTAssertThrowsError(try read(json), json) { error in
                guard case .badSummary(_, let field, let reason)? = error as? ActivityError else { return XCTFail("\(json): \(error)") }
                XCTAssertEqual(field, "start")
                XCTAssertTrue(reason.contains(fragment), "\(json): \(reason)")
            }
        }
        // The edges are real times.
        for start in ["2024-02-29T07:00:00Z", "2024-05-01T07:00:00+14:00", "2024-05-01T07:00:00-12:00", "2024-05-01T07:00:00-14:00",
                      "2024-12-31T23:59:59+05:45", "2024-05-01T07:00:00", " 2024-05-01T07:00:00+0530 "] {
            XCTAssertNoThrow(try read(#"{"start": "\#(start)", "distance_m": 5000, "duration_s": 1500}"#), start)
        }
    }

    func testNonFiniteNumbersAreRejected() {
        // JSON has no NaN or infinity; an overflowing literal must not become one silently. The parser
        // (`JSONText`, a worker line's too) refuses it where it is written.
        XCTAssertThrowsError(try read(#"{"start": "2024-05-01T06:30:00Z", "distance_m": 1e999, "duration_s": 10}"#)) { error in
            XCTAssertEqual(error as? ActivityError, .malformed(path: "run.json", line: 1, offset: 48, reason: "a number out of range"))
        }
    }

    /// Numbers that are finite but whose speed or pace is not (issue H item 5) are refused, naming
    /// the field (in `testInvalidFieldsNameTheField`); tiny but harmless ones still read, every
    /// derived number finite.
    func testTinyNumbersGiveFiniteSpeedsAndPaces() throws {
        let run = try read(#"{"start": "2024-05-01T06:30:00Z", "distance_m": 1e-3, "duration_s": 1e-3, "moving_s": 1e-3}"#)
        for value in [run.speedMetersPerSecond, run.paceSecondsPerKilometre, run.paceSecondsPerMile, run.movingPaceSecondsPerKilometre] {
            XCTAssertEqual(value?.isFinite, true)
        }
    }

    func testNotJSONOrNotAnObject() throws {
        for text in ["not json", "[1, 2]"] {
            XCTAssertThrowsError(try read(text), text) { error in
                guard case .notFormat(let path, let format, _)? = error as? ActivityError else { return XCTFail("\(text): \(error)") }
                XCTAssertEqual(path, "run.json")
                XCTAssertEqual(format, "json")
            }
        }
        // What starts as an object and is no JSON is refused where it breaks (line and byte).
        let broken: [(String, Int, Int, String)] = [
            ("", 1, 0, "expected a value, found the end of the text"),
            ("{\"start\": ", 1, 10, "expected a value, found the end of the text"),
            ("\u{FEFF}{\"start\": \"2024-05-01T06:30:00Z\",\n \"distance_m\": 5000,\n \"duration_s\": 1500,}", 3, 78,
             "expected a key (a string), found '}'"),
            ("{\"start\": \"2024-05-01T06:30:00Z\", \"start\": \"2024-05-02T06:30:00Z\", \"distance_m\": 5000, \"duration_s\": 1500}", 1, 34,
             "duplicate key 'start' in an object"),
        ]
        for (text, line, offset, reason) in broken {
            XCTAssertThrowsError(try read(text), text) { error in
                XCTAssertEqual(error as? ActivityError, .malformed(path: "run.json", line: line, offset: offset, reason: reason), text)
            }
        }
        // UTF-8 with a byte-order mark reads; UTF-16 is refused as the GPX and TCX readers refuse it.
        XCTAssertNoThrow(try read("\u{FEFF}{\"start\": \"2024-05-01T06:30:00Z\", \"distance_m\": 5000, \"duration_s\": 1500}"))
        let utf16 = Data([0xFF, 0xFE]) + (try XCTUnwrap("{\"start\": 1}".data(using: .utf16LittleEndian)))
        XCTAssertThrowsError(try SummaryReader.read(data: utf16, source: "u.json", id: "u.json", zoneOffsetSeconds: 0)) { error in
            XCTAssertEqual(error as? ActivityError, .notFormat(path: "u.json", format: "json", reason: "UTF-16 is not supported; save it as UTF-8"))
        }
    }

    func testReadsFromAPath() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let path = temporary.path + "/summary.json"
        try Data(#"{"start": "2024-05-01T06:30:00-05:30", "distance_m": 1000, "duration_s": 300}"#.utf8).write(to: URL(fileURLWithPath: path))
        let s = try SummaryReader.read(path: path, id: "a.json", zoneOffsetSeconds: 0)
        XCTAssertEqual(s.utcOffsetSeconds, -19_800)
        XCTAssertEqual(s.startEpochSeconds, 1_714_545_000 + 19_800)
        XCTAssertThrowsError(try SummaryReader.read(path: path + ".missing", id: "b", zoneOffsetSeconds: 0)) { error in
            guard case .unreadable? = error as? ActivityError else { return XCTFail("\(error)") }
        }
    }

    /// A distance of 1e308 m in 1 s was a run at 1e308 m/s; distances and durations beyond any run
    /// (10,000 km, 100 days) are refused, naming the field and the bound; the bounds themselves read.
    func testAbsurdMagnitudesAreRefused() throws {
        let cases = [
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 1e308, "duration_s": 1}"#, "distance_m",
             "1e+308 m is more than any run (at most 10000000 m, 10,000 km)"),
            (#"{"start": "2024-05-01T06:30:00Z", "distance_m": 5000, "duration_s": 1e300}"#, "duration_s",
             "1e+300 s is longer than any run (at most 8640000 s, 100 days)"),
        ]
        for (text, field, reason) in cases {
            XCTAssertThrowsError(try read(text), text) { error in
                XCTAssertEqual(error as? ActivityError, .badSummary(path: "run.json", field: field, reason: reason))
            }
        }
        let longest = try read(#"{"start": "2024-05-01T06:30:00Z", "distance_m": 1e7, "duration_s": 8640000}"#)
        XCTAssertEqual(longest.distanceMeters, 1e7)
    }

    /// What cannot be one JSON object (an array, a number, a string) is refused from its first byte,
    /// before any decoding: 60 MB of `[{},{},...]` took 66 s to be refused. UTF-16 text still
    /// reaches the decoder.
    func testWhatCannotBeAnObjectIsRefusedBeforeDecoding() throws {
        XCTAssertTrue(SummaryReader.cannotBeAnObject(Data("  [0, 0]".utf8)))
        XCTAssertTrue(SummaryReader.cannotBeAnObject(Data("\u{FEFF}\n[{}]".utf8)))
        XCTAssertTrue(SummaryReader.cannotBeAnObject(Data("\"run\"".utf8)))
        XCTAssertFalse(SummaryReader.cannotBeAnObject(Data(" {\"start\": 1}".utf8)))
        XCTAssertFalse(SummaryReader.cannotBeAnObject(Data("[\0".utf8)))  // UTF-16LE
        XCTAssertFalse(SummaryReader.cannotBeAnObject(Data([0xFF, 0xFE, 0x7B, 0x00])))
        // Under the cap and refused at once, with the message an array always had.
        let array = Data(("[" + String(repeating: "{},", count: 300_000) + "{}]").utf8)
        XCTAssertLessThan(array.count, SummaryReader.maximumBytes)
        let started = Date()
        XCTAssertThrowsError(try SummaryReader.read(data: array, source: "arr.json", id: "arr.json", zoneOffsetSeconds: 0)) { error in
            XCTAssertEqual(error as? ActivityError,
                           .notFormat(path: "arr.json", format: "json", reason: "expected a JSON object with start, distance_m and duration_s"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5)
    }

    /// A summary is a few hundred bytes: the cap is 1 MiB (it was 64 MiB, which took 1.7 GB to
    /// decode); a 2 MiB object is refused naming the file and the cap, without being decoded.
    func testSummaryOverOneMebibyteIsRefused() throws {
        XCTAssertEqual(SummaryReader.maximumBytes, 1 << 20)
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let path = temporary.path + "/summary.json"
        let text = #"{"start": "2024-05-01T06:30:00Z", "distance_m": 1000, "duration_s": 300, "notes": ""#
            + String(repeating: "x", count: 2 << 20) + "\"}"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try SummaryReader.read(path: path, id: "a.json", zoneOffsetSeconds: 0)) { error in
            XCTAssertEqual("\(error)", "\(path): too large: the file is \(text.utf8.count) bytes; files over 1048576 bytes are refused")
        }
    }
}
