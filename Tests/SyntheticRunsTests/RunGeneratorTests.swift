@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
import XCTest

final class RunGeneratorTests: XCTestCase {
    func testSameSeedGivesIdenticalBytes() {
        let a = RunGenerator(seed: 99, distanceMeters: 2000).gpxBytes()
        let b = RunGenerator(seed: 99, distanceMeters: 2000).gpxBytes()
        let c = RunGenerator(seed: 100, distanceMeters: 2000).gpxBytes()
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertGreaterThan(a.count, 600 * 300, "~660 points of ~400 bytes in Garmin Connect style")
    }

    func testGarminStyleRoundTrip() throws {
        var g = RunGenerator(seed: 3, distanceMeters: 3000)
        g.pauseCount = 2
        g.pauseStyle = .newSegment
        let generated = g.track()
        let read = try GPXReader.read(bytes: g.gpxBytes(), source: "gen.gpx")
        assertSame(read, generated, positionTolerance: 1e-12)
        XCTAssertEqual(read.segmentStarts.count, 3)
        XCTAssertEqual(read.name, "Morning Run")
        XCTAssertEqual(read.sport, "running")
        XCTAssertNil(read.utcOffsetSeconds)
    }

    func testCompactStyleWithOffsetRoundTrip() throws {
        var g = RunGenerator(seed: 4, distanceMeters: 1500, paceSecondsPerKilometre: 300)
        g.style = .compact
        g.utcOffsetSeconds = -4 * 3600
        g.sampling = .smart(minSeconds: 1, maxSeconds: 8)
        g.heartRate = false
        let text = g.gpx()
        XCTAssertTrue(text.contains("-04:00</time>"))
        XCTAssertFalse(text.contains("<gpxtpx:hr>"))
        let read = try GPXReader.read(bytes: Array(text.utf8), source: "gen.gpx")
        assertSame(read, g.track(), positionTolerance: 0)
        XCTAssertEqual(read.utcOffsetSeconds, -4 * 3600)
        let steps = zip(read.times.dropFirst(), read.times).map { $0 - $1 }
        XCTAssertTrue(steps.dropLast().allSatisfy { $0 >= 1 && $0 <= 8 }, "smart recording steps within bounds")
        XCTAssertTrue((0...8).contains(steps.last ?? -1), "the last step ends at the target distance")
        XCTAssertGreaterThan(Set(steps).count, 3, "irregular steps")
    }

    func assertSame(_ a: Track, _ b: Track, positionTolerance: Double, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        guard a.count == b.count else { return }
        for i in 0..<a.count {
            XCTAssertEqual(a.latitudes[i], b.latitudes[i], accuracy: positionTolerance, file: file, line: line)
            XCTAssertEqual(a.longitudes[i], b.longitudes[i], accuracy: positionTolerance, file: file, line: line)
            XCTAssertEqual(a.elevations[i], b.elevations[i], accuracy: 1e-9, file: file, line: line)
            XCTAssertEqual(a.times[i], b.times[i], file: file, line: line)
            XCTAssertEqual(a.heartRate(at: i).bitPattern, b.heartRate(at: i).bitPattern, file: file, line: line)
            XCTAssertEqual(a.cadence(at: i).bitPattern, b.cadence(at: i).bitPattern, file: file, line: line)
        }
        XCTAssertEqual(a.segmentStarts, b.segmentStarts, file: file, line: line)
    }

    func testDistanceAndDurationAreNearTheTarget() {
        for (seed, target, pace) in [(1 as UInt64, 5000.0, 330.0), (2, 10_000, 280), (3, 21_097.5, 360), (4, 800, 240)] {
            let g = RunGenerator(seed: seed, distanceMeters: target, paceSecondsPerKilometre: pace)
            let summary = RunAnalyzer().summarize(g.track(), id: "g")
            XCTAssertEqual(summary.distanceMeters, target, accuracy: target * 0.03, "seed \(seed)")
            let elapsed = summary.elapsedSeconds ?? 0
            XCTAssertEqual(elapsed, target / 1000 * pace, accuracy: target / 1000 * pace * 0.03, "seed \(seed)")
            XCTAssertTrue(summary.dropped.isEmpty, "a realistic run has no teleports: \(summary.dropped)")
        }
    }

    func testRouteWanders() {
        let t = RunGenerator(seed: 5, distanceMeters: 5000).track()
        // Straight-line distance start → end is well below the path length (it turns).
        let n = t.count - 1
        let crow = Geodesy.distance(lat1: t.latitudes[0], lon1: t.longitudes[0], lat2: t.latitudes[n], lon2: t.longitudes[n])
        XCTAssertLessThan(crow, 4500)
        let hr = t.heartRates.filter(\.isFinite)
        XCTAssertEqual(hr.count, t.count)
        XCTAssertTrue((90...190).contains(hr.max() ?? 0))
    }

    func testPausesAsTimeGapsAndStanding() {
        var g = RunGenerator(seed: 6, distanceMeters: 3000, paceSecondsPerKilometre: 300)
        g.pauseCount = 2
        g.pauseSeconds = 120
        g.pauseStyle = .timeGap
        let gap = RunAnalyzer().summarize(g.track(), id: "g")
        // Pace wanders ±3% around 300 s/km: 900 s of running ± 27 s, plus exactly 240 s of pauses.
        let elapsed = gap.elapsedSeconds ?? 0
        XCTAssertEqual(elapsed, 900 + 240, accuracy: 27)
        XCTAssertEqual(gap.timerSeconds ?? 0, elapsed, accuracy: 1e-9, "one segment: the gaps stay in timer time")
        // Each gap is one 121 s step (1 s of running + 120 s stopped), longer than
        // RunAnalyzer.movingMaxStep, so moving time leaves out 2 × 121 s.
        XCTAssertEqual(gap.movingSeconds ?? 0, elapsed - 242, accuracy: 1e-6)

        g.pauseStyle = .standing
        let standing = g.track()
        XCTAssertEqual(standing.segmentStarts, [0])
        XCTAssertGreaterThan(standing.count, 900 + 200, "points recorded while standing")
    }

    func testFastSection() {
        var g = RunGenerator(seed: 8, distanceMeters: 4000, paceSecondsPerKilometre: 360)
        g.fastSection = .init(startMeters: 1000, lengthMeters: 1000, paceSecondsPerKilometre: 240)
        let summary = RunAnalyzer().summarize(g.track(), id: "g")
        XCTAssertEqual(summary.elapsedSeconds ?? 0, 3 * 360 + 240, accuracy: 3 * 360 * 0.03)
    }

    func testTreadmillSummaryReadsBack() throws {
        var g = RunGenerator(seed: 9, distanceMeters: 6000, paceSecondsPerKilometre: 320)
        g.utcOffsetSeconds = 3600
        g.pauseCount = 1
        g.pauseSeconds = 90
        g.sport = "treadmill"
        g.name = "Treadmill \"tempo\""
        let json = g.summaryJSON()
        XCTAssertEqual(json, RunGenerator(seed: 9, distanceMeters: 6000, paceSecondsPerKilometre: 320).with {
            $0.utcOffsetSeconds = 3600; $0.pauseCount = 1; $0.pauseSeconds = 90; $0.sport = "treadmill"; $0.name = "Treadmill \"tempo\""
        }.summaryJSON())
        let s = try SummaryReader.read(data: Data(json.utf8), source: "t.json", id: "t.json", zoneOffsetSeconds: 0)
        XCTAssertEqual(s.distanceMeters, 6000)
        XCTAssertEqual(s.elapsedSeconds, 6 * 320 + 90)
        XCTAssertEqual(s.movingSeconds, 6 * 320)
        XCTAssertEqual(s.utcOffsetSeconds, 3600)
        XCTAssertEqual(s.start, "2024-05-01T06:30:00Z")
        XCTAssertEqual(s.name, "Treadmill \"tempo\"")
        XCTAssertEqual(s.sport, "running")
    }

    func testExactDecimalsMatchGarmin() {
        // Values from a Garmin Connect export: semicircle-exact coordinates, Float elevations.
        XCTAssertEqual(RunGenerator.exactSemicircleDecimal(41.16303957067430019378662109375), "41.16303957067430019378662109375")
        XCTAssertEqual(RunGenerator.exactSemicircleDecimal(-74.17961918748915195465087890625), "-74.17961918748915195465087890625")
        XCTAssertEqual(RunGenerator.exactFloatDecimal(147.2), "147.1999969482421875")
        XCTAssertEqual(RunGenerator.exactFloatDecimal(146.8), "146.8000030517578125")
        XCTAssertEqual(RunGenerator.exactFloatDecimal(-3), "-3.0")
        XCTAssertEqual(RunGenerator.fixed(-0.00000004, 7), "0.0000000")
        XCTAssertEqual(RunGenerator.fixed(4.89526, 4), "4.8953")
        XCTAssertEqual(RunGenerator.fixed(-12.5, 0), "-13")
    }
}

extension RunGenerator {
    func with(_ change: (inout RunGenerator) -> Void) -> RunGenerator {
        var copy = self
        change(&copy)
        return copy
    }
}

/// A generator given a route follows it, lap after lap, within its GPS noise.
final class RunGeneratorRouteTests: XCTestCase {
    func testARouteIsFollowedLapAfterLap() throws {
        // A 400 m by 300 m rectangle (1,400 m round), three laps.
        let north = 300 / (Geodesy.meanRadius * Double.pi / 180), east = 400 / (Geodesy.meanRadius * Double.pi / 180 * cos(52 * Double.pi / 180))
        let corners = [(52.0, 5.0), (52.0 + north, 5.0), (52.0 + north, 5.0 + east), (52.0, 5.0 + east)]
        var generator = RunGenerator(seed: 7, distanceMeters: 4200, paceSecondsPerKilometre: 300)
        generator.route = corners.map { RunGenerator.Waypoint(latitude: $0.0, longitude: $0.1) }
        let track = generator.track()
        let path = try XCTUnwrap(SegmentPath(latitudes: corners.map(\.0) + [52.0], longitudes: corners.map(\.1) + [5.0]))
        var farthest = 0.0, nearStart = 0, wasNear = true
        for i in 0..<track.count {
            let p = path.plane(latitude: track.latitudes[i], longitude: track.longitudes[i])
            // Distance to the rectangle's outline.
            let dx = max(0, max(-p.x, p.x - 400)), dy = max(0, max(-p.y, p.y - 300))
            let inside = min(abs(p.x), abs(p.x - 400), abs(p.y), abs(p.y - 300))
            farthest = max(farthest, dx > 0 || dy > 0 ? (dx * dx + dy * dy).squareRoot() : inside)
            let near = (p.x * p.x + p.y * p.y).squareRoot() < 20
            if near && !wasNear { nearStart += 1 }
            wasNear = near
        }
        XCTAssertLessThan(farthest, 10, "within the GPS noise of the route")
        XCTAssertEqual(nearStart, 3, "back at the start after each of three laps")
        let distance = RunAnalyzer().summarize(track, id: "laps").distanceMeters
        XCTAssertEqual(distance, 4200, accuracy: 4200 * 0.03)
    }
}

final class RunGeneratorJSONTests: XCTestCase {
    /// A control character in a name is a `\u` escape in hex: U+001B is `\u001b`, not `\u0027`
    /// (which is an apostrophe), so the summary reads back with the name it was written with.
    func testSummaryNameWithControlCharactersReadsBack() throws {
        var g = RunGenerator(seed: 12, distanceMeters: 2000)
        g.name = "Escape \u{1B}[1m bold \u{1F} \u{8}\u{C} \"quoted\" \\ end"
        let json = g.summaryJSON()
        XCTAssertTrue(json.contains("\\u001b"), json)
        XCTAssertFalse(json.contains("\\u0027"), json)
        guard case .object(let fields) = try JSONText.parse(Array(json.utf8), source: "summary") else {
            return XCTFail("not an object: \(json)")
        }
        XCTAssertEqual(fields["name"], .string("Escape \u{1B}[1m bold \u{1F} \u{8}\u{C} \"quoted\" \\ end"))
    }
}
