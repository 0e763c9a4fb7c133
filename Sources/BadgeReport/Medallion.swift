import Foundation

/// A generated badge image for catalogues without pictures: the distance (or the name's initials)
/// in a coloured disc, with a rim in the badge's tier colour. The disc's hue comes from a hash of
/// the badge id, so every badge looks different and the same badge always looks the same. Public for
/// BadgeCredentials, whose badge cards draw the same medallion.
public enum Medallion {
    public enum Tier: String, Sendable { case none, earned, silver, gold }

    public static func rimColour(_ tier: Tier) -> String {
        switch tier {
        case .none: return "#9ca3af"
        case .earned: return "#b4713c"  // bronze
        case .silver: return "#aeb6c1"
        case .gold: return "#c9a227"
        }
    }

    /// FNV-1a, 32 bits: stable across runs and platforms (unlike `hashValue`).
    static func hash(_ text: String) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            h ^= UInt32(byte)
            h = h &* 16_777_619
        }
        return h
    }

    /// Hue in blues, purples and pinks (190°–339°), away from the route's red/yellow/green.
    static func hue(id: String) -> Int { 190 + Int(hash(id) % 150) }

    /// A badge's own label: its distance (`10 km`), else its name's initials, a number in the name
    /// kept whole (`Explorer 100` → `E100`, `Explorer 1000` → `E1K`, `Square 5x5` → `S5X5`).
    static func label(name: String, distanceMeters: Double?) -> String {
        if let d = distanceMeters, d.isFinite, d > 0 { return ReportFormat.shortDistance(d) }
        var initials = ""
        for word in name.split(whereSeparator: { $0 == " " || $0 == "-" }) {
            guard let c = word.first, c.isLetter || c.isNumber else { continue }
            if c.isNumber {
                let digits = word.filter { $0 != "," }
                if let n = Int(digits), n >= 1000, n % 1000 == 0 { initials += "\(n / 1000)K" } else { initials += digits }
            } else {
                initials.append(c)
            }
            if initials.count >= 3 { break }
        }
        return initials.isEmpty ? "★" : initials.uppercased()
    }

    /// Each badge's label, distinct within `badges` (id, name, distance), in order: a badge whose label
    /// another already has gets its name's first letters (`Metronome` → `MET`), then a number (`E1K2`).
    /// Two medallions on one wall never read the same.
    static func labels(_ badges: [(id: String, name: String, distanceMeters: Double?)]) -> [String: String] {
        var result: [String: String] = [:], used = Set<String>()
        let firstLabels = badges.map { label(name: $0.name, distanceMeters: $0.distanceMeters) }
        var counts: [String: Int] = [:]
        for l in firstLabels { counts[l, default: 0] += 1 }
        for (badge, first) in zip(badges, firstLabels) where result[badge.id] == nil {
            var candidates = [first]
            if counts[first, default: 0] > 1 || used.contains(first) {
                let letters = badge.name.uppercased().filter { $0.isLetter || $0.isNumber }
                candidates = [first] + [3, 4, 5].map { String(letters.prefix($0)) }.filter { !$0.isEmpty }
                if let distance = badge.distanceMeters, distance > 0 {
                    candidates.insert(label(name: badge.name, distanceMeters: nil), at: 1)
                }
            }
            var chosen = candidates.first { !used.contains($0) && (counts[$0, default: 0] <= 1 || $0 != first) }
            if chosen == nil {
                var n = 2
                while used.contains("\(first)\(n)") { n += 1 }
                chosen = "\(first)\(n)"
            }
            let label = chosen ?? first
            used.insert(label)
            result[badge.id] = label
        }
        return result
    }

    /// The label's room: the chord of the dashed ring (r 44) at the text's height, less a margin.
    static let labelWidth = 80.0
    /// The widest a character of the label is, in ems: bold capitals and digits (`W`, `M` wider, `1` narrower).
    static let characterEms = 0.72
    /// `.medal-value`'s size in the page's CSS.
    static let valueSize = 30

    /// The font size (px, at most `valueSize`, at least 10) at which `characters` bold characters fit
    /// `labelWidth`.
    static func fittedSize(characters: Int) -> Int {
        guard characters > 0 else { return valueSize }
        let size = Int((labelWidth / (Double(characters) * characterEms)).rounded(.down))
        return max(10, min(valueSize, size))
    }

    public static func svg(id: String, name: String, distanceMeters: Double?, tier: Tier, label shown: String? = nil) -> String {
        let hue = hue(id: id)
        let raw = shown ?? label(name: name, distanceMeters: distanceMeters)
        let label = ReportFormat.escape(raw)
        let parts = label.split(separator: " ")
        var text: String
        if parts.count == 2 {
            text = "<text x=\"60\" y=\"62\" class=\"medal-value\">\(parts[0])</text><text x=\"60\" y=\"84\" class=\"medal-unit\">\(parts[1])</text>"
        } else {
            // A label wider than the dashed ring at 30 px (`S10X10`) is set smaller, centred as before.
            let size = fittedSize(characters: raw.count)
            if size < valueSize {
                let y = Int((60 + Double(size) * 0.34).rounded())
                text = "<text x=\"60\" y=\"\(y)\" class=\"medal-value\" style=\"font-size:\(size)px\">\(label)</text>"
            } else {
                text = "<text x=\"60\" y=\"70\" class=\"medal-value\">\(label)</text>"
            }
        }
        if parts.count == 2, parts[0].count > 3 { text = text.replacingOccurrences(of: "medal-value", with: "medal-value long") }
        let rim = rimColour(tier)
        return "<svg class=\"medallion\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 120 120\" data-tier=\"\(tier.rawValue)\" aria-hidden=\"true\">"
            + "<circle cx=\"60\" cy=\"60\" r=\"55\" fill=\"hsl(\(hue),55%,40%)\" stroke=\"\(rim)\" stroke-width=\"9\"/>"
            + "<circle cx=\"60\" cy=\"60\" r=\"44\" fill=\"none\" stroke=\"hsl(\(hue),60%,70%)\" stroke-width=\"1.5\" stroke-dasharray=\"3 4\"/>"
            + text + "</svg>"
    }
}
