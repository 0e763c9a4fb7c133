import RunFixtures
import Foundation
import XCTest

/// Issue J-3: every tier of a badge appears in `badges[]` (declared tiers in order, null until earned;
/// otherwise the tiers awarded; a repeatable badge's first award and a count) and on the report's wall.
final class BadgeTiersTests: XCTestCase {
    func makeFolder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("rules/podium/pack.lua", """
            return { name = "podium", version = "1", badges = {
              { id = "long", name = "Long", tiers = { "bronze", "silver", "gold" } },
              { id = "often", name = "Often" } } }
            """)
        try folder.write("rules/podium/long.lua", """
            return { id = "long", badge = "long", earned = function(run)
              if run.distance_m >= 15000 then return { tier = "silver" } end
              if run.distance_m >= 8000 then return { tier = "bronze" } end
              return false end }
            """)
        try folder.write("rules/podium/often.lua", """
            return { id = "often", badge = "often", repeatable = true,
              earned = function(run) return { tier = run.distance_m >= 8000 and "far" or "near" } end }
            """)
        for (day, km) in [(1, 5.0), (2, 9.0), (3, 16.0), (4, 10.0)] {
            try folder.write("runs/d\(day).json", #"{ "start": "2024-05-0\#(day)T07:00:00Z", "distance_m": \#(km * 1000), "duration_s": \#(km * 330) }"#)
        }
        try folder.write("badges.json", "[]")
        return folder
    }

    func testTiersInTheJSONBadgeEntries() throws {
        let folder = try makeFolder()
        let output = try CLI.run(["evaluate", "runs", "--format", "json", "--no-cache", "--tz", "UTC"], in: folder.url)
        XCTAssertEqual(output.status, 0, output.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let badges = try XCTUnwrap(json["badges"] as? [[String: Any]])
        let long = try XCTUnwrap(badges.first { $0["id"] as? String == "long" })
        XCTAssertEqual(long["tier_order"] as? [String], ["bronze", "silver", "gold"])
        let tiers = try XCTUnwrap(long["tiers"] as? [String: Any])
        XCTAssertEqual((tiers["bronze"] as? [String: Any])?["run"] as? String, "d2.json")
        XCTAssertEqual((tiers["bronze"] as? [String: Any])?["count"] as? Int, 1)
        XCTAssertEqual((tiers["silver"] as? [String: Any])?["run"] as? String, "d3.json")
        XCTAssertTrue(tiers["gold"] is NSNull, "\(tiers)")
        XCTAssertTrue(long["earned"] is NSNull)  // the existing fields stay as they were
        let often = try XCTUnwrap(badges.first { $0["id"] as? String == "often" })
        XCTAssertEqual(often["tier_order"] as? [String], ["near", "far"])
        let oftenTiers = try XCTUnwrap(often["tiers"] as? [String: [String: Any]])
        XCTAssertEqual(oftenTiers["near"]?["run"] as? String, "d1.json")
        XCTAssertEqual(oftenTiers["near"]?["count"] as? Int, 1)
        XCTAssertEqual(oftenTiers["far"]?["run"] as? String, "d2.json")
        XCTAssertEqual(oftenTiers["far"]?["count"] as? Int, 3)
    }

    func testTheWallDrawsDeclaredTiers() throws {
        let folder = try makeFolder()
        let output = try CLI.run(["report", "runs", "--no-cache", "--tz", "UTC", "-o", "report.html"], in: folder.url)
        XCTAssertEqual(output.status, 0, output.stderr)
        let html = try String(contentsOf: folder.url.appendingPathComponent("report.html"), encoding: .utf8)
        let start = try XCTUnwrap(html.range(of: "data-badge-id=\"long\""))
        let article = String(html[start.lowerBound...].prefix(while: { $0 != "\n" }))
        XCTAssertTrue(article.contains("data-tier=\"silver\""), article)
        XCTAssertTrue(article.contains("Earned 2024-05-02"), article)
        XCTAssertTrue(article.contains("<span class=\"mark bronze got\" data-mark=\"bronze\" title=\"d2.json\">Bronze 2024-05-02</span>"), article)
        XCTAssertTrue(article.contains("<span class=\"mark silver got\" data-mark=\"silver\" title=\"d3.json\">Silver 2024-05-03</span>"), article)
        XCTAssertTrue(article.contains("<span class=\"mark gold missing\" data-mark=\"gold\">Gold</span>"), article)
        // A badge without declared tiers whose rule gave tiers of its own (near, far): earned, one mark each.
        let oftenStart = try XCTUnwrap(html.range(of: "data-badge-id=\"often\""))
        let often = String(html[oftenStart.lowerBound...].prefix(while: { $0 != "\n" }))
        XCTAssertTrue(often.contains("Earned 2024-05-01"), often)
        XCTAssertTrue(often.contains("data-mark=\"near\" title=\"d1.json\">Near 2024-05-01</span>"), often)
        XCTAssertTrue(often.contains("data-mark=\"far\" title=\"d2.json\">Far 2024-05-02</span>"), often)
    }
}
