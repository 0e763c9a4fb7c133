import Foundation
import RunFiles
import XCTest

@testable import RunAnalysis

/// The profile's `goals` (`--athlete FILE`): read in the file's order with their default ids, and
/// every mistake refused naming the file and the field.
final class AthleteGoalsTests: XCTestCase {
    func parse(_ json: String) throws -> Athlete { try Athlete.parse(Data(json.utf8), source: "me.json") }

    func testGoalsAreReadInOrderWithTheirIDs() throws {
        let athlete = try parse(#"""
            {"max_hr": 190, "goals": [{"id": "year-1000k", "measure": "distance", "target": 1000000, "per": "year"},
                                      {"measure": "runs", "target": 12, "per": "month"},
                                      {"measure": "time", "target": 5400.5, "per": "week"}]}
            """#)
        XCTAssertEqual(athlete.goals, [
            Athlete.Goal(id: "year-1000k", measure: .distance, target: 1_000_000, per: .year),
            Athlete.Goal(id: "runs-12-month", measure: .runs, target: 12, per: .month),
            Athlete.Goal(id: "time-5400.5-week", measure: .time, target: 5400.5, per: .week),
        ])
        XCTAssertEqual(athlete.maxHeartRate, 190)
        XCTAssertEqual(try parse(#"{"sex": "female"}"#).goals, [])
        XCTAssertEqual(try parse(#"{"goals": null}"#).goals, [])
    }

    func testEveryMistakeNamesTheFileAndTheField() {
        let cases: [(String, String)] = [
            (#"{"goals": {"measure": "runs"}}"#, #"me.json: field 'goals': must be a list"#),
            (#"{"goals": [3]}"#, #"me.json: field 'goals[1]': must be an object"#),
            (#"{"goals": [{"measure": "runs", "target": 3, "per": "week", "every": 2}]}"#, #"me.json: field 'goals[1].every': unknown field"#),
            (#"{"goals": [{"target": 3, "per": "week"}]}"#, #"me.json: field 'goals[1].measure': missing: one of distance, runs, time"#),
            (#"{"goals": [{"measure": "km", "target": 3, "per": "week"}]}"#, #"me.json: field 'goals[1].measure': unknown measure 'km'"#),
            (#"{"goals": [{"measure": "runs", "target": 3}]}"#, #"me.json: field 'goals[1].per': missing: one of week, month, year"#),
            (#"{"goals": [{"measure": "runs", "target": 3, "per": "day"}]}"#, #"me.json: field 'goals[1].per': unknown period 'day' (one of week, month, year)"#),
            (#"{"goals": [{"measure": "runs", "per": "week"}]}"#, #"me.json: field 'goals[1].target': missing: a number above 0 (a whole number of runs)"#),
            (#"{"goals": [{"measure": "runs", "target": "3", "per": "week"}]}"#, #"me.json: field 'goals[1].target': must be a number above 0 (a whole number of runs)"#),
            (#"{"goals": [{"measure": "distance", "target": 0, "per": "week"}]}"#, #"me.json: field 'goals[1].target': must be above 0 and at most 1e9 (metres)"#),
            (#"{"goals": [{"measure": "time", "target": 2e9, "per": "week"}]}"#, #"me.json: field 'goals[1].target': must be above 0 and at most 1e9 (seconds)"#),
            (#"{"goals": [{"measure": "runs", "target": 2.5, "per": "week"}]}"#, #"me.json: field 'goals[1].target': must be a whole number of runs"#),
            (#"{"goals": [{"id": "", "measure": "runs", "target": 2, "per": "week"}]}"#, #"me.json: field 'goals[1].id': must be a short name"#),
            (#"{"goals": [{"measure": "runs", "target": 2, "per": "week"}, {"id": "runs-2-week", "measure": "runs", "target": 3, "per": "week"}]}"#,
             #"me.json: field 'goals[2].id': 'runs-2-week' is also goals[1]'s id"#),
        ]
        for (json, expected) in cases {
            do {
                _ = try parse(json)
                XCTFail("accepted \(json)")
            } catch {
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(json): \(error)")
            }
        }
        let many = "[" + Array(repeating: #"{"measure": "runs", "target": 1, "per": "week", "id": "x"}"#, count: 101).joined(separator: ",") + "]"
        XCTAssertThrowsError(try parse(#"{"goals": \#(many)}"#)) { error in
            XCTAssertTrue("\(error)".contains("at most 100 goals, got 101"), "\(error)")
        }
    }
}
