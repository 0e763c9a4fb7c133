import RunFixtures
import Foundation
import XCTest

/// The `goals` and `challenges` packs end to end through the built binary: a profile holding goals on
/// runs written here (awards, progress and the distance left), a profile mistake named by file and
/// field, and `badgectl league` on a club stream for the December club challenge (a run outside the
/// window by its local date does not count).
final class GoalsChallengesEndToEndTests: XCTestCase {
    static let profile = #"""
        {"goals": [{"id": "year-1000k", "measure": "distance", "target": 1000000, "per": "year"},
                   {"measure": "runs", "target": 12, "per": "month"},
                   {"measure": "time", "target": 36000, "per": "week"}]}
        """#

    /// `count` JSON summaries of `km` km in `seconds`, one a day from 2026-03-`firstDay` at 07:00 UTC.
    func writeRuns(_ folder: TemporaryFolder, firstDay: Int, count: Int, km: Double, seconds: Int) throws {
        for day in firstDay..<(firstDay + count) {
            try folder.write(String(format: "runs/d%02d.json", day),
                             #"{ "start": "2026-03-\#(String(format: "%02d", day))T07:00:00Z", "distance_m": \#(km * 1000), "duration_s": \#(seconds) }"#)
        }
    }

    func json(_ output: CLI.Output) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], output.stdout)
    }

    func testEvaluateWithGoalsAwardsEachGoalMetAndSaysWhatIsLeft() throws {
        let folder = try TemporaryFolder()
        try folder.write("me.json", Self.profile)
        // 12 runs of 10 km in 55:00 from Monday 2026-03-02 (d02..d13), then 3 of 40 km in 4:00:00
        // (d14..d16). March's 12th run (d13) meets "runs-12-month". 2026-W10 (2-8 March) has 7 × 55:00,
        // under 10 h; W11 (9-15 March) 5 × 55:00 = 4:35:00, 8:35:00 with the 14th and 12:35:00 with the
        // 15th: met on d15; W12 starts on the 16th. The year: 12 × 10 + 3 × 40 = 240 km.
        try writeRuns(folder, firstDay: 2, count: 12, km: 10, seconds: 3300)
        try writeRuns(folder, firstDay: 14, count: 3, km: 40, seconds: 14_400)
        let args = ["evaluate", folder.path + "/runs", "--rules", "rules/goals", "--athlete", folder.path + "/me.json",
                    "--tz", "UTC", "--no-cache", "--format", "json"]
        let result = try CLI.run(args)
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try json(result)
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["badge"] ?? "")/\($0["tier"] ?? "")@\($0["run"] ?? "")" },
                       ["goal-runs/month@d13.json", "goal-time/week@d15.json"])
        XCTAssertEqual(awards.first?["detail"] as? String, "runs-12-month: 12 runs of 12 runs in 2026-03")
        XCTAssertEqual(awards.last?["detail"] as? String, "time-36000-week: 12:35:00 of 10:00:00 in 2026-W11")
        // The year: 240 km of 1,000: 760 km to go, the pack's next.
        let nexts = try XCTUnwrap(object["next_by_pack"] as? [[String: Any]], "\(object.keys.sorted())")
        XCTAssertEqual(nexts.count, 1)
        XCTAssertEqual(nexts.first?["badge"] as? String, "goal-distance")
        XCTAssertEqual((nexts.first?["remaining_m"] as? NSNumber)?.doubleValue, 760_000)

        let explained = try CLI.run(["explain", "goal-distance", folder.path + "/runs", "--rules", "rules/goals",
                                     "--athlete", folder.path + "/me.json", "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(explained.status, 0, explained.stderr)
        XCTAssertTrue(explained.stdout.contains("year-1000k: 240.00 km of 1000.00 km in 2026; 760.00 km to go"), explained.stdout)

        // The report shows the same progress on the wall.
        let report = try CLI.run(["report", folder.path + "/runs", "-o", folder.path + "/report.html", "--rules", "rules/goals",
                                  "--athlete", folder.path + "/me.json", "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let page = try String(contentsOfFile: folder.path + "/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("year-1000k: 240.00 km of 1000.00 km in 2026; 760.00 km to go"), "the goal's progress is not in the report")

        // Without the profile: the same runs earn nothing of this pack, and the hint says how to set goals.
        let bare = try CLI.run(Array(args.filter { $0 != "--athlete" && $0 != folder.path + "/me.json" }))
        XCTAssertEqual(bare.status, 0, bare.stderr)
        let bareObject = try json(bare)
        XCTAssertEqual((bareObject["awards"] as? [[String: Any]])?.count, 0)
        XCTAssertEqual((bareObject["next_by_pack"] as? [[String: Any]])?.count, 0)
    }

    func testAProfileMistakeNamesTheFileAndTheField() throws {
        let folder = try TemporaryFolder()
        try writeRuns(folder, firstDay: 2, count: 1, km: 10, seconds: 3300)
        try folder.write("me.json", #"{"goals": [{"measure": "runs", "target": 12, "per": "month"}, {"measure": "distance", "target": 5000, "per": "fortnight"}]}"#)
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", "rules/goals", "--athlete", folder.path + "/me.json", "--no-cache"])
        XCTAssertEqual(result.status, 64, result.stdout)
        XCTAssertTrue(result.stderr.contains(folder.path + "/me.json"), result.stderr)
        XCTAssertTrue(result.stderr.contains("goals[2].per"), result.stderr)
        XCTAssertTrue(result.stderr.contains("unknown period 'fortnight' (one of week, month, year)"), result.stderr)
    }

    /// red: ana 10 × 60 km on 1–10 December and ben 10 × 40 km on 11–20 December: 1,000 km, met.
    /// blue: cai 9 × 100 km in December and one 100 km run starting 2026-11-30 23:30 at UTC−1 (1
    /// December in UTC, 30 November by its own clock): 900 km, not met.
    func testLeagueAwardsTheClubChallengeByLocalDatesInItsWindow() throws {
        var lines: [String] = []
        func line(_ athlete: String, _ team: String, _ start: String, _ metres: Int, _ seconds: Int) {
            lines.append(#"{"athlete": "\#(athlete)", "team": "\#(team)", "summary": {"start": "\#(start)", "distance_m": \#(metres), "duration_s": \#(seconds)}}"#)
        }
        for day in 1...10 { line("ana", "red", String(format: "2026-12-%02dT07:00:00Z", day), 60_000, 21_600) }
        for day in 11...20 { line("ben", "red", String(format: "2026-12-%02dT07:00:00Z", day), 40_000, 14_400) }
        line("cai", "blue", "2026-11-30T23:30:00-01:00", 100_000, 36_000)
        for day in 2...10 { line("cai", "blue", String(format: "2026-12-%02dT07:00:00Z", day), 100_000, 36_000) }
        let result = try CLI.run(["league", "--rules", "rules/challenges", "--no-cache", "--tz", "UTC"], stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        let objects = try result.stdout.split(separator: "\n").map { text -> [String: Any] in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
        let challenge = objects.filter { $0["kind"] as? String == "club-december-1000k" }
        XCTAssertEqual(challenge.map { "\($0["team"] ?? "") \($0["athlete"] ?? "")" }, ["red ana", "red ben"])
        XCTAssertEqual(challenge.first?["detail"] as? String, "team red: 1000.00 km of 1000.00 km from 2026-12-01 to 2026-12-31")
        let totals = objects.filter { $0["kind"] as? String == "challenge-total" }
        XCTAssertEqual(totals.map { $0["detail"] as? String ?? "" }, [
            "club-december-1000k: team blue, 900.00 km of 1000.00 km from 2026-12-01 to 2026-12-31",
            "club-december-1000k: team red, 1000.00 km of 1000.00 km from 2026-12-01 to 2026-12-31 (met)",
        ])
        // Each runner's own December 100: everyone ran 100 km or more in December.
        let rarity = objects.filter { $0["kind"] as? String == "rarity" && $0["badge"] as? String == "december-100k" }
        XCTAssertTrue(rarity.isEmpty || rarity.first?["holders"] as? Int == 3, "\(rarity)")
    }
}
