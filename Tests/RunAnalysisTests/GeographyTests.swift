@testable import RunAnalysis
@testable import RunFiles
import SyntheticRuns
import XCTest

/// The place, segment and tiles measures on runs built in a local plane (metres east and north of
/// 52°N 5°E, the same projection the segment matcher uses, so every gate time is worked out by hand),
/// and tiles against tile numbers computed by hand from the Web Mercator formulas.
final class GeographyTests: XCTestCase {
    static let origin = (latitude: 52.0, longitude: 5.0)
    static let metresPerDegreeLatitude = Geodesy.meanRadius * Double.pi / 180
    static let metresPerDegreeLongitude = metresPerDegreeLatitude * cos(52.0 * Double.pi / 180)

    static func degrees(_ east: Double, _ north: Double) -> (Double, Double) {
        (origin.latitude + north / metresPerDegreeLatitude, origin.longitude + east / metresPerDegreeLongitude)
    }

    /// A run along `vertices` (metres east, north), a point every `spacing` metres from the first vertex
    /// (and at the last), at `speed` m/s from t = 0; `skip` leaves out the points whose distance along
    /// falls in it (a GPS gap: the time goes on).
    static func run(_ vertices: [(Double, Double)], spacing: Double = 10, speed: Double = 5,
                    skip: ClosedRange<Double>? = nil, timed: Bool = true) -> Track {
        var track = Track(source: "plane")
        track.startSegment()
        var lengths = [0.0]
        for i in 1..<vertices.count {
            let dx = vertices[i].0 - vertices[i - 1].0, dy = vertices[i].1 - vertices[i - 1].1
            lengths.append(lengths[i - 1] + (dx * dx + dy * dy).squareRoot())
        }
        let total = lengths.last ?? 0
        var distances = Array(stride(from: 0.0, to: total, by: spacing))
        distances.append(total)
        var piece = 1
        for d in distances {
            if let skip, skip.contains(d) { continue }
            while piece < vertices.count - 1, lengths[piece] < d { piece += 1 }
            let f = (d - lengths[piece - 1]) / max(1e-9, lengths[piece] - lengths[piece - 1])
            let east = vertices[piece - 1].0 + f * (vertices[piece].0 - vertices[piece - 1].0)
            let north = vertices[piece - 1].1 + f * (vertices[piece].1 - vertices[piece - 1].1)
            let (lat, lon) = degrees(east, north)
            track.append(latitude: lat, longitude: lon, time: timed ? 1_700_000_000 + d / speed : .nan)
        }
        return track
    }

    static func segment(_ vertices: [(Double, Double)], tolerance: Double = 25) -> MeasureDefinition {
        let points = vertices.map { degrees($0.0, $0.1) }
        var definition = MeasureDefinition(kind: "segment", parameters: ["file": .text("segments/test.gpx"), "tolerance_m": .number(tolerance)])
        definition.path = SegmentPath(latitudes: points.map(\.0), longitudes: points.map(\.1), tolerance: tolerance)
        return definition
    }

    static func measure(_ track: Track, _ definition: MeasureDefinition) -> MeasureValue? {
        RunAnalyzer(measures: [definition]).summarize(track, id: "t").measures[definition.key]
    }

    /// The efforts of a segment value as (start, end, elapsed, pace).
    static func efforts(_ value: MeasureValue?) -> [[String: Double]] {
        guard case .list(let list)? = value?["efforts"] else { return [] }
        return list.compactMap { item in
            guard case .record(let fields) = item else { return nil }
            return fields.compactMapValues(\.number)
        }
    }

    // An L: 400 m east, then 300 m north (700 m).
    let ell = GeographyTests.segment([(0, 0), (400, 0), (400, 300)])

    func testAFullPassIsTimedAtTheGates() throws {
        // From 105 m before the start gate (points at -5 and 5 m around it) to 100 m past the end, at 5 m/s.
        let value = Self.measure(Self.run([(-105, 0), (400, 0), (400, 400)]), ell)
        XCTAssertEqual(value?["count"], .integer(1))
        let effort = try XCTUnwrap(Self.efforts(value).first)
        XCTAssertEqual(effort["start_elapsed_s"] ?? .nan, 21, accuracy: 1e-6)   // 105 m at 5 m/s
        XCTAssertEqual(effort["end_elapsed_s"] ?? .nan, 161, accuracy: 1e-6)    // 805 m
        XCTAssertEqual(effort["elapsed_s"] ?? .nan, 140, accuracy: 1e-6)
        XCTAssertEqual(effort["pace_s_per_km"] ?? .nan, 200, accuracy: 1e-3)    // 140 s over 700 m
        XCTAssertEqual(effort["distance_m"] ?? .nan, 700, accuracy: 1e-6)
        XCTAssertEqual(effort["start_lat"] ?? .nan, 52.0, accuracy: 1e-7)
        XCTAssertEqual(value?["best"], .integer(1))
        // 20 m to the side all the way is within 25 m; 30 m is not.
        XCTAssertEqual(Self.measure(Self.run([(-105, 20), (380, 20), (380, 400)]), ell)?["count"], .integer(1))
        XCTAssertEqual(Self.measure(Self.run([(-105, 30), (370, 30), (370, 400)]), ell)?["count"], .integer(0))
    }

    func testTheReverseDirectionIsNoPass() {
        let value = Self.measure(Self.run([(400, 400), (400, 0), (-105, 0)]), ell)
        XCTAssertEqual(value?["count"], .integer(0))
        XCTAssertEqual(Self.efforts(value).count, 0)
    }

    func testPartialPassesCountNothing() {
        // Through the start gate, then straight on east at the corner: it leaves the path.
        XCTAssertEqual(Self.measure(Self.run([(-105, 0), (800, 0)]), ell)?["count"], .integer(0))
        // Joins halfway: never through the start gate.
        XCTAssertEqual(Self.measure(Self.run([(200, -100), (200, 0), (400, 0), (400, 400)]), ell)?["count"], .integer(0))
        // Starts, leaves the path for a detour of 100 m to the south and comes back: dropped.
        XCTAssertEqual(Self.measure(Self.run([(-105, 0), (200, 0), (200, -100), (250, -100), (250, 0), (400, 0), (400, 400)]), ell)?["count"], .integer(0))
        // Crosses the start gate, turns back and starts again: one effort, timed from the second start.
        let restarted = Self.measure(Self.run([(-105, 0), (50, 0), (50, 5), (-20, 5), (-20, 0), (400, 0), (400, 400)]), ell)
        XCTAssertEqual(restarted?["count"], .integer(1))
        // 105 + 50 + 5 + 70 + 5 + 20 = 255 m to the second crossing (x = 0 on the way back east): 51 s.
        XCTAssertEqual(Self.efforts(restarted).first?["start_elapsed_s"] ?? .nan, 51, accuracy: 1e-6)
    }

    func testAGPSGapAtAGateIsInterpolatedOnAStraightButNotAcrossACorner() throws {
        // No fix from 50 m before the start gate to 60 m after it (at 5 m/s): the gate time is interpolated.
        let gap = Self.measure(Self.run([(-105, 0), (400, 0), (400, 400)], skip: 56...164), ell)
        let effort = try XCTUnwrap(Self.efforts(gap).first)
        XCTAssertEqual(effort["start_elapsed_s"] ?? .nan, 21, accuracy: 1e-6)
        XCTAssertEqual(effort["elapsed_s"] ?? .nan, 140, accuracy: 1e-6)
        // A gap at the end gate, the same.
        let endGap = Self.measure(Self.run([(-105, 0), (400, 0), (400, 400)], skip: 760...860), ell)
        XCTAssertEqual(Self.efforts(endGap).first?["end_elapsed_s"] ?? .nan, 161, accuracy: 1e-6)
        // A gap across the corner: the straight line between the fixes cuts it by more than 25 m.
        let corner = Self.measure(Self.run([(-105, 0), (400, 0), (400, 400)], skip: 420...590), ell)
        XCTAssertEqual(corner?["count"], .integer(0))
    }

    func testALoopPassedTwiceGivesTwoEfforts() {
        // A loop segment whose start and end gates are one line, at (0, 0) going east: 800 m around.
        let loop = Self.segment([(0, 0), (100, 0), (100, 200), (-100, 200), (-100, 0), (0, 0)])
        let laps: [(Double, Double)] = [(-45, 0), (100, 0), (100, 200), (-100, 200), (-100, 0), (100, 0), (100, 200), (-100, 200), (-100, 0), (50, 0)]
        let value = Self.measure(Self.run(laps), loop)
        XCTAssertEqual(value?["count"], .integer(2))
        let efforts = Self.efforts(value)
        // Gate crossings at 45, 845 and 1645 m: 9 s, 169 s, 329 s.
        XCTAssertEqual(efforts.map { (($0["start_elapsed_s"] ?? .nan) * 1e6).rounded() / 1e6 }, [9, 169])
        XCTAssertEqual(efforts.map { (($0["end_elapsed_s"] ?? .nan) * 1e6).rounded() / 1e6 }, [169, 329])
        for effort in efforts { XCTAssertEqual(effort["pace_s_per_km"] ?? .nan, 200, accuracy: 1e-6) }
        // A run that stops after one and a half laps: one effort.
        XCTAssertEqual(Self.measure(Self.run(Array(laps.prefix(7))), loop)?["count"], .integer(1))
    }

    func testASegmentLongerThanALapIsPassedFromEachLapsStart() {
        // One and a half laps of the 800 m loop (1,200 m); a run of three laps from 45 m before the gate
        // passes it from the first lap's start (45 to 1,245 m) and from the second's (845 to 2,045 m); the
        // third would need 400 m more.
        let square: [(Double, Double)] = [(100, 0), (100, 200), (-100, 200), (-100, 0)]
        let segment = Self.segment([(0, 0)] + square + [(0, 0)] + square.prefix(2) + [(0, 200)])
        let run = Self.run([(-45, 0)] + square + square + square + [(50, 0)])
        let value = Self.measure(run, segment)
        XCTAssertEqual(value?["count"], .integer(2))
        XCTAssertEqual(Self.efforts(value).map { (($0["start_elapsed_s"] ?? .nan) * 1e6).rounded() / 1e6 }, [9, 169])
        XCTAssertEqual(Self.efforts(value).map { (($0["end_elapsed_s"] ?? .nan) * 1e6).rounded() / 1e6 }, [249, 409])
    }

    func testARunOutsideTheBoxAndAnUntimedRun() {
        let far = Self.run([(50_000, 50_000), (51_000, 50_000)])
        XCTAssertNil(Self.measure(far, ell), "a run outside the segment's box: nil, nothing matched")
        let untimed = Self.measure(Self.run([(-105, 0), (400, 0), (400, 400)], timed: false), ell)
        XCTAssertEqual(untimed?["count"], .integer(1))
        XCTAssertNil(Self.efforts(untimed).first?["elapsed_s"], "no times: a pass without elapsed")
    }

    // MARK: Places

    func testAPlaceIsPassedAtTheInterpolatedTime() throws {
        let place = MeasureDefinition(kind: "place", parameters: ["lat": .number(52.0), "lon": .number(Self.degrees(200, 0).1), "radius_m": .number(30)])
        let value = Self.measure(Self.run([(-105, 0), (400, 0), (400, 400)]), place)
        XCTAssertEqual(value?["passed"], .boolean(true))
        XCTAssertEqual(value?["visits"], .integer(1))
        XCTAssertEqual(value?["first_elapsed_s"]?.number ?? .nan, (105 + 170) / 5, accuracy: 1e-3)
        XCTAssertEqual(value?["last_elapsed_s"]?.number ?? .nan, (105 + 230) / 5, accuracy: 1e-3)
        XCTAssertEqual(value?["closest_m"]?.number ?? .nan, 0, accuracy: 0.01)
        // Out and back: two visits; jitter at the edge (in, 1 m out, in again): still one.
        let twice = Self.measure(Self.run([(-105, 0), (400, 0), (-105, 0)]), place)
        XCTAssertEqual(twice?["visits"], .integer(2))
        let jitter = Self.measure(Self.run([(170, 100), (170, 0), (180, -1), (182, 31), (184, 0), (185, -100)], spacing: 1), place)
        XCTAssertEqual(jitter?["visits"], .integer(1))
        // Two fixes 400 m apart on either side: the straight step passes through.
        let sparse = Self.measure(Self.run([(0, 0), (400, 0)], spacing: 400, speed: 4), place)
        XCTAssertEqual(sparse?["passed"], .boolean(true))
        XCTAssertEqual(sparse?["first_elapsed_s"]?.number ?? .nan, 170 / 4, accuracy: 1e-3)
        // Missed by 50 m.
        let missed = Self.measure(Self.run([(-105, 80), (400, 80)]), place)
        XCTAssertEqual(missed?["passed"], .boolean(false))
        XCTAssertEqual(missed?["visits"], .integer(0))
        XCTAssertNil(missed?["first_elapsed_s"])
        XCTAssertEqual(missed?["closest_m"]?.number ?? .nan, 80, accuracy: 0.1)
    }

    // MARK: Tiles

    /// Tile numbers worked out from x = (lon + 180) / 360 · 2^z, y = (1 − asinh(tan φ) / π) / 2 · 2^z.
    func testTileNumbersAgainstTheFormula() {
        // Amsterdam's Dam square at z14: x = 184.8952 / 360 · 16384 = 8414.79, y = 5384.40.
        XCTAssertTrue(Tiles.tile(latitude: 52.3702, longitude: 4.8952, zoom: 14) == (8414, 5384))
        // 52°N 4°E: x = 184 / 360 · 16384 = 8374.04; y = 5411.
        XCTAssertTrue(Tiles.tile(latitude: 52.0, longitude: 4.0, zoom: 14) == (8374, 5411))
        // Sydney Opera House and the Statue of Liberty.
        XCTAssertTrue(Tiles.tile(latitude: -33.8568, longitude: 151.2153, zoom: 14) == (15073, 9831))
        XCTAssertTrue(Tiles.tile(latitude: 40.6892, longitude: -74.0445, zoom: 14) == (4822, 6161))
        // Zoom 1: four tiles, (0°, 0°) on the corner of (1, 1); beyond 85.05°N the map's top row.
        XCTAssertTrue(Tiles.tile(latitude: 0, longitude: 0, zoom: 1) == (1, 1))
        XCTAssertTrue(Tiles.tile(latitude: 89, longitude: 179.9999, zoom: 2) == (3, 0))
    }

    func testALongStraightStepCrossesEveryTileBetween() throws {
        // One step east along 52°N from 4.0° to 4.2° (13.7 km, an hour's gap): x 8374 ... 8383 at y 5411.
        var track = Track(source: "step")
        track.append(latitude: 52.0, longitude: 4.0, time: 0)
        track.append(latitude: 52.0, longitude: 4.2, time: 3600)
        let tiles = MeasureDefinition(kind: "tiles", parameters: ["zoom": .number(14)])
        let value = Self.measure(track, tiles)
        XCTAssertEqual(value?["count"], .integer(10))
        XCTAssertEqual(value?["tiles"], .list((8374...8383).map { .integer(Tiles.key(x: $0, y: 5411)) }))
        // A diagonal step from 52.00°N 4.00°E to 52.06°N 4.05°E: the tiles a line through the Mercator
        // plane crosses, worked out by hand (x from 8374.04 to 8376.31, y from 5411.88 to 5407.44).
        var diagonal = Track(source: "diagonal")
        diagonal.append(latitude: 52.0, longitude: 4.0, time: 0)
        diagonal.append(latitude: 52.06, longitude: 4.05, time: 3600)
        let expected = [(8374, 5411), (8374, 5410), (8375, 5410), (8375, 5409), (8375, 5408), (8376, 5408), (8376, 5407)]
        XCTAssertEqual(Self.measure(diagonal, tiles)?["tiles"], .list(expected.map { Tiles.key(x: $0.0, y: $0.1) }.sorted().map { .integer($0) }))
        // Two track segments (a paused recording): no tiles between them.
        var paused = Track(source: "paused")
        paused.startSegment()
        paused.append(latitude: 52.0, longitude: 4.0, time: 0)
        paused.startSegment()
        paused.append(latitude: 52.0, longitude: 4.2, time: 3600)
        XCTAssertEqual(Self.measure(paused, tiles)?["count"], .integer(2))
    }

    /// Beyond Web Mercator's limit (85.0511°) there are no tiles: a run circling at 89.9999°N has none
    /// (clamped into the top row, its short steps crossed 16,221 tiles and earned the explorer pack's
    /// badges), and a step that leaves the map adds only the tiles of its fixes on the map.
    func testNoTilesBeyondTheMercatorLimit() {
        let tiles = MeasureDefinition(kind: "tiles", parameters: ["zoom": .number(14)])
        var polar = Track(source: "pole")
        for i in 0..<60 {
            let angle = Double(i) / 60 * 2 * Double.pi
            polar.append(latitude: 89.9999 + 0.00005 * sin(angle), longitude: 180 * cos(angle), time: Double(i))
        }
        XCTAssertNil(Self.measure(polar, tiles))
        var leaving = Track(source: "leaving")
        leaving.append(latitude: 85.0, longitude: 10.0, time: 0)
        leaving.append(latitude: 86.0, longitude: 10.0, time: 60)
        leaving.append(latitude: 85.0, longitude: 10.001, time: 120)
        let value = Self.measure(leaving, tiles)
        let expected = Set([Tiles.tile(latitude: 85.0, longitude: 10.0, zoom: 14), Tiles.tile(latitude: 85.0, longitude: 10.001, zoom: 14)]
            .map { Tiles.key(x: $0.0, y: $0.1) })
        XCTAssertEqual(value?["count"], .integer(expected.count))
    }

    func testTheTileBoxShortcutGivesWhatTheFormulasGive() {
        // Generated runs at zooms where they cross many tiles: the tiles from the shortcut (a point inside
        // the last tile's box is in that tile) equal the tiles from the formulas at every point.
        for (seed, zoom) in [(1, 14), (2, 16), (3, 17), (4, 18)] {
            var generator = RunGenerator(seed: UInt64(seed), distanceMeters: 8000, paceSecondsPerKilometre: 300)
            generator.sampling = .smart(minSeconds: 1, maxSeconds: 20)
            let track = generator.track()
            let positions = RunPositions(track: track, profile: RunAnalyzer.profile(of: track))
            var expected = Set<Int>()
            var previous = Tiles.coordinates(latitude: positions.latitudes[0], longitude: positions.longitudes[0], zoom: zoom)
            expected.insert(Tiles.key(x: Int(previous.x), y: Int(previous.y)))
            for k in 1..<positions.count {
                let c = Tiles.coordinates(latitude: positions.latitudes[k], longitude: positions.longitudes[k], zoom: zoom)
                Tiles.walk(from: previous, to: c, zoom: zoom) { expected.insert(Tiles.key(x: $0, y: $1)) }
                previous = c
            }
            let value = RunAnalyzer.tiles(zoom: zoom, positions: positions)
            XCTAssertEqual(value?["tiles"], .list(expected.sorted().map { .integer($0) }), "zoom \(zoom)")
            XCTAssertGreaterThan(expected.count, zoom >= 16 ? 20 : 2)
        }
    }

    // MARK: Across the antimeridian (issue S)

    /// A run along the equator from 179.97°E eastwards across 180° to 179.97°W (6.6 km), made by the
    /// fixtures' generator following a route at an even 5:00/km, without GPS noise.
    static func datelineRun() -> Track {
        var generator = RunGenerator(seed: 7, distanceMeters: 6600, paceSecondsPerKilometre: 300)
        generator.route = [.init(latitude: 0, longitude: 179.97), .init(latitude: 0, longitude: -179.97)]
        generator.gpsNoiseMeters = 0
        generator.paceVariation = 0
        return generator.track()
    }

    /// The tiles at `zoom` of the equator's row between two longitudes going east across 180°, from the
    /// formula x = (lon + 180) / 360 · 2^z (the row at 0° is y = 2^z / 2).
    static func datelineTiles(from west: Double, to east: Double, zoom: Int) -> [Int] {
        let n = 1 << zoom
        let first = Int((west + 180) / 360 * Double(n)), last = Int((east + 180) / 360 * Double(n))
        return (Array(first..<n) + Array(0...last)).map { Tiles.key(x: $0, y: n / 2) }.sorted()
    }

    func testASegmentAcrossTheAntimeridianIsItsShortWay() throws {
        // 0.02° of the equator: 2,224 m (it measured 40,028 km, the long way round).
        let path = try XCTUnwrap(SegmentPath(latitudes: [0, 0], longitudes: [179.99, -179.99]))
        XCTAssertEqual(path.length, 0.02 * Self.metresPerDegreeLatitude, accuracy: 0.01)
        XCTAssertEqual(path.length, 2223.9, accuracy: 0.1)
        // Its points are where the file has them (the report draws those); its gates are on the map.
        XCTAssertEqual(path.longitudes, [179.99, -179.99])
        XCTAssertEqual(path.degrees(x: path.x[1], y: path.y[1]).longitude, -179.99, accuracy: 1e-9)
        let box = path.box
        XCTAssertTrue(box.meets(south: -0.1, north: 0.1, west: -180, east: -179.9))
        XCTAssertTrue(box.meets(south: -0.1, north: 0.1, west: 179.9, east: 180))
        XCTAssertFalse(box.meets(south: -0.1, north: 0.1, west: -179.9, east: 179.9))
        // Drawn the other way (west across 180°) it is as long.
        XCTAssertEqual(try XCTUnwrap(SegmentPath(latitudes: [0, 0], longitudes: [-179.99, 179.99])).length, path.length, accuracy: 1e-6)
    }

    func testARunAcrossTheAntimeridianGetsItsEffortAndItsTiles() throws {
        let track = Self.datelineRun()
        let lons = track.longitudes
        XCTAssertEqual(try XCTUnwrap(lons.first), 179.97, accuracy: 1e-6)
        XCTAssertTrue(lons.contains { $0 < 0 } && lons.allSatisfy { $0 >= -180 && $0 < 180 })
        let segment = Self.segmentDefinition(latitudes: [0, 0], longitudes: [179.99, -179.99])
        let zooms = [3, 5, 9, 14]
        let tiles = zooms.map { MeasureDefinition(kind: "tiles", parameters: ["zoom": .number(Double($0))]) }
        let summary = RunAnalyzer(measures: [segment] + tiles).summarize(track, id: "dateline")
        XCTAssertEqual(summary.distanceMeters, 6600, accuracy: 10)
        // The segment: one pass of its 0.02° (2,226 m of the equator) at 5:00/km (the run measured 0 efforts).
        let value = try XCTUnwrap(summary.measures[segment.key])
        XCTAssertEqual(value["count"], .integer(1))
        let effort = try XCTUnwrap(Self.efforts(value).first)
        XCTAssertEqual(try XCTUnwrap(effort["elapsed_s"]), 0.02 * Geodesy.equatorialRadius * Double.pi / 180 * 0.3, accuracy: 0.5)
        XCTAssertEqual(try XCTUnwrap(effort["start_lon"]), 179.99, accuracy: 1e-4)
        XCTAssertEqual(try XCTUnwrap(effort["end_lon"]), -179.99, accuracy: 1e-4)
        // The tiles: the two edges of the equator's row at every zoom (zooms 3, 5 and 9 covered the whole row).
        let west = try XCTUnwrap(lons.first), east = try XCTUnwrap(lons.last)
        for (zoom, definition) in zip(zooms, tiles) {
            let expected = Self.datelineTiles(from: west, to: east, zoom: zoom)
            XCTAssertEqual(summary.measures[definition.key]?["tiles"], .list(expected.map { .integer($0) }), "zoom \(zoom)")
        }
        XCTAssertEqual(summary.measures[tiles[0].key]?["count"], .integer(2))
        // One step across (no points between the two edges): the same two tiles.
        var step = Track(source: "step")
        step.append(latitude: 0, longitude: 179.999, time: 0)
        step.append(latitude: 0, longitude: -179.999, time: 60)
        XCTAssertEqual(Self.measure(step, tiles[0])?["tiles"], .list([Tiles.key(x: 0, y: 4), Tiles.key(x: 7, y: 4)].map { .integer($0) }))
    }

    static func segmentDefinition(latitudes: [Double], longitudes: [Double], tolerance: Double = 25) -> MeasureDefinition {
        var definition = MeasureDefinition(kind: "segment", parameters: ["file": .text("segments/dateline.gpx"), "tolerance_m": .number(tolerance)])
        definition.path = SegmentPath(latitudes: latitudes, longitudes: longitudes, tolerance: tolerance)
        return definition
    }
}
