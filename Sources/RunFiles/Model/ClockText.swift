/// A duration as a runner reads it on a watch: `0:59`, `42:25`, `1:02:03`. The one implementation
/// for every command, the report, the league and the packs' eligibility texts.
public enum ClockText {
    /// What a duration that is not a figure prints as (not a number, or beyond a hundred years).
    public static let unknown = "—"

    /// `seconds` rounded to the whole second (half away from zero), then as `clock(whole:)`;
    /// `unknown` when it is not finite or beyond ±10^10 s (where `Int` of it would trap, or be no clock).
    public static func of(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e10 else { return unknown }
        return clock(whole: Int(seconds.rounded()))
    }

    /// `h:mm:ss` from one hour on, `m:ss` below; with `hours: false`, minutes are not carried into
    /// hours (`75:00` for a pace or a 75-minute split).
    public static func clock(whole: Int, hours: Bool = true) -> String {
        let h = whole / 3600, sec = whole % 60
        if hours && h > 0 { return "\(h):\(pad2(whole / 60 % 60)):\(pad2(sec))" }
        return "\(hours ? whole / 60 % 60 : whole / 60):\(pad2(sec))"
    }

    /// Two digits at least: `07`, `42`.
    public static func pad2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
