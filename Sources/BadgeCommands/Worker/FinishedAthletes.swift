import Foundation

/// The athletes the worker has finished, to refuse an athlete whose lines come back later
/// (docs/worker.md, "Grouping"). Exact, so a new athlete is never refused: each finished name is kept
/// (its UTF-8 bytes after their length, one name after another in one block of memory), found
/// through an open-addressing table of 8-byte slots keyed by the name's hash (Swift's `hashValue`,
/// seeded per process). A slot holds the name's place in the block and the top 24 bits of its hash;
/// a probe compares the bytes only of names whose 24 bits match, and two names with the same hash
/// are both kept, so a name is found only when that same name was finished before. Names are compared
/// as Swift strings compare them (the worker groups lines by `String` equality), so a name in other
/// bytes but the same characters is the same athlete.
///
/// About 10 to 20 bytes a name beside its own bytes (slots at a load of 0.4 to 0.8); when the
/// table grows, the old one is freed before the new one is filled (the names are re-hashed from the
/// block), so two tables are never alive together.
final class FinishedAthletes {
    /// 0: empty; otherwise the hash's top 24 bits, then the name's offset in `names` plus 1 (40 bits).
    private var slots: [UInt64]
    private(set) var count = 0
    private var names: UnsafeMutablePointer<UInt8>?
    private var used = 0
    private var allocated = 0
    private let hash: (String) -> Int

    private static let offsetBits: UInt64 = 40
    private static let offsetMask: UInt64 = (1 << offsetBits) - 1

    /// `hash`: the names' hash (tests give a colliding one; it must agree with `String` equality).
    init(hash: @escaping (String) -> Int = { $0.hashValue }) {
        self.hash = hash
        slots = Array(repeating: 0, count: 64)
    }

    deinit { free(names) }

    /// True when `name` (as a `String` compares) was inserted.
    func contains(_ name: String) -> Bool {
        find(name, hash: UInt64(bitPattern: Int64(hash(name)))).found
    }

    /// Adds `name` (nothing when it is there already).
    func insert(_ name: String) {
        if (count + 1) * 5 > slots.count * 4 { grow() }
        let hashed = UInt64(bitPattern: Int64(hash(name)))
        let (found, index) = find(name, hash: hashed)
        if found { return }
        var name = name
        let offset = name.withUTF8 { append($0) }
        slots[index] = (hashed >> Self.offsetBits) << Self.offsetBits | UInt64(offset + 1)
        count += 1
    }

    /// The slot of `name`, or of the empty slot where it would go.
    private func find(_ name: String, hash hashed: UInt64) -> (found: Bool, index: Int) {
        let mask = slots.count - 1
        let tag = hashed >> Self.offsetBits
        var index = Int(truncatingIfNeeded: hashed) & mask
        while true {
            let slot = slots[index]
            if slot == 0 { return (false, index) }
            if slot >> Self.offsetBits == tag && same(name, at: Int(slot & Self.offsetMask) - 1) { return (true, index) }
            index = (index + 1) & mask
        }
    }

    /// Where the bytes of the name stored at `offset` start, and how many: the name's length
    /// (LEB128) comes first.
    private func place(at offset: Int) -> (start: Int, count: Int) {
        guard let names else { return (offset, 0) }
        var position = offset, length = 0, shift = 0
        while true {
            let byte = names[position]
            position += 1
            length |= Int(byte & 0x7f) << shift
            if byte < 0x80 { return (position, length) }
            shift += 7
        }
    }

    private func stored(at offset: Int) -> UnsafeBufferPointer<UInt8> {
        let (start, count) = place(at: offset)
        return UnsafeBufferPointer(start: names.map { $0 + start }, count: count)
    }

    private func same(_ name: String, at offset: Int) -> Bool {
        let kept = stored(at: offset)
        var name = name
        let sameBytes = name.withUTF8 { bytes in
            guard bytes.count == kept.count else { return false }
            guard let mine = bytes.baseAddress, let theirs = kept.baseAddress else { return true }
            return memcmp(mine, theirs, bytes.count) == 0
        }
        // Other bytes may still be the same string (canonically equivalent characters).
        return sameBytes || String(decoding: kept, as: UTF8.self) == name
    }

    /// Appends a name's length and bytes to `names`; returns where they start.
    private func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let needed = used + 10 + bytes.count
        if needed > allocated {
            let size = max(needed, allocated * 2, 4096)
            // As any allocation of Swift's own that fails: the process cannot go on.
            guard let grown = realloc(names, size) else { fatalError("out of memory keeping the finished athletes' names") }
            names = grown.assumingMemoryBound(to: UInt8.self)
            allocated = size
        }
        guard let names else { return 0 }
        let offset = used
        var length = bytes.count
        while length >= 0x80 {
            names[used] = UInt8(length & 0x7f) | 0x80
            used += 1
            length >>= 7
        }
        names[used] = UInt8(length)
        used += 1
        if let base = bytes.baseAddress { (names + used).update(from: base, count: bytes.count) }
        used += bytes.count
        return offset
    }

    /// Doubles the table: the old one is dropped first, and every kept name is hashed again from the block.
    private func grow() {
        let capacity = slots.count * 2
        slots = []
        slots = Array(repeating: 0, count: capacity)
        let mask = capacity - 1
        var offset = 0
        while offset < used {
            let (start, count) = place(at: offset)
            let hashed = UInt64(bitPattern: Int64(hash(String(decoding: stored(at: offset), as: UTF8.self))))
            var index = Int(truncatingIfNeeded: hashed) & mask
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = (hashed >> Self.offsetBits) << Self.offsetBits | UInt64(offset + 1)
            offset = start + count
        }
    }
}
