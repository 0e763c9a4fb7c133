import Foundation

/// The athletes the worker has finished, to refuse an athlete whose lines come back later
/// (docs/worker.md, "Grouping"). Exact, so a new athlete is never refused: each finished name is kept
/// (its UTF-8 bytes after their length, one name after another in blocks of 2 MiB that never move),
/// found through an open-addressing table of 8-byte slots keyed by the name's hash (Swift's
/// `hashValue`, seeded per process). A slot holds the top 24 bits of the hash and the name's place;
/// a probe compares the bytes only of names whose 24 bits match, and two names with the same hash
/// are both kept, so a name is found only when that same name was finished before. Names are compared
/// as Swift strings compare them (the worker groups lines by `String` equality), so a name in other
/// bytes but the same characters is the same athlete.
///
/// Memory: the names' bytes (and a byte or three of length each), and 10 to 20 bytes a name for the
/// slots (a load of 0.4 to 0.8). A block is filled as names come (pages not yet written are not
/// resident) and never copied; when the table grows, the old one is freed before the new one is
/// filled (the names are hashed again from the blocks), so two tables are never alive together.
package final class FinishedAthletes {
    /// 0: empty; otherwise the hash's top 24 bits, then 1 + the name's place (block << 21 | offset,
    /// in 40 bits: room for 2^19 - 1 blocks, a TiB of names).
    private var slots: [UInt64]
    package private(set) var count = 0
    /// The blocks of names, each `blockSize` bytes (a longer name: one of its own, so a name's offset
    /// in its block is under `blockSize`); the last is being filled up to `used`.
    private var blocks: [UnsafeMutablePointer<UInt8>] = []
    private var used = 0
    /// The size of the last block (`blockSize`, or more for a name longer than a block).
    private var size = 0
    /// Where the names of each full block end.
    private var ends: [Int] = []
    private let hash: (String) -> Int

    private static let offsetBits = 21
    private static let blockSize = 1 << offsetBits
    private static let placeBits: UInt64 = 40
    private static let placeMask: UInt64 = (1 << placeBits) - 1

    /// `hash`: the names' hash (tests give a colliding one; it must agree with `String` equality).
    package init(hash: @escaping (String) -> Int = { $0.hashValue }) {
        self.hash = hash
        slots = Array(repeating: 0, count: 64)
    }

    deinit {
        for block in blocks { block.deallocate() }
    }

    /// True when `name` (as a `String` compares) was inserted.
    package func contains(_ name: String) -> Bool {
        find(name, hash: UInt64(bitPattern: Int64(hash(name)))).found
    }

    /// Adds `name` (nothing when it is there already).
    package func insert(_ name: String) {
        if (count + 1) * 5 > slots.count * 4 { grow() }
        let hashed = UInt64(bitPattern: Int64(hash(name)))
        let (found, index) = find(name, hash: hashed)
        if found { return }
        var name = name
        let place = name.withUTF8 { append($0) }
        slots[index] = (hashed >> Self.placeBits) << Self.placeBits | UInt64(place + 1)
        count += 1
    }

    /// The slot of `name`, or of the empty slot where it would go.
    private func find(_ name: String, hash hashed: UInt64) -> (found: Bool, index: Int) {
        let mask = slots.count - 1
        let tag = hashed >> Self.placeBits
        var index = Int(truncatingIfNeeded: hashed) & mask
        while true {
            let slot = slots[index]
            if slot == 0 { return (false, index) }
            if slot >> Self.placeBits == tag && same(name, stored(at: Int(slot & Self.placeMask) - 1)) { return (true, index) }
            index = (index + 1) & mask
        }
    }

    /// The bytes of the name at `place` (block << 21 | offset), whose length (LEB128) comes first.
    private func stored(at place: Int) -> UnsafeBufferPointer<UInt8> {
        let block = blocks[place >> Self.offsetBits]
        var position = place & (Self.blockSize - 1), length = 0, shift = 0
        while true {
            let byte = block[position]
            position += 1
            length |= Int(byte & 0x7f) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        return UnsafeBufferPointer(start: block + position, count: length)
    }

    private func same(_ name: String, _ kept: UnsafeBufferPointer<UInt8>) -> Bool {
        var name = name
        let sameBytes = name.withUTF8 { bytes in
            guard bytes.count == kept.count else { return false }
            guard let mine = bytes.baseAddress, let theirs = kept.baseAddress else { return true }
            return memcmp(mine, theirs, bytes.count) == 0
        }
        // Other bytes may still be the same string (canonically equivalent characters).
        return sameBytes || String(decoding: kept, as: UTF8.self) == name
    }

    /// Appends a name's length and bytes; returns its place. A name longer than a block (a worker
    /// line is at most 1 MiB + 4 KiB, but this does not rely on it) gets a block of its own size.
    private func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        if used + 10 + bytes.count > size {
            size = max(Self.blockSize, 10 + bytes.count)
            // Swift's allocator, as any array's: a failure ends the process as theirs does.
            let block = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            if !blocks.isEmpty { ends.append(used) }
            blocks.append(block)
            used = 0
        }
        let block = blocks[blocks.count - 1]
        let place = (blocks.count - 1) << Self.offsetBits | used
        var length = bytes.count
        while length >= 0x80 {
            block[used] = UInt8(length & 0x7f) | 0x80
            used += 1
            length >>= 7
        }
        block[used] = UInt8(length)
        used += 1
        if let base = bytes.baseAddress { (block + used).update(from: base, count: bytes.count) }
        used += bytes.count
        return place
    }

    /// Doubles the table: the old one is dropped first, and every kept name is hashed again from the blocks.
    private func grow() {
        let capacity = slots.count * 2
        slots = []
        slots = Array(repeating: 0, count: capacity)
        let mask = capacity - 1
        for (number, block) in blocks.enumerated() {
            let end = number < ends.count ? ends[number] : used
            var offset = 0
            while offset < end {
                let place = number << Self.offsetBits | offset
                let kept = stored(at: place)
                let hashed = UInt64(bitPattern: Int64(hash(String(decoding: kept, as: UTF8.self))))
                var index = Int(truncatingIfNeeded: hashed) & mask
                while slots[index] != 0 { index = (index + 1) & mask }
                slots[index] = (hashed >> Self.placeBits) << Self.placeBits | UInt64(place + 1)
                offset = Int(bitPattern: kept.baseAddress) - Int(bitPattern: block) + kept.count
            }
        }
    }
}
