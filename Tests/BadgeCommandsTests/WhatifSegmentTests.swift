import RunFixtures
import Foundation
import XCTest

/// `whatif --segment PACK/NAME`: the imagined run goes along the segment's own path (the places pack's
/// park segment, 889 m, first run by the samples in 5:35 on 2026-08-06), so segment records can be checked.
final class WhatifSegmentTests: XCTestCase {
    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testARunAlongTheSegmentCountsAsAnEffortOnIt() throws {
        // Before 2026-08-31 only the first effort (5:35) is held: 3:00 over the segment is more than 10%
        // faster (silver under 5:18, gold under 5:01); 5:30 is neither.
        let fast = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--segment", "places/park", "--time", "3:00",
                                "--as-of", "2026-08-31", "--no-cache", "--tz", "UTC", "--format", "json"])
        XCTAssertEqual(fast.status, 0, fast.stderr)
        let report = try json(fast.stdout)
        let awards = try XCTUnwrap(report["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.map { "\($0["badge"] ?? "") \($0["tier"] ?? "")" }, ["park-corner-record silver", "park-corner-record gold"])
        let evidence = try XCTUnwrap(awards.first?["evidence"] as? [String: Any])
        // The effort between the gates: 3:00 asked over the segment, within 0.5% (the route's tolerance).
        XCTAssertEqual(try XCTUnwrap(evidence["elapsed_s"] as? Double), 180, accuracy: 0.9)
        let run = try XCTUnwrap(report["run"] as? [String: Any])
        XCTAssertEqual(run["segment"] as? String, "places/park")
        // 889 m and 50 m before and after the gates (twice the 25 m tolerance).
        XCTAssertEqual(try XCTUnwrap(run["distance_m"] as? Double), 889 + 100, accuracy: 1)

        let slow = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--segment", "places/park", "--time", "5:30",
                                "--as-of", "2026-08-31", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(slow.status, 0, slow.stderr)
        XCTAssertTrue(slow.stdout.contains("along segment places/park"), slow.stdout)
        XCTAssertTrue(slow.stdout.contains("It would earn no award."), slow.stdout)

        // Without --segment the path is invented: the same pace earns nothing on the segment.
        let invented = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--distance", "989m", "--time", "3:20",
                                    "--as-of", "2026-08-31", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(invented.status, 0, invented.stderr)
        XCTAssertTrue(invented.stdout.contains("It would earn no award."), invented.stdout)
    }

    func testASegmentThatIsNotThereIsRefusedByName() throws {
        let unknown = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--segment", "places/lake", "--pace", "4:00", "--no-cache"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no measure 'lake' in pack 'places' (its segments: park)"), unknown.stderr)
        let place = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--segment", "places/fountain", "--pace", "4:00", "--no-cache"])
        XCTAssertTrue(place.stderr.contains("measure 'fountain' of pack 'places' is a place, not a segment"), place.stderr)
        let pack = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--segment", "parks/park", "--pace", "4:00", "--no-cache"])
        XCTAssertTrue(pack.stderr.contains("no pack 'parks' (packs: places)"), pack.stderr)
        let both = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--segment", "places/park", "--distance", "1km", "--pace", "4:00"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.contains("give the run's --distance or a --segment PACK/NAME to run along"), both.stderr)
        let neither = try CLI.run(["whatif", "runs/", "--rules", "rules/places", "--pace", "4:00"])
        XCTAssertEqual(neither.status, 64)
        XCTAssertTrue(neither.stderr.contains("give the run's --distance (12km) or a --segment PACK/NAME"), neither.stderr)
    }
}
