import BadgeReport
import Foundation
import RunAnalysis
import RunFiles
import XCTest

final class RouteTraceTests: XCTestCase {
    /// A straight 2 km line heading north-east, one point a second, with ±1 m of GPS noise.
    func straightLine(points: Int = 2000, noise sigma: Double = 1.0, repeatTimes: Bool = false) -> Track {
        var track = Track(source: "line.gpx")
        var noise = SyntheticRuns.Noise(seed: 7)
        let lat0 = 48.85, lon0 = 2.35
        let kx = SyntheticRuns.metresPerDegree * cos(lat0 * Double.pi / 180)
        for i in 0..<points {
            let s = Double(i)  // 1 m/s along the line… scaled below
            let along = s * 1.0
            let x = along * 0.6 + noise.normal(sigma), y = along * 0.8 + noise.normal(sigma)
            // With repeatTimes every timestamp appears twice (dt = 0 between the pair).
            let t = repeatTimes ? 1_700_000_000 + Double(i / 2) * 2 : 1_700_000_000 + Double(i) / 3
            track.append(latitude: lat0 + y / SyntheticRuns.metresPerDegree, longitude: lon0 + x / kx, time: t)
        }
        return track
    }

    func testDouglasPeuckerReducesNoisyStraightLineAndKeepsEnds() throws {
        let track = straightLine()
        let profile = RunAnalyzer.profile(of: track)
        let trace = try XCTUnwrap(RouteTrace.make(track: track, profile: profile, toleranceMeters: 4, colourStrideMeters: 0))
        XCTAssertLessThanOrEqual(trace.count, 8, "2,000 noisy points on a line should reduce to a handful")
        XCTAssertGreaterThanOrEqual(trace.count, 2)
        XCTAssertEqual(trace.latitudes.first ?? 0, track.latitudes[0], accuracy: 1e-6)
        XCTAssertEqual(trace.longitudes.first ?? 0, track.longitudes[0], accuracy: 1e-6)
        XCTAssertEqual(trace.latitudes.last ?? 0, track.latitudes[1999], accuracy: 1e-6)
        XCTAssertEqual(trace.longitudes.last ?? 0, track.longitudes[1999], accuracy: 1e-6)
        XCTAssertEqual(trace.segmentStarts, [0])
    }

    func testColourStrideKeepsAVertexEvery100Metres() throws {
        let track = straightLine(noise: 0)
        let profile = RunAnalyzer.profile(of: track)
        let trace = try XCTUnwrap(RouteTrace.make(track: track, profile: profile))
        // ~2,000 m long: a vertex at least every 100 m, and no more than a few extra.
        XCTAssertGreaterThanOrEqual(trace.count, 20)
        XCTAssertLessThanOrEqual(trace.count, 25)
        // Speed: 1 m per point, 3 points a second.
        for v in trace.speedsMetersPerSecond { XCTAssertEqual(v ?? 0, 3, accuracy: 0.01) }
    }

    func testVertexCapKeepsMostImportantPointsAndEnds() throws {
        // A zigzag: every point matters to Douglas–Peucker.
        var track = Track(source: "zigzag.gpx")
        for i in 0..<3000 {
            let y = Double(i) * 5, x = (i % 2 == 0 ? 0.0 : 40.0)
            track.append(latitude: 10 + y / SyntheticRuns.metresPerDegree, longitude: 20 + x / SyntheticRuns.metresPerDegree, time: Double(i) * 2)
        }
        let profile = RunAnalyzer.profile(of: track)
        let trace = try XCTUnwrap(RouteTrace.make(track: track, profile: profile, maxVertices: 50))
        XCTAssertEqual(trace.count, 50)
        XCTAssertEqual(trace.latitudes.first ?? 0, track.latitudes[0], accuracy: 1e-6)
        XCTAssertEqual(trace.latitudes.last ?? 0, track.latitudes[2999], accuracy: 1e-6)
        XCTAssertEqual(trace.speedsMetersPerSecond.count, 50)
    }

    func testSegmentsStaySeparate() throws {
        var track = straightLine(points: 600, noise: 0)
        // Second segment: a parallel line 200 m east.
        track.startSegment()
        for i in 0..<400 {
            track.append(latitude: 48.85 + Double(i) / SyntheticRuns.metresPerDegree, longitude: 2.36, time: 1_700_001_000 + Double(i))
        }
        let profile = RunAnalyzer.profile(of: track)
        let trace = try XCTUnwrap(RouteTrace.make(track: track, profile: profile, colourStrideMeters: 0))
        XCTAssertEqual(trace.segmentStarts.count, 2)
        XCTAssertEqual(trace.segmentRanges.map(\.count).reduce(0, +), trace.count)
        XCTAssertTrue(trace.segmentRanges.allSatisfy { $0.count >= 2 })
    }

    func testRepeatedTimestampsGiveFiniteSpeeds() throws {
        let track = straightLine(points: 1000, noise: 0, repeatTimes: true)
        let profile = RunAnalyzer.profile(of: track)
        let trace = try XCTUnwrap(RouteTrace.make(track: track, profile: profile))
        XCTAssertEqual(trace.speedsMetersPerSecond.count, trace.count)
        for v in trace.speedsMetersPerSecond {
            XCTAssertEqual(v ?? .nan, 1, accuracy: 0.01, "2 m per 2 s, whatever the repeated timestamps")
        }
    }

    func testTrackWithoutTimesHasNoSpeedsAndIndoorHasNoRoute() throws {
        var track = Track(source: "notime.gpx")
        for i in 0..<100 { track.append(latitude: 1 + Double(i) * 1e-4, longitude: 1) }
        let trace = try XCTUnwrap(RouteTrace.make(track: track, profile: RunAnalyzer.profile(of: track)))
        XCTAssertTrue(trace.speedsMetersPerSecond.isEmpty)
        var indoor = Track(source: "indoor.fit")
        indoor.hasPositions = false
        for i in 0..<10 { indoor.append(latitude: .nan, longitude: .nan, time: Double(i), deviceDistance: Double(i) * 3) }
        XCTAssertNil(RouteTrace.make(track: indoor, profile: RunAnalyzer.profile(of: indoor)))
        var single = Track(source: "one.gpx")
        single.append(latitude: 1, longitude: 1, time: 0)
        XCTAssertNil(RouteTrace.make(track: single, profile: RunAnalyzer.profile(of: single)))
    }

    func testSegmentWithoutTimesHasNoSpeedsOfItsOwn() throws {
        // First segment timed at 2 m/s, second without times: its vertices get nil, not 2 m/s.
        var track = Track(source: "mixed.gpx")
        for i in 0..<300 { track.append(latitude: 10 + Double(i) * 2 / SyntheticRuns.metresPerDegree, longitude: 20, time: Double(i)) }
        track.startSegment()
        for i in 0..<300 { track.append(latitude: 10 + Double(i) * 2 / SyntheticRuns.metresPerDegree, longitude: 20.01) }
        let trace = try XCTUnwrap(RouteTrace.make(track: track, profile: RunAnalyzer.profile(of: track)))
        XCTAssertEqual(trace.segmentStarts.count, 2)
        let second = trace.segmentStarts[1]
        XCTAssertTrue(trace.speedsMetersPerSecond[..<second].allSatisfy { abs(($0 ?? 0) - 2) < 0.05 }, "\(trace.speedsMetersPerSecond)")
        XCTAssertTrue(trace.speedsMetersPerSecond[second...].allSatisfy { $0 == nil })
        var run = RunSummary(id: "mixed.gpx", format: "gpx", distanceMeters: 1200)
        run.route = trace
        let html = try HTMLReport.render(ReportInput(title: "t", generatedAt: Date(timeIntervalSince1970: 0), badges: [], runs: [run]))
        XCTAssertTrue(html.contains("<path class=\"nospeed\" d=\"M"))
        XCTAssertTrue(html.contains("<path class=\"b8\" d=\"M"), "the timed segment at constant speed: middle colour")
        let json = try XCTUnwrap(String(data: try JSONEncoder().encode(trace), encoding: .utf8))
        XCTAssertTrue(json.contains(",null"))
        XCTAssertEqual(try JSONDecoder().decode(RouteTrace.self, from: Data(json.utf8)), trace)
    }

    func testRouteIsEncodedOnlyWhenPresentAndRoundTrips() throws {
        let track = straightLine(points: 300)
        var summary = RunAnalyzer().summarize(track, id: "line.gpx")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let without = try XCTUnwrap(String(data: try encoder.encode(summary), encoding: .utf8))
        XCTAssertFalse(without.contains("\"route\""))
        let decodedWithout = try JSONDecoder().decode(RunSummary.self, from: try encoder.encode(summary))
        XCTAssertNil(decodedWithout.route)
        summary.route = RouteTrace.make(track: track, profile: RunAnalyzer.profile(of: track))
        let data = try encoder.encode(summary)
        let with = try XCTUnwrap(String(data: data, encoding: .utf8))
        XCTAssertTrue(with.contains("\"route\":{\"lat\":["))
        XCTAssertTrue(with.contains("\"segment_starts\":[0]"))
        let decoded = try JSONDecoder().decode(RunSummary.self, from: data)
        XCTAssertEqual(decoded.route, summary.route)
    }
}
