import Foundation

/// badgectl's JSON: pretty, keys sorted (two outputs of the same input are byte-identical), slashes
/// unescaped, non-finite numbers as the strings `inf`, `-inf`, `nan`.
enum JSONOutput {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }
}
