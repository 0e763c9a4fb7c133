import RunFixtures
import Foundation
import BadgeRules
import XCTest

/// What the author of a six-badge pack met on the command line (issue P), each fixed: dates in the
/// local zone, no "earned" for a tier a badge does not have, `add` going on with the state's packs.
final class AuthorFindingsEndToEndTests: XCTestCase {
    static let badges = CLI.repository.appendingPathComponent("badges.json").path

    /// A run at 20:00 UTC on 2026-06-20 is on 2026-06-21 in Tokyo: every DATE shown says so
    /// (evaluate's and explain's tables, add's, the report's "Earned"); they showed the UTC date.
    func testDatesAreInTheLocalZoneWhereverTheyAreShown() throws {
        let folder = try TemporaryFolder()
        try folder.write("runs/late.json", #"{"start":"2026-06-20T20:00:00Z","distance_m":6000,"duration_s":1800}"#)
        let runs = folder.path + "/runs"
        let common = ["--tz", "Asia/Tokyo", "--rules", "rules/checkpoints", "--badges", Self.badges, "--no-cache"]
        let evaluate = try CLI.run(["evaluate", runs] + common)
        XCTAssertEqual(evaluate.status, 0, evaluate.stderr)
        let fiveK = evaluate.stdout.split(separator: "\n").first { $0.hasPrefix("Five K ") || $0.contains("late.json") } ?? ""
        XCTAssertTrue(fiveK.contains("2026-06-21"), evaluate.stdout)
        XCTAssertFalse(evaluate.stdout.contains("2026-06-20"), evaluate.stdout)
        let explain = try CLI.run(["explain", "five-k", runs] + common)
        XCTAssertEqual(explain.status, 0, explain.stderr)
        XCTAssertTrue(explain.stdout.contains("earned  2026-06-21"), explain.stdout)
        XCTAssertFalse(explain.stdout.contains("2026-06-20"), explain.stdout)
        let report = try CLI.run(["report", runs, "-o", folder.path + "/report.html"] + common)
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOfFile: folder.path + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("Earned 2026-06-21"), "the report's badge wall dates the award locally")

        let state = folder.path + "/state"
        XCTAssertEqual(try CLI.run(["evaluate", runs, "--state", state] + common).status, 0)
        try folder.write("next.json", #"{"start":"2026-06-21T20:00:00Z","distance_m":11000,"duration_s":3300}"#)
        let add = try CLI.run(["add", "--state", state, folder.path + "/next.json", "--rules", "rules/checkpoints", "--badges", Self.badges,
                               "--no-cache"])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(add.stdout.contains("2026-06-22"), add.stdout)
        XCTAssertFalse(add.stdout.contains("2026-06-21 "), add.stdout)
    }

    /// A badge whose status gives a silver pace and no gold (it has no gold tier): GOLD PACE said
    /// "earned"; it says "—". A tier held still says "earned".
    func testTheGoldPaceColumnSaysEarnedOnlyForATierHeld() throws {
        let folder = try TemporaryFolder()
        try folder.write("packs/solo/pack.lua", """
            return { name = "solo", version = "1", badges = { { id = "solo-5k", name = "Solo 5k", tiers = { "earned", "silver" } } } }
            """)
        try folder.write("packs/solo/solo.lua", """
            return { id = "solo", badge = "solo-5k",
              init = function() return { done = false } end,
              on_run = function(state, run, award)
                if not state.done and run.distance_m > 5000 then award{ run = run }; state.done = true end
              end,
              status = function(state) return { badges = { { badge = "solo-5k", silver_pace_s_per_km = 300 } } } end }
            """)
        try folder.write("runs/run.json", #"{"start":"2026-06-20T07:00:00Z","distance_m":6000,"duration_s":2100}"#)
        let output = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/packs/solo", "--badges", Self.badges,
                                  "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let row = output.stdout.split(separator: "\n").last { $0.hasPrefix("Solo 5k ") }.map(String.init) ?? ""
        XCTAssertTrue(row.contains("4:59/km or faster"), output.stdout)  // strictly under 5:00: the whole second below
        XCTAssertFalse(row.contains("earned"), "no gold tier, so no gold earned: \(output.stdout)")
        XCTAssertTrue(row.hasSuffix("—"), output.stdout)
    }

    /// `add` without `--rules` went on with `./rules` (or the installed packs) and replayed the whole
    /// history ("pack 'explorer' is new"): it now loads the packs the state was made with, from where
    /// they were loaded (recorded as absolute paths), and refuses, naming them, when they are gone.
    func testAddWithoutRulesGoesOnWithTheStatesPacks() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("rules/checkpoints"),
                                         to: folder.url.appendingPathComponent("packs/checkpoints"))
        for name in ["2026-08-01-first-run.gpx", "2026-08-04-canal.gpx"] {
            try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("runs"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/" + name), to: folder.url.appendingPathComponent("runs/" + name))
        }
        // Made with a relative --rules, in the temporary folder.
        let state = folder.path + "/state"
        let saved = try CLI.run(["evaluate", "runs", "--state", state, "--rules", "packs/checkpoints", "--badges", Self.badges, "--tz", "UTC",
                                 "--no-cache"], in: folder.url)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        // Added from the repository, whose ./rules holds six packs.
        let late = CLI.repository.appendingPathComponent("runs/2026-10-18-half.gpx").path
        let added = try CLI.run(["add", "--state", state, late, "--badges", Self.badges, "--format", "json", "--no-cache"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertFalse(added.stderr.contains("replayed"), added.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        let packs = ((json["header"] as? [String: Any])?["packs"] as? [[String: Any]] ?? []).map { $0["name"] as? String }
        XCTAssertEqual(packs, ["checkpoints"])
        XCTAssertTrue(json["replayed"] is NSNull)

        try FileManager.default.removeItem(atPath: folder.path + "/packs/checkpoints")
        let gone = try CLI.run(["add", "--state", state, late, "--badges", Self.badges, "--no-cache"])
        XCTAssertEqual(gone.status, 1, gone.stderr)
        XCTAssertTrue(gone.stderr.contains("made with pack 'checkpoints' (no pack.lua in \(folder.url.resolvingSymlinksInPath().path)/packs/checkpoints any more)")
                      || gone.stderr.contains("made with pack 'checkpoints' (no pack.lua in \(folder.path)/packs/checkpoints any more)"), gone.stderr)
        XCTAssertTrue(gone.stderr.contains("give the packs with --rules PATH"), gone.stderr)
    }

    /// `add` without `--badges` looked for ./badges.json (or the installed one), so `add --state DIR
    /// --all-awards` run from elsewhere failed for want of a catalogue: it now reads the catalogue the
    /// state was made with (recorded as an absolute path), and refuses, naming it, when it is gone.
    func testAddWithoutBadgesReadsTheStatesCatalogue() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("runs"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/2026-08-01-first-run.gpx"),
                                         to: folder.url.appendingPathComponent("runs/2026-08-01-first-run.gpx"))
        try FileManager.default.copyItem(atPath: Self.badges, toPath: folder.path + "/my-badges.json")
        let state = folder.path + "/state"
        let saved = try CLI.run(["evaluate", "runs", "--state", state, "--rules", CLI.repository.appendingPathComponent("rules/checkpoints").path,
                                 "--badges", "my-badges.json", "--tz", "UTC", "--no-cache", "--format", "json"], in: folder.url)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(saved.stdout.utf8)) as? [String: Any])
        let evaluated = try XCTUnwrap((report["awards"] as? [Any])?.count)
        XCTAssertGreaterThan(evaluated, 0)

        // From a folder with no badges.json (nor an installed one next to the test binary's).
        let elsewhere = try TemporaryFolder()
        let listed = try CLI.run(["add", "--state", state, "--all-awards", "--format", "json"], in: elsewhere.url)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["award_count"] as? Int, evaluated)
        XCTAssertEqual((json["awards"] as? [Any])?.count, evaluated)

        // Gone (an installed catalogue replaced by an upgrade): the one found without it, saying so;
        // here there is none.
        try FileManager.default.removeItem(atPath: folder.path + "/my-badges.json")
        let gone = try CLI.run(["add", "--state", state, "--all-awards"], in: elsewhere.url)
        XCTAssertEqual(gone.status, 1, gone.stderr)
        XCTAssertTrue(gone.stderr.contains("the badge catalogue the state was made with, ") && gone.stderr.contains("my-badges.json, is gone"), gone.stderr)
        XCTAssertTrue(gone.stderr.contains("cannot find the badge catalogue"), gone.stderr)
        try FileManager.default.copyItem(atPath: Self.badges, toPath: elsewhere.path + "/badges.json")
        let found = try CLI.run(["add", "--state", state, "--all-awards", "--format", "json"], in: elsewhere.url)
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stderr.contains("my-badges.json, is gone"), found.stderr)
        XCTAssertEqual((try XCTUnwrap(JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any]))["award_count"] as? Int, evaluated)
    }

    /// The catalogue a state records is the file as given, made absolute, its links kept (a link
    /// to a versioned file is recorded as the link), and a catalogue made in memory records none.
    func testStateRecordsTheCatalogueFileAsGiven() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("v3"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.badges, toPath: folder.path + "/v3/badges.json")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/current.json", withDestinationPath: "v3/badges.json")
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("runs"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/2026-08-01-first-run.gpx"),
                                         to: folder.url.appendingPathComponent("runs/2026-08-01-first-run.gpx"))
        let saved = try CLI.run(["evaluate", "runs", "--state", "state", "--rules", CLI.repository.appendingPathComponent("rules/checkpoints").path,
                                 "--badges", "runs/../current.json", "--tz", "UTC", "--no-cache"], in: folder.url)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let settings = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.url.appendingPathComponent("state/settings.json"))) as? [String: Any])
        let recorded = try XCTUnwrap(settings["catalogue"] as? String)
        XCTAssertTrue(recorded.hasPrefix("/") && recorded.hasSuffix("/current.json") && !recorded.contains(".."), recorded)
        XCTAssertNil(Catalogue(badges: []).file)
    }
}
