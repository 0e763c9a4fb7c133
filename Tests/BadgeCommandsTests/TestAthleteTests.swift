import RunFixtures
import Foundation
import SyntheticRuns
import XCTest

/// `t.run{ athlete = { birth_date =, sex = } }` through `badgectl test`: the pack's age_grade measure is
/// computed by the core, from a run's distance and time or from a generated GPX fixture's track, and a
/// malformed athlete is an error at the test's line.
final class TestAthleteTests: XCTestCase {
    func testTheCoreGradesRunsOfTheAthleteGiven() throws {
        let folder = try TemporaryFolder()
        try folder.write("graded/pack.lua", """
            return { name = "graded", version = "1", measures = { grade = { kind = "age_grade" } },
              badges = { { id = "graded-60", name = "Graded 60" } } }
            """)
        try folder.write("graded/sixty.lua", """
            return { id = "sixty", badge = "graded-60",
              earned = function(run) local g = run.measures.grade; return g ~= nil and g.best_percent >= 60 end }
            """)
        // An even 5 km at 5:00/km, no GPS noise, flat: 1500 s.
        var generator = RunGenerator(seed: 7, distanceMeters: 5000, paceSecondsPerKilometre: 300)
        generator.paceVariation = 0; generator.gpsNoiseMeters = 0; generator.hillAmplitudeMeters = 0
        generator.startEpochSeconds = 1_740_816_000  // 2025-03-01T08:00:00Z
        try folder.write("graded/tests/fixtures/five.gpx", generator.gpx())
        try folder.write("graded/graded_test.lua", """
            -- A woman of 40, 5 km (open standard 834 s, factor 0.9499): 834 / 0.9499 = 877.99 s.
            -- In 25:00 (1500 s): 877.99 / 1500 = 58.53%; in 24:00 (1440 s): 60.97%.
            local her = { birth_date = "1984-06-01", sex = "female" }
            test("from the run's fields", function(t)
              local slow = t.run{ id = "slow", date = "2025-03-01", distance_km = 5, duration = "25:00", athlete = her }
              local fast = t.run{ id = "fast", date = "2025-03-02", distance_km = 5, duration = "24:00", athlete = her }
              t.expect_eq(slow.measures.grade.age, 40)
              t.expect_near(slow.measures.grade.best_percent, 58.53, 0.01)
              t.expect_near(fast.measures.grade.best_percent, 60.97, 0.01)
              local result = t.evaluate({ slow, fast })
              t.expect_award(result, { badge = "graded-60", run = fast })
              t.expect_eq(#result.awards, 1)
              t.expect_eq(t.run{ id = "none", distance_km = 5, duration = "25:00" }.measures.grade, nil)
            end)
            test("from a file's track", function(t)
              local five = t.run{ file = "tests/fixtures/five.gpx", athlete = her }
              t.expect_eq(five.measures.grade.age, 40)
              t.expect_near(five.measures.grade.percent, 58.53, 0.3)
              t.expect_eq(t.run{ file = "tests/fixtures/five.gpx", id = "plain" }.measures.grade, nil)
            end)
            test("a bad athlete", function(t)
              t.run{ distance_km = 5, duration = "25:00", athlete = { birth_date = "1984-02-30", sex = "female" } }
            end)
            """)
        let result = try CLI.run(["test", folder.path + "/graded"])
        XCTAssertEqual(result.status, 3, result.stdout + result.stderr)  // a test failed
        XCTAssertTrue(result.stdout.contains("2 passed, 1 failed"), result.stdout)
        XCTAssertTrue(result.stdout.contains("graded_test.lua:22: t.run: athlete: birth_date must be a date YYYY-MM-DD, got '1984-02-30'"),
                      result.stdout)
    }
}
