/// Hashes a file's bytes as a reader streams them, in pieces of any size, giving the same value as
/// `RunCache.hash(path:)`: a cold cache then reads each file once, not once to summarise and again
/// to hash.
public final class ContentHasher {
    private var state = RunCache.Hasher64()
    /// Fewer than 32 bytes carried to the next piece (`Hasher64` takes whole 32-byte blocks until the end).
    private var pending: [UInt8] = []

    public init() {}

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
