import XCTest

@testable import RunFiles

final class SportTests: XCTestCase {
    func testNamesFromEveryFormat() {
        let cases: [(String?, String)] = [
            // TCX
            ("Running", "running"), ("Biking", "cycling"), ("Other", "running"),
            // FIT enum words, through FITProfile
            (FITProfile.sportName(1), "running"), (FITProfile.sportName(2), "cycling"), (FITProfile.sportName(5), "swimming"),
            (FITProfile.sportName(11), "walking"), (FITProfile.sportName(17), "hiking"), (FITProfile.sportName(0), "running"),
            (FITProfile.sportName(21), "cycling"), (FITProfile.sportName(12), "cross_country_skiing"), (FITProfile.sportName(200), "200"),
            // Strava export types
            ("Run", "running"), ("Ride", "cycling"), ("Walk", "walking"), ("Hike", "hiking"), ("Swim", "swimming"),
            ("Trail Run", "running"), ("Virtual Run", "running"), ("Virtual Ride", "cycling"), ("E-Bike Ride", "cycling"),
            ("Mountain Bike Ride", "cycling"), ("Weight Training", "weight_training"), ("Nordic Ski", "nordic_ski"),
            // GPX
            ("9", "running"), ("1", "cycling"), (" running ", "running"), ("trail_running", "running"),
            (nil, "running"), ("", "running"),
        ]
        for (raw, expected) in cases {
            XCTAssertEqual(Sport.normalise(raw), expected, raw ?? "nil")
        }
    }
}
