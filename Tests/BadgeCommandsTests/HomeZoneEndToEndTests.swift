import Foundation
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
