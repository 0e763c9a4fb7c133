/// A run's figures as a runner reads them: distances `850 m` or `5.21 km`, times `h:mm:ss` or
/// `m:ss`, paces `4:58/km`, the pace a tier asks for, fixed decimals without a locale. The one
/// implementation behind every text badgectl writes: the command line's tables (`Format`), the
/// report (`ReportFormat`), the league's boards, and the packs' `badgectl.format_distance`,
/// `format_duration`, `format_pace` and `format_tier_pace` (host functions over these), so an award's
/// detail and a table's column say a figure alike.
///
/// Every function is total: a value that is not finite, or past `largestFigure`, is `unknown` (a
/// dash), never `nan`, never a trap.
public enum FigureText {
    /// What a figure that is not one prints as (`ClockText.unknown`).
    public static let unknown = ClockText.unknown

    /// The largest figure written (seconds, metres, seconds per km): past it a value is no run's (a
    /// file's `1e308`), and `Int` of it would trap.
    public static let largestFigure = 1e10

    /// `value` rounded to a whole number (`152`, `-410`).
    public static func whole(_ value: Double) -> String {
        guard value.isFinite, abs(value) < largestFigure else { return unknown }
        return String(Int(value.rounded()))
    }

    /// `value` with exactly `decimals` decimals (half away from zero), no locale, no exponent.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return unknown }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return unknown }
        let n = Int(scaled)
        let unit = Int(scale)
        let whole = n / unit, fraction = n % unit
        var text = value < 0 && n != 0 ? "-" : ""
        text += String(whole)
        if decimals > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }

    /// `5.02 km` from metres.
    public static func kilometres(_ meters: Double, decimals: Int = 2) -> String {
        guard meters.isFinite else { return unknown }
        return fixed(meters / 1000, decimals) + " km"
    }

    /// `850 m` below what rounds to a kilometre, else `5.21 km` (`-1.20 km` for a distance behind).
    public static func distance(_ meters: Double?) -> String {
        guard let m = meters, m.isFinite, abs(m) < largestFigure else { return unknown }
        if abs(m).rounded() < 1000 { return "\(Int(m.rounded())) m" }
        return kilometres(m)
    }

    /// `1:02:03` or `25:41` (`-0:05` for a time behind), to the second (half away from zero).
    public static func duration(_ seconds: Double?) -> String {
        guard let s = seconds, s.isFinite, abs(s) < largestFigure else { return unknown }
        let whole = Int(abs(s).rounded())
        return (s < 0 && whole > 0 ? "-" : "") + ClockText.clock(whole: whole)
    }

    /// `4:58`: seconds per km as minutes and seconds (minutes past 59 as they are: `75:00`); a pace
    /// that is not above zero is no pace.
    public static func pace(_ secondsPerKilometre: Double?) -> String {
        guard let s = secondsPerKilometre, s.isFinite, s > 0, s < largestFigure else { return unknown }
        return ClockText.clock(whole: Int(s.rounded()), hours: false)
    }

    /// `4:58/km`: a pace with its unit.
    public static func paceText(_ secondsPerKilometre: Double?) -> String {
        let text = pace(secondsPerKilometre)
        return text == unknown ? text : text + "/km"
    }

    /// The pace a runner must hold for a tier whose rule compares strictly (`pace < target`): the
    /// whole second under the target, at least 0.1 s under it (what a what-if run may lose to
    /// rounding). The one rounding rule of a tier's pace in every output.
    public static func tierPace(_ target: Double) -> Double { (target - 1.1).rounded(.up) }

    /// `11:04/km or faster`: what earns a tier whose rule wants a pace below `target`.
    public static func tierPaceText(_ target: Double) -> String {
        guard target.isFinite, target < largestFigure else { return unknown }
        return paceText(tierPace(target)) + " or faster"
    }
}
