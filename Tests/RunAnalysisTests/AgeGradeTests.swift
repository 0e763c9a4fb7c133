@testable import RunAnalysis
@testable import RunFiles
import XCTest

/// The `age_grade` measure against values worked out by hand from the shipped tables (Alan Jones's road
/// standards, AgeGrade/*.csv). Tracks run along the equator from 2023-11-14 22:13:20 UTC
/// (`AnalyticsFixtures.start`), so a runner born on 1969-06-01 is 54 on the day.
final class AgeGradeTests: XCTestCase {
    typealias F = AnalyticsFixtures

    func grade(_ track: Track, birth: String = "1969-06-01", sex: String = "male", table: String? = nil) -> MeasureValue? {
        var parameters: [String: MeasureDefinition.Parameter] = [:]
        if let table { parameters["table"] = .text(table) }
        let declared = MeasureDefinition(kind: "age_grade", parameters: parameters)
        guard case .success(let definition) = declared.resolved(athlete: Athlete(source: "a.json", birthDate: birth, sex: sex)) else {
            XCTFail("not resolved"); return nil
        }
        return RunAnalyzer(measures: [definition]).summarize(track, id: "t").measures[definition.key]
    }

    func number(_ value: MeasureValue?, _ field: String, file: StaticString = #filePath, line: UInt = #line) -> Double {
        guard let x = value?[field]?.number else { XCTFail("no number '\(field)' in \(String(describing: value))", file: file, line: line); return .nan }
        return x
    }

    func testTheTablesAreReadAsPublished() throws {
        let male = try XCTUnwrap(AgeGradeTable.named(sex: "male", edition: "2025"))
        XCTAssertEqual(male.distances.count, 22)
        XCTAssertEqual(male.distances.first ?? 0, 1609.344, accuracy: 1e-9)
        XCTAssertEqual(male.distances.last ?? 0, 200_000, accuracy: 1e-9)
        XCTAssertEqual(male.openSeconds[6], 1584)
        XCTAssertEqual(male.factors[54]?[6], 0.8586)
        XCTAssertEqual(male.factors.keys.sorted().first, 5)
        XCTAssertEqual(male.factors.keys.sorted().last, 100)
        // The 2020 tables have no 7-mile column: 21 distances.
        XCTAssertEqual(AgeGradeTable.named(sex: "female", edition: "2020")?.distances.count, 21)
        XCTAssertEqual(AgeGradeTable.named(sex: "female", edition: "2020")?.factors[40]?[1], 0.9734)
        XCTAssertNil(AgeGradeTable.named(sex: "male", edition: "2010"))
    }

    /// The tables' README: age 54, 10 km in 42:25 (2,545 s): factor 0.8586, standard 1,584 s, age standard
    /// 1,584 / 0.8586 = 1,844.86 s, age grade 72.49%.
    func testTheReadmesWorkedExample() {
        let value = grade(F.legs([(10_000, 0.2545)], step: 10))
        XCTAssertEqual(value?["age"], .integer(54))
        XCTAssertEqual(number(value, "age_standard_s"), 1584 / 0.8586, accuracy: 1e-9)
        XCTAssertEqual(number(value, "percent"), 72.4897, accuracy: 1e-4)
        XCTAssertEqual(number(value, "distance_m"), 10_000, accuracy: 1e-6)
        XCTAssertEqual(number(value, "elapsed_s"), 2545, accuracy: 1e-6)
        // At an even pace the 10 km grades best: 1 mile 66.64%, 5 km 71.14%, ... 10 km 72.49%.
        XCTAssertEqual(number(value, "best_percent"), 72.4897, accuracy: 1e-4)
        guard case .list(let efforts)? = value?["efforts"] else { return XCTFail("no efforts") }
        XCTAssertEqual(efforts.count, 7, "1 mile, 5 km, 6 km, 4 miles, 8 km, 5 miles, 10 km")
        guard case .record(let mile)? = efforts.first else { return XCTFail("no mile") }
        // 1 mile: 227 / 0.8317 = 272.94 s over 1609.344 × 0.2545 = 409.58 s: 66.64%.
        XCTAssertEqual(mile["percent"]?.number ?? 0, 100 * (227 / 0.8317) / (1609.344 * 0.2545), accuracy: 1e-6)
        XCTAssertEqual(mile["percent"]?.number ?? 0, 66.638, accuracy: 1e-3)
    }

    /// 11 km between the 10 km (1,844.86 s at 54) and 7-mile (11,265.408 m, 1790 / 0.858 = 2,086.25 s)
    /// columns: u = ln(11 / 10) / ln(11.265408 / 10) = 0.79967, S = 1,844.86 × 0.20033 + 2,086.25 × 0.79967
    /// = 2,037.95 s; 11 km at 0.27 s/m (2,970 s): 68.62%.
    func testBetweenTableDistancesTheStandardIsInterpolatedInLogDistance() {
        let value = grade(F.legs([(11_000, 0.27)], step: 10))
        XCTAssertEqual(number(value, "age_standard_s"), 2037.948, accuracy: 1e-3)
        XCTAssertEqual(number(value, "percent"), 68.618, accuracy: 1e-3)
    }

    /// The 2020 women's table at 40 over 5 km: 884 / 0.9734 = 908.16 s; 5 km in 25:00: 60.54%. The 2025
    /// one: 834 / 0.9499 = 877.99 s, 58.53%.
    func testTheEditionAndSexChooseTheTable() {
        let track = F.legs([(5000, 0.3)], step: 10)
        XCTAssertEqual(number(grade(track, birth: "1983-01-01", sex: "female", table: "2020"), "percent"), 60.544, accuracy: 1e-3)
        XCTAssertEqual(number(grade(track, birth: "1983-01-01", sex: "F"), "percent"), 58.532, accuracy: 1e-3)
    }

    func testOutsideTheTablesItIsNil() {
        // Under a mile: no table distance.
        XCTAssertNil(grade(F.legs([(1500, 0.3)], step: 10)))
        // Aged 4 on the day (the tables start at 5).
        XCTAssertNil(grade(F.legs([(5000, 0.3)], step: 10), birth: "2019-06-01"))
        // The day before the 55th birthday... the run is on 2023-11-14: born 1968-11-15 is still 54.
        XCTAssertEqual(grade(F.legs([(5000, 0.3)], step: 10), birth: "1968-11-15")?["age"], .integer(54))
        XCTAssertEqual(grade(F.legs([(5000, 0.3)], step: 10), birth: "1968-11-14")?["age"], .integer(55))
    }

    func testWithoutAProfileTheMeasureIsUnavailable() {
        let declared = MeasureDefinition(kind: "age_grade")
        guard case .failure(let none) = declared.resolved(athlete: nil) else { return XCTFail("resolved without a profile") }
        XCTAssertTrue(none.reason.contains("--athlete"), none.reason)
        guard case .failure(let noBirth) = declared.resolved(athlete: Athlete(source: "a.json", sex: "male")) else { return XCTFail("resolved") }
        XCTAssertTrue(noBirth.reason.contains("birth_date"), noBirth.reason)
        guard case .failure(let other) = declared.resolved(athlete: Athlete(source: "a.json", birthDate: "1980-01-01", sex: "x")) else {
            return XCTFail("resolved")
        }
        XCTAssertTrue(other.reason.contains("\"male\" and \"female\""), other.reason)
    }
}
