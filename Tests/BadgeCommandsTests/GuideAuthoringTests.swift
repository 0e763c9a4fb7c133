import RunFixtures
import Foundation
import XCTest

/// A pack written from docs/rules.md alone, in a folder outside the repository: the guide's night owl
/// (with `--tz`), its three-tier per-run badge and a test with a typo behave as the guide says.
final class GuideAuthoringTests: XCTestCase {
    /// The guide's ```lua block whose text starts with `head`.
    func guideBlock(startingWith head: String) throws -> String {
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

    /// A GPX run north along a meridian from `start` (UTC), one point a minute, 200 m apart, climbing
    /// `climb` metres evenly.
    func gpx(start: String, climb: Double) -> String {
        var points = ""
        let epoch = ISO8601DateFormatter().date(from: start)?.timeIntervalSince1970 ?? 0
        let formatter = ISO8601DateFormatter()
        for i in 0...40 {
            let time = formatter.string(from: Date(timeIntervalSince1970: epoch + Double(60 * i)))
            points += "<trkpt lat=\"\(45.0 + 0.0018 * Double(i))\" lon=\"6.0\"><ele>\(100 + climb * Double(i) / 40)</ele><time>\(time)</time></trkpt>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            \(points)</trkseg></trk></gpx>
            """
    }

    func testAPackWrittenFromTheGuideBehavesAsTheGuideSays() throws {
        let folder = try TemporaryFolder()
        try folder.write("rules/mine/pack.lua", """
            return { name = "mine", version = "1.0.0", badges = { { id = "night-owl", name = "Night owl" } } }
            """)
        try folder.write("rules/mine/night_owl.lua", try guideBlock(startingWith: "-- rules/mine/night_owl.lua"))
        try folder.write("rules/mine/runs_test.lua", try guideBlock(startingWith: "-- rules/mine/runs_test.lua"))
        try folder.write("rules/hills/pack.lua", try guideBlock(startingWith: "-- pack.lua\nreturn { name = \"hills\""))
        try folder.write("rules/hills/climber.lua", try guideBlock(startingWith: "-- climber.lua"))
        try folder.write("rules/hills/climber_test.lua", """
            test("bronze for 200 m", function(t)
              local a = t.run{ distance_km = 10, duration = "55:00", elevation_gain_m = 200 }
              t.expect_award(t.evaluate{ a }, { badge = "climber", tier = "bronze", run = a })
              t.expect_eq(a.elevation.gian_m, 200)
            end)
            """)
        // The guide's night run (20:30Z) and three hill runs: 220 m, 400 m (both on 2 June), 800 m.
        try folder.write("runs/night.gpx", gpx(start: "2024-06-01T20:30:00Z", climb: 0))
        try folder.write("runs/hill-1.gpx", gpx(start: "2024-06-02T08:00:00Z", climb: 220))
        try folder.write("runs/hill-2.gpx", gpx(start: "2024-06-03T08:00:00Z", climb: 400))
        try folder.write("runs/hill-3.gpx", gpx(start: "2024-06-04T08:00:00Z", climb: 800))
        let catalogue = CLI.repository.appendingPathComponent("badges.json").path

        func awards(_ zone: String) throws -> [String] {
            let output = try CLI.run(["evaluate", "runs", "--rules", "rules", "--badges", catalogue, "--tz", zone,
                                      "--format", "json", "--no-cache"], in: folder.url)
            XCTAssertEqual(output.status, 0, output.stderr)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            let list = try XCTUnwrap(json["awards"] as? [[String: Any]])
            return list.compactMap { award in
                guard let badge = award["badge"] as? String, badge == "night-owl" || badge == "climber" else { return nil }
                return "\(badge)/\(award["tier"] ?? "")@\(award["run"] ?? "") \(award["detail"] ?? "")"
            }
        }
        XCTAssertEqual(try awards("UTC"),
                       ["climber/bronze@hill-1.gpx 220 m up", "climber/silver@hill-2.gpx 400 m up", "climber/gold@hill-3.gpx 800 m up"])
        XCTAssertEqual(try awards("Europe/Paris"),
                       ["night-owl/earned@night.gpx started at 22:30", "climber/bronze@hill-1.gpx 220 m up",
                        "climber/silver@hill-2.gpx 400 m up", "climber/gold@hill-3.gpx 800 m up"])

        // The guide's t.run example passes; the test with a typo fails at its line with a suggestion.
        let tested = try CLI.run(["test", "rules"], in: folder.url)
        XCTAssertEqual(tested.status, 3, tested.stdout)
        XCTAssertEqual(tested.lastLine, "1 passed, 1 failed", tested.stdout)
        XCTAssertTrue(tested.stdout.contains("rules/hills/climber_test.lua:4: no field 'gian_m' in elevation; did you mean 'gain_m'?"),
                      tested.stdout)
    }
}
