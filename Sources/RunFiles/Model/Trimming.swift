/// Foundation's `trimmingCharacters(in: .whitespaces)` and `(in: .whitespacesAndNewlines)`, without
/// bridging to `NSString`: the first bridged call costs a process about 1M instructions of type
/// lookups (a tenth of a one-file `summarize`), and every command trims something at start-up (a
/// catalogue's names, a run's sport, a GPX track's name). Same characters, checked over every scalar
/// (`TrimmingTests`).
package enum Trimming {
    /// `CharacterSet.whitespaces`: Unicode's space separators (Zs), tab, and zero width space.
    package static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    /// `CharacterSet.whitespacesAndNewlines`: `isSpace`, and U+000A–U+000D, U+0085, U+2028, U+2029.
    package static func isSpaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return isSpace(scalar)
        }
    }

    /// `text` without spaces at either end (`trimmingCharacters(in: .whitespaces)`).
    package static func spaces(_ text: String) -> String {
        trimmed(text, where: isSpace)
    }

    /// `text` without spaces and newlines at either end (`trimmingCharacters(in: .whitespacesAndNewlines)`).
    package static func spacesAndNewlines(_ text: String) -> String {
        trimmed(text, where: isSpaceOrNewline)
    }

    private static func trimmed(_ text: String, where trim: (Unicode.Scalar) -> Bool) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !trim($0) }),
              let last = scalars.lastIndex(where: { !trim($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }
}
