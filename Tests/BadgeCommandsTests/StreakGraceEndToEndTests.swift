import RunFixtures
import Foundation
import XCTest

/// The streak helper's two kinds of grace (issue 49): banked (`grace_every`) and a sliding window
/// (`grace = { days = n, per = w }`), through `badgectl test` and `evaluate` as an author uses them.
final class StreakGraceEndToEndTests: XCTestCase {
    /// The lua block of docs/rules.md that starts with `head`; a failure (not a skip) when there is none.
    static func block(_ head: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        var rest = text[...]
        while let open = rest.range(of: "```lua\n"), let close = rest[open.upperBound...].range(of: "```") {
            let block = String(rest[open.upperBound..<close.lowerBound])
            if block.hasPrefix(head) { return block }
            rest = rest[close.upperBound...]
        }
        XCTFail("docs/rules.md has no lua block starting with \(head)", file: file, line: line)
        throw CocoaError(.fileReadCorruptFile)
    }

    private func pack(_ files: [String: String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/p", withIntermediateDirectories: true)
        try Data(#"return { name = "p", version = "1.0.0", badges = { { id = "b", name = "B" } } }"#.utf8)
            .write(to: URL(fileURLWithPath: folder.path + "/p/pack.lua"))
        try Data(#"return { id = "r", badge = "b", earned = function() return false end }"#.utf8)
            .write(to: URL(fileURLWithPath: folder.path + "/p/r.lua"))
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: folder.path + "/p/" + name)) }
        return folder
    }

    /// After 14 runs, banked grace forgives two missed days in a row; one day in any 7 does not.
    func testASlidingWindowForgivesAtMostNMissedDaysInAnyW() throws {
        let folder = try pack(["streak_test.lua": #"""
        local function history(streak, days)
          local length
          for _, d in ipairs(days) do length = badgectl.streak_add(streak, ("2025-05-%02d"):format(d)) end
          return length
        end
        local fourteen_then_two_off = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17 }

        test("banked: two misses in a row after 14 runs are both forgiven", function(t)
          local streak = badgectl.streak_new{ grace_every = 7 }
          t.expect_eq(history(streak, fourteen_then_two_off), 15)
          t.expect_eq(streak.forgiven, 2)
          t.expect_eq(streak.earned_grace, 2)
        end)

        test("sliding: two misses in a row end the streak", function(t)
          local streak = badgectl.streak_new{ grace = { days = 1, per = 7 } }
          t.expect_eq(history(streak, fourteen_then_two_off), 1)
          t.expect_eq(streak.first, "2025-05-17")
          t.expect_eq(streak.best, 14)
        end)

        test("sliding: one miss in each 7 days is forgiven, two within 7 are not", function(t)
          local streak = badgectl.streak_new{ grace = { days = 1, per = 7 } }
          t.expect_eq(history(streak, { 1, 2, 3, 5, 6, 7, 8, 9, 10, 12, 13, 14 }), 12)   -- off the 4th and 11th
          t.expect_eq(streak.forgiven, 2)
          t.expect_eq(streak.earned_grace, 0)
          streak = badgectl.streak_new{ grace = { days = 1, per = 7 } }
          t.expect_eq(history(streak, { 1, 2, 3, 5, 6, 7, 8, 10 }), 1)                 -- off the 4th and 9th
          streak = badgectl.streak_new{ grace = { days = 2, per = 7 } }
          t.expect_eq(history(streak, { 1, 2, 3, 5, 6, 7, 8, 10 }), 8)                 -- two in 7 allowed
        end)

        test("sliding weeks: one missed ISO week in any 4", function(t)
          local streak = badgectl.streak_new{ unit = "week", grace = { weeks = 1, per = 4 } }
          for _, date in ipairs({ "2025-01-06", "2025-01-13", "2025-01-27", "2025-02-03", "2025-02-10", "2025-02-24" }) do
            badgectl.streak_add(streak, date)
          end
          t.expect_eq(streak.length, 6)   -- weeks 4 and 8 missed: four weeks apart
          t.expect_eq(streak.forgiven, 2)
          badgectl.streak_add(streak, "2025-03-10")   -- week 10 missed: weeks 8 and 10 in one 4
          t.expect_eq(streak.length, 1)
        end)

        test("a misspelt grace is refused by name", function(t)
          local ok, message = pcall(badgectl.streak_new, { grace = { day = 1, per = 7 } })
          t.expect(not ok and message:find("unknown key 'day' in grace", 1, true) ~= nil, message)
          t.expect(message:find("did you mean 'days'", 1, true) ~= nil, message)
          ok, message = pcall(badgectl.streak_new, { grace = { days = 1, per = 7 }, grace_every = 7 })
          t.expect(not ok and message:find("not both", 1, true) ~= nil, message)
          ok, message = pcall(badgectl.streak_new, { grace = { days = 7, per = 7 } })
          t.expect(not ok and message:find("less than grace.per", 1, true) ~= nil, message)
        end)
        """#])
        let tested = try CLI.run(["test", folder.path + "/p"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("5 passed, 0 failed"), tested.stdout)
    }

    /// The guide's sliding-window example, as written: its tests pass, and through `evaluate` a run on
    /// every day of 1-14 May but the 4th and 11th earns it on the 14th.
    func testTheGuidesSlidingGraceExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/steady", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        for name in ["pack", "steady", "steady_test"] {
            let block = try Self.block("-- rules/steady/\(name).lua")
            try Data(block.utf8).write(to: URL(fileURLWithPath: folder.path + "/steady/\(name).lua"))
        }
        let tested = try CLI.run(["test", folder.path + "/steady"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("2 passed, 0 failed"), tested.stdout)
        for day in 1...14 where day != 4 && day != 11 {
            let summary = #"{ "start": "2025-05-\#(String(format: "%02d", day))T07:00:00Z", "distance_m": 5000, "duration_s": 1800 }"#
            try Data(summary.utf8).write(to: URL(fileURLWithPath: folder.path + "/runs/d\(day).json"))
        }
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/steady", "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["run"] ?? "") \($0["detail"] ?? "")" }, ["d14.json 14 days from 2025-05-01, 2 off"])
    }
}
