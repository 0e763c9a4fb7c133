import Foundation

/// badgectl's JSON: pretty, keys sorted (two outputs of the same input are byte-identical), slashes
/// unescaped, and never a non-finite number: a NaN or an infinity (no value) is written as `null`.
/// Every JSON writer of the commands goes through `encode`.
enum JSONOutput {
    /// `pretty: false` writes one line (`line`).
    static func encode<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // JSONEncoder has no "null" strategy for non-finite numbers: it writes them as a string only
        // this process knows (a NUL and a random UUID: no string of a file or a rule can be it), and
        // each such string becomes `null`.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: nonFinite, negativeInfinity: nonFinite, nan: nonFinite)
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        return text.contains(nonFiniteToken) ? text.replacingOccurrences(of: nonFiniteToken, with: "null") : text
    }

    /// One compact line (no newline), keys sorted, non-finite numbers as `null`: `league`'s lines.
    static func line<T: Encodable>(_ value: T) -> String {
        (try? encode(value, pretty: false)) ?? #"{"message":"badgectl could not encode an output line","type":"error"}"#
    }

    /// What JSONEncoder writes for a non-finite number (see `encode`).
    static let nonFinite = "\u{0}badgectl-non-finite-" + UUID().uuidString
    /// `nonFinite` as the encoder writes it: a JSON string with the NUL escaped.
    static let nonFiniteToken = "\"\\u0000badgectl-non-finite-" + nonFinite.dropFirst("\u{0}badgectl-non-finite-".count) + "\""
}
