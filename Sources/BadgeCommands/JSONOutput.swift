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

/// An optional output field that is written as `null` when nil (synthesised `Encodable` leaves a nil
/// field out): the JSON contract lists every field, present or not.
@propertyWrapper
public struct EncodedNull<Value: Encodable & Sendable>: Encodable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
