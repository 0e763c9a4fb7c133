import RunFixtures
import Foundation
import SyntheticRuns
import XCTest

/// The shipped agegrade pack through the CLI: generated 10 km runs by a man of 54 (born 1970-01-01, runs
/// in May 2024) earn the tier the 2025 table gives (10 km: 1584 / 0.8586 = 1844.86 s at 54).
final class AgeGradeEndToEndTests: XCTestCase {
    func write(_ folder: TemporaryFolder, _ name: String, day: Double, pace: Double) throws {
        var generator = RunGenerator(seed: 5, distanceMeters: 10_000, paceSecondsPerKilometre: pace)
        generator.startEpochSeconds = 1_714_550_400 + day * 86_400  // 2024-05-01T08:00:00Z
        generator.gpsNoiseMeters = 0
        generator.paceVariation = 0
        try generator.writeGPX(to: folder.path + "/runs/" + name)
    }

    func testTheTierIsTheTablesOnARunOfKnownAgeSexAndTime() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        // 42:25 (72.49%: local and regional), then 38:00 (80.91%: national), then 45:00 (68.3%: nothing new).
        try write(folder, "a.gpx", day: 0, pace: 254.5)
        try write(folder, "b.gpx", day: 7, pace: 228)
        try write(folder, "c.gpx", day: 14, pace: 270)
        try Data(#"{ "birth_date": "1970-01-01", "sex": "male" }"#.utf8).write(to: URL(fileURLWithPath: folder.path + "/me.json"))
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", "rules/agegrade", "--athlete", folder.path + "/me.json",
                                  "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["tier"] ?? "")@\($0["run"] ?? "")" }, ["local@a.gpx", "regional@a.gpx", "national@b.gpx"])
        let detail = try XCTUnwrap(awards.first?["detail"] as? String)
        XCTAssertTrue(detail.hasPrefix("72.") && detail.hasSuffix("at 54"), detail)

        // The measure itself, as summarize prints it: within 0.2 points of the hand figure (the generated
        // route's length is the planned one to well under 0.1%).
        let summary = try CLI.run(["summarize", folder.path + "/runs/a.gpx", "--rules", "rules/agegrade", "--athlete", folder.path + "/me.json",
                                   "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(summary.status, 0, summary.stderr)
        let percent = try XCTUnwrap(summary.stdout.range(of: #""best_percent" *: *[0-9.]+"#, options: .regularExpression))
        let value = try XCTUnwrap(Double(summary.stdout[percent].split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? ""))
        XCTAssertEqual(value, 100 * 1584 / 0.8586 / 2545, accuracy: 0.2)

        // Without a profile nothing is earned and the note says why.
        let without = try CLI.run(["evaluate", folder.path + "/runs", "--rules", "rules/agegrade", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(without.status, 0, without.stderr)
        XCTAssertTrue(without.stdout.contains("an age grade needs the runner's birth_date and sex: give an athlete profile with --athlete FILE"), without.stdout)
    }

    /// The guide's ```lua block starting with `head`.
    static func guideBlock(_ head: String) throws -> String {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        var rest = text[...]
        while let open = rest.range(of: "```lua\n"), let close = rest[open.upperBound...].range(of: "```") {
            let block = String(rest[open.upperBound..<close.lowerBound])
            if block.hasPrefix(head) { return block }
            rest = rest[close.upperBound...]
        }
        XCTFail("docs/rules.md has no lua block starting with \(head)")
        throw CocoaError(.fileReadCorruptFile)
    }

    /// The guide's "Age-grade example", as written: its test passes under `badgectl test`, and with the
    /// guide's profile a 10 km run in 40:00 in 2024 earns the badge with the guide's detail.
    func testTheGuidesAgeGradeExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/masters", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        for name in ["pack", "seventy_five", "masters_test"] {
            let block = try Self.guideBlock("-- rules/masters/\(name).lua")
            try Data(block.utf8).write(to: URL(fileURLWithPath: folder.path + "/masters/\(name).lua"))
        }
        let tested = try CLI.run(["test", folder.path + "/masters"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("1 passed, 0 failed"), tested.stdout)
        try write(folder, "fast.gpx", day: 0, pace: 240)
        try Data(#"{ "birth_date": "1970-01-01", "sex": "male" }"#.utf8).write(to: URL(fileURLWithPath: folder.path + "/me.json"))
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/masters", "--athlete", folder.path + "/me.json",
                                  "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["badge"] ?? "") \($0["detail"] ?? "")" }, ["masters-75 76.9% at 54"])
    }
}

/// The guide's "Grade-adjusted example", as written: its test passes under `badgectl test`, and a generated
/// 6 km run up a steady 5% slope at 5:50/km earns the badge with the guide's hand-computed pace.
final class GradeAdjustedEndToEndTests: XCTestCase {
    func testTheGuidesGradeAdjustedExampleRunsAsWritten() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/hills", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        for name in ["pack", "flat25", "hills_test"] {
            let block = try AgeGradeEndToEndTests.guideBlock("-- rules/hills/\(name).lua")
            try Data(block.utf8).write(to: URL(fileURLWithPath: folder.path + "/hills/\(name).lua"))
        }
        let tested = try CLI.run(["test", folder.path + "/hills"])
        XCTAssertEqual(tested.status, 0, tested.stdout + tested.stderr)
        XCTAssertTrue(tested.stdout.contains("1 passed, 0 failed"), tested.stdout)
        var generator = RunGenerator(seed: 9, distanceMeters: 6000, paceSecondsPerKilometre: 350)
        generator.gradient = 0.05
        generator.hillAmplitudeMeters = 0
        generator.altitudeNoiseMeters = 0
        generator.gpsNoiseMeters = 0
        generator.paceVariation = 0
        try generator.writeGPX(to: folder.path + "/runs/climb.gpx")
        var flat = generator
        flat.gradient = 0
        flat.startEpochSeconds += 86_400
        try flat.writeGPX(to: folder.path + "/runs/flat.gpx")
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/hills", "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(object["awards"] as? [[String: Any]])
        // The flat one: 5 km in 29:10, no badge.
        XCTAssertEqual(awards.map { "\($0["run"] ?? "") \($0["detail"] ?? "")" }, ["climb.gpx 4:29 per flat km"])
    }
}
