@testable import RunAnalysis
@testable import RunFiles
import SyntheticRuns
import XCTest

/// Grade-adjusted pace on synthetic hills, against values worked out by hand from Minetti et al. (2002):
/// C(i) = 155.4i⁵ − 30.4i⁴ − 43.3i³ + 46.3i² + 19.5i + 3.6 J/kg/m, so C(0) = 3.6,
/// C(0.1) = 0.001554 − 0.00304 − 0.0433 + 0.463 + 1.95 + 3.6 = 5.968214 (1.657837 × the flat),
/// C(−0.1) = −0.001554 − 0.00304 + 0.0433 + 0.463 − 1.95 + 3.6 = 2.151706 (0.597696 × the flat),
/// C(0.45) = 19.426015 (5.396115 × the flat).
final class GradeAdjustedTests: XCTestCase {
    typealias F = AnalyticsFixtures

    /// Points every 10 m along the equator at 0.3 s/m, through legs of (metres, gradient).
    func hills(_ legs: [(metres: Double, gradient: Double)]) -> Track {
        var d: [Double] = [0], e: [Double] = [100]
        for leg in legs {
            for _ in 0..<Int(leg.metres / 10) { d.append(d[d.count - 1] + 10); e.append(e[e.count - 1] + 10 * leg.gradient) }
        }
        return F.equator(d, times: d.map { $0 * 0.3 }, elevations: e)
    }

    func measure(_ track: Track, _ parameters: [String: MeasureDefinition.Parameter] = ["smoothing_m": .number(10)]) -> MeasureValue? {
        let definition = MeasureDefinition(kind: "grade_adjusted", parameters: parameters)
        return RunAnalyzer(measures: [definition]).summarize(track, id: "t").measures[definition.key]
    }

    func number(_ value: MeasureValue?, _ field: String, file: StaticString = #filePath, line: UInt = #line) -> Double {
        guard let x = value?[field]?.number else { XCTFail("no number '\(field)' in \(String(describing: value))", file: file, line: line); return .nan }
        return x
    }

    func testTheCostIsMinettisPolynomial() {
        XCTAssertEqual(GradeAdjusted.cost(0), 3.6)
        XCTAssertEqual(GradeAdjusted.cost(0.1), 5.968214, accuracy: 1e-9)
        XCTAssertEqual(GradeAdjusted.cost(-0.1), 2.151706, accuracy: 1e-9)
        XCTAssertEqual(GradeAdjusted.cost(0.45), 19.4260145625, accuracy: 1e-9)
        XCTAssertEqual(GradeAdjusted.cost(0.6), GradeAdjusted.cost(0.45), "clamped to the model's range")
        XCTAssertEqual(GradeAdjusted.cost(-0.9), GradeAdjusted.cost(-0.45))
    }

    /// A flat run's grade-adjusted pace is its pace: 300 s/km.
    func testOnTheFlatItIsThePace() {
        let value = measure(hills([(2000, 0)]))
        XCTAssertEqual(number(value, "pace_s_per_km"), 300, accuracy: 1e-6)
        XCTAssertEqual(number(value, "equivalent_distance_m"), 2000, accuracy: 1e-6)
    }

    /// 1 km flat then 1 km up at 10%, 600 s in all. With a 10 m window (one step) each step's gradient is
    /// its own: flat-equivalent distance 1000 + 1000 × 1.657837 = 2657.837 m, pace 600 / 2.657837 = 225.747 s/km.
    /// Down at −10% instead: 1000 + 597.696 = 1597.696 m, 375.541 s/km.
    func testUpAndDownHillByHand() {
        let up = measure(hills([(1000, 0), (1000, 0.1)]))
        XCTAssertEqual(number(up, "equivalent_distance_m"), 2657.837, accuracy: 1e-3)
        XCTAssertEqual(number(up, "pace_s_per_km"), 225.747, accuracy: 1e-3)
        XCTAssertEqual(number(up, "elapsed_s"), 600, accuracy: 1e-6)
        XCTAssertEqual(number(up, "distance_m"), 2000, accuracy: 1e-6)
        let down = measure(hills([(1000, 0), (1000, -0.1)]))
        XCTAssertEqual(number(down, "pace_s_per_km"), 375.541, accuracy: 1e-3)
    }

    /// A 60% wall is costed as 45%: 1 km at 0.6, 300 s over 5396.115 m: 55.596 s/km.
    func testGradientsAreClampedToTheModelsRange() {
        XCTAssertEqual(number(measure(hills([(1000, 0.6)])), "pace_s_per_km"), 300 / 5.396115, accuracy: 1e-3)
    }

    /// The window: 500 m flat, 500 m at 10%, 100 m window. The steps whose window straddles the foot of the
    /// hill (middles 455 to 545 m) see the share of the window on the slope: 10% × (m + 50 − 500) / 100, that
    /// is 0.5%, 1.5%, ... 9.5%; every other step its own gradient (the window is cut at the ends, where the
    /// slope is uniform). Hand sum: 450 flat + 100 m at those ten gradients (Σ C(i)/C(0) × 10) + 450 at 10%.
    func testGradientsAreSmoothedOverTheWindow() {
        let ratio = { (i: Double) in GradeAdjusted.cost(i) / 3.6 }
        var expected = 450.0 + 450 * 1.6578372222
        for s in 0..<10 { expected += 10 * ratio(0.005 + 0.01 * Double(s)) }
        // 10 m × the ratios at 0.5%, 1.5%, ... 9.5% (1.0274, 1.0841, ... 1.6200): 131.0508 m for 100 m of ground.
        XCTAssertEqual(expected - 450 - 450 * 1.6578372222, 131.0508, accuracy: 1e-3)
        let value = measure(hills([(500, 0), (500, 0.1)]), ["smoothing_m": .number(100)])
        XCTAssertEqual(number(value, "equivalent_distance_m"), expected, accuracy: 1e-3)
    }

    /// The fastest stretch of 1000 flat-equivalent metres lies on the hill: 1000 / 1.657837 = 603.196 m of
    /// ground at 0.3 s/m, 180.959 s.
    func testTheBestEffortIsTheFastestFlatEquivalentStretch() {
        let value = measure(hills([(1000, 0), (1000, 0.1)]), ["smoothing_m": .number(10), "distance_m": .number(1000)])
        XCTAssertEqual(number(value, "effort_elapsed_s"), 180.959, accuracy: 1e-3)
        XCTAssertEqual(number(value, "effort_pace_s_per_km"), 180.959, accuracy: 1e-3)
        XCTAssertEqual(number(value, "effort_distance_m"), 603.196, accuracy: 1e-3)
        XCTAssertGreaterThanOrEqual(number(value, "effort_start_elapsed_s"), 300 - 1e-6, "on the hill")
    }

    /// Without elevations there is nothing to adjust for: nil.
    func testWithoutElevationsItIsNil() {
        XCTAssertNil(measure(F.steady(total: 2000, step: 10, secondsPerMetre: 0.3)))
    }

    /// A generated run up a steady 5% slope (RunGenerator's `gradient`, no rolling hills, no noise): the
    /// adjusted pace is the pace over C(0.05)/C(0) = (0.0000486 − 0.00019 − 0.0054125 + 0.11575 + 0.975 + 3.6)
    /// / 3.6 = 4.685196 / 3.6 = 1.301443.
    func testAGeneratedSteadyClimb() {
        var generator = RunGenerator(seed: 3, distanceMeters: 3000, paceSecondsPerKilometre: 360)
        generator.gradient = 0.05
        generator.hillAmplitudeMeters = 0
        generator.altitudeNoiseMeters = 0
        generator.gpsNoiseMeters = 0
        generator.paceVariation = 0
        let value = measure(generator.track(), [:])
        let ratio = GradeAdjusted.cost(0.05) / 3.6
        XCTAssertEqual(ratio, 1.301443, accuracy: 1e-6)
        let pace = number(value, "elapsed_s") / number(value, "distance_m") * 1000
        XCTAssertEqual(number(value, "pace_s_per_km"), pace / 1.301443, accuracy: 0.5)
    }
}
