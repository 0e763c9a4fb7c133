/// A file or folder name as printed in text (messages on stderr, the table): control characters
/// are escaped (`\n`, `\t`, `\r`, else `\u{1B}`) so that one name never breaks one message or
/// one row across lines, nor moves the terminal's cursor. JSON output carries names as they are
/// (its encoder escapes them).
public enum ShownName {
    /// `text` with every control character (C0, DEL, C1, and the line and paragraph separators)
    /// escaped; unchanged, without copying, when it has none.
    public static func of(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else { out.unicodeScalars.append(scalar); continue }
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
