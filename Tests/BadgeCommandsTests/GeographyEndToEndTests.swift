import RunFixtures
import Foundation
import RunFiles
import SyntheticRuns
import XCTest

/// The places and explorer packs through the CLI on the sample runs (four of them lap the park loop the
/// places pack's segment lies on), explain naming the efforts, a segment file's bytes in the cache key,
/// segment files that cannot be used, and badgectl.max_square charged to the instruction budget.
final class GeographyEndToEndTests: XCTestCase {
    func awards(_ stdout: String) throws -> [[String: Any]] {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        return try XCTUnwrap(object["awards"] as? [[String: Any]])
    }

    func testTheSampleRunsEarnThePlacesBadges() throws {
        let result = try CLI.run(["evaluate", "runs/", "--rules", "rules/places", "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let found = try awards(result.stdout).map { "\($0["badge"] ?? "") \($0["tier"] ?? "") \($0["run"] ?? "")" }
        XCTAssertEqual(found, [
            "fountain earned 2026-08-06-park-laps.gpx",
            "park-corner-record earned 2026-08-06-park-laps.gpx",
            "park-corner-record silver 2026-09-08-park-laps.gpx",
            "park-corner-record gold 2026-09-29-park-laps.gpx",
            "park-corner-regular earned 2026-09-29-park-laps.gpx",
        ].sorted { $0 < $1 }.sorted { a, b in
            // The output's order: by date, then badge.
            let da = a.split(separator: " ")[2], db = b.split(separator: " ")[2]
            return da == db ? a < b : da < db
        })
    }

    func testExplainNamesTheEffortsAndGates() throws {
        let result = try CLI.run(["explain", "park-corner-record", "runs/", "--rules", "rules/places", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("effort 1: 5:35 (6:16/km), the first"), result.stdout)
        XCTAssertTrue(result.stdout.contains("    measure park: segment of 889 m, 2 efforts on 2026-08-06-park-laps.gpx"), result.stdout)
        XCTAssertTrue(result.stdout.contains("      effort 1: 5:35 (6:16/km), start gate 52.35999, 4.86700 at 4:11, end gate 52.35750, 4.87604 at 9:46  best"), result.stdout)
    }

    func testTheReportDrawsSegmentsEffortsAndTiles() throws {
        let folder = try TemporaryFolder()
        let output = folder.path + "/report.html"
        let result = try CLI.run(["report", "runs/", "--rules", "rules/places", "--rules", "rules/explorer", "--no-cache", "--tz", "UTC", "-o", output])
        XCTAssertEqual(result.status, 0, result.stderr)
        let html = try String(contentsOfFile: output, encoding: .utf8)
        // The segment over the route of each of the four runs that passed it, and their eleven efforts.
        XCTAssertEqual(html.components(separatedBy: "<g class=\"segment\" data-segment=\"places.park\">").count - 1, 4)
        XCTAssertEqual(html.components(separatedBy: "<li class=\"effort\"").count - 1, 11)
        XCTAssertTrue(html.contains("places.park · effort 1: 5:35 (6:16/km) · gates at 4:11 and 9:46"), "the first effort")
        let tiles = try XCTUnwrap(html.range(of: #"<svg class="tiles"[^>]*data-tiles="(\d+)""#, options: .regularExpression))
        let count = Int(html[tiles].split(separator: "\"").last ?? "") ?? 0
        XCTAssertEqual(html.components(separatedBy: "<rect class=\"tile").count - 1, count)
        XCTAssertGreaterThan(count, 10)
    }

    func testTheSegmentFilesBytesAreInTheCacheKey() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: CLI.repository.appendingPathComponent("rules/places").path, toPath: folder.path + "/places")
        let arguments = ["evaluate", "runs/", "--rules", folder.path + "/places", "--format", "json", "--cache", folder.path + "/cache.sqlite", "--tz", "UTC"]
        let cold = try CLI.run(arguments)
        XCTAssertEqual(try awards(cold.stdout).filter { $0["badge"] as? String == "park-corner-record" }.count, 3)
        // The same segment drawn the other way round: no run passes it in that direction.
        let file = folder.path + "/places/segments/park-loop.gpx"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let points = lines.filter { $0.contains("<rtept") }
        var reversed = lines.filter { !$0.contains("<rtept") && !$0.contains("</rte>") && !$0.contains("</gpx>") }
        reversed += points.reversed() + ["  </rte>", "</gpx>", ""]
        try reversed.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let warm = try CLI.run(arguments)
        XCTAssertEqual(warm.status, 0, warm.stderr)
        XCTAssertEqual(try awards(warm.stdout).filter { $0["badge"] as? String == "park-corner-record" }.count, 0)
    }

    func testUnusableSegmentFilesAreClearErrors() throws {
        let folder = try TemporaryFolder()
        func pack(_ measure: String) throws -> String {
            try folder.write("p/pack.lua", """
                return { name = "p", version = "1.0.0", measures = {
                  seg = \(measure),
                } }
                """)
            let result = try CLI.run(["evaluate", "runs/", "--rules", folder.path + "/p", "--no-cache"])
            XCTAssertNotEqual(result.status, 0)
            return result.stderr
        }
        XCTAssertTrue(try pack(#"{ kind = "segment", file = "segments/none.gpx" }"#).contains("p/pack.lua:2: pack 'p': measure 'seg': no segment file \(folder.path)/p/segments/none.gpx"))
        XCTAssertTrue(try pack(#"{ kind = "segment", file = "../runs/x.gpx" }"#).contains("file must be a path inside the pack's segments folder"))
        try folder.write("p/segments/one.gpx", #"<gpx><rte><rtept lat="52" lon="5"/></rte></gpx>"#)
        XCTAssertTrue(try pack(#"{ kind = "segment", file = "segments/one.gpx" }"#).contains("a segment needs at least two distinct points"))
        try folder.write("p/segments/bad.gpx", #"<gpx><rte><rtept lat="52" lon="5"/><rtept lat="north" lon="5"/></rte></gpx>"#)
        XCTAssertTrue(try pack(#"{ kind = "segment", file = "segments/bad.gpx" }"#).contains("route point 2 has no readable lat and lon"))
        XCTAssertTrue(try pack(#"{ kind = "tiles", zoom = 30 }"#).contains("zoom must be at most 20"))
        XCTAssertTrue(try pack(#"{ kind = "place", lat = 52, lon = 5 }"#).contains("a place needs lat, lon (degrees) and radius_m (metres)"))
        // Issue S: a folder or a FIFO where the file should be says what it is (it said "no segment file");
        // a parameter of math.huge or 0/0 says it is not finite (it said "must be a number ..., got number").
        try FileManager.default.createDirectory(atPath: folder.path + "/p/segments/loop.gpx", withIntermediateDirectories: true)
        XCTAssertTrue(try pack(#"{ kind = "segment", file = "segments/loop.gpx" }"#)
            .contains("measure 'seg': \(folder.path)/p/segments/loop.gpx is a folder, not a segment file"))
        XCTAssertEqual(mkfifo(folder.path + "/p/segments/pipe.gpx", 0o644), 0)
        XCTAssertTrue(try pack(#"{ kind = "segment", file = "segments/pipe.gpx" }"#)
            .contains("measure 'seg': \(folder.path)/p/segments/pipe.gpx is a named pipe (FIFO), not a segment file"))
        XCTAssertTrue(try pack(#"{ kind = "place", lat = 52, lon = 5, radius_m = math.huge }"#)
            .contains("measure 'seg': 'radius_m' must be a finite number (how near counts as passing, metres), got inf"))
        XCTAssertTrue(try pack(#"{ kind = "tiles", zoom = 1/0 }"#).contains("'zoom' must be a finite number"))
    }

    /// Issue S: a 6.6 km run along the equator from 179.97°E across 180° (written as GPX by the fixtures'
    /// generator) gets its effort on a segment from (0, 179.99) to (0, -179.99), which is 2.2 km long
    /// (it measured 40,028 km and the run got no effort), and at zooms 3, 5 and 9 the tiles at the two
    /// edges of the equator's row (it got the whole row), as at zoom 14.
    func testARunAcrossTheAntimeridianGetsItsEffortAndTiles() throws {
        let folder = try TemporaryFolder()
        var generator = RunGenerator(seed: 7, distanceMeters: 6600, paceSecondsPerKilometre: 300)
        generator.route = [.init(latitude: 0, longitude: 179.97), .init(latitude: 0, longitude: -179.97)]
        generator.gpsNoiseMeters = 0
        generator.paceVariation = 0
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        try generator.writeGPX(to: folder.path + "/runs/dateline.gpx")
        try folder.write("dateline/segments/dateline.gpx", """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test"><rte><rtept lat="0" lon="179.99"/><rtept lat="0" lon="-179.99"/></rte></gpx>
            """)
        try folder.write("dateline/pack.lua", """
            return { name = "dateline", version = "1.0.0",
              measures = {
                line = { kind = "segment", file = "segments/dateline.gpx", tolerance_m = 25 },
                z3 = { kind = "tiles", zoom = 3 }, z5 = { kind = "tiles", zoom = 5 },
                z9 = { kind = "tiles", zoom = 9 }, z14 = { kind = "tiles", zoom = 14 },
              },
              badges = { { id = "dateline", name = "Dateline", information = "Across 180°." } } }
            """)
        try folder.write("dateline/crossing.lua", """
            local function keys(measure)
              local out = {}
              for _, key in ipairs(measure.tiles) do out[#out + 1] = ("%d:%d"):format(key // 16777216, key % 16777216) end
              return table.concat(out, " ")
            end
            return { id = "crossing", badge = "dateline",
              earned = function(run)
                local line = run.measures.line
                if line == nil or line.count == 0 then return false end
                return { evidence = { efforts = line.count, length_m = line.length_m, elapsed_s = line.best_elapsed_s,
                                      z3 = keys(run.measures.z3), z5 = keys(run.measures.z5),
                                      z9 = keys(run.measures.z9), z14 = keys(run.measures.z14) } }
              end }
            """)
        let result = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/dateline", "--format", "json", "--no-cache", "--tz", "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let award = try XCTUnwrap(try awards(result.stdout).first, result.stdout)
        let evidence = try XCTUnwrap(award["evidence"] as? [String: Any], "\(award)")
        XCTAssertEqual(evidence["efforts"] as? Int, 1)
        XCTAssertEqual(try XCTUnwrap(evidence["length_m"] as? Double), 2223.9, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(evidence["elapsed_s"] as? Double), 0.02 * Geodesy.equatorialRadius * Double.pi / 180 * 0.3, accuracy: 0.5)
        // The equator's row is y = 2^z / 2; the columns from the formula x = (lon + 180) / 360 · 2^z, from
        // 179.97° (the start) to the last point's longitude.
        let track = generator.track()
        let (west, east) = (try XCTUnwrap(track.longitudes.first), try XCTUnwrap(track.longitudes.last))
        XCTAssertLessThan(east, -179.9)
        for zoom in [3, 5, 9, 14] {
            let n = 1 << zoom
            let columns = Array(Int((west + 180) / 360 * Double(n))..<n) + Array(0...Int((east + 180) / 360 * Double(n)))
            XCTAssertEqual(evidence["z\(zoom)"] as? String, columns.sorted().map { "\($0):\(n / 2)" }.joined(separator: " "), "zoom \(zoom)")
        }
        XCTAssertEqual(evidence["z3"] as? String, "0:4 7:4")
    }

    func testMaxSquareIsChargedToTheInstructionBudget() throws {
        let folder = try TemporaryFolder()
        try folder.write("p/pack.lua", """
            return { name = "p", version = "1.0.0", badges = { { id = "x", name = "X", information = "x" } } }
            """)
        // 40,000 tiles built once, then squared again and again: the C work is charged, so the call stops.
        try folder.write("p/square.lua", """
            return { id = "square", title = "square", badge = "x",
              init = function() local s = {} for i = 1, 40000 do s[(i % 200) * 16777216 + i // 200] = true end return { s = s } end,
              on_run = function(state, run, award)
                for _ = 1, 1000000 do badgectl.max_square(state.s) end
              end }
            """)
        let result = try CLI.run(["evaluate", "runs/", "--rules", folder.path + "/p", "--no-cache", "--format", "json"])
        XCTAssertTrue(result.stdout.contains("instruction budget exhausted") || result.stderr.contains("instruction budget exhausted"), result.stdout + result.stderr)
        XCTAssertTrue((result.stdout + result.stderr).contains("badgectl.max_square"), result.stdout + result.stderr)
    }
}
