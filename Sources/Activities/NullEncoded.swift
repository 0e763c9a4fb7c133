/// An optional that JSON writes as `null` when nil instead of leaving its key out (what synthesized
/// `Codable` does), so every object keeps its shape; a missing key still reads as nil. One mechanism
/// for the output types instead of a hand-written `encode(to:)` each.
@propertyWrapper
public struct NullEncoded<Value: Codable>: Codable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullEncoded: Equatable where Value: Equatable {}
extension NullEncoded: Sendable where Value: Sendable {}

extension KeyedDecodingContainer {
    /// A missing key reads as nil, as for a plain optional.
    public func decode<Value>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws -> NullEncoded<Value> {
        NullEncoded(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
