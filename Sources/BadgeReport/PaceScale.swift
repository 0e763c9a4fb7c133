/// The speed colour scale of the routes and splits: red (slow) through yellow to green (fast).
///
/// A run's scale spans the 5th to the 95th percentile of its speeds, and speeds outside are
/// clamped, so one GPS spike or a stop at a traffic light does not wash out the rest. A run whose
/// spread is under `minimumSpreadMetersPerSecond` is drawn in the middle colour (yellow): no
/// division by a zero spread. Colours are quantised into `binCount` bins so consecutive segments
/// of one colour are drawn as one path.
public struct PaceScale: Sendable, Equatable {
    /// Slowest and fastest speeds of the scale, m/s.
    public var slowMetersPerSecond: Double
    public var fastMetersPerSecond: Double

    public static let binCount = 17
    public static let middleBin = binCount / 2
    public static let minimumSpreadMetersPerSecond = 0.05
    public static let lowPercentile = 0.05
    public static let highPercentile = 0.95

    /// RGB anchors: slow, middle, fast.
    static let red = (r: 220.0, g: 38.0, b: 38.0)
    static let yellow = (r: 234.0, g: 200.0, b: 20.0)
    static let green = (r: 22.0, g: 163.0, b: 74.0)

    public init(slowMetersPerSecond: Double, fastMetersPerSecond: Double) {
        self.slowMetersPerSecond = slowMetersPerSecond
        self.fastMetersPerSecond = fastMetersPerSecond
    }

    /// The scale of a set of speeds (non-finite and negative values ignored); nil when none is usable.
    public init?(speeds: [Double]) {
        let usable = speeds.filter { $0.isFinite && $0 >= 0 }.sorted()
        guard !usable.isEmpty else { return nil }
        self.init(
            slowMetersPerSecond: PaceScale.percentile(usable, PaceScale.lowPercentile),
            fastMetersPerSecond: PaceScale.percentile(usable, PaceScale.highPercentile))
    }

    /// True when the spread is too small to colour: everything is the middle colour.
    public var isConstant: Bool {
        !(fastMetersPerSecond - slowMetersPerSecond >= PaceScale.minimumSpreadMetersPerSecond)
    }

    /// Position of a speed on the scale, 0 (slow) … 1 (fast), clamped; 0.5 for a constant scale
    /// or a speed that is not a number.
    public func position(_ speed: Double) -> Double {
        guard !isConstant, speed.isFinite else { return 0.5 }
        let t = (speed - slowMetersPerSecond) / (fastMetersPerSecond - slowMetersPerSecond)
        return t.isFinite ? max(0, min(1, t)) : 0.5
    }

    /// The colour bin of a speed, 0 (red) … `binCount - 1` (green).
    public func bin(_ speed: Double) -> Int {
        Int((position(speed) * Double(PaceScale.binCount - 1)).rounded())
    }

    /// `#rrggbb` of a bin.
    public static func colour(bin: Int) -> String {
        let t = Double(max(0, min(binCount - 1, bin))) / Double(binCount - 1)
        return colour(position: t)
    }

    /// `#rrggbb` at a position 0…1 on the ramp.
    public static func colour(position t: Double) -> String {
        let (a, b, u) = t <= 0.5 ? (red, yellow, t * 2) : (yellow, green, (t - 0.5) * 2)
        return hex(a.r + (b.r - a.r) * u, a.g + (b.g - a.g) * u, a.b + (b.b - a.b) * u)
    }

    static func hex(_ r: Double, _ g: Double, _ b: Double) -> String {
        let digits = Array("0123456789abcdef")
        var s = "#"
        for c in [r, g, b] {
            let v = Int(max(0, min(255, c.isFinite ? c.rounded() : 0)))
            s.append(digits[v / 16]); s.append(digits[v % 16])
        }
        return s
    }

    /// Linear-interpolated percentile of sorted values (`p` in 0…1).
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? 0 }
        let position = p * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(sorted.count - 1, lower + 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}
