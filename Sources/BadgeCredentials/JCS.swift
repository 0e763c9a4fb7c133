import Foundation

/// The JSON Canonicalization Scheme, RFC 8785: the bytes `eddsa-jcs-2022` hashes.
///
/// Written here because none of the packages badgectl may use does it (swift-crypto signs and hashes;
/// jwt-kit and swift-extras-base64 have no canonical JSON), and `JSONEncoder`'s `.sortedKeys`
/// is not JCS: it sorts by Swift's `String` order, not UTF-16 code units, and writes numbers its own
/// way (`56.0`, `1e+30` as `1e+30` but `0.000001` as `1e-06`). Checked byte for byte against the RFC
/// author's published test data (Tests/BadgeCredentialsTests/Fixtures/jcs).
public enum JCS {
    /// The canonical UTF-8 bytes of `value`.
    public static func canonical(_ value: CredentialJSON) -> Data {
        var out = ""
        write(value, to: &out)
        return Data(out.utf8)
    }

    /// The canonical text of `value`.
    public static func canonicalText(_ value: CredentialJSON) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    static func write(_ value: CredentialJSON, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += serialize(number)
        case .string(let text): writeString(text, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let members):
            // Sorted by the keys' UTF-16 code units, as RFC 8785 section 3.2.3 says.
            let sorted = members.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            out += "{"
            for (index, member) in sorted.enumerated() {
                if index > 0 { out += "," }
                writeString(member.key, to: &out)
                out += ":"
                write(member.value, to: &out)
            }
            out += "}"
        }
    }

    /// A string as RFC 8785 section 3.2.2.2 writes it: `\"`, `\\`, `\b \f \n \r \t`, other controls as
    /// `\u00xx` (lower-case hex), everything else as it is.
    static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// A number as ECMAScript's `Number.prototype.toString` writes it (ECMA-262 7.1.12.1), which
    /// RFC 8785 section 3.2.2.3 adopts: the shortest digits that read back to the same double, placed
    /// by the exponent. Swift's `description` gives the same shortest digits; only their layout differs.
    /// The parser admits only finite numbers, so NaN and infinities never reach here (written as `null`).
    public static func serialize(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == 0 { return "0" }  // -0 too
        let sign = number < 0 ? "-" : ""
        let (digits, exponent) = shortestDigits(abs(number))
        let k = digits.count, n = exponent
        var text: String
        if k <= n && n <= 21 {
            text = digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            text = String(digits.prefix(n)) + "." + String(digits.dropFirst(n))
        } else if -6 < n && n <= 0 {
            text = "0." + String(repeating: "0", count: -n) + digits
        } else {
            let e = n - 1
            let mantissa = k == 1 ? digits : String(digits.prefix(1)) + "." + String(digits.dropFirst())
            text = mantissa + "e" + (e < 0 ? "-" : "+") + String(abs(e))
        }
        return sign + text
    }

    /// The shortest round-trip digits of a positive finite `value` (no leading or trailing zeros) and
    /// the exponent `n` with value = 0.d₁d₂… × 10ⁿ, read from Swift's shortest representation.
    static func shortestDigits(_ value: Double) -> (digits: String, exponent: Int) {
        let text = "\(value)"  // e.g. "333333333.3333333", "1e+30", "5e-324", "0.002"
        let parts = text.lowercased().split(separator: "e", maxSplits: 1)
        let mantissa = String(parts[0])
        let shift = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let pieces = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = String(pieces[0])
        let fraction = pieces.count > 1 ? String(pieces[1]) : ""
        var digits = whole + fraction
        var point = whole.count + shift  // the decimal point after this many digits of `digits`
        while digits.hasPrefix("0") && digits.count > 1 {
            digits.removeFirst()
            point -= 1
        }
        while digits.hasSuffix("0") && digits.count > 1 { digits.removeLast() }
        return (digits, point)
    }
}
