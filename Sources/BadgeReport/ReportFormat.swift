import RunFiles

/// Text helpers for the report (public so the CLI can print figures the same way): HTML escaping
/// and locale-free, deterministic number formatting.
/// Nothing here ever prints `nan` or `inf`: a value that is not finite prints as a dash.
public enum ReportFormat {
    /// What a figure that is not one prints as: the one dash of every table and the report (`ClockText.unknown`).
    public static let dash = ClockText.unknown

    /// Escapes text for HTML element content and double- or single-quoted attribute values.
    public static func escape(_ text: String) -> String {
        escape(text, apostrophe: "&#39;", droppingInvalidXML: false)
    }

    /// Escapes `& < > " '` (`'` as `apostrophe`), optionally dropping what XML 1.0 cannot hold:
    /// `XMLText.escape`, the one escaper of badgectl's HTML and XML outputs.
    public static func escape(_ text: String, apostrophe: String, droppingInvalidXML: Bool) -> String {
        XMLText.escape(text, apostrophe: apostrophe, droppingInvalidXML: droppingInvalidXML)
    }

    /// `value` with exactly `decimals` decimals (half away from zero), no locale, no exponent (`FigureText.fixed`).
    public static func fixed(_ value: Double, _ decimals: Int) -> String { FigureText.fixed(value, decimals) }

    /// Kilometres from metres: `5.02 km` (`FigureText.kilometres`).
    public static func kilometres(_ meters: Double, decimals: Int = 2) -> String { FigureText.kilometres(meters, decimals: decimals) }

    /// A distance label for a badge: `5 km`, `21.1 km`, `400 m`.
    public static func shortDistance(_ meters: Double) -> String {
        guard meters.isFinite, meters >= 0 else { return dash }
        if meters < 1000 { return fixed(meters, 0) + " m" }
        let km = meters / 1000
        if abs(km - km.rounded()) < 0.05 { return fixed(km, 0) + " km" }
        return fixed(km, 1) + " km"
    }

    /// `h:mm:ss` or `m:ss` (`FigureText.duration`); a negative time is no duration here.
    public static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds >= 0 else { return dash }
        return FigureText.duration(seconds)
    }

    /// `5:01/km` from seconds per kilometre, as the command line writes a pace (`FigureText.paceText`).
    public static func pace(_ secondsPerKilometre: Double?) -> String { FigureText.paceText(secondsPerKilometre) }

    /// Whole seconds as a clock: `h:mm:ss` from an hour on, else `m:ss`; with `hours: false` always
    /// `m:ss` (minutes past 59 as they are: a pace). Written by `ClockText`, badgectl's one clock.
    public static func clock(_ whole: Int, hours: Bool = true) -> String { ClockText.clock(whole: whole, hours: hours) }

    /// Two digits at least: `07`, `42`.
    public static func pad2(_ value: Int) -> String { ClockText.pad2(value) }

    /// Pace from a speed in m/s.
    public static func pace(speed: Double) -> String {
        guard speed.isFinite, speed > 0 else { return dash }
        return pace(1000 / speed)
    }

    /// `YYYY-MM-DD hh:mm UTC`, or with `offsetSeconds` the local time and its offset:
    /// `YYYY-MM-DD hh:mm +02:00`.
    public static func timestamp(epochSeconds: Double, offsetSeconds: Int? = nil) -> String {
        let offset = offsetSeconds.flatMap { abs($0) <= 18 * 3600 ? $0 : nil }
        let local = epochSeconds + Double(offset ?? 0)
        guard local.isFinite, abs(local) < 1e12 else { return dash }
        let chars = Array(Timestamps.iso8601(local))  // YYYY-MM-DDThh:mm:ssZ
        guard chars.count >= 16 else { return String(chars) }
        let day = String(chars[0..<10]) + " " + String(chars[11..<16])
        guard let offset else { return day + " UTC" }
        let minutes = abs(offset) / 60
        let hh = minutes / 60, mm = minutes % 60
        return day + (offset < 0 ? " -" : " +") + (hh < 10 ? "0" : "") + String(hh) + ":" + (mm < 10 ? "0" : "") + String(mm)
    }
}
