import Foundation

/// Normalises the many ways files name a sport: GPX `<type>` (words or Strava's numeric codes),
/// TCX `Sport` (`Running`, `Biking`, `Other`), FIT `sport` enum words (`running`, `e_biking`,
/// `cross_country_skiing`) and Strava export types (`Run`, `Trail Run`, `Virtual Ride`, `E-Bike Ride`).
public enum Sport {
    /// Strava's numeric activity types as they appear in GPX `<type>` (Strava's upload API codes).
    static let stravaCodes: [String: String] = [
        "1": "cycling", "2": "skiing", "4": "hiking", "9": "running", "10": "walking", "16": "swimming",
        "17": "cycling",
    ]

    /// Apple Health's workout types: `HKWorkoutActivityTypeRunning`, `HKWorkoutActivityTypeTraditionalStrengthTraining`.
    static let applePrefix = "HKWorkoutActivityType"

    /// Keys are lower case with spaces and hyphens as underscores.
    static let words: [String: String] = {
        var table: [String: String] = [:]
        let groups: [(String, [String])] = [
            ("running", [
                "running", "run", "trail_running", "trailrun", "trail_run", "treadmill", "treadmill_running",
                "jogging", "virtualrun", "virtual_run", "street_running", "track_running", "indoor_running",
                "ultra_run", "ultra_running",
            ]),
            ("cycling", [
                "biking", "cycling", "ride", "bike", "virtualride", "virtual_ride", "road_biking", "road_cycling",
                "mountain_biking", "mountainbikeride", "mountain_bike_ride", "ebikeride", "e_bike_ride",
                "e_biking", "e_mountain_bike_ride", "emountainbikeride", "gravelride", "gravel_ride",
                "gravel_cycling", "indoor_cycling", "handcycle", "velomobile",
            ]),
            ("walking", ["walking", "walk", "speed_walking"]),
            ("hiking", ["hiking", "hike"]),
            ("swimming", ["swimming", "swim", "pool_swimming", "open_water_swimming", "lap_swimming"]),
            // An unnamed sport counts as running; the plausibility check is separate. `other` is not
            // unnamed: TCX's `Sport="Other"` is how Garmin exports swims, strength and every sport but
            // running and cycling, so it stays `other` (not running).
            ("running", ["generic", "unknown", "all"]),
        ]
        for (sport, names) in groups { for name in names { table[name] = sport } }
        return table
    }()

    /// `running`, `cycling`, `walking`, `hiking`, `swimming`, or the name lower-cased with
    /// underscores (`cross_country_skiing`, `weight_training`); nil or empty → `running`.
    public static func normalise(_ raw: String?) -> String {
        guard var raw = raw.map(Trimming.spacesAndNewlines), !raw.isEmpty else { return "running" }
        if let code = stravaCodes[raw] { return code }
        // Apple Health's `HKWorkoutActivityTypeRunning`: the words after the prefix, camel case split.
        if raw.hasPrefix(applePrefix), raw.count > applePrefix.count {
            var words = ""
            for ch in raw.dropFirst(applePrefix.count) {
                if ch.isUppercase, !words.isEmpty { words.append("_") }
                words.append(ch)
            }
            raw = words
        }
        let key = self.key(raw)
        return words[key] ?? key
    }

    /// The sport words that say the activity was indoors (a treadmill, an indoor or virtual run or ride).
    static let indoorWords: Set<String> = [
        "treadmill", "treadmill_running", "indoor_running", "virtualrun", "virtual_run", "virtualride", "virtual_ride", "indoor_cycling",
    ]

    /// Whether the file's sport word says the activity was indoors (`treadmill`, `Indoor Running`, `VirtualRun`).
    public static func isIndoorWord(_ raw: String?) -> Bool {
        guard let raw = raw.map(Trimming.spacesAndNewlines), !raw.isEmpty else { return false }
        return indoorWords.contains(key(raw))
    }

    /// Lower case, spaces and hyphens as single underscores, none at the ends.
    static func key(_ raw: String) -> String {
        var key = ""
        var lastUnderscore = false
        for ch in raw.lowercased() {
            if ch == " " || ch == "-" || ch == "_" {
                if !lastUnderscore && !key.isEmpty { key.append("_") }
                lastUnderscore = true
            } else {
                key.append(ch)
                lastUnderscore = false
            }
        }
        if key.hasSuffix("_") { key.removeLast() }
        return key
    }
}
