/// An optional that JSON writes as `null` when nil instead of leaving its key out (what synthesized
/// `Codable` does), so every object keeps its shape; a missing key still reads as nil. One mechanism
/// for every output type (run summaries, evaluations, reports) instead of a hand-written
/// `encode(to:)` each. Encodable when `Value` is, Decodable when `Value` is.
@propertyWrapper
public struct NullEncoded<Value> {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension NullEncoded: Encodable where Value: Encodable {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullEncoded: Decodable where Value: Decodable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension NullEncoded: Equatable where Value: Equatable {}
extension NullEncoded: Sendable where Value: Sendable {}

extension KeyedDecodingContainer {
    /// A missing key reads as nil, as for a plain optional.
    public func decode<Value: Decodable>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws -> NullEncoded<Value> {
        NullEncoded(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
