import Foundation
import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// The smaller points of issue 49 (a coach writing a masters pack), each through the built binary.
final class SmallerFindingsEndToEndTests: XCTestCase {
    private func json(_ output: CLI.Output) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], output.stdout + output.stderr)
    }

    private func gpx(_ folder: TemporaryFolder, _ name: String, day: Int, meters: Double = 3000) throws {
        var generator = RunGenerator(seed: UInt64(day + 1), distanceMeters: meters, paceSecondsPerKilometre: 330)
        generator.startEpochSeconds = 1_738_400_400 + Double(day) * 86_400  // 2025-02-01T09:00Z + day
        try FileManager.default.createDirectory(atPath: (folder.path + "/" + name as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try generator.writeGPX(to: folder.path + "/" + name)
    }

    /// `"sex": "woman"` was read as female by the age tables and as nothing elsewhere: only the documented
    /// words are taken, another is refused naming it, with the word meant.
    func testAProfileSexMustBeADocumentedWord() throws {
        let folder = try TemporaryFolder()
        try gpx(folder, "runs/a.gpx", day: 0)
        try folder.write("me.json", #"{ "birth_date": "1960-01-01", "sex": "woman" }"#)
        let refused = try CLI.run(["evaluate", folder.path + "/runs", "--athlete", folder.path + "/me.json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(refused.status, 64, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("sex"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("must be \"male\" or \"female\" (or M, F; any case), got 'woman'; did you mean 'female'?"), refused.stderr)
        for word in ["F", "female", "Male", "m"] {
            try folder.write("me.json", #"{ "birth_date": "1960-01-01", "sex": "\#(word)" }"#)
            let taken = try CLI.run(["evaluate", folder.path + "/runs", "--athlete", folder.path + "/me.json", "--no-cache", "--tz", "UTC"])
            XCTAssertEqual(taken.status, 0, word + ": " + taken.stderr)
        }
    }

    /// `add --state` without `--athlete` uses the profile the state was evaluated with.
    func testAddUsesTheAthleteTheStateWasMadeWith() throws {
        let folder = try TemporaryFolder()
        try folder.write("p/pack.lua", #"return { name = "p", version = "1", badges = { { id = "profiled", name = "Profiled" } } }"#)
        try folder.write("p/r.lua", """
            return { id = "r", badge = "profiled", repeatable = true, earned = function(run, ctx)
              return ctx.athlete ~= nil and { detail = ctx.athlete.sex .. " " .. ctx.athlete.birth_date } or false
            end }
            """)
        try folder.write("me.json", #"{ "birth_date": "1960-01-01", "sex": "female" }"#)
        try gpx(folder, "runs/a.gpx", day: 0)
        try gpx(folder, "later/b.gpx", day: 1)
        let state = folder.path + "/state"
        let common = ["--rules", folder.path + "/p", "--no-cache", "--tz", "UTC"]
        let saved = try CLI.run(["evaluate", folder.path + "/runs", "--state", state, "--athlete", folder.path + "/me.json"] + common)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let added = try CLI.run(["add", "--state", state, folder.path + "/later/b.gpx", "--format", "json"] + common)
        XCTAssertEqual(added.status, 0, added.stderr)
        let object = try json(added)
        let awards = try XCTUnwrap(object["added"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["badge"] ?? "") \($0["detail"] ?? "")" }, ["profiled female 1960-01-01"], added.stdout)
    }

    /// An Apple Health workout whose route is two identical points: the workout's own 800 m, not 0 m.
    func testAnAppleHealthRouteWithoutDistanceTakesTheWorkoutsTotal() throws {
        let folder = try TemporaryFolder()
        let start = 1_767_250_800.0  // 2026-01-01T07:00:00Z
        var xml = AppleHealthFixture.header
        xml += AppleHealthFixture.workout(.init(start: start, minutes: 4, kilometres: 0.8, routeFiles: ["route_1.gpx"]), offset: 0)
        xml += "</HealthData>\n"
        try folder.write("apple_health_export/export.xml", xml)
        let point = #"<trkpt lat="51.5" lon="-0.12"><ele>10</ele><time>%@</time></trkpt>"#
        let route = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            \(String(format: point, "2026-01-01T07:00:00Z"))\(String(format: point, "2026-01-01T07:04:00Z"))
            </trkseg></trk></gpx>
            """
        try folder.write("apple_health_export/workout-routes/route_1.gpx", route)
        try folder.write("p/pack.lua", #"return { name = "p", version = "1", badges = { { id = "any", name = "Any" } } }"#)
        try folder.write("p/r.lua", #"return { id = "r", badge = "any", earned = function(run) return true end }"#)
        let output = try CLI.run(["evaluate", folder.path, "--rules", folder.path + "/p", "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let runs = try XCTUnwrap(try json(output)["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.count, 1)
        XCTAssertEqual(try XCTUnwrap(runs.first?["distance_m"] as? Double), 800, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(runs.first?["pace_s_per_km"] as? Double), 300, accuracy: 0.5)
        let table = try CLI.run(["evaluate", folder.path, "--rules", folder.path + "/p", "--no-cache", "--tz", "UTC", "--wide"])
        let row = try XCTUnwrap(table.stdout.split(separator: "\n").first { $0.hasPrefix("Any ") }, table.stdout)
        XCTAssertTrue(row.contains(" 800 m ") && row.contains(" 5:00 "), String(row))
    }

    /// Nineteen files of one folder that are not runs make one short mention, not a 4,000-character line.
    func testTheIgnoredLineSummarisesAFolderOfFiles() throws {
        let folder = try TemporaryFolder()
        try gpx(folder, "runs/a.gpx", day: 0)
        for i in 1...19 { try folder.write(String(format: "runs/notes/note-%02d-of-a-long-training-diary.txt", i), "x") }
        try folder.write("runs/readme.md", "x")
        let output = try CLI.run(["evaluate", folder.path + "/runs", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let line = try XCTUnwrap(output.stdout.split(separator: "\n").first { $0.hasPrefix("Ignored (not run files):") }, output.stdout)
        XCTAssertTrue(line.contains("notes/: 19 files (note-01-of-a-long-training-diary.txt, note-02-of-a-long-training-diary.txt, … note-19-of-a-long-training-diary.txt)"), String(line))
        XCTAssertTrue(line.contains("readme.md"), String(line))
        XCTAssertLessThan(line.count, 200, String(line))
        let full = try json(try CLI.run(["evaluate", folder.path + "/runs", "--no-cache", "--tz", "UTC", "--format", "json"]))
        XCTAssertEqual((full["ignored"] as? [String])?.count, 20, "the JSON lists every path")
    }

    /// A tier a predicate returns implies the ones below it: declared tiers by their order, else
    /// earned < silver < gold.
    func testAPredicatesTierImpliesTheLowerOnes() throws {
        let folder = try TemporaryFolder()
        try gpx(folder, "runs/a.gpx", day: 0)
        try gpx(folder, "runs/b.gpx", day: 1)
        try folder.write("p/pack.lua", """
            return { name = "p", version = "1", badges = {
              { id = "podium", name = "Podium", tiers = { "bronze", "silver", "gold" } },
              { id = "plain", name = "Plain" } } }
            """)
        try folder.write("p/podium.lua", #"return { id = "podium", badge = "podium", earned = function(run) return { tier = "gold" } end }"#)
        try folder.write("p/plain.lua", #"return { id = "plain", badge = "plain", earned = function(run) return { tier = "silver" } end }"#)
        let object = try json(try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/p", "--format", "json", "--no-cache", "--tz", "UTC"]))
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["badge"] ?? "") \($0["tier"] ?? "") \($0["run"] ?? "")" },
                       ["plain earned a.gpx", "plain silver a.gpx", "podium bronze a.gpx", "podium silver a.gpx", "podium gold a.gpx"])
    }

    /// The generated definitions type measure fields and mark the optional fields of a rule optional,
    /// so the guide's `---@type badgectl.Rule` example with only some fields checks.
    func testEditorDefinitionsTypeMeasuresAndOptionalRuleFields() throws {
        let folder = try TemporaryFolder()
        let output = try CLI.run(["editor", "--dir", folder.path])
        XCTAssertEqual(output.status, 0, output.stderr)
        let text = try String(contentsOfFile: folder.path + "/badgectl.d.lua", encoding: .utf8)
        XCTAssertFalse(text.contains(" any?"), "no measure field typed any")
        XCTAssertTrue(text.contains("---@field elapsed_s number? the time it took"), "an effort's time is a number")
        XCTAssertTrue(text.contains("---@field count integer?"), "a count is an integer")
        XCTAssertTrue(text.contains("---@field efforts badgectl.SegmentEffort[]?"), "a segment's passes")
        XCTAssertTrue(text.contains("---@field daylight boolean?"), "sun's daylight")
        XCTAssertTrue(text.contains("---@field id string\n"), "id is required")
        for field in ["title", "description", "badge", "repeatable", "earned", "progress", "init", "on_run", "finish", "status"] {
            XCTAssertTrue(text.contains("---@field \(field)? "), "\(field) is optional")
        }
        XCTAssertTrue(text.contains("---@field zone string"), "ctx.zone")
        XCTAssertTrue(text.contains("---@field zone_offset_s function"), "the zone helper")
    }

    /// The report's generated medallion fits its label in the circle: `S10X10` (Square 10x10) is set
    /// small enough that six bold characters fit the ring's 80 px.
    func testLongMedallionLabelsFitTheirCircle() throws {
        let folder = try TemporaryFolder()
        let output = try CLI.run(["report", "runs", "-o", folder.path + "/report.html", "--no-cache", "--tz", "UTC"])
        XCTAssertTrue([0, 2].contains(output.status), output.stderr)
        let html = try String(contentsOfFile: folder.path + "/report.html", encoding: .utf8)
        let marker = ">S10X10</text>"
        let end = try XCTUnwrap(html.range(of: marker), "the sample report shows Square 10x10")
        let start = try XCTUnwrap(html[..<end.lowerBound].range(of: "<text ", options: .backwards))
        let tag = String(html[start.lowerBound..<end.lowerBound])
        let size = try XCTUnwrap(tag.range(of: "font-size:").map { Double(tag[$0.upperBound...].prefix { $0.isNumber }) } ?? nil, tag)
        XCTAssertLessThanOrEqual(6 * 0.72 * size, 80, tag)
        // Short labels keep the page's 30 px.
        XCTAssertTrue(html.contains("class=\"medal-value\">E1K</text>") || html.contains("class=\"medal-value\">E100</text>"), "short labels unchanged")
    }

    /// A TCX with `Sport="Other"` (Garmin's export of a swim or any sport but running and cycling) is not
    /// a run; a Garmin account export's own metadata JSON is ignored with the reason, not a skipped file.
    func testGarminOtherSportAndExportMetadata() throws {
        let folder = try TemporaryFolder()
        try gpx(folder, "export/DI_CONNECT/run.gpx", day: 0)
        let swim = RunGenerator(seed: 5, distanceMeters: 1500, paceSecondsPerKilometre: 1200)
        try Data(TCXWriter.encode(track: swim.track(), sport: "Other")).write(to: URL(fileURLWithPath: folder.path + "/export/swim.tcx"))
        try folder.write("export/DI_CONNECT/DI-Connect-Fitness/me@example.com_0_summarizedActivities.json",
                         #"[{"summarizedActivitiesExport":[{"activityId":1,"sportType":"RUNNING","distance":300000}]}]"#)
        try folder.write("export/DI_CONNECT/DI-Connect-User/user_profile.json", #"{"userName":"me"}"#)
        let output = try CLI.run(["evaluate", folder.path + "/export", "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertFalse(output.stderr.contains("skipped"), output.stderr)
        let object = try json(output)
        let excluded = try XCTUnwrap(object["excluded"] as? [[String: Any]])
        XCTAssertEqual(excluded.map { "\($0["id"] ?? "") \($0["sport"] ?? "")" }, ["swim.tcx other"])
        let reasons = try XCTUnwrap(object["ignored_reasons"] as? [String: String])
        XCTAssertEqual(reasons.keys.sorted(), ["DI_CONNECT/DI-Connect-Fitness/me@example.com_0_summarizedActivities.json",
                                               "DI_CONNECT/DI-Connect-User/user_profile.json"])
        XCTAssertTrue(reasons.values.allSatisfy { $0.contains("Garmin Connect export's own metadata") }, "\(reasons)")
        // Zipped, as Garmin sends it.
        let zip = ZipWriter([
            ZipWriter.Entry("DI_CONNECT/DI-Connect-Fitness/me_0_summarizedActivities.json", Array(#"[{"summarizedActivitiesExport":[]}]"#.utf8)),
            ZipWriter.Entry("DI_CONNECT/DI-Connect-Uploaded-Files/swim.tcx", TCXWriter.encode(track: swim.track(), sport: "Other")),
        ]).finish()
        try FileManager.default.createDirectory(atPath: folder.path + "/zipped", withIntermediateDirectories: true)
        try Data(zip).write(to: URL(fileURLWithPath: folder.path + "/zipped/garmin.zip"))
        let zipped = try CLI.run(["evaluate", folder.path + "/zipped", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(zipped.status, 0, zipped.stdout + zipped.stderr)
        XCTAssertTrue(zipped.stdout.contains("sport 'other'"), zipped.stdout)
    }
}
