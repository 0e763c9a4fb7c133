import RunFixtures
import Foundation
import XCTest

/// The test API of TESTAPI.md end to end: runs built from numbers and from a GPX fixture reach the
/// rules with the real fields, and mistakes in tests are reported at their line.
final class TestAPITests: XCTestCase {
    func makePack() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("rules/api/pack.lua", """
            return { name = "api", version = "1", badges = {
              { id = "fast-5k", name = "Fast 5k" }, { id = "even-splits", name = "Even" },
              { id = "gpx-k", name = "GPX km" }, { id = "local-day", name = "Local day" } } }
            """)
        try folder.write("rules/api/fast.lua", """
            return { id = "fast", badge = "fast-5k",
              earned = function(run) local e = run.fastest["5km"]; return e ~= nil and e.elapsed_s < 25 * 60 end }
            """)
        try folder.write("rules/api/splits.lua", """
            return { id = "splits", badge = "even-splits",
              earned = function(run) local s = run.splits_km; return #s == 3 and s[2].elapsed_s == 290 and s[3].cumulative_s == 900 end }
            """)
        try folder.write("rules/api/gpx.lua", """
            return { id = "gpx", badge = "gpx-k", earned = function(run) return run.format == "gpx" and run.distance_m > 1000 end }
            """)
        try folder.write("rules/api/day.lua", """
            return { id = "day", badge = "local-day", earned = function(run) return run.local_date == "2024-06-02" and run.utc_offset_s == 7200 end }
            """)
        // 11 points 0.001° of latitude apart (about 111 m), 30 s apart: about 1.11 km.
        var points = ""
        for i in 0...10 {
            let second = 30 * i
            points += "<trkpt lat=\"\(48.0 + 0.001 * Double(i))\" lon=\"2.0\"><time>2024-06-01T07:\(String(format: "%02d", second / 60)):\(String(format: "%02d", second % 60))Z</time></trkpt>\n"
        }
        try folder.write("rules/api/tests/fixtures/line.gpx", """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            \(points)</trkseg></trk></gpx>
            """)
        return folder
    }

    func testRunFieldsAndFixtureFilesReachTheRules() throws {
        let folder = try makePack()
        try folder.write("rules/api/api_test.lua", """
            test("fields reach the rules", function(t)
              local r = t.run{ date = "2024-06-02", utc_offset_s = 7200, distance_km = 6, duration = "29:00",
                               efforts = { ["5km"] = "24:10" }, splits_km = { 310, "4:50", 300 } }
              t.expect_eq(r.id, "run-1")
              t.expect_eq(r.local_date, "2024-06-02")
              t.expect_eq(r.start, "2024-06-02T05:00:00Z")
              t.expect_eq(r.fastest["5km"].elapsed_s, 1450.0)
              t.expect_eq(r.efforts[1].name, "5km")
              t.expect_eq(r.splits_km[2].cumulative_s, 600.0)
              t.expect_eq(#r.splits_km, 3)
              t.expect_near(r.pace_s_per_km, 290, 1e-9)
              local result = t.evaluate{ r }
              t.expect_awards(result, {
                { badge = "fast-5k", run = r }, { badge = "even-splits", run = r }, { badge = "local-day", run = r } })
              t.expect_awards(t.evaluate({ r }, { rule = "fast" }), { { badge = "fast-5k", rule = "fast" } })
            end)

            test("default starts are a day apart; a 5 km over 25 minutes earns nothing", function(t)
              local a = t.run{ distance_km = 5, duration = "26:00", efforts = { ["5km"] = 1560 } }
              local b = t.run{ distance_km = 5, duration = "24:00" }
              t.expect_eq(a.start, "2024-01-01T07:00:00Z")
              t.expect_eq(b.start, "2024-01-02T07:00:00Z")
              t.expect_awards(t.evaluate{ a, b }, {})
            end)

            test("a GPX fixture through the production reader", function(t)
              local r = t.run{ file = "tests/fixtures/line.gpx" }
              t.expect_eq(r.format, "gpx")
              t.expect(r.distance_m > 1100 and r.distance_m < 1125, "about 1.11 km")
              t.expect_eq(r.elapsed_s, 300.0)
              t.expect_awards(t.evaluate{ r }, { { badge = "gpx-k", run = "tests/fixtures/line.gpx" } })
            end)
            """)
        let output = try CLI.run(["test", "rules"], in: folder.url)
        XCTAssertEqual(output.lastLine, "3 passed, 0 failed", output.stdout)
        XCTAssertEqual(output.status, 0)
    }

    func testMistakesInTestsAreReportedAtTheirLine() throws {
        let folder = try makePack()
        try folder.write("rules/api/mistakes_test.lua", """
            test("typo in a field", function(t)
              t.run{ distnce_km = 5 }
            end)
            test("runs are read-only", function(t)
              local r = t.run{ distance_km = 5 }
              r.distance_m = 1
            end)
            test("unknown run", function(t)
              t.evaluate{ "nope" }
            end)
            test("unknown rule", function(t)
              t.evaluate({}, { rule = "zzz" })
            end)
            test("bad duration", function(t)
              t.run{ distance_km = 5, duration = "25 minutes" }
            end)
            test("not a date", function(t)
              t.run{ date = "2024-02-30", distance_km = 5 }
            end)
            test("several failures in one test are all shown", function(t)
              print(true, false, nil, 1.5, "x")
              t.expect(false, "first")
              t.expect_match("run more than 5 km", "^walk", "second")
            end)
            """)
        let output = try CLI.run(["test", "rules"], in: folder.url)
        let text = output.stdout
        XCTAssertEqual(output.status, 3)
        XCTAssertEqual(output.lastLine, "0 passed, 7 failed", text)
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:2: t.run: unknown field 'distnce_km'"), text)
        // t.run hands out the real run proxy (the one allowed behaviour change of issue R): its message.
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:6: run is read-only (copy what you need into your own table)"), text)
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:9: t.evaluate: no run 'nope' made by t.run in this test"), text)
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:12: t.evaluate: no rule 'zzz' in pack 'api' (rules: day, fast, gpx, splits)"), text)
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:15: t.run: field 'duration' must be seconds or \"mm:ss\""), text)
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:18: t.run: field 'date': '2024-02-30' is not a calendar date"), text)
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:22: first\n    expected: a true value\n    got:      false"), text)
        // A test's print shows booleans and nil as Lua's print does (it said "boolean").
        XCTAssertTrue(text.contains("    | true\tfalse\tnil\t1.5\tx"), text)
        XCTAssertTrue(text.contains("rules/api/mistakes_test.lua:23: second\n    expected: text matching \"^walk\"\n    got:      \"run more than 5 km\""), text)
    }

    /// `t.run{ file = ... }` applies or refuses every other field it is given (it ignored
    /// `local_offset_s`, `utc_offset_s` and `distance_km`): `local_offset_s` reads the file as `--tz`
    /// would in that offset (a GPX in UTC at 07:00 is 23:00 the day before at -08:00), `id`, `name` and
    /// `sport` are applied, a figure the file gives is an error naming the field. A missing fixture
    /// gets a suggestion.
    func testTRunFromAFileAppliesOrRefusesEveryField() throws {
        let folder = try makePack()
        try folder.write("rules/api/file_test.lua", """
            test("a file read in an offset, with its own id, name and sport", function(t)
              local r = t.run{ file = "tests/fixtures/line.gpx", local_offset_s = -28800, id = "mine", name = "Dawn", sport = "walking" }
              t.expect_eq(r.local_date, "2024-05-31")
              t.expect_eq(r.local_start, "2024-05-31T23:00:00")
              t.expect_eq(r.local_offset_s, -28800)
              t.expect_eq(r.utc_offset_s, nil)
              t.expect_eq(r.id, "mine")
              t.expect_eq(r.name, "Dawn")
              t.expect_eq(r.sport, "walking")
              t.expect_eq(t.run{ file = "tests/fixtures/line.gpx" }.local_date, "2024-06-01")
            end)
            test("a distance with a file", function(t)
              t.run{ file = "tests/fixtures/line.gpx", distance_km = 5 }
            end)
            test("a UTC offset with a file", function(t)
              t.run{ file = "tests/fixtures/line.gpx", utc_offset_s = 32400 }
            end)
            test("a misspelt fixture", function(t)
              t.run{ file = "tests/fixtures/lines.gpx" }
            end)
            """)
        let output = try CLI.run(["test", "rules"], in: folder.url)
        let text = output.stdout
        XCTAssertEqual(output.lastLine, "1 passed, 3 failed", text)
        XCTAssertTrue(text.contains("rules/api/file_test.lua:13: t.run: field 'distance_km' cannot be given with 'file': the run's figures are read from the file"), text)
        XCTAssertTrue(text.contains("rules/api/file_test.lua:16: t.run: field 'utc_offset_s' cannot be given with 'file': the file's own offset is read from its times"), text)
        XCTAssertTrue(text.contains("give local_offset_s"), text)
        XCTAssertTrue(text.contains("tests/fixtures/lines.gpx; did you mean 'tests/fixtures/line.gpx'?"), text)
    }

    /// `t.run` gives the real run proxy: every field of a real run, a typo raises with a suggestion,
    /// tostring names the run, and an offset in `start` is kept as `utc_offset_s`.
    func testTRunIsTheRealRunProxy() throws {
        let folder = try makePack()
        try folder.write("rules/api/proxy_test.lua", """
            test("fields of a real run", function(t)
              local a = t.run{ distance_km = 5, duration = "25:00", start = "2024-06-02T07:00:00+02:00" }
              t.expect_eq(a.utc_offset_s, 7200)
              t.expect_eq(a.local_date, "2024-06-02")
              t.expect_eq(tostring(a), "run run-1")
              t.expect_eq(a.index, 1)
              t.expect_eq(a.pace_s_per_mile, 1500 / (5000 / 1609.344))
              t.expect_eq(a.cadence, nil)
              t.expect_eq(#a.dropped, 0)
              t.expect_eq(a.format, "test")
            end)
            test("a typo raises", function(t)
              local a = t.run{ distance_km = 5 }
              local _ = a.distanse_m
            end)
            """)
        let output = try CLI.run(["test", "rules"], in: folder.url)
        let text = output.stdout
        XCTAssertEqual(output.lastLine, "1 passed, 1 failed", text)
        XCTAssertFalse(text.contains("fields of a real run"), text)  // only failures are listed
        XCTAssertTrue(text.contains("FAIL  api: a typo raises"), text)
        XCTAssertTrue(text.contains("rules/api/proxy_test.lua:14: no field 'distanse_m' in run; did you mean 'distance_m'?"), text)
    }

    /// `t.run` takes every field a real run has (from the run schema), not only the conveniences:
    /// points, the device's distance and totals, laps (numbered, their pace computed), cadence and heart
    /// rate as records, mile splits with a partial last split, dropped entries and checkpoint positions; a
    /// record's unknown field is an error.
    func testTRunTakesEverySchemaField() throws {
        let folder = try makePack()
        try folder.write("rules/api/schema_test.lua", """
            test("schema fields", function(t)
              local a = t.run{ distance_m = 3500, duration = "17:30", points = 1200, device_distance_m = 3512.5,
                               cadence = { avg = 172, max = 181 }, heart_rate = { avg = 151, max = 170 },
                               elevation = { gain_m = 40, loss_m = 38, min_m = 12, max_m = 51 },
                               splits_mile = { "8:00", { distance_m = 1000, elapsed_s = 310 } },
                               dropped = { { reason = "teleport", count = 2 } },
                               checkpoints = { { badge = "one-k", distance_m = 1000, elapsed_s = 300, lat = 48.5, lon = 2.25 } },
                               device_ascent_m = 42, device_descent_m = 40, device_moving_s = "17:10", device_avg_heart_rate_bpm = 150,
                               device_max_heart_rate_bpm = 171, device_laps = 2, device_timer_s = 1049,
                               laps = { { distance_m = 1000, timer_s = 250, trigger = "distance", intensity = "active" },
                                        { distance_m = 2500, elapsed_s = 800, start_elapsed_s = 250 } } }
              t.expect_eq(a.points, 1200)
              t.expect_eq(a.device_ascent_m, 42.0)
              t.expect_eq(a.device_moving_s, 1030.0)
              t.expect_eq(a.device_laps, 2)
              t.expect_eq(a.device_timer_s, 1049.0)
              t.expect_eq(#a.laps, 2)
              t.expect_eq(a.laps[2].index, 2)
              t.expect_eq(a.laps[1].pace_s_per_km, 250.0)
              t.expect_eq(a.laps[2].pace_s_per_km, 320.0)
              t.expect_eq(a.laps[1].trigger, "distance")
              t.expect_eq(a.laps[2].trigger, nil)
              t.expect_eq(a.heart_rate.avg_weighting, "time")
              t.expect_eq(a.device_distance_m, 3512.5)
              t.expect_eq(a.cadence.max, 181.0)
              t.expect_eq(a.heart_rate.avg, 151.0)
              t.expect_eq(a.elevation.min_m, 12.0)
              t.expect_eq(#a.splits_mile, 2)
              t.expect_eq(a.splits_mile[1].distance_m, 1609.344)
              t.expect_eq(a.splits_mile[2].partial, true)
              t.expect_eq(a.splits_mile[2].cumulative_s, 790.0)
              t.expect_eq(a.dropped[1].reason, "teleport")
              t.expect_eq(a.dropped[1].count, 2)
              t.expect_eq(a.checkpoints[1].lat, 48.5)
              t.expect_eq(a.checkpoints[1].lon, 2.25)
            end)
            test("a record's unknown field", function(t)
              t.run{ distance_km = 5, cadence = { average = 170 } }
            end)
            test("a record and its flat form together", function(t)
              t.run{ distance_km = 5, heart_rate = { avg = 150, max = 160 }, heart_rate_avg = 150 }
            end)
            test("a computed field", function(t)
              t.run{ distance_km = 5, pace_s_per_km = 300 }
            end)
            """)
        let output = try CLI.run(["test", "rules"], in: folder.url)
        let text = output.stdout
        XCTAssertEqual(output.lastLine, "1 passed, 3 failed", text)
        XCTAssertTrue(text.contains("rules/api/schema_test.lua:38: t.run: cadence: unknown field 'average' (fields: avg, max, avg_weighting)"), text)
        XCTAssertTrue(text.contains("rules/api/schema_test.lua:41: t.run: give 'heart_rate' or 'heart_rate_avg'/'heart_rate_max', not both"), text)
        XCTAssertTrue(text.contains("rules/api/schema_test.lua:44: t.run: field 'pace_s_per_km' is computed from the others (distance and times): set those instead"), text)
    }

    /// `t.run`: `local_start` and `local_offset_s` like a real run's (a test's zone is UTC; an offset in
    /// `start` or `local_offset_s` places it elsewhere), and `date` with `start` is refused.
    func testTRunLocalTimeAndDateWithStartRefused() throws {
        let folder = try makePack()
        try folder.write("rules/api/local_test.lua", """
            test("local time", function(t)
              local a = t.run{ distance_km = 5, start = "2024-06-01T22:30:00+02:00" }
              t.expect_eq(a.local_start, "2024-06-01T22:30:00")
              t.expect_eq(a.local_offset_s, 7200)
              t.expect_eq(a.start, "2024-06-01T20:30:00Z")
              local b = t.run{ distance_km = 5, start = "2024-06-01T20:30:00Z" }
              t.expect_eq(b.local_start, "2024-06-01T20:30:00")
              t.expect_eq(b.local_offset_s, 0)
              t.expect_eq(b.utc_offset_s, nil)
              local c = t.run{ distance_km = 5, start = "2024-06-01T20:30:00Z", local_offset_s = 3600 }
              t.expect_eq(c.local_start, "2024-06-01T21:30:00")
              t.expect_eq(c.local_date, "2024-06-01")
            end)
            test("date and start", function(t)
              t.run{ distance_km = 5, date = "2024-06-01", start = "2024-06-01T20:30:00Z" }
            end)
            """)
        let output = try CLI.run(["test", "rules/api"], in: folder.url)
        let text = output.stdout
        XCTAssertEqual(output.lastLine, "1 passed, 1 failed", text)
        XCTAssertTrue(text.contains("rules/api/local_test.lua:15: t.run: give 'start' or 'date', not both"), text)
    }
}
