/// Hashes a file's bytes as a reader streams them, in pieces of any size, giving the same value as
/// `RunCache.hash(path:)` (in RunLibrary): a cold cache then reads each file once, not once to summarise and again
/// to hash.
public final class ContentHasher {
    private var state = Hasher64()
    /// Fewer than 32 bytes carried to the next piece (`Hasher64` takes whole 32-byte blocks until the end).
    private var pending: [UInt8] = []

    public init() {}

    /// Forgets everything given so far (a reading that starts again).
    public func reset() {
        state = Hasher64()
        pending.removeAll()
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes[...]
        if !pending.isEmpty {
            let take = min(32 - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if pending.count < 32 { return }
            pending.withUnsafeBytes { state.update($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count / 32 * 32
        if whole > 0 { state.update(UnsafeRawBufferPointer(rebasing: rest.prefix(whole))) }
        if whole < rest.count { pending.append(contentsOf: rest.dropFirst(whole)) }
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The hash of everything given so far.
    public func finish() -> UInt64 {
        var final = state
        if !pending.isEmpty { pending.withUnsafeBytes { final.update($0) } }
        return final.finish()
    }
}

/// The hash behind `RunCache.hash(path:)` and `ContentHasher`: four independent
/// multiply-xor-rotate lanes over 8-byte words, then an avalanche. Every chunk but the last must be a multiple of 32 bytes.
public struct Hasher64 {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) =
        (0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5)
    private var length: UInt64 = 0
    public init() {}

    /// One multiply a word: cheap enough to cost a few per cent of a cold read. The final
    /// avalanche spreads every lane over every bit.
    @inline(__always)
    private static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        let x = (h ^ word) &* 0x9FB2_1C65_1E98_DF25
        return (x << 29) | (x >> 35)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let blocks = bytes.count / 32
        var (a, b, c, d) = lanes
        for k in 0..<blocks {
            let base = k * 32
            a = Hasher64.mix(a, bytes.loadUnaligned(fromByteOffset: base, as: UInt64.self))
            b = Hasher64.mix(b, bytes.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self))
            c = Hasher64.mix(c, bytes.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self))
            d = Hasher64.mix(d, bytes.loadUnaligned(fromByteOffset: base + 24, as: UInt64.self))
        }
        // The tail (last chunk only): whole words into the first lane, then the leftover bytes.
        var position = blocks * 32
        while position + 8 <= bytes.count {
            a = Hasher64.mix(a, bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            position += 8
        }
        if position < bytes.count {
            var tail: UInt64 = 0
            for i in position..<bytes.count { tail = (tail << 8) | UInt64(bytes[i]) }
            a = Hasher64.mix(a, tail)
        }
        lanes = (a, b, c, d)
        length &+= UInt64(bytes.count)
    }

    public func finish() -> UInt64 {
        let (a, b, c, d) = lanes
        var x = length
        for lane in [a, b, c, d] {
            x = (x ^ (lane &* 0xFF51_AFD7_ED55_8CCD)) &* 0xC4CE_B9FE_1A85_EC53
            x = (x << 31) | (x >> 33)
        }
        x ^= x >> 33; x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33; x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}
