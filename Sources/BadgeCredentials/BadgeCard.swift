import BadgeReport
import Foundation

/// The badge's card: an SVG of the medallion (the report's own drawing, `Medallion`) with the tier,
/// the badge's name, the date and the runner's figure, baked with its credential as Open Badges 3.0
/// section 5.3.2 says for SVG: an `openbadges` namespace `https://purl.imsglobal.org/ob/v3p0` on the
/// root and an `<openbadges:credential>` element holding the credential (JSON with its embedded
/// proof) in a CDATA section. Needs no network and no font beyond the viewer's sans-serif.
public enum BadgeCard {
    public static let namespace = "https://purl.imsglobal.org/ob/v3p0"

    /// The card's SVG with `credential` (the signed JSON, or a VC-JWT) baked in.
    public static func svg(_ facts: AwardFacts, issuerName: String, credential: String) -> String {
        let medallion = Medallion.svg(id: facts.badge, name: facts.badgeName, distanceMeters: facts.distanceMeters, tier: medallionTier(facts.tier))
            .replacingOccurrences(of: "<svg class=\"medallion\"", with: "<svg class=\"medallion\" x=\"60\" y=\"24\" width=\"120\" height=\"120\"")
        let lines: [(String, String)] = [
            (facts.badgeName, "name"), (facts.tier.uppercased(), "tier"), (facts.runDate, "line"), (facts.figure, "line"),
            ("Issued by \(issuerName)", "small"),
        ]
        var text = ""
        var y = 176
        for (content, style) in lines {
            // A line wider than the card (220 px at about 0.6 em a character) is set smaller, down to 8 px.
            let size = ["name": 18, "tier": 13, "line": 14, "small": 10][style] ?? 14
            let fitted = max(8, min(size, Int(220 / (Double(max(content.count, 1)) * 0.6))))
            let font = fitted < size ? " style=\"font-size:\(fitted)px\"" : ""
            text += "<text x=\"120\" y=\"\(y)\" class=\"\(style)\"\(font)>\(escape(content))</text>"
            y += style == "name" ? 26 : 22
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="\(namespace)" viewBox="0 0 240 300" width="240" height="300">
            <openbadges:credential><![CDATA[\(cdata(credential))]]></openbadges:credential>
            <title>\(escape(facts.badgeName)) (\(escape(facts.tier))), \(escape(facts.runDate))</title>
            <style>\(medallionStyle)text{font-family:sans-serif;text-anchor:middle;fill:#1f2937}.name{font-size:18px;font-weight:700}.tier{font-size:13px;letter-spacing:2px;fill:\(Medallion.rimColour(medallionTier(facts.tier)))}.line{font-size:14px}.small{font-size:10px;fill:#6b7280}</style>
            <rect x="2" y="2" width="236" height="296" rx="14" fill="#f9fafb" stroke="#d1d5db" stroke-width="2"/>
            \(medallion)
            \(text)
            </svg>

            """
    }

    /// The medallion alone, standalone (its own style): the achievement's image.
    public static func medallion(_ facts: AwardFacts) -> String {
        let drawing = Medallion.svg(id: facts.badge, name: facts.badgeName, distanceMeters: facts.distanceMeters, tier: medallionTier(facts.tier))
        guard let end = drawing.range(of: ">") else { return drawing }
        return String(drawing[...end.lowerBound]) + "<style>\(medallionStyle)</style>" + String(drawing[end.upperBound...])
    }

    /// The report's medallion text style, for an SVG without the report's page around it.
    static let medallionStyle = ".medallion text{fill:#fff;font-weight:700;text-anchor:middle;font-family:sans-serif}"
        + ".medal-value{font-size:30px}.medal-value.long{font-size:24px}.medal-unit{font-size:16px}"

    /// The tier's rim: earned, silver and gold as in the report; any other tier (best, a rule's own) as earned.
    static func medallionTier(_ tier: String) -> Medallion.Tier {
        Medallion.Tier(rawValue: tier).flatMap { $0 == .none ? nil : $0 } ?? .earned
    }

    /// Text with `]]>` split across two CDATA sections, so that no credential can end the section early.
    static func cdata(_ text: String) -> String { text.replacingOccurrences(of: "]]>", with: "]]]]><![CDATA[>") }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The credential baked in an SVG: the text of its `<openbadges:credential>` element (CDATA
    /// sections joined, character references undone), whatever prefix the document gave the OB 3.0
    /// namespace.
    /// - Throws: `CredentialError.badCard` when there is no such element.
    public static func bakedCredential(svg: String) throws -> String {
        // The prefix bound to the OB 3.0 namespace (`xmlns:PREFIX="https://purl.imsglobal.org/ob/v3p0"`).
        guard let binding = svg.range(of: "=\"\(namespace)\"") ?? svg.range(of: "='\(namespace)'") else {
            throw CredentialError.badCard(reason: "no xmlns for \(namespace) (Open Badges 3.0 baking)")
        }
        let before = svg[..<binding.lowerBound]
        guard let xmlns = before.range(of: "xmlns:", options: .backwards) else {
            throw CredentialError.badCard(reason: "the namespace \(namespace) has no prefix")
        }
        let prefix = String(before[xmlns.upperBound...]).trimmingCharacters(in: .whitespaces)
        guard let open = svg.range(of: "<\(prefix):credential"), let openEnd = svg[open.upperBound...].range(of: ">"),
              let close = svg[openEnd.upperBound...].range(of: "</\(prefix):credential>") else {
            throw CredentialError.badCard(reason: "no <\(prefix):credential> element")
        }
        var content = svg[openEnd.upperBound..<close.lowerBound]
        var text = ""
        while !content.isEmpty {
            if let start = content.range(of: "<![CDATA[") {
                text += unescape(String(content[..<start.lowerBound]))
                guard let end = content[start.upperBound...].range(of: "]]>") else { throw CredentialError.badCard(reason: "an unterminated CDATA section") }
                text += content[start.upperBound..<end.lowerBound]
                content = content[end.upperBound...]
            } else {
                text += unescape(String(content))
                break
            }
        }
        let credential = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if credential.isEmpty { throw CredentialError.badCard(reason: "<\(prefix):credential> is empty") }
        return credential
    }

    /// Checks that what a badgectl card shows (its name, tier, date, figures and issuer lines) is what
    /// its credential says, so that a card whose picture was edited is refused even though its
    /// baked credential is intact. Cards without badgectl's lines (another issuer's) are not checked.
    /// - Throws: `CredentialError.cardDiffers` naming the line that differs.
    public static func checkShown(svg: String, credential: CredentialJSON) throws {
        var shown: [String: String] = [:]
        for style in ["name", "tier", "line", "small"] {
            var rest = Substring(svg)
            while let start = rest.range(of: "class=\"\(style)\"") {
                guard let open = rest[start.upperBound...].range(of: ">"), let close = rest[open.upperBound...].range(of: "</text>") else { break }
                let text = unescape(String(rest[open.upperBound..<close.lowerBound]))
                shown[style] = shown[style].map { $0 + "\n" + text } ?? text
                rest = rest[close.upperBound...]
            }
        }
        guard let name = shown["name"], let tier = shown["tier"] else { return }
        let claim = try? OpenBadgeCredential.claim(credential)
        let achievement = credential["credentialSubject"]?["achievement"]?["name"]?.stringValue
        if name != achievement { throw CredentialError.cardDiffers(reason: "the card shows '\(name)'; its credential's achievement is '\(achievement ?? "")'") }
        if let claim, tier != claim.tier.uppercased() {
            throw CredentialError.cardDiffers(reason: "the card shows the tier '\(tier)'; its credential says '\(claim.tier)'")
        }
        let run = credential["evidence"]?.arrayValue?.first { $0["genre"]?.stringValue == "Run file" }?["description"]?.stringValue ?? ""
        for line in (shown["line"] ?? "").split(separator: "\n") where !run.contains(line) {
            throw CredentialError.cardDiffers(reason: "the card shows '\(line)'; its credential's run is '\(run)'")
        }
        let issuer = credential["issuer"]?["name"]?.stringValue ?? ""
        if let small = shown["small"], small != "Issued by \(issuer)" {
            throw CredentialError.cardDiffers(reason: "the card shows '\(small)'; its credential's issuer is '\(issuer)'")
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
