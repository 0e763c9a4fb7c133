@testable import RunAnalysis
@testable import RunFiles
import SyntheticRuns
import XCTest

/// Issue V: the climb that holds on phone altitude, moving time that counts climbing, on tracks built
/// by hand and on generated mountain runs written as FIT and GPX and read back.
final class ClimbTests: XCTestCase {
    typealias F = AnalyticsFixtures

    func elevation(_ track: Track) throws -> Elevation {
        try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: RunAnalyzer.profile(of: track)))
    }

    /// A straight climb of `metres` over 2 km of trail at `pace` s/km, recorded every `every` seconds
    /// with altitude errors of `noise` m (written in whole metres when `whole`); no hills.
    static func mountain(climb metres: Double, pace: Double = 1500, every: Double = 1, noise: Double = 0.2, whole: Bool = false,
                         seed: UInt64 = 11) -> RunGenerator {
        var g = RunGenerator(seed: seed, distanceMeters: 2000, paceSecondsPerKilometre: pace)
        g.hillAmplitudeMeters = 0
        g.baseElevationMeters = 1000
        g.gradient = metres / 2000
        g.altitudeNoiseMeters = noise
        g.altitudeWholeMetres = whole
        g.sampling = .every(every)
        g.gpsNoiseMeters = 0.5
        return g
    }

    // MARK: Spikes

    func testASpikeAtTheStartIsLeftOutOfClimbAndRange() throws {
        // The fenix 2 file's start: 55 m, then 142.4 m for three seconds, then 55 m (a barometer settling).
        let elevations: [Double] = [55, 142.4, 142.4, 142.4, 55, 58, 61, 64, 61, 58, 55]
        let d = elevations.indices.map { Double($0) * 3 }
        let track = F.equator(d, times: elevations.indices.map(Double.init), elevations: elevations)
        let e = try elevation(track)
        XCTAssertEqual(e.gainMeters, 9, accuracy: 1e-9, "55 → 64 and back; the spike's 87 m up and down do not count")
        XCTAssertEqual(e.lossMeters, 9, accuracy: 1e-9)
        XCTAssertEqual(e.maxMeters, 64)
        let summary = RunAnalyzer().summarize(track, id: "spike")
        XCTAssertTrue(summary.dropped.contains(Dropped(reason: "elevation spike", count: 3)), "\(summary.dropped)")
        // The same rise walked up (2 m/s vertical is no spike) counts.
        let climbed = F.equator(d, times: elevations.indices.map { Double($0) * 30 }, elevations: elevations)
        XCTAssertGreaterThan(try elevation(climbed).gainMeters, 80)
    }

    func testAnElevationThatStaysAtANewLevelIsAcceptedWithoutCountingTheJump() throws {
        // A device re-setting its altitude by 100 m: after five spikes the sixth point is a new level.
        let elevations: [Double] = [200, 201, 202] + Array(repeating: 302, count: 8) + [305, 308]
        let d = elevations.indices.map { Double($0) * 3 }
        let track = F.equator(d, times: elevations.indices.map(Double.init), elevations: elevations)
        let climb = RunAnalyzer.climbProfile(of: track, profile: RunAnalyzer.profile(of: track))
        XCTAssertEqual(climb.spikes, [3, 4, 5, 6, 7])
        XCTAssertEqual(climb.levelChanges, [8])
        let e = try elevation(track)
        XCTAssertEqual(e.gainMeters, 6, accuracy: 1e-9, "302 → 308 counts; the 100 m jump and 200 → 202 (under 3 m) do not")
    }

    // MARK: Rough and smooth recordings

    func testPhoneAltitudeDoesNotDoubleItsClimb() throws {
        // 500 m up 2 km, every 5 s, GPS altitude scattering by 3 m in whole metres: counted as recorded,
        // the scatter alone adds hundreds of metres (what badgectl reported before, and gpxpy's smoothing
        // still does); on the 30-s mean it is within 15% of the climb.
        let track = Self.mountain(climb: 500, every: 5, noise: 3, whole: true).track()
        let profile = RunAnalyzer.profile(of: track)
        let climb = RunAnalyzer.climbProfile(of: track, profile: profile)
        XCTAssertTrue(climb.rough)
        let e = try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: profile, climb: climb))
        XCTAssertEqual(e.gainMeters, 500, accuracy: 75)
        var asRecorded = climb
        asRecorded.rough = false
        let inflated = try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: profile, climb: asRecorded))
        XCTAssertGreaterThan(inflated.gainMeters, 650, "the scatter counted as climb")
    }

    func testTheMeanOnDemandIsTheKeptMean() throws {
        // A rough recording keeps its 30-s mean; a smooth one computes it where asked: the same windows,
        // narrowing at the ends, across a gap between segments and around untimed points.
        var track = Self.mountain(climb: 300, every: 5, noise: 3, whole: true).track()
        for i in stride(from: 40, to: 60, by: 7) { track.times[i] = .nan }
        track.startSegment()
        for k in 1...40 {
            let previous = track.times[track.count - 1]
            track.append(latitude: 52.5, longitude: 4.9 + Double(k) * 1e-4, elevation: 1400 + Double(k % 7), time: previous + 5)
        }
        let profile = RunAnalyzer.profile(of: track)
        let climb = RunAnalyzer.climbProfile(of: track, profile: profile)
        XCTAssertTrue(climb.rough)
        XCTAssertEqual(climb.mean.count, profile.count)
        var onDemand = climb
        onDemand.mean = []
        for k in 0..<profile.count {
            let kept = climb.meanElevation(at: k), computed = onDemand.meanElevation(at: k)
            XCTAssertTrue(kept.isNaN ? computed.isNaN : abs(kept - computed) < 1e-9, "point \(k): \(kept) kept, \(computed) on demand")
        }
    }

    func testABarometricRecordingIsCountedAsRecorded() throws {
        // Decimetre noise: smooth, so the count is the recorded elevations', within the dead band's 3 m.
        let track = Self.mountain(climb: 500).track()
        let profile = RunAnalyzer.profile(of: track)
        let climb = RunAnalyzer.climbProfile(of: track, profile: profile)
        XCTAssertFalse(climb.rough)
        let e = try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: profile, climb: climb))
        XCTAssertEqual(e.gainMeters, 500, accuracy: 3.5)
        XCTAssertLessThanOrEqual(e.lossMeters, 3.5)
    }

    func testOneActivityAsFITAndAsGPXClimbsAlike() throws {
        // A FIT file holds altitude in 0.2 m steps (147.2), its GPX export the exact decimal of a float
        // (147.1999969482421875): climbs of exactly the dead band (3 m, in 0.2 m steps) count in both.
        var fit: [Double] = []
        for zig in 0..<10 {
            let base: Double = 141.2 + Double(zig) * 0.4
            let up: [Double] = (0...15).map { (k: Int) -> Double in base + Double(k) * 0.2 }
            fit += up
            fit += up.dropLast().reversed()
        }
        let gpx = fit.map { Double(Float($0)) }
        let d = fit.indices.map { Double($0) * 2 }
        let a = try elevation(F.equator(d, times: d, elevations: fit)), b = try elevation(F.equator(d, times: d, elevations: gpx))
        XCTAssertEqual(a.gainMeters, 30, accuracy: 1e-6, "ten climbs of 3 m")
        XCTAssertEqual(b.gainMeters, a.gainMeters, accuracy: 1e-4)
        XCTAssertEqual(b.lossMeters, a.lossMeters, accuracy: 1e-4)
    }

    // MARK: Moving time

    func testSlowSteepClimbingIsMovingAndStandingIsNot() throws {
        // 0.3 m/s along a 30% slope (0.09 m/s up, 324 m an hour): moving, as a hiker is.
        let steps = 600
        let d = (0...steps).map { Double($0) * 0.3 }
        let up = F.equator(d, times: (0...steps).map(Double.init), elevations: d.map { 1000 + 0.3 * $0 })
        XCTAssertEqual(RunAnalyzer().summarize(up, id: "up").movingSeconds ?? 0, 600, accuracy: 1e-9)
        // The same pace on the flat is not (under 0.5 m/s), and neither is a descent.
        let flat = F.equator(d, times: (0...steps).map(Double.init), elevations: d.map { _ in 1000 })
        XCTAssertEqual(RunAnalyzer().summarize(flat, id: "flat").movingSeconds, 0)
        let down = F.equator(d, times: (0...steps).map(Double.init), elevations: d.map { 1000 - 0.3 * $0 })
        XCTAssertEqual(RunAnalyzer().summarize(down, id: "down").movingSeconds, 0)
        // Standing (0.05 m/s of GPS drift) while the barometer climbs 0.1 m/s (a weather front, a lift):
        // under 0.1 m/s of progress is a stop whatever the altitude does.
        let drift = (0...steps).map { Double($0) * 0.05 }
        let standing = F.equator(drift, times: (0...steps).map(Double.init), elevations: drift.map { 1000 + 2 * $0 })
        XCTAssertEqual(RunAnalyzer().summarize(standing, id: "standing").movingSeconds, 0)
    }

    func testTheSteepMountainRunIsMovingThroughout() throws {
        // 2 km with 600 m of climb at 25 min/km on average, the pace swinging by half (0.27 to 0.8 m/s along,
        // 0.08 to 0.24 m/s up): moving all the way; without the climb (the same track, no elevations) the
        // slow steps read as stops.
        var g = Self.mountain(climb: 600, pace: 2500)
        g.paceVariation = 0.5
        g.gpsNoiseMeters = 0  // the rule alone: GPS jitter can slow a 0.27 m/s step under the 0.1 m/s of progress
        let track = g.track()
        let summary = RunAnalyzer().summarize(track, id: "m")
        // All but a few seconds at either end, where the 30-s mean has few points and the barometer's noise shows.
        XCTAssertEqual(try XCTUnwrap(summary.movingSeconds), try XCTUnwrap(summary.timerSeconds), accuracy: 10)
        var bare = track
        bare.elevations = bare.elevations.map { _ in .nan }
        XCTAssertLessThan(try XCTUnwrap(RunAnalyzer().summarize(bare, id: "m").movingSeconds), try XCTUnwrap(summary.timerSeconds) - 60)
    }

    func testARepeatedPositionIsNoStop() throws {
        // A receiver writing every second but fixing every third: two repeats, then a 9 m step. Each
        // record alone is 0 or 9 m/s; over its span the runner does 3 m/s: all moving.
        var d: [Double] = []
        for k in 0...300 { d.append(Double(k / 3) * 9) }
        let track = F.equator(d, times: d.indices.map(Double.init))
        XCTAssertEqual(RunAnalyzer().summarize(track, id: "r").movingSeconds ?? 0, 300, accuracy: 1e-9)
        // A two-minute stop written as one repeated position stays a stop.
        var stop = (0...60).map { Double($0) * 3 }
        stop += Array(repeating: 180, count: 120)
        stop += (1...60).map { 180 + Double($0) * 3 }
        let stopped = F.equator(stop, times: stop.indices.map(Double.init))
        // 60 s, then the step out of the stop spans its 121 s (more than a step may last), then 59 s.
        XCTAssertEqual(RunAnalyzer().summarize(stopped, id: "s").movingSeconds ?? 0, 119, accuracy: 1e-9)
    }
}

