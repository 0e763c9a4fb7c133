import Foundation

/// Normalises the many ways files name a sport.
public enum Sport {
    /// Strava's numeric activity types as they appear in GPX `<type>` (Strava's upload API codes).
    static let stravaCodes: [String: String] = [
        "1": "cycling", "2": "skiing", "4": "hiking", "9": "running", "10": "walking", "16": "swimming",
        "17": "cycling",
    ]

    /// `running`, `cycling`, `walking`, `hiking`, `swimming`, ... or the lower-cased word; nil → `running`
    /// (an unknown sport counts as running; the plausibility check is separate).
    public static func normalise(_ raw: String?) -> String {
        guard let raw = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return "running" }
        if let code = stravaCodes[raw] { return code }
        let word = raw.lowercased()
        switch word {
        case "running", "run", "trail_running", "trail running", "treadmill", "treadmill_running", "jogging", "virtualrun", "virtual run", "trailrun":
            return "running"
        case "biking", "cycling", "ride", "bike", "virtualride", "road_biking", "mountain_biking", "mountainbikeride", "ebikeride", "gravelride":
            return "cycling"
        case "walking", "walk": return "walking"
        case "hiking", "hike": return "hiking"
        case "swimming", "swim", "pool_swimming", "open_water_swimming": return "swimming"
        case "other", "generic", "unknown", "": return "running"
        default: return word
        }
    }
}
