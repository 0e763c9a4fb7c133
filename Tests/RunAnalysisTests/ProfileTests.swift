import SyntheticRuns
import XCTest

@testable import RunFiles
@testable import RunAnalysis

/// The cleaned series every figure is computed from: teleports, backwards time, segments.
final class ProfileTests: XCTestCase {
    typealias F = AnalyticsFixtures

    func testStepsAlongTheEquatorAreTheDistancesChosen() {
        let profile = RunAnalyzer.profile(of: F.equator([0, 10, 25, 1025], times: [0, 3, 8, 300]))
        XCTAssertEqual(profile.count, 4)
        for (got, want) in zip(profile.distances, [0.0, 10, 25, 1025]) { XCTAssertEqual(got, want, accuracy: 1e-6) }
        XCTAssertEqual(profile.elapsed, [0, 3, 8, 300])
        XCTAssertEqual(profile.startEpoch, F.start)
        XCTAssertEqual(profile.dropped, [:])
    }

    func testTeleportIsNotDistanceAndIsReported() {
        // 0, 10, 20, then a fix 5 km away one 3-second step later, then back on the line.
        let track = F.equator([0, 10, 20, 5030, 40, 50], times: [0, 3, 6, 9, 12, 15])
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.dropped["GPS teleport"], 1)
        XCTAssertEqual(profile.indices, [0, 1, 2, 4, 5])
        XCTAssertEqual(profile.totalDistance, 50, accuracy: 1e-6)
        let summary = RunAnalyzer().summarize(track, id: "t")
        XCTAssertEqual(summary.distanceMeters, 50, accuracy: 1e-6)
        XCTAssertEqual(summary.dropped, [Dropped(reason: "GPS teleport", count: 1)])
        XCTAssertEqual(summary.points, 5)
    }

    func testSixGlitchesInARowReanchorWithoutCountingTheJump() {
        // After 20 m the track sits 5 km away for good: the first five fixes there are dropped
        // as glitches, the sixth becomes the anchor (the 5 km jump is not distance), then +10 m.
        let d: [Double] = [0, 10, 20, 5000, 5010, 5020, 5030, 5040, 5050, 5060]
        let track = F.equator(d, times: d.indices.map { Double($0) * 3 })
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.dropped["GPS teleport"], RunAnalyzer.teleportMaxRun)
        XCTAssertEqual(profile.indices, [0, 1, 2, 8, 9])
        XCTAssertEqual(profile.totalDistance, 30, accuracy: 1e-6)
    }

    func testBadFirstFixDoesNotAnchorTheSegment() {
        // The first fix lands 2 km ahead; the run itself goes 0, 10, 20, 30 m.
        var track = F.equator([2000, 0, 10, 20, 30], times: [0, 3, 6, 9, 12])
        F.append(to: &track, [3000, 40, 50], times: [600, 603, 606])  // and again after a pause
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.dropped["GPS teleport"], 2)
        XCTAssertEqual(profile.indices, [1, 2, 3, 4, 6, 7])
        XCTAssertEqual(profile.totalDistance, 40, accuracy: 1e-6)
        XCTAssertEqual(profile.elapsed, [0, 3, 6, 9, 600, 603])
        // A first point that is merely followed by a glitch stays.
        let kept = RunAnalyzer.profile(of: F.equator([0, 2000, 10, 20], times: [0, 3, 6, 9]))
        XCTAssertEqual(kept.indices, [0, 2, 3])
        XCTAssertEqual(kept.dropped["GPS teleport"], 1)
    }

    func testFastButShortStepIsNotATeleport() {
        // 40 m in one second is 40 m/s but under the 50 m minimum step: kept.
        let profile = RunAnalyzer.profile(of: F.equator([0, 40, 50], times: [0, 1, 4]))
        XCTAssertNil(profile.dropped["GPS teleport"])
        XCTAssertEqual(profile.totalDistance, 50, accuracy: 1e-6)
    }

    func testCyclingAtFiftyKilometresAnHourIsNotATeleport() {
        // 65 m every 5 s is 13 m/s: a glitch for a runner, a descent for a cyclist.
        let d: [Double] = [0, 65, 130, 195]
        var ride = F.equator(d, times: [0, 5, 10, 15])
        ride.sport = "Biking"
        XCTAssertEqual(RunAnalyzer.profile(of: ride).totalDistance, 195, accuracy: 1e-6)
        var run = ride
        run.sport = "running"
        XCTAssertEqual(RunAnalyzer.profile(of: run).dropped["GPS teleport"], 3)
        XCTAssertEqual(RunAnalyzer.profile(of: run).totalDistance, 0)
    }

    func testBackwardsTimestampIsDroppedWithItsPoint() {
        let track = F.equator([0, 10, 20, 30, 40, 50], times: [0, 3, 6, 4, 12, 15])
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.dropped["time going backwards"], 1)
        XCTAssertEqual(profile.indices, [0, 1, 2, 4, 5])
        XCTAssertEqual(profile.elapsed, [0, 3, 6, 12, 15])
        // The points are on a line, so skipping one loses no distance.
        XCTAssertEqual(profile.totalDistance, 50, accuracy: 1e-6)
        XCTAssertEqual(RunAnalyzer.times(of: profile).elapsed, 15)
    }

    func testLoneFutureTimestampIsTheGlitchNotTheRestOfTheRun() {
        // Without the look-ahead, 9999 would be kept and every later point dropped as backwards.
        let track = F.equator([0, 10, 20, 30, 40, 50], times: [0, 3, 6, 9999, 12, 15])
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.dropped["time going backwards"], 1)
        XCTAssertEqual(profile.indices, [0, 1, 2, 4, 5])
        XCTAssertEqual(RunAnalyzer.times(of: profile).elapsed, 15)
    }

    func testEqualTimestampsAreKept() {
        let profile = RunAnalyzer.profile(of: F.equator([0, 10, 20, 30], times: [0, 3, 3, 6]))
        XCTAssertEqual(profile.count, 4)
        XCTAssertEqual(profile.dropped, [:])
    }

    func testNoDistanceAcrossTheGapBetweenSegments() {
        // 1 km, a 10-minute pause during which the runner is carried 5 km, then 1 km more.
        var track = F.equator(stride(from: 0.0, through: 1000, by: 100).map { $0 }, times: stride(from: 0.0, through: 300, by: 30).map { $0 })
        F.append(to: &track, stride(from: 6000.0, through: 7000, by: 100).map { $0 }, times: stride(from: 900.0, through: 1200, by: 30).map { $0 })
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.segmentStarts, [0, 11])
        XCTAssertEqual(profile.distances[10], 1000, accuracy: 1e-6)
        XCTAssertEqual(profile.distances[11], 1000, accuracy: 1e-6)
        XCTAssertEqual(profile.totalDistance, 2000, accuracy: 1e-6)
        let times = RunAnalyzer.times(of: profile)
        XCTAssertEqual(times.elapsed, 1200)
        XCTAssertEqual(times.timer, 600)
    }

    func testOdometerCountsFromTheLastReadingKept() {
        var track = Track(source: "indoor")
        track.hasPositions = false
        for (k, odometer) in [0.0, .nan, 200, 300].enumerated() {
            track.append(latitude: .nan, longitude: .nan, time: F.start + Double(k) * 60, deviceDistance: odometer)
        }
        let profile = RunAnalyzer.profile(of: track)
        XCTAssertEqual(profile.distances, [0, 0, 200, 300])
    }

    func testStepDistanceIsInjectable() {
        let track = F.equator([0, 10, 20, 30], times: [0, 3, 6, 9])
        let profile = RunAnalyzer.profile(of: track, stepDistance: { _, _, _, _ in 2.5 })
        XCTAssertEqual(profile.distances, [0, 2.5, 5, 7.5])
    }
}

/// Long tracks have their neighbours' steps measured ahead on two threads: the profile must be the
/// one pass's own, bit for bit, whatever the track throws at it (teleports, runs of glitches,
/// backwards and missing times, segments, a glitchy first fix).
final class ProfileStepsAheadTests: XCTestCase {
    static func awkwardTrack(count: Int, seed: UInt64) -> Track {
        var random = SplitMix64(seed: seed)
        var track = Track(source: "awkward")
        var lat = 52.37, lon = 4.89, t = 1_700_000_000.0
        for k in 0..<count {
            let r = random.uniform()
            if k > 0, r < 0.01 { track.startSegment() }
            lat += (random.uniform() - 0.45) * 4e-5
            lon += (random.uniform() - 0.45) * 6e-5
            var shownLat = lat, shownLon = lon
            if r > 0.97 { shownLat += 0.05 }                          // a teleport
            if r > 0.995 { lat += 0.05; shownLat = lat }              // the track really moved
            t += r < 0.02 ? -5 : (r < 0.03 ? 0 : 1)                    // backwards, equal, forwards
            let time = r > 0.6 && r < 0.61 ? Double.nan : t
            track.append(latitude: shownLat, longitude: shownLon, time: time)
        }
        return track
    }

    func testStepsMeasuredAheadGiveTheSameProfile() {
        for seed in UInt64(1)...25 {
            let track = Self.awkwardTrack(count: 500 + Int(seed) * 97, seed: seed)
            let one = RunAnalyzer.profile(of: track, parallelAbove: .max)
            let two = RunAnalyzer.profile(of: track, parallelAbove: 0)
            XCTAssertEqual(two.distances.map(\.bitPattern), one.distances.map(\.bitPattern), "seed \(seed)")
            XCTAssertEqual(two.elapsed.map(\.bitPattern), one.elapsed.map(\.bitPattern), "seed \(seed)")
            XCTAssertEqual(two.indices, one.indices, "seed \(seed)")
            XCTAssertEqual(two.segmentStarts, one.segmentStarts, "seed \(seed)")
            XCTAssertEqual(two.dropped, one.dropped, "seed \(seed)")
            XCTAssertEqual(two.startEpoch, one.startEpoch, "seed \(seed)")
            XCTAssertGreaterThan(one.dropped["GPS teleport"] ?? 0, 0, "the track has teleports")
        }
    }

    func testTheProductionPathMeasuresAheadOnALongTrack() {
        // At the threshold the public `profile(of:)` takes the two-thread path, with the one pass's result.
        let track = Self.awkwardTrack(count: RunAnalyzer.parallelStepPoints, seed: 99)
        let one = RunAnalyzer.profile(of: track, parallelAbove: .max)
        let production = RunAnalyzer.profile(of: track)
        XCTAssertEqual(production.distances.map(\.bitPattern), one.distances.map(\.bitPattern))
        XCTAssertEqual(production.indices, one.indices)
    }
}
