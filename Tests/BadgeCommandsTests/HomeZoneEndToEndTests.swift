import Foundation
import RunFixtures
import SyntheticRuns
import XCTest

/// A rule sees the home zone (`ctx.zone`: `--tz`, else the machine's) and any zone's UTC offset at an
/// instant (`badgectl.zone_offset_s`), so an author never hard-codes summer time (issue 49).
final class HomeZoneEndToEndTests: XCTestCase {
    private func gpx(_ folder: TemporaryFolder, _ name: String, start: Double, offset: Int) throws {
        var generator = RunGenerator(seed: UInt64(start) % 1000, distanceMeters: 3000, paceSecondsPerKilometre: 330)
        generator.startEpochSeconds = start
        generator.utcOffsetSeconds = offset
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        try generator.writeGPX(to: folder.path + "/runs/" + name)
    }

    /// The guide's zone example, as written: a file at +01:00 in July is at home in London (summer
    /// time), one at +01:00 in January is abroad.
    func testTheGuidesZoneExampleTellsARunAbroadWithSummerTime() throws {
        let folder = try TemporaryFolder()
        for name in ["pack", "abroad"] {
            try folder.write("abroad/\(name).lua", try StreakGraceEndToEndTests.block("-- rules/abroad/\(name).lua"))
        }
        try gpx(folder, "july.gpx", start: 1_751_356_800, offset: 3600)    // 2025-07-01T08:00+01:00
        try gpx(folder, "january.gpx", start: 1_736_928_000, offset: 3600) // 2025-01-15T09:00+01:00
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/abroad", "--format", "json",
                                  "--no-cache", "--tz", "Europe/London"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["run"] ?? "") \($0["detail"] ?? "")" },
                       ["january.gpx UTC+60 min, home Europe/London UTC+0 min"])
    }

    /// The guide's zone test, as written, passes: `t.evaluate`'s `zone` is `--tz` for `ctx.zone`.
    /// And a run with no offset of its own (`Z`, a `date`) is dated in that zone, one whose test fixed
    /// its local time keeps it; an unknown zone is refused with the nearest name.
    func testTEvaluateTakesTheHomeZone() throws {
        let folder = try TemporaryFolder()
        for name in ["pack", "abroad", "abroad_test"] {
            try folder.write("abroad/\(name).lua", try StreakGraceEndToEndTests.block("-- rules/abroad/\(name).lua"))
        }
        try folder.write("local/pack.lua", #"return { name = "local", version = "1", badges = { { id = "day", name = "Day" } } }"#)
        try folder.write("local/day.lua", """
            return { id = "day", badge = "day", repeatable = true, earned = function(run, ctx)
              return { detail = ("%s %s %s %d"):format(ctx.zone, run.local_date, run.local_start, run.local_offset_s) }
            end }
            """)
        try folder.write("local/day_test.lua", """
            test("dated in the zone, summer time included", function(t)
              local late = t.run{ id = "late", start = "2025-07-01T23:30:00Z", distance_km = 5, duration = "30:00" }
              local fixed = t.run{ id = "fixed", start = "2025-07-02T23:30:00Z", local_offset_s = 0, distance_km = 5, duration = "30:00" }
              local own = t.run{ id = "own", start = "2025-07-03T23:30:00-04:00", distance_km = 5, duration = "30:00" }
              local result = t.evaluate({ late, fixed, own }, { zone = "Europe/London" })
              t.expect_award(result, { run = late, detail = "Europe/London 2025-07-02 2025-07-02T00:30:00 3600" })
              t.expect_award(result, { run = fixed, detail = "Europe/London 2025-07-02 2025-07-02T23:30:00 0" })
              t.expect_award(result, { run = own, detail = "Europe/London 2025-07-03 2025-07-03T23:30:00 -14400" })
              t.expect_award(t.evaluate({ late }), { run = late, detail = "UTC 2025-07-01 2025-07-01T23:30:00 0" })
            end)
            test("an unknown zone", function(t)
              local ok, err = pcall(t.evaluate, { t.run{ distance_km = 5, duration = "30:00" } }, { zone = "Europe/Londn" })
              t.expect(not ok and err:find("unknown time zone 'Europe/Londn'", 1, true) ~= nil, tostring(err))
              t.expect(err:find("did you mean 'Europe/London'?", 1, true) ~= nil, tostring(err))
            end)
            """)
        let result = try CLI.run(["test", folder.path + "/abroad", folder.path + "/local", "--badges", CLI.repository.path + "/badges.json"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertFalse(result.stdout.contains("FAIL"), result.stdout)
        XCTAssertTrue(result.stdout.contains("3 passed, 0 failed"), result.stdout)
    }

    /// `t.run{ file = }` reads a file as `evaluate` reads it (RunFolder.read: archives too, the run
    /// dated by RunAnalyzer.localise): a zip holding a GPX with no offset gives the run `evaluate`
    /// gives, dated in UTC, in `local_offset_s` as --tz in a fixed offset, or in `t.evaluate`'s zone.
    func testTRunReadsAFileAsEvaluateDoes() throws {
        let folder = try TemporaryFolder()
        var generator = RunGenerator(seed: 7, distanceMeters: 5200, paceSecondsPerKilometre: 330)
        generator.startEpochSeconds = 1_751_412_600  // 2025-07-01T23:30:00Z, no offset in the file
        generator.sampling = .every(5)
        let zip = ZipWriter([ZipWriter.Entry("late.gpx", generator.gpxBytes())]).finish()
        try FileManager.default.createDirectory(atPath: folder.path + "/p/tests/fixtures", withIntermediateDirectories: true)
        try Data(zip).write(to: URL(fileURLWithPath: folder.path + "/p/tests/fixtures/late.zip"))
        try folder.write("p/pack.lua", #"return { name = "p", version = "1", badges = { { id = "day", name = "Day" } } }"#)
        try folder.write("p/day.lua", """
            return { id = "day", badge = "day", repeatable = true, earned = function(run, ctx)
              return { detail = ("%s %s %.0f"):format(run.local_date, run.local_start, run.distance_m) }
            end }
            """)
        try folder.write("p/day_test.lua", """
            test("a zipped GPX, dated as evaluate dates it", function(t)
              local utc = t.run{ id = "utc", file = "tests/fixtures/late.zip" }
              t.expect_eq(utc.local_date, "2025-07-01")
              local paris = t.run{ id = "paris", file = "tests/fixtures/late.zip", local_offset_s = 7200 }
              t.expect_eq(paris.local_date, "2025-07-02")
              local result = t.evaluate({ utc }, { zone = "Europe/London" })
              t.expect_eq(#result.awards, 1)
              t.expect(result.awards[1].detail:find("^2025%-07%-02 2025%-07%-02T00:30:00") ~= nil, result.awards[1].detail)
            end)
            """)
        let result = try CLI.run(["test", folder.path + "/p", "--badges", CLI.repository.path + "/badges.json"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("1 passed, 0 failed"), result.stdout)
        // The same distance as evaluate gives the zip.
        let evaluated = try CLI.run(["evaluate", folder.path + "/p/tests/fixtures", "--rules", folder.path + "/p", "--tz", "Europe/London",
                                     "--badges", CLI.repository.path + "/badges.json", "--no-cache", "--format", "json"])
        XCTAssertEqual(evaluated.status, 0, evaluated.stderr)
        XCTAssertTrue(evaluated.stdout.contains("2025-07-02 2025-07-02T00:30:00"), evaluated.stdout)
    }

    /// `ctx.zone` is `--tz`, else the machine's zone (`TZ`); the helper gives summer and winter offsets,
    /// and an unknown zone fails the rule at its line with the nearest name.
    func testCtxZoneAndZoneOffsets() throws {
        let folder = try TemporaryFolder()
        try gpx(folder, "one.gpx", start: 1_751_356_800, offset: 3600)
        try folder.write("z/pack.lua", #"return { name = "z", version = "1", badges = { { id = "z", name = "Z" } } }"#)
        try folder.write("z/zone.lua", """
            return { id = "zone", badge = "z", earned = function(run, ctx)
              ctx.note(("%s %d %d %d"):format(ctx.zone, badgectl.zone_offset_s(ctx.zone, 1751356800),
                badgectl.zone_offset_s("Australia/Sydney", 1751356800), badgectl.zone_offset_s("UTC", 0)))
              return false
            end }
            """)
        let london = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/z", "--no-cache", "--tz", "Europe/London"])
        XCTAssertEqual(london.status, 0, london.stderr)
        XCTAssertTrue(london.stdout.contains("Europe/London 3600 36000 0"), london.stdout)
        let machine = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/z", "--no-cache"],
                                  environment: ["TZ": "America/New_York"])
        XCTAssertEqual(machine.status, 0, machine.stderr)
        XCTAssertTrue(machine.stdout.contains("America/New_York -14400 36000 0"), machine.stdout)

        try folder.write("z/zone.lua", """
            return { id = "zone", badge = "z", earned = function(run, ctx)
              return badgectl.zone_offset_s("Europe/Londn", run.start_epoch_s) == 0
            end }
            """)
        let unknown = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/z", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(unknown.status, 2, unknown.stdout + unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("zone.lua:2:"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("unknown time zone 'Europe/Londn'"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("did you mean 'Europe/London'?"), unknown.stderr)
    }
}
