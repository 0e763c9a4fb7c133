import XCTest

@testable import RunFiles
@testable import RunAnalysis

/// Splits, efforts, checkpoints, elevation and sensors on tracks whose answers are worked out by hand.
final class AnalyticsTests: XCTestCase {
    typealias F = AnalyticsFixtures
    let mile = Units.metresPerMile

    // MARK: Splits

    func testConstantPaceSplitsPerKilometreWithPartialLast() {
        // 5050 m at 0.3 s/m (5:00 per km), a point every 10 m.
        let profile = RunAnalyzer.profile(of: F.steady(total: 5050, step: 10, secondsPerMetre: 0.3))
        let splits = RunAnalyzer.splits(of: profile, unitMeters: 1000)
        XCTAssertEqual(splits.count, 6)
        for (k, split) in splits.prefix(5).enumerated() {
            XCTAssertEqual(split.index, k + 1)
            XCTAssertFalse(split.partial)
            XCTAssertEqual(split.distanceMeters, 1000)
            XCTAssertEqual(split.elapsedSeconds, 300, accuracy: 1e-6)
            XCTAssertEqual(split.cumulativeSeconds, 300 * Double(k + 1), accuracy: 1e-6)
            XCTAssertEqual(split.paceSecondsPerKilometre, 300, accuracy: 1e-6)
        }
        let last = splits[5]
        XCTAssertTrue(last.partial)
        XCTAssertEqual(last.index, 6)
        XCTAssertEqual(last.distanceMeters, 50, accuracy: 1e-6)
        XCTAssertEqual(last.elapsedSeconds, 15, accuracy: 1e-6)
        XCTAssertEqual(last.cumulativeSeconds, 1515, accuracy: 1e-6)
        XCTAssertEqual(last.paceSecondsPerKilometre, 300, accuracy: 1e-4)
    }

    func testSplitsPerMileInterpolateBetweenPoints() {
        // A mile is 1609.344 m: with points every 10 m each mile ends between two points.
        let profile = RunAnalyzer.profile(of: F.steady(total: 5050, step: 10, secondsPerMetre: 0.3))
        let splits = RunAnalyzer.splits(of: profile, unitMeters: mile)
        XCTAssertEqual(splits.count, 4)
        for split in splits.prefix(3) {
            XCTAssertEqual(split.distanceMeters, mile)
            XCTAssertEqual(split.elapsedSeconds, mile * 0.3, accuracy: 1e-6)  // 482.8032 s
        }
        XCTAssertEqual(splits[2].cumulativeSeconds, 3 * mile * 0.3, accuracy: 1e-6)
        XCTAssertTrue(splits[3].partial)
        XCTAssertEqual(splits[3].distanceMeters, 5050 - 3 * mile, accuracy: 1e-6)  // 221.968 m
        XCTAssertEqual(splits[3].elapsedSeconds, (5050 - 3 * mile) * 0.3, accuracy: 1e-6)
    }

    func testUnevenPaceSplitTimesAreInterpolated() {
        // 0→600 m in 300 s, 600→1400 m in 100 s, 1400→2000 m in 600 s: the 1 km mark falls at
        // 300 + 400/800·100 = 350 s, the 2 km mark at the end (1000 s).
        let profile = RunAnalyzer.profile(of: F.equator([0, 600, 1400, 2000], times: [0, 300, 400, 1000]))
        let splits = RunAnalyzer.splits(of: profile, unitMeters: 1000)
        XCTAssertEqual(splits.count, 2)
        XCTAssertEqual(splits[0].elapsedSeconds, 350, accuracy: 1e-6)
        XCTAssertEqual(splits[1].elapsedSeconds, 650, accuracy: 1e-6)
        XCTAssertFalse(splits[1].partial)
    }

    func testNoTimesNoSplitsNoEfforts() {
        let profile = RunAnalyzer.profile(of: F.equator(stride(from: 0.0, through: 3000, by: 100).map { $0 }))
        XCTAssertEqual(profile.totalDistance, 3000, accuracy: 1e-6)
        XCTAssertEqual(RunAnalyzer.splits(of: profile, unitMeters: 1000), [])
        XCTAssertEqual(RunAnalyzer.efforts(of: profile), [])
    }

    // MARK: Efforts

    func testConstantPaceEffortsAreDistanceTimesPace() {
        let profile = RunAnalyzer.profile(of: F.steady(total: 5050, step: 10, secondsPerMetre: 0.3))
        let efforts = RunAnalyzer.efforts(of: profile)
        XCTAssertEqual(efforts.map(\.name), ["400m", "1km", "1mi", "5km"])
        for effort in efforts {
            XCTAssertEqual(effort.elapsedSeconds, effort.distanceMeters * 0.3, accuracy: 1e-6, effort.name)
            XCTAssertEqual(effort.paceSecondsPerKilometre, 300, accuracy: 1e-6)
        }
        XCTAssertEqual(efforts[2].distanceMeters, mile)
    }

    func testFastMiddleFiveKilometres() throws {
        // 5 km at 5:00/km, 5 km at 4:00/km, 5 km at 5:00/km, a point every 100 m.
        let track = F.legs([(5000, 0.3), (5000, 0.24), (5000, 0.3)], step: 100)
        let efforts = RunAnalyzer.efforts(of: RunAnalyzer.profile(of: track))
        XCTAssertEqual(efforts.map(\.name), ["400m", "1km", "1mi", "5km", "10km"])
        let five = try XCTUnwrap(efforts.first { $0.name == "5km" })
        XCTAssertEqual(five.elapsedSeconds, 1200, accuracy: 1e-6)
        XCTAssertEqual(five.startDistanceMeters, 5000, accuracy: 1e-6)
        XCTAssertEqual(five.startElapsedSeconds, 1500, accuracy: 1e-6)
        // Any 10 km holds the fast 5 km and 5 km at 5:00/km.
        XCTAssertEqual(efforts[4].elapsedSeconds, 1200 + 1500, accuracy: 1e-6)
        // 1 km at 4:00/km, somewhere inside the fast stretch.
        XCTAssertEqual(efforts[1].elapsedSeconds, 240, accuracy: 1e-6)
        XCTAssertGreaterThanOrEqual(efforts[1].startDistanceMeters, 5000 - 1e-6)
        XCTAssertLessThanOrEqual(efforts[1].startDistanceMeters, 9000 + 1e-6)
    }

    func testFastestWindowStartingBetweenPoints() throws {
        // 600 m at 2 m/s, 400 m at 10 m/s, 300 m at 3 m/s. A 1 km window starting at s ∈ [0, 300]
        // takes (340 + s/3) − s/2 = 340 − s/6 seconds: best at s = 300 m, 290 s, starting 150 s in,
        // a start between two recorded points.
        let profile = RunAnalyzer.profile(of: F.equator([0, 600, 1000, 1300], times: [0, 300, 340, 440]))
        let effort = try XCTUnwrap(RunAnalyzer.fastestEffort(in: profile, name: "1km", meters: 1000))
        XCTAssertEqual(effort.elapsedSeconds, 290, accuracy: 1e-6)
        XCTAssertEqual(effort.startDistanceMeters, 300, accuracy: 1e-6)
        XCTAssertEqual(effort.startElapsedSeconds, 150, accuracy: 1e-6)
    }

    func testFastestWindowEndingBetweenPoints() throws {
        // 300 m at 3 m/s, 400 m at 10 m/s, 600 m at 2 m/s: 1 km from s takes 290 + s/6 seconds,
        // best from the start (s = 0), ending between two recorded points.
        let profile = RunAnalyzer.profile(of: F.equator([0, 300, 700, 1300], times: [0, 100, 140, 440]))
        let effort = try XCTUnwrap(RunAnalyzer.fastestEffort(in: profile, name: "1km", meters: 1000))
        XCTAssertEqual(effort.elapsedSeconds, 290, accuracy: 1e-6)
        XCTAssertEqual(effort.startDistanceMeters, 0, accuracy: 1e-6)
        XCTAssertEqual(effort.startElapsedSeconds, 0, accuracy: 1e-6)
    }

    func testRunTooShortForAnEffortHasNone() throws {
        let profile = RunAnalyzer.profile(of: F.steady(total: 990, step: 10, secondsPerMetre: 0.3))
        XCTAssertEqual(RunAnalyzer.efforts(of: profile).map(\.name), ["400m"])
        XCTAssertNil(RunAnalyzer.fastestEffort(in: profile, name: "1km", meters: 1000))
        // Exactly 1 km: the whole run is the 1 km effort.
        let exact = RunAnalyzer.profile(of: F.steady(total: 1000, step: 10, secondsPerMetre: 0.3))
        let effort = try XCTUnwrap(RunAnalyzer.fastestEffort(in: exact, name: "1km", meters: 1000))
        XCTAssertEqual(effort.elapsedSeconds, 300, accuracy: 1e-6)
    }

    func testMultiSegmentSplitsAndEffortsCarryThePauseTime() {
        // 1 km in 300 s, a 600 s gap (no distance across it), 1 km in 300 s.
        var track = F.equator(stride(from: 0.0, through: 1000, by: 100).map { $0 }, times: stride(from: 0.0, through: 300, by: 30).map { $0 })
        F.append(to: &track, stride(from: 6000.0, through: 7000, by: 100).map { $0 }, times: stride(from: 900.0, through: 1200, by: 30).map { $0 })
        let profile = RunAnalyzer.profile(of: track)
        let splits = RunAnalyzer.splits(of: profile, unitMeters: 1000)
        XCTAssertEqual(splits.map(\.elapsedSeconds), [300, 900])
        XCTAssertEqual(splits.map(\.partial), [false, false])
        // A window spanning the gap is slower by the pause; the fastest stays inside a segment.
        let efforts = RunAnalyzer.efforts(of: profile)
        XCTAssertEqual(efforts.first { $0.name == "1km" }?.elapsedSeconds ?? 0, 300, accuracy: 1e-6)
        XCTAssertEqual(efforts.first { $0.name == "400m" }?.elapsedSeconds ?? 0, 120, accuracy: 1e-6)
        // 1 mile would have to span the gap: a 600 s stop is longer than an effort may span.
        XCTAssertNil(efforts.first { $0.name == "1mi" })
        // With no limit on stops: 609.344 m of the second segment after the first km.
        let spanning = RunAnalyzer.efforts(of: profile, maxStopSeconds: nil)
        XCTAssertEqual(spanning.first { $0.name == "1mi" }?.elapsedSeconds ?? 0, 900 + 609.344 * 0.3, accuracy: 1e-6)
    }

    func testTwoPointerSearchAgreesWithExhaustiveSearch() throws {
        // Irregular steps (including standing still) and pace, two segments: the O(n) search must
        // find what trying every start point and every end point one by one finds.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        var d: [Double] = [0], t: [Double] = [0]
        for k in 1..<600 {
            let standing = next() < 0.1
            d.append(d[k - 1] + (standing ? 0 : 1 + 30 * next()))
            t.append(t[k - 1] + 1 + 9 * next())
        }
        var track = F.equator(Array(d[..<300]), times: Array(t[..<300]))
        // The second segment starts 2 km further along the equator after a 5-minute pause.
        F.append(to: &track, d[300...].map { $0 + 2000 }, times: t[300...].map { $0 + 300 })
        let profile = RunAnalyzer.profile(of: track)
        let pd = profile.distances, pt = profile.elapsed
        func elapsed(at x: Double, first: Bool) -> Double {
            // First (or last) moment the distance x is reached, by a linear scan.
            let ks = first ? Array(pd.indices) : Array(pd.indices.reversed())
            for k in ks {
                if first, pd[k] >= x {
                    return k == 0 ? pt[0] : pt[k - 1] + (pt[k] - pt[k - 1]) * (x - pd[k - 1]) / (pd[k] - pd[k - 1])
                }
                if !first, pd[k] <= x {
                    return k == pd.count - 1 ? pt[k] : pt[k] + (pt[k + 1] - pt[k]) * (x - pd[k]) / (pd[k + 1] - pd[k])
                }
            }
            return .nan
        }
        for meters in [400.0, 1000, 1609.344, 5000] {
            var best = Double.infinity
            for k in pd.indices {
                if pd[k] + meters <= pd[pd.count - 1] { best = min(best, elapsed(at: pd[k] + meters, first: true) - elapsed(at: pd[k], first: false)) }
                if pd[k] - meters >= 0 { best = min(best, elapsed(at: pd[k], first: true) - elapsed(at: pd[k] - meters, first: false)) }
            }
            let effort = try XCTUnwrap(RunAnalyzer.fastestEffort(in: profile, name: "x", meters: meters))
            XCTAssertEqual(effort.elapsedSeconds, best, accuracy: 1e-6, "\(meters) m")
            // The reported start is consistent with the time.
            XCTAssertEqual(effort.elapsedSeconds, elapsed(at: effort.startDistanceMeters + meters, first: true) - effort.startElapsedSeconds, accuracy: 1e-6)
        }
    }

    // MARK: Checkpoints

    func testCheckpointBetweenTwoSparsePointsIsInterpolated() throws {
        var track = Track(source: "sparse")
        track.append(latitude: 45, longitude: 7, time: F.start)
        track.append(latitude: 45.01, longitude: 7.02, time: F.start + 400)
        let d = Geodesy.distance(lat1: 45, lon1: 7, lat2: 45.01, lon2: 7.02)
        let analyzer = RunAnalyzer(checkpoints: [
            .init(badge: "start", name: "Start", distanceMeters: 0),
            .init(badge: "quarter", name: "A quarter", distanceMeters: d / 4),
            .init(badge: "end", name: "The end", distanceMeters: d),
            .init(badge: "beyond", name: "Too far", distanceMeters: d + 1),
        ])
        let checkpoints = analyzer.checkpoints(of: track, profile: RunAnalyzer.profile(of: track))
        XCTAssertEqual(checkpoints.map(\.badge), ["start", "quarter", "end"])
        XCTAssertEqual(checkpoints[0].latitude, 45); XCTAssertEqual(checkpoints[0].longitude, 7)
        XCTAssertEqual(checkpoints[0].elapsedSeconds, 0)
        let quarter = checkpoints[1]
        XCTAssertEqual(quarter.name, "A quarter")
        XCTAssertEqual(quarter.distanceMeters, d / 4)
        XCTAssertEqual(try XCTUnwrap(quarter.latitude), 45.0025, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(quarter.longitude), 7.005, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(quarter.elapsedSeconds), 100, accuracy: 1e-6)
        XCTAssertEqual(checkpoints[2].latitude, 45.01); XCTAssertEqual(checkpoints[2].longitude, 7.02)
        XCTAssertEqual(try XCTUnwrap(checkpoints[2].elapsedSeconds), 400, accuracy: 1e-6)
    }

    func testCheckpointAcrossTheAntimeridian() throws {
        var track = Track(source: "dateline")
        track.append(latitude: 0, longitude: 179.999, time: F.start)
        track.append(latitude: 0, longitude: -179.999, time: F.start + 100)
        let d = RunAnalyzer.profile(of: track).totalDistance
        let analyzer = RunAnalyzer(checkpoints: [.init(badge: "x", name: "x", distanceMeters: d * 0.75)])
        let checkpoint = try XCTUnwrap(analyzer.checkpoints(of: track, profile: RunAnalyzer.profile(of: track)).first)
        XCTAssertEqual(try XCTUnwrap(checkpoint.longitude), -179.9995, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(checkpoint.elapsedSeconds), 75, accuracy: 1e-6)
    }

    func testCheckpointsWithoutTimesOrPositions() {
        let untimed = F.equator([0, 1000, 2000])
        let analyzer = RunAnalyzer(checkpoints: [.init(badge: "1500", name: "1500 m", distanceMeters: 1500)])
        let noTime = analyzer.checkpoints(of: untimed, profile: RunAnalyzer.profile(of: untimed))
        XCTAssertEqual(noTime.count, 1)
        XCTAssertNil(noTime[0].elapsedSeconds)
        XCTAssertEqual(noTime[0].longitude ?? .nan, F.longitude(atMetres: 1500), accuracy: 1e-12)

        var indoor = Track(source: "indoor")
        indoor.hasPositions = false
        for (k, odometer) in [0.0, 1000, 2000].enumerated() {
            indoor.append(latitude: .nan, longitude: .nan, time: F.start + Double(k) * 300, deviceDistance: odometer)
        }
        let blind = analyzer.checkpoints(of: indoor, profile: RunAnalyzer.profile(of: indoor))
        XCTAssertEqual(blind.count, 1)
        XCTAssertNil(blind[0].latitude); XCTAssertNil(blind[0].longitude)
        XCTAssertEqual(blind[0].elapsedSeconds ?? .nan, 450, accuracy: 1e-6)
    }

    // MARK: Elevation

    func testSawToothElevation() throws {
        let d = (0..<5).map { Double($0) * 10 }
        let track = F.equator(d, times: d, elevations: [100, 110, 100, 110, 100])
        let e = try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: RunAnalyzer.profile(of: track)))
        XCTAssertEqual(e, Elevation(gainMeters: 20, lossMeters: 20, minMeters: 100, maxMeters: 110))
    }

    func testElevationIgnoresWigglesUnderThreshold() throws {
        // A 1 m wiggle on the way up and on the summit: a plain sum would give 12 up, 12 down.
        let elevations: [Double] = [100, 101, 100, 110, 109, 110, 100]
        let d = elevations.indices.map { Double($0) * 10 }
        let track = F.equator(d, times: d, elevations: elevations)
        let e = try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: RunAnalyzer.profile(of: track)))
        XCTAssertEqual(e.gainMeters, 10); XCTAssertEqual(e.lossMeters, 10)
        XCTAssertEqual(e.minMeters, 100); XCTAssertEqual(e.maxMeters, 110)
    }

    func testSteadyClimbInSmallStepsCountsInDeadBandSteps() throws {
        // 0.5 m per point, each below the band, 24 times: 12 m of gain, counted in four 3 m steps.
        let elevations = (0...24).map { 200 + Double($0) * 0.5 }
        let d = elevations.indices.map { Double($0) * 10 }
        let track = F.equator(d, times: d, elevations: elevations)
        let e = try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: RunAnalyzer.profile(of: track)))
        XCTAssertEqual(e.gainMeters, 12, accuracy: 1e-9); XCTAssertEqual(e.lossMeters, 0)
        // 10 m: three steps count, the last metre above the third step does not (as a watch's total).
        let ten = F.equator(Array(d.prefix(21)), times: Array(d.prefix(21)), elevations: Array(elevations.prefix(21)))
        XCTAssertEqual(try XCTUnwrap(RunAnalyzer.elevation(of: ten, profile: RunAnalyzer.profile(of: ten))).gainMeters, 9, accuracy: 1e-9)
    }

    func testElevationNotCountedAcrossSegmentsAndNilWithout() throws {
        var track = F.equator([0, 10, 20], times: [0, 3, 6], elevations: [100, 105, 100])
        F.append(to: &track, [1000, 1010, 1020], times: [600, 603, 606], elevations: [300, 300, 296])
        let e = try XCTUnwrap(RunAnalyzer.elevation(of: track, profile: RunAnalyzer.profile(of: track)))
        XCTAssertEqual(e, Elevation(gainMeters: 5, lossMeters: 9, minMeters: 100, maxMeters: 300))
        let flat = F.equator([0, 10], times: [0, 3])
        XCTAssertNil(RunAnalyzer.elevation(of: flat, profile: RunAnalyzer.profile(of: flat)))
    }

    // MARK: Sensors

    func testHeartRateAndCadenceAverageWeightedByTime() throws {
        let d: [Double] = [0, 10, 20, 30, 40]
        let track = F.equator(
            d, times: d, heartRates: [120, 0, 150, .nan, 180], cadences: [80, 0, 90, .nan, 100])
        let profile = RunAnalyzer.profile(of: track)
        // Heart rate 0 is no contact: readings at 0, 20 and 40 s weigh 10, 20 and 10 s: 150.
        // Cadence 0 is a reading: at 0, 10, 20 and 40 s they weigh 5, 10, 15, 10 s: 2750 / 40.
        XCTAssertEqual(RunAnalyzer.sensorStats(track.heartRates, profile: profile, ignoreNonPositive: true), SensorStats(average: 150, maximum: 180))
        XCTAssertEqual(RunAnalyzer.sensorStats(track.cadences, profile: profile, ignoreNonPositive: false), SensorStats(average: 68.75, maximum: 100))
        let bare = F.equator(d, times: d)
        XCTAssertNil(RunAnalyzer.sensorStats(bare.heartRates, profile: RunAnalyzer.profile(of: bare), ignoreNonPositive: true))
    }

    // MARK: Summary

    func testSummarizeFillsEveryAnalyticsField() throws {
        let d = stride(from: 0.0, through: 2490, by: 10).map { $0 }  // 250 points
        let track = F.equator(
            d, times: d.map { $0 * 0.3 }, elevations: d.map { $0 <= 1000 ? 50 + $0 / 100 : 60 },
            heartRates: d.map { $0 < 1250 ? 140 : 160 }, cadences: d.map { _ in 170 })
        let analyzer = RunAnalyzer(checkpoints: [
            .init(badge: "2k", name: "2 km", distanceMeters: 2000), .init(badge: "3k", name: "3 km", distanceMeters: 3000),
        ])
        let s = analyzer.summarize(track, id: "run.gpx")
        XCTAssertEqual(s.distanceMeters, 2490, accuracy: 1e-6)
        XCTAssertEqual(s.splitsKilometre.map(\.partial), [false, false, true])
        XCTAssertEqual(s.splitsKilometre[2].distanceMeters, 490, accuracy: 1e-6)
        XCTAssertEqual(s.splitsMile.count, 2)
        XCTAssertEqual(s.efforts.map(\.name), ["400m", "1km", "1mi"])
        XCTAssertEqual(s.checkpoints.map(\.badge), ["2k"])
        XCTAssertEqual(s.checkpoints[0].elapsedSeconds ?? 0, 600, accuracy: 1e-6)
        // 10 m of climb in 0.1 m steps: three 3 m steps count (the dead band), the last metre does not.
        XCTAssertEqual(s.elevation, Elevation(gainMeters: 9, lossMeters: 0, minMeters: 50, maxMeters: 60))
        XCTAssertEqual(s.heartRate, SensorStats(average: 150, maximum: 160))
        XCTAssertEqual(s.heartRate?.weighting, .time)
        XCTAssertEqual(s.cadence, SensorStats(average: 170, maximum: 170))
        // The JSON contract keeps its keys, nulls included.
        let json = try XCTUnwrap(String(data: JSONEncoder().encode(s), encoding: .utf8))
        for key in ["\"splits_km\"", "\"splits_mile\"", "\"efforts\"", "\"start_distance_m\"", "\"gain_m\"", "\"heart_rate\"", "\"checkpoints\"", "\"lat\"",
                    "\"avg_weighting\":\"time\"", "\"laps\":[]", "\"device_ascent_m\":null", "\"device_laps\":null"] {
            XCTAssertTrue(json.contains(key), key)
        }
    }
}
