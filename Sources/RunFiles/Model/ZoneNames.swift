import Foundation

/// Time zones by the names people type (`--tz`, a worker line's `tz`) and the name badgectl shows and
/// saves for one.
///
/// Foundation calls UTC "GMT" (`TimeZone(identifier: "UTC")?.identifier` is "GMT"), and knows
/// `Etc/UTC` only where the system's zone files are installed: `--tz UTC` was shown and saved as "GMT"
/// and `--tz Etc/UTC` refused on such a system. UTC by any of its names is the fixed zone of offset
/// 0, shown and saved as "UTC".
public enum ZoneNames {
    /// True for a name of UTC (the tz database's aliases, compared without case).
    ///
    /// A switch, not a `Set<String>`: the first hashed collection of a type makes the runtime look its
    /// `Hashable` conformance up through every conformance record of the static binary, and this runs
    /// at every command's start (0.3 ms of a 17 ms `summarize`).
    static func isUTC(_ name: String) -> Bool {
        switch name.lowercased() {
        case "utc", "etc/utc", "uct", "etc/uct", "universal", "etc/universal", "zulu", "etc/zulu",
             "gmt", "etc/gmt", "gmt0", "etc/gmt0", "gmt+0", "etc/gmt+0", "gmt-0", "etc/gmt-0", "greenwich", "etc/greenwich":
            return true
        default:
            return false
        }
    }

    /// The zone a name means: UTC by any of its names, else Foundation's zone of that identifier
    /// (`Europe/Paris`); nil when there is none.
    public static func zone(named name: String) -> TimeZone? {
        if isUTC(name) { return TimeZone(secondsFromGMT: 0) }
        return TimeZone(identifier: name)
    }

    /// The machine's zone, as `TimeZone.current` gives it, except that when the machine's zone is UTC
    /// by one of its names (`TZ`, else the zone file `/etc/localtime` links to) it is the fixed zone
    /// of offset 0 with no lookup: `TimeZone.current` asks ICU for the canonical identifier, half a
    /// millisecond of every command's start-up (shown and saved as "UTC" either way, `name(of:)`).
    public static var machine: TimeZone {
        if let name = machineZoneName(), isUTC(name), let zone = TimeZone(secondsFromGMT: 0) { return zone }
        return .current
    }

    /// The zone's name as `TZ` or the `/etc/localtime` link gives it (`Etc/UTC` from
    /// `/usr/share/zoneinfo/Etc/UTC`), nil when neither says (an empty `TZ`, a copied zone file).
    /// `tz` is the `TZ` variable (nil: unset). Read with `getenv` and `readlink`, not
    /// `ProcessInfo.environment` (a dictionary of every variable) and `FileManager`: this runs at
    /// every command's start, where those cost a one-file `summarize` about 8% of its time.
    static func machineZoneName(tz: String? = environmentTZ(), localtime: String = "/etc/localtime") -> String? {
        func zoneName(_ path: Substring) -> String {
            // After the last "zoneinfo/", if any.
            let marker = Array("zoneinfo/".utf8)
            let bytes = Array(path.utf8)
            var k = bytes.count - marker.count
            while k >= 0 {
                if bytes[k] == marker[0], Array(bytes[k..<(k + marker.count)]) == marker {
                    return String(decoding: bytes[(k + marker.count)...], as: UTF8.self)
                }
                k -= 1
            }
            return String(path)
        }
        if let tz {
            let value = tz.hasPrefix(":") ? tz.dropFirst() : Substring(tz)
            return value.isEmpty ? nil : zoneName(value)
        }
        guard let target = ConfinedPath.readLink(localtime) else { return nil }
        return zoneName(Substring(target))
    }

    /// The `TZ` environment variable, nil when unset.
    static func environmentTZ() -> String? {
        getenv("TZ").map { String(cString: $0) }
    }

    /// The name shown and saved for `zone`: "UTC" for UTC, else its identifier.
    public static func name(of zone: TimeZone) -> String {
        canonical(zone.identifier)
    }

    /// `name` as badgectl writes it: "UTC" for any name of UTC (a state saved as "GMT" before names the
    /// same zone as one saved as "UTC"), else `name` unchanged.
    public static func canonical(_ name: String) -> String {
        isUTC(name) ? "UTC" : name
    }
}
