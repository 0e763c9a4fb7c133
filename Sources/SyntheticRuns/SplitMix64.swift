
/// The one random source of the fixtures and the tests: SplitMix64 (Steele, Lea, Flood 2014),
/// tiny, fast, and the same on every platform, so every generated run and every randomised test
/// can be replayed from its seed.
public struct SplitMix64: Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Approximately standard normal (Irwin–Hall sum of four uniforms), arithmetic only.
    public mutating func gaussian() -> Double {
        (uniform() + uniform() + uniform() + uniform() - 2) * 1.732_050_807_568_877
    }

    /// Uniform in 0..<n (n > 0), by remainder: the small bias does not matter to a test.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
