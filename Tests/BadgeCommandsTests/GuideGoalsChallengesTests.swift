import RunFixtures
import Foundation
import XCTest

/// The guide's "Goals and challenges" examples (docs/rules.md), as written: the goals test and the
/// Eddington test beside copies of the shipped packs, the spring challenge pack on its own; each passes
/// under `badgectl test`, the goals profile gives the award and the distance left through `evaluate`,
/// and the spring `league.lua` awards a club through `badgectl league`.
final class GuideGoalsChallengesTests: XCTestCase {
    /// The first fenced block of `language` in the guide's "Goals and challenges" section starting with `head`.
    func block(_ head: String, language: String = "lua") throws -> String {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        guard let start = text.range(of: "## Goals and challenges\n") else { XCTFail("no 'Goals and challenges' section"); throw CocoaError(.fileReadCorruptFile) }
        let end = text[start.upperBound...].range(of: "\n## ")?.lowerBound ?? text.endIndex
        var rest = text[start.upperBound..<end]
        while let open = rest.range(of: "```\(language)\n"), let close = rest[open.upperBound...].range(of: "```") {
            let body = String(rest[open.upperBound..<close.lowerBound])
            if body.hasPrefix(head) { return body }
            rest = rest[close.upperBound...]
        }
        XCTFail("the section has no \(language) block starting with \(head)")
        return ""
    }

    /// A copy of the shipped pack `name` in `folder`.
    func copyPack(_ name: String, to folder: TemporaryFolder) throws {
        try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("rules/" + name),
                                         to: folder.url.appendingPathComponent(name))
    }

    func testTheGoalsExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        try copyPack("goals", to: folder)
        try folder.write("goals/guide_test.lua", try block("-- rules/goals/guide_test.lua"))
        let tested = try CLI.run(["test", folder.path + "/goals", "--run", "twelve runs in March meet the month"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("1 passed, 0 failed"), tested.stdout)

        // The guide's profile through evaluate: twelve 10 km runs from 2026-03-01.
        try folder.write("me.json", try block("{ \"birth_date\"", language: "json"))
        for day in 1...12 {
            try folder.write(String(format: "runs/d%02d.json", day),
                             #"{ "start": "2026-03-\#(String(format: "%02d", day))T07:00:00Z", "distance_m": 10000, "duration_s": 3300 }"#)
        }
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/goals", "--athlete", folder.path + "/me.json",
                                  "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let awardLines = result.stdout.split(separator: "\n").filter { $0.contains("runs-12-month") }
        XCTAssertEqual(awardLines.count, 1, result.stdout)
        XCTAssertTrue(awardLines.first?.contains("month") == true && awardLines.first?.contains("d12.json") == true, result.stdout)
        XCTAssertTrue(result.stdout.contains("Also next (goals): Distance Goal Met — 880.00 km to go."), result.stdout)
    }

    func testTheSpringChallengeExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        for name in ["pack", "spring", "league", "spring_test"] {
            try folder.write("spring/\(name).lua", try block("-- rules/spring/\(name).lua"))
        }
        let tested = try CLI.run(["test", folder.path + "/spring"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("2 passed, 0 failed"), tested.stdout)

        // A club: ana 300 km and ben 200 km inside the window, ben 100 km the day before it (not counted).
        var lines: [String] = []
        for (athlete, date, metres) in [("ana", "2027-03-20", 150_000), ("ana", "2027-03-27", 150_000), ("ben", "2027-03-19", 100_000),
                                        ("ben", "2027-04-19", 200_000), ("cai", "2027-04-01", 50_000)] {
            let team = athlete == "cai" ? "blue" : "red"
            lines.append(#"{"athlete": "\#(athlete)", "team": "\#(team)", "summary": {"start": "\#(date)T07:00:00Z", "distance_m": \#(metres), "duration_s": \#(metres / 3)}}"#)
        }
        let league = try CLI.run(["league", "--rules", folder.path + "/spring", "--no-cache", "--tz", "UTC"], stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(league.status, 0, league.stderr)
        let club = try league.stdout.split(separator: "\n").map { text -> [String: Any] in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }.filter { $0["kind"] as? String == "spring-club-500k" }
        XCTAssertEqual(club.map { "\($0["athlete"] ?? "") \($0["detail"] ?? "")" }, ["ana 500.00 km together", "ben 500.00 km together"])
    }

    func testTheEddingtonExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        try copyPack("lifetime", to: folder)
        try folder.write("lifetime/guide_eddington_test.lua", try block("-- rules/lifetime/guide_eddington_test.lua"))
        let tested = try CLI.run(["test", folder.path + "/lifetime", "--run", "the year's number is 10"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("1 passed, 0 failed"), tested.stdout)
    }
}
