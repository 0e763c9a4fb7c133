import RunFixtures
import Foundation
import XCTest

/// `whatif --place PACK/NAME --distance …`: the imagined run goes out and back through a place a pack
/// declares (the places pack's fountain, 40 m), so place measures are computed on it. The samples first
/// pass the fountain after 2026-08-01.
final class WhatifPlaceTests: XCTestCase {
    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testARunThroughThePlaceEarnsThePlaceBadge() throws {
        let through = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--place", "places/fountain", "--distance", "5k",
                                   "--pace", "5:00", "--as-of", "2026-08-01", "--no-cache", "--tz", "UTC", "--format", "json"])
        XCTAssertEqual(through.status, 0, through.stderr)
        let report = try json(through.stdout)
        let awards = try XCTUnwrap(report["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { $0["badge"] as? String }, ["fountain"])
        let evidence = try XCTUnwrap(awards.first?["evidence"] as? [String: Any])
        // Out and back: through the fountain a quarter of the way (1250 m at 5:00/km is 375 s, less the
        // 40 m radius, 12 s) and again three quarters of the way (1125 s, plus 12 s).
        XCTAssertEqual(evidence["visits"] as? Int, 2)
        XCTAssertEqual(try XCTUnwrap(evidence["first_elapsed_s"] as? Double), 363, accuracy: 2)
        XCTAssertEqual(try XCTUnwrap(evidence["last_elapsed_s"] as? Double), 1137, accuracy: 2)
        XCTAssertLessThan(try XCTUnwrap(evidence["closest_m"] as? Double), 1)
        let run = try XCTUnwrap(report["run"] as? [String: Any])
        XCTAssertEqual(run["place"] as? String, "places/fountain")
        XCTAssertEqual(try XCTUnwrap(run["distance_m"] as? Double), 5000, accuracy: 1)

        let table = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--place", "places/fountain", "--distance", "5k",
                                 "--pace", "5:00", "--as-of", "2026-08-01", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("through place places/fountain"), table.stdout)
        XCTAssertTrue(table.stdout.contains("By the Fountain"), table.stdout)

        // Without --place the path is invented: its place measures are nil, no fountain.
        let invented = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--distance", "5k", "--pace", "5:00",
                                    "--as-of", "2026-08-01", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(invented.status, 0, invented.stderr)
        XCTAssertTrue(invented.stdout.contains("It would earn no award."), invented.stdout)
    }

    /// Near the pole (past 85° a quarter of the distance beyond): the run turns at the place, one visit
    /// at the half-way point (2.5 km at 5:00/km: 750 s, less the 40 m radius, 12 s: 738 s).
    func testNearThePoleTheRunTurnsAtThePlace() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        try folder.write("north/pack.lua", """
            return { name = "north", version = "1", measures = { cairn = { kind = "place", lat = 84.99, lon = 20, radius_m = 40 } },
              badges = { { id = "cairn", name = "Cairn" } } }
            """)
        try folder.write("north/cairn.lua", """
            return { id = "cairn", badge = "cairn", earned = function(run)
              local c = run.measures.cairn
              return c ~= nil and c.passed and { detail = ("%d visit at %.0f s"):format(c.visits, c.first_elapsed_s) } or false end }
            """)
        let result = try CLI.run(["whatif", folder.path + "/runs", "--rules", folder.path + "/north", "--place", "north/cairn",
                                  "--distance", "5k", "--pace", "5:00", "--no-cache", "--tz", "UTC", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let awards = try XCTUnwrap(try json(result.stdout)["awards"] as? [[String: Any]])
        let detail = try XCTUnwrap(awards.first { $0["badge"] as? String == "cairn" }?["detail"] as? String)
        XCTAssertTrue(detail.hasPrefix("1 visit at "), detail)
        let seconds = try XCTUnwrap(Double(detail.dropFirst("1 visit at ".count).dropLast(2)), detail)
        XCTAssertEqual(seconds, 738, accuracy: 738 * 0.005)  // within the route's 0.5%
    }

    func testAPlaceThatIsNotThereIsRefusedWithTheClosestName() throws {
        let misspelt = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--place", "places/fountian", "--distance", "5k",
                                    "--pace", "5:00", "--no-cache"])
        XCTAssertEqual(misspelt.status, 1)
        XCTAssertTrue(misspelt.stderr.contains("no place 'places/fountian'; did you mean 'places/fountain'? (places: places/fountain)"),
                      misspelt.stderr)
        let segment = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--place", "places/park", "--distance", "5k",
                                   "--pace", "5:00", "--no-cache"])
        XCTAssertEqual(segment.status, 1)
        XCTAssertTrue(segment.stderr.contains("measure 'park' of pack 'places' is a segment, not a place (places: places/fountain)"),
                      segment.stderr)
        let noDistance = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--place", "places/fountain", "--pace", "5:00"])
        XCTAssertEqual(noDistance.status, 64)
        XCTAssertTrue(noDistance.stderr.contains("give the run's --distance (12km) with --place PACK/NAME"), noDistance.stderr)
        let both = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--place", "places/fountain", "--segment", "places/park",
                                "--pace", "5:00"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.contains("not both"), both.stderr)
    }
}

/// The guide's "Through a place" example, as written: its command line run, each line it shows found in
/// the output (the table's columns as shown, the evidence column cut).
final class GuideWhatifPlaceExampleTests: XCTestCase {
    func testTheGuidesPlaceExampleRunsAsWritten() throws {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        let head = "```text\n$ badgectl whatif runs/ --rules rules/places --place "
        let open = try XCTUnwrap(text.range(of: head), "docs/rules.md has no place what-if example")
        let body = text[text.index(open.lowerBound, offsetBy: "```text\n".count)...]
        let close = try XCTUnwrap(body.range(of: "```"))
        let lines = body[..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let command = lines[0].dropFirst("$ badgectl ".count).split(separator: " ").map(String.init)
        let result = try CLI.run(command, environment: ["COLUMNS": "400"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let squeezed = result.stdout.replacingOccurrences(of: " +", with: " ", options: .regularExpression)
        for line in lines.dropFirst() where !line.isEmpty {
            XCTAssertTrue(squeezed.contains(line.replacingOccurrences(of: " +", with: " ", options: .regularExpression)),
                          "\(line)\n---\n\(result.stdout)")
        }
    }
}
