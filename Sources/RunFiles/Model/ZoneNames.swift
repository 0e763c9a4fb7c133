import Foundation

/// Time zones by the names people type (`--tz`, a worker line's `tz`) and the name badgectl shows and
/// saves for one.
///
/// Foundation calls UTC "GMT" (`TimeZone(identifier: "UTC")?.identifier` is "GMT"), and knows
/// `Etc/UTC` only where the system's zone files are installed: `--tz UTC` was shown and saved as "GMT"
/// and `--tz Etc/UTC` refused on such a system. UTC by any of its names is the fixed zone of offset
/// 0, shown and saved as "UTC".
public enum ZoneNames {
    /// Names of UTC (the tz database's aliases, compared without case).
    static let utc: Set<String> = [
        "utc", "etc/utc", "uct", "etc/uct", "universal", "etc/universal", "zulu", "etc/zulu",
        "gmt", "etc/gmt", "gmt0", "etc/gmt0", "gmt+0", "etc/gmt+0", "gmt-0", "etc/gmt-0", "greenwich", "etc/greenwich",
    ]

    /// The zone a name means: UTC by any of its names, else Foundation's zone of that identifier
    /// (`Europe/Paris`); nil when there is none.
    public static func zone(named name: String) -> TimeZone? {
        if utc.contains(name.lowercased()) { return TimeZone(secondsFromGMT: 0) }
        return TimeZone(identifier: name)
    }

    /// The name shown and saved for `zone`: "UTC" for UTC, else its identifier.
    public static func name(of zone: TimeZone) -> String {
        canonical(zone.identifier)
    }

    /// `name` as badgectl writes it: "UTC" for any name of UTC (a state saved as "GMT" before names the
    /// same zone as one saved as "UTC"), else `name` unchanged.
    public static func canonical(_ name: String) -> String {
        utc.contains(name.lowercased()) ? "UTC" : name
    }
}
