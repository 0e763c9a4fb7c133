import XCTest

@testable import RunFiles

final class SportTests: XCTestCase {
    /// The FIT profile's sport words, as the dictionary `sportName` read before it became an array
    /// (for start-up's sake): every number from 0 to 255 gives the same word, or itself as text.
    func testEveryFITSportNumberGivesTheProfilesWord() {
        let profile: [UInt8: String] = [
            0: "generic", 1: "running", 2: "cycling", 3: "transition", 4: "fitness_equipment", 5: "swimming",
            6: "basketball", 7: "soccer", 8: "tennis", 9: "american_football", 10: "training", 11: "walking",
            12: "cross_country_skiing", 13: "alpine_skiing", 14: "snowboarding", 15: "rowing", 16: "mountaineering",
            17: "hiking", 18: "multisport", 19: "paddling", 20: "flying", 21: "e_biking", 22: "motorcycling",
            23: "boating", 24: "driving", 25: "golf", 26: "hang_gliding", 27: "horseback_riding", 28: "hunting",
            29: "fishing", 30: "inline_skating", 31: "rock_climbing", 32: "sailing", 33: "ice_skating",
            34: "sky_diving", 35: "snowshoeing", 36: "snowmobiling", 37: "stand_up_paddleboarding", 38: "surfing",
            39: "wakeboarding", 40: "water_skiing", 41: "kayaking", 42: "rafting", 43: "windsurfing",
            44: "kitesurfing", 45: "tactical", 46: "jumpmaster", 47: "boxing", 48: "floor_climbing",
            53: "diving", 254: "all",
        ]
        for value in UInt8.min...UInt8.max {
            XCTAssertEqual(FITProfile.sportName(value), profile[value] ?? String(value), "sport \(value)")
        }
        // The dictionary is still there for code that read it (deprecated).
        XCTAssertEqual(Self.publishedTable, profile)
    }

    @available(*, deprecated)
    static var publishedTable: [UInt8: String] { FITProfile.sportNames }

    func testNamesFromEveryFormat() {
        let cases: [(String?, String)] = [
            // TCX
            ("Running", "running"), ("Biking", "cycling"), ("Other", "other"),
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
