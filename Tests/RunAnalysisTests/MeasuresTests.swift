@testable import RunAnalysis
@testable import RunFiles
import SyntheticRuns
import XCTest

/// Every measure kind against values worked out by hand on tracks built along the equator (where a
/// point at d metres is exactly d metres along: see `AnalyticsFixtures`), and on generated runs.
final class MeasuresTests: XCTestCase {
    typealias F = AnalyticsFixtures

    func measure(_ track: Track, _ kind: String, _ parameters: [String: MeasureDefinition.Parameter] = [:]) -> MeasureValue? {
        let definition = MeasureDefinition(kind: kind, parameters: parameters)
        let summary = RunAnalyzer(measures: [definition]).summarize(track, id: "t")
        return summary.measures[definition.key]
    }

    func number(_ value: MeasureValue?, _ field: String, file: StaticString = #filePath, line: UInt = #line) -> Double {
        switch value?[field] {
        case .float(let x)?: return x
        case .integer(let x)?: return Double(x)
        default:
            XCTFail("no number '\(field)' in \(String(describing: value))", file: file, line: line)
            return .nan
        }
    }

    /// 2 km at 5:00/km, 3 km at 3:20/km (0.2 s/m), 2 km at 5:00/km; a point every 10 m.
    var plantedFast: Track { F.legs([(2000, 0.3), (3000, 0.2), (2000, 0.3)], step: 10) }

    func testEffortByDistanceFindsThePlantedFastStretch() {
        let best = measure(plantedFast, "effort", ["distance_m": .number(3000)])
        XCTAssertEqual(number(best, "elapsed_s"), 600, accuracy: 1e-6)
        XCTAssertEqual(number(best, "start_distance_m"), 2000, accuracy: 1e-6)
        XCTAssertEqual(number(best, "start_elapsed_s"), 600, accuracy: 1e-6)
        XCTAssertEqual(number(best, "pace_s_per_km"), 200, accuracy: 1e-6)
        XCTAssertNil(measure(plantedFast, "effort", ["distance_m": .number(7001)]), "longer than the run")
    }

    func testEffortByDurationIsTheLongestDistanceInThatTime() {
        // 900 s: the whole fast stretch (600 s, 3000 m) and 300 s at 5:00/km (1000 m).
        let hour = measure(plantedFast, "effort", ["duration_s": .number(900)])
        XCTAssertEqual(number(hour, "distance_m"), 4000, accuracy: 1e-6)
        XCTAssertEqual(number(hour, "elapsed_s"), 900)
        // The earliest of the equal windows: from 1000 m (300 s) to the end of the fast stretch.
        XCTAssertEqual(number(hour, "start_distance_m"), 1000, accuracy: 1e-6)
        XCTAssertEqual(number(hour, "start_elapsed_s"), 300, accuracy: 1e-6)
        // 100 s inside the fast stretch: 500 m.
        XCTAssertEqual(number(measure(plantedFast, "effort", ["duration_s": .number(100)]), "distance_m"), 500, accuracy: 1e-6)
        // The run lasts 1800 s.
        XCTAssertEqual(number(measure(plantedFast, "effort", ["duration_s": .number(1800)]), "distance_m"), 7000, accuracy: 1e-6)
        XCTAssertNil(measure(plantedFast, "effort", ["duration_s": .number(1801)]))
    }

    /// 1500 m at 0.2 s/m, a 200 s standstill (a gap in the recording at one place), 1500 m more.
    var withStop: Track {
        var d: [Double] = [], t: [Double] = []
        for k in 0...150 { d.append(Double(k) * 10); t.append(Double(k) * 2) }
        for k in 0...150 { d.append(1500 + Double(k) * 10); t.append(500 + Double(k) * 2) }
        return F.equator(d, times: t)
    }

    func testEffortsDoNotSpanAStopLongerThanMaxStop() {
        XCTAssertNil(measure(withStop, "effort", ["distance_m": .number(3000)]), "the 200 s stop cuts the run in two 1500 m stretches")
        let allowed = measure(withStop, "effort", ["distance_m": .number(3000), "max_stop_s": .number(300)])
        XCTAssertEqual(number(allowed, "elapsed_s"), 800, accuracy: 1e-6)
        XCTAssertEqual(number(measure(withStop, "effort", ["duration_s": .number(300)]), "distance_m"), 1500, accuracy: 1e-6)
        XCTAssertEqual(number(measure(withStop, "effort", ["duration_s": .number(500), "max_stop_s": .number(300)]), "distance_m"), 1500, accuracy: 1e-6,
                       "300 s of running around the stop: 1500 m")
    }

    /// Several distances asked under one name (as `age_grade` asks its table's distances, all named
    /// "") on a run with a long stop: each keeps its own effort. Matched by name across the
    /// stretches, every one was the shortest distance's effort.
    func testEffortsOfOneNameAcrossAStopKeepTheirOwnDistances() {
        let series = TimedSeries(RunAnalyzer.profile(of: withStop))
        let wanted: [(name: String, meters: Double)] = [("", 400), ("", 1000), ("", 1500)]
        let efforts = RunAnalyzer.bestEfforts(in: series, wanted, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds)
        XCTAssertEqual(efforts.map(\.distanceMeters), [400, 1000, 1500])
        XCTAssertEqual(efforts.map(\.name), ["", "", ""])
        for effort in efforts { XCTAssertEqual(effort.elapsedSeconds, effort.distanceMeters / 5, accuracy: 1e-6) }
        // As the standard distances (distinct names) give them.
        let named = RunAnalyzer.bestEfforts(in: series, [("a", 400), ("b", 1000), ("c", 1500)], maxStopSeconds: RunAnalyzer.effortMaxStopSeconds)
        XCTAssertEqual(named.map(\.elapsedSeconds), efforts.map(\.elapsedSeconds))
    }

    func testStopsCountsTheLongestAndTheTotal() {
        // Stops of 30 s at 1000 m and 200 s at 2000 m; 10 m every 2 s otherwise.
        var d: [Double] = [], t: [Double] = []
        var time = 0.0
        for k in 0...300 {
            let here = Double(k) * 10
            if k > 0 { time += 2 }
            if here == 1010 { time += 30 }
            if here == 2010 { time += 200 }
            d.append(here); t.append(time)
        }
        let track = F.equator(d, times: t)
        let stops = measure(track, "stops", ["min_s": .number(10)])
        XCTAssertEqual(stops?["count"], .integer(2))
        XCTAssertEqual(number(stops, "longest_s"), 202, accuracy: 1e-9, "the slow step of 200 s plus its 2 s")
        XCTAssertEqual(number(stops, "total_s"), 234, accuracy: 1e-9)
        let long = measure(track, "stops", ["min_s": .number(60)])
        XCTAssertEqual(long?["count"], .integer(1))
        XCTAssertEqual(measure(F.steady(total: 3000, step: 10, secondsPerMetre: 0.2), "stops", ["min_s": .number(10)])?["count"], .integer(0))
        XCTAssertNil(measure(F.equator([0, 10, 20]), "stops", ["min_s": .number(10)]), "no times: nil")
    }

    /// A reading a second for 2100 s: 100 bpm for 600 s, 130 for 1200 s, 160 for 300 s.
    func heartRateTrack(spike: Int? = nil) -> Track {
        let n = 2100
        let d = (0..<n).map { Double($0) * 3 }
        let hr = (0..<n).map { k -> Double in
            if k == spike { return 150 }
            return k < 600 ? 100 : k < 1800 ? 130 : 160
        }
        return F.equator(d, times: (0..<n).map(Double.init), heartRates: hr)
    }

    func testTimeInARangeWeighsEachReadingByTheTimeItCovers() {
        let range: [String: MeasureDefinition.Parameter] = ["channel": .text("heart_rate"), "min": .number(120), "max": .number(145)]
        let value = measure(heartRateTrack(), "time_in", range)
        XCTAssertEqual(number(value, "seconds"), 1200, accuracy: 1e-9)
        XCTAssertEqual(number(value, "longest_s"), 1200, accuracy: 1e-9)
        XCTAssertEqual(number(value, "share"), 1200.0 / 2099, accuracy: 1e-12)
        // One reading outside at 1200 s: a second less, and the longest stretch ends halfway to it.
        let broken = measure(heartRateTrack(spike: 1200), "time_in", range)
        XCTAssertEqual(number(broken, "seconds"), 1199, accuracy: 1e-9)
        XCTAssertEqual(number(broken, "longest_s"), 600, accuracy: 1e-9)
        // Only a lower bound: 130 and 160, from halfway between 599 s and 600 s to the last reading at 2099 s.
        XCTAssertEqual(number(measure(heartRateTrack(), "time_in", ["channel": .text("heart_rate"), "min": .number(120)]), "seconds"), 1499.5, accuracy: 1e-9)
        XCTAssertNil(measure(F.steady(total: 1000, step: 10, secondsPerMetre: 0.3), "time_in", range), "no heart rate: nil")
    }

    /// "130 to 150 bpm" is `min = 130, max = 150`: both bounds are included (the 130 bpm stretch counts
    /// with `max = 130`); a zone's upper bound (`below`) is the next zone's and is left out.
    func testTimeInIncludesItsMaxButAZoneLeavesItsUpperBoundToTheNext() {
        let exactly = measure(heartRateTrack(), "time_in", ["channel": .text("heart_rate"), "min": .number(130), "max": .number(130)])
        XCTAssertEqual(number(exactly, "seconds"), 1200, accuracy: 1e-9)
        let upTo = measure(heartRateTrack(), "time_in", ["channel": .text("heart_rate"), "max": .number(130)])
        XCTAssertEqual(number(upTo, "seconds"), 1799.5, accuracy: 1e-9, "100 and 130 bpm, to halfway to the first 160")
        let zoneBelow = measure(heartRateTrack(), "time_in", ["channel": .text("heart_rate"), "min": .number(100), "below": .number(130)])
        XCTAssertEqual(number(zoneBelow, "seconds"), 599.5, accuracy: 1e-9, "130 bpm belongs to the next zone")
    }

    func testTimeInSpeedAndGradeBelongToTheSteps() {
        // 5 m/s for 600 s, 3.33 m/s for 1200 s.
        let speed = measure(plantedFast, "time_in", ["channel": .text("speed"), "min": .number(4)])
        XCTAssertEqual(number(speed, "seconds"), 600, accuracy: 1e-6)
        XCTAssertEqual(number(speed, "longest_s"), 600, accuracy: 1e-6)
        // Climbing 1 m every 10 m (10%) for the first 100 steps, flat after.
        let d = (0...200).map { Double($0) * 10 }
        let e = (0...200).map { k in Double(min(k, 100)) }
        let hill = F.equator(d, times: d.map { $0 * 0.3 }, elevations: e)
        let climbing = measure(hill, "time_in", ["channel": .text("grade"), "min": .number(5)])
        XCTAssertEqual(number(climbing, "seconds"), 300, accuracy: 1e-6)
    }

    func testZonesComeFromTheAthleteProfile() throws {
        let athlete = try Athlete.parse(Data(#"{"max_hr": 200, "resting_hr": 50}"#.utf8), source: "me.json")
        XCTAssertEqual(athlete.zone(2)?.lower, 140)
        XCTAssertEqual(athlete.zone(2)?.upper, 155)
        XCTAssertNil(athlete.zone(5)?.upper, "the top zone is open")
        let zone2 = MeasureDefinition(kind: "time_in", parameters: ["channel": .text("heart_rate"), "zone": .number(2)])
        guard case .success(let resolved) = zone2.resolved(athlete: athlete) else { return XCTFail("zone 2 not resolved") }
        XCTAssertEqual(resolved.number("min"), 140)
        // A zone ends where the next begins (`below`, left out), unlike a declared `max` (included).
        XCTAssertEqual(resolved.number("below"), 155)
        XCTAssertNil(resolved.number("max"))
        guard case .failure(let problem) = zone2.resolved(athlete: nil) else { return XCTFail("resolved without a profile") }
        XCTAssertTrue(problem.reason.contains("--athlete"), problem.reason)
        let explicit = try Athlete.parse(Data(#"{"zones": [[100, 120], [120, 140]]}"#.utf8), source: "z.json")
        XCTAssertEqual(explicit.zone(2)?.lower, 120)
        XCTAssertThrowsError(try Athlete.parse(Data(#"{"max_hr": 500}"#.utf8), source: "bad.json")) { error in
            XCTAssertEqual("\(error)", "bad.json: field 'max_hr': must be a heart rate in bpm between 20 and 260")
        }
        XCTAssertThrowsError(try Athlete.parse(Data(#"{"maxhr": 190}"#.utf8), source: "bad.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("bad.json: field 'maxhr': unknown field"), "\(error)")
        }
    }

    func testSunriseAndSunsetAndPolarDays() {
        // Tromsø: midnight sun at midsummer, polar night at midwinter.
        XCTAssertEqual(Sun.day(year: 2026, month: 6, day: 21, latitude: 69.65, longitude: 18.96), .polarDay)
        XCTAssertEqual(Sun.day(year: 2026, month: 12, day: 21, latitude: 69.65, longitude: 18.96), .polarNight)
        // Greenwich at the March equinox: about 06:03 and 18:12 UTC (the equation of time and refraction).
        guard case .events(let rise, let set) = Sun.day(year: 2026, month: 3, day: 20, latitude: 51.4769, longitude: 0) else {
            return XCTFail("no events at Greenwich")
        }
        let midnight = Double(Timestamps.daysFromCivil(year: 2026, month: 3, day: 20)) * 86_400
        XCTAssertEqual((rise - midnight) / 60, 6 * 60 + 3, accuracy: 3)
        XCTAssertEqual((set - midnight) / 60, 18 * 60 + 12, accuracy: 3)
    }

    func testTheSunMeasureTellsWhereTheRunSitsInTheDay() {
        // 2024-05-01 at Amsterdam: sunrise at 06:09 CEST (04:09 UTC). A generated 5 km from 04:00 UTC spans it.
        var generator = RunGenerator(seed: 7, distanceMeters: 5000, paceSecondsPerKilometre: 330)
        generator.startEpochSeconds = 1_714_536_000  // 2024-05-01T04:00:00Z
        let early = measure(generator.track(), "sun")
        XCTAssertEqual(early?["spans_sunrise"], .boolean(true))
        XCTAssertEqual(early?["daylight"], .boolean(false))
        XCTAssertEqual(number(early, "sunrise_epoch_s"), 1_714_536_000 + 9 * 60, accuracy: 90)
        generator.startEpochSeconds = 1_714_545_000  // 06:30Z: in daylight
        XCTAssertEqual(measure(generator.track(), "sun")?["daylight"], .boolean(true))
        generator.startEpochSeconds = 1_714_530_000  // 02:20Z: over before sunrise
        let dawn = measure(generator.track(), "sun")
        XCTAssertEqual(dawn?["spans_sunrise"], .boolean(false))
        XCTAssertLessThan(number(dawn, "end_epoch_s"), number(dawn, "sunrise_epoch_s"))
        XCTAssertNil(measure(F.steady(total: 1000, step: 10, secondsPerMetre: 0.3).untimed(), "sun"), "no start time: nil")
    }

    /// A generated run at 1 s with a planted heart rate: 100 bpm for 600 s, 130 until 1800 s, 160 after.
    func testAGeneratedRunWithAPlantedHeartRateHasTheKnownTimeInEachRange() throws {
        var generator = RunGenerator(seed: 5, distanceMeters: 7000, paceSecondsPerKilometre: 300)
        generator.heartRateSteps = [.init(untilSeconds: 600, bpm: 100), .init(untilSeconds: 1800, bpm: 130), .init(untilSeconds: 0, bpm: 160)]
        let track = generator.track()
        let end = try XCTUnwrap(track.times.last) - generator.startEpochSeconds
        func seconds(_ lower: Double?, _ upper: Double?) -> Double {
            var parameters: [String: MeasureDefinition.Parameter] = ["channel": .text("heart_rate")]
            if let lower { parameters["min"] = .number(lower) }
            if let upper { parameters["max"] = .number(upper) }
            return number(measure(track, "time_in", parameters), "seconds")
        }
        // Readings a second apart: each range from halfway between its first reading and the one before.
        XCTAssertEqual(seconds(nil, 120), 599.5, accuracy: 0.01)
        XCTAssertEqual(seconds(120, 145), 1200, accuracy: 0.01)
        XCTAssertEqual(seconds(145, nil), end - 1799.5, accuracy: 0.01)
        XCTAssertEqual(number(measure(track, "time_in", ["channel": .text("heart_rate"), "min": .number(120), "max": .number(145)]), "longest_s"),
                       1200, accuracy: 0.01)
    }

    func testAGeneratedRunWithAPlantedFastSectionAndPauses() {
        var generator = RunGenerator(seed: 11, distanceMeters: 8000, paceSecondsPerKilometre: 360)
        generator.gpsNoiseMeters = 0
        generator.fastSection = .init(startMeters: 3000, lengthMeters: 3000, paceSecondsPerKilometre: 240)
        generator.pauseCount = 0
        let best = measure(generator.track(), "effort", ["distance_m": .number(3000)])
        XCTAssertEqual(number(best, "elapsed_s"), 720, accuracy: 3, "3 km at 4:00/km")
        XCTAssertEqual(number(best, "start_distance_m"), 3000, accuracy: 15)
        // Two planted pauses of 90 s (gaps in the recording): two stops of the pause and its step.
        generator.pauseCount = 2
        generator.pauseSeconds = 90
        let stops = measure(generator.track(), "stops", ["min_s": .number(10)])
        XCTAssertEqual(stops?["count"], .integer(2))
        XCTAssertEqual(number(stops, "longest_s"), 91, accuracy: 1)
        XCTAssertEqual(number(stops, "total_s"), 182, accuracy: 2)
    }
}

extension Track {
    /// The same points without times.
    func untimed() -> Track {
        var copy = self
        copy.times = copy.times.map { _ in .nan }
        return copy
    }
}
