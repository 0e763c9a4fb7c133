/// The one JSON string writer: every JSON that badgectl writes by hand (the worker's lines, the
/// generator's summaries) quotes its strings here. Quotes, backslashes and control characters are
/// escaped as `JSONEncoder` escapes them (`\n`, `\r`, `\t`, `\b`, `\f`, otherwise `\u` and four
/// lowercase hex digits); everything else, slashes and non-ASCII included, is written as it is (UTF-8).
public enum JSONString {
    /// `text` as a JSON string, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        append(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string, quotes included, to `out`.
    public static func append(_ text: String, to out: inout String) {
        out += "\""
        var plain = true
        for byte in text.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            out += text
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{8}": out += "\\b"
                case "\u{C}": out += "\\f"
                case let control where control.value < 0x20:
                    let hex = String(control.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
