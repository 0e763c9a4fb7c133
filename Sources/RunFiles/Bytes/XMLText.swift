/// Text for XML and HTML: the one escaper of badgectl's outputs (the report, JUnit XML) and of the
/// run files the generator writes.
public enum XMLText {
    /// Escapes `& < > " '` (`'` as `apostrophe`: `&#39;` for HTML, `&apos;` for XML). With
    /// `droppingInvalidXML`, also drops what XML 1.0 cannot hold (C0 controls but tab, LF and CR;
    /// U+FFFE, U+FFFF). The one escaper of badgectl's HTML and XML outputs and of the generated run files.
    public static func escape(_ text: String, apostrophe: String, droppingInvalidXML: Bool) -> String {
        var needs = false
        for u in text.utf8 where u == 0x26 || u == 0x3C || u == 0x3E || u == 0x22 || u == 0x27
            || (droppingInvalidXML && ((u < 0x20 && u != 0x09 && u != 0x0A && u != 0x0D) || u == 0xEF)) {
            needs = true
            break
        }
        guard needs else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += apostrophe
            default:
                if droppingInvalidXML && ((ch.value < 0x20 && ch != "\t" && ch != "\n" && ch != "\r")
                    || ch.value == 0xFFFE || ch.value == 0xFFFF) { continue }
                out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
