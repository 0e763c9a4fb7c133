import CZlib
import Foundation

/// A zip archive read in place, as a folder is read: its central directory lists the entries, and an
/// entry's bytes are inflated (raw deflate through the system zlib, as `Gzip` does) only when a
/// reader asks for them, never written to disk.
///
/// Why a reader of our own over zlib rather than ZIPFoundation: RunFiles links zlib already and
/// nothing else (the fuzz package and BadgeKit build on it alone); an entry must come out of a zip
/// held in memory (a zip inside a zip) as well as out of a file of many gigabytes (an account
/// export) without holding either whole; and every byte inflated must be held in the reading's
/// memory budget and capped as gzip's are. The format needed is small: the end of central
/// directory (and its zip64 form), the central directory, local headers, stored and deflated entries.
///
/// Refused, each with a reason naming the entry: an encrypted entry, another compression method,
/// an entry that inflates past its declared size or the cap (a zip bomb), a CRC mismatch, data
/// running past the archive, or data overlapping another entry's (a damaged entry: several entries
/// at one local header make one deflated bomb count many times), and an entry inflating past the
/// command's `ReadBudget`. Names that would point outside the archive
/// (`../x`, `/etc/x`, a drive letter, a backslash, a NUL) are refused by `unsafeNameReason` (zip-slip).
///
/// Sendable: nothing changes after `init` (entries are read with `pread` at an offset, or from
/// immutable bytes), so several threads may read entries at once.
public final class ZipArchive: @unchecked Sendable {
    /// One file or folder the central directory lists.
    public struct Entry: Sendable, Equatable {
        /// The name as stored (`activities/123.fit.gz`); folders end in `/`.
        public var name: String
        public var method: UInt16
        public var flags: UInt16
        public var crc32: UInt32
        public var compressedSize: Int
        /// The size the central directory declares once inflated.
        public var size: Int
        var localHeaderOffset: Int
        /// Its data overlap another entry's (or it shares a local header with one): a damaged entry, never read.
        public internal(set) var overlapsAnother = false

        public var isDirectory: Bool { name.hasSuffix("/") }
        /// General-purpose flag bit 0: the entry is encrypted.
        public var isEncrypted: Bool { flags & 1 != 0 }
    }

    private enum Storage {
        case file(Int32)
        case bytes([UInt8])
    }

    /// The archive as named in messages.
    public let source: String
    private let storage: Storage
    /// The archive's length in bytes.
    public let length: Int
    /// The entries in central-directory order.
    public private(set) var entries: [Entry] = []
    /// The command's budget of bytes inflated, shared with the archives inside this one (nil: none).
    public let budget: ReadBudget?

    /// Central directories listing more than this many entries are refused (a Garmin account export
    /// holds tens of thousands).
    public static let maximumEntries = 1_000_000

    /// Opens the zip file at `path` (a regular file, of any size: only the directory and the entries
    /// asked for are read).
    public init(path: String, budget: ReadBudget? = nil) throws {
        source = path
        self.budget = budget
        let (fd, size) = try FileBytes.openRegular(path: path, maximumBytes: Int.max)
        storage = .file(fd)
        length = size
        try readDirectory()
    }

    /// A zip held in memory (an entry of another zip); `source` names it in messages.
    public init(bytes: [UInt8], source: String, budget: ReadBudget? = nil) throws {
        self.source = source
        self.budget = budget
        storage = .bytes(bytes)
        length = bytes.count
        try readDirectory()
    }

    deinit {
        if case .file(let fd) = storage { close(fd) }
    }

    /// True when the bytes start as a zip archive does (a local header, or an empty archive's end record).
    public static func isZip(_ prefix: ArraySlice<UInt8>) -> Bool {
        prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) || prefix.starts(with: [0x50, 0x4B, 0x05, 0x06])
    }

    /// Why an entry name cannot be taken as a path inside the archive (zip-slip), nil when it can.
    public static func unsafeNameReason(_ name: String) -> String? {
        if name.isEmpty { return "an empty name" }
        if name.utf8.contains(0) { return "a NUL byte in the name" }
        if name.contains("\\") { return "a backslash in the name (a Windows path)" }
        if name.hasPrefix("/") { return "an absolute name, outside the archive" }
        if name.count >= 2, name.dropFirst().first == ":" { return "a drive letter in the name, outside the archive" }
        if name.split(separator: "/", omittingEmptySubsequences: false).contains("..") { return "a '..' in the name, outside the archive" }
        return nil
    }

    // MARK: - Reading bytes of the archive

    private func read(at offset: Int, count: Int, into dest: UnsafeMutablePointer<UInt8>) throws {
        guard offset >= 0, count >= 0, offset <= length, count <= length - offset else {
            throw ActivityError.malformed(path: source, line: nil, offset: offset, reason: "damaged zip: \(count) bytes at byte \(offset) run past the end of the archive (\(length) bytes)")
        }
        switch storage {
        case .bytes(let bytes):
            bytes.withUnsafeBufferPointer { buffer in
                if count > 0, let base = buffer.baseAddress { dest.update(from: base + offset, count: count) }
            }
        case .file(let fd):
            var done = 0
            while done < count {
                let n = pread(fd, dest + done, count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ActivityError.unreadable(path: source, reason: "read error at byte \(offset + done): \(String(cString: strerror(errno)))")
                }
                if n == 0 { throw ActivityError.malformed(path: source, line: nil, offset: offset + done, reason: "damaged zip: the file ends at byte \(offset + done)") }
                done += n
            }
        }
    }

    private func read(at offset: Int, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try out.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { try read(at: offset, count: count, into: base) }
        }
        return out
    }

    private static func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    private static func u32(_ b: [UInt8], _ i: Int) -> Int { u16(b, i) | u16(b, i + 2) << 16 }
    private static func u64(_ b: [UInt8], _ i: Int) -> Int {
        let value = UInt64(u32(b, i)) | UInt64(u32(b, i + 4)) << 32
        return value > UInt64(Int.max) ? Int.max : Int(value)
    }

    private func damaged(_ reason: String, at offset: Int? = nil) -> ActivityError {
        .malformed(path: source, line: nil, offset: offset, reason: "damaged zip: " + reason)
    }

    // MARK: - The central directory

    private func readDirectory() throws {
        // The end record is 22 bytes, then a comment of at most 65,535.
        guard length >= 22 else {
            throw ActivityError.notFormat(path: source, format: "zip", reason: "\(length) bytes, shorter than a zip's end record")
        }
        let tailCount = min(length, 22 + 65_535)
        let tail = try read(at: length - tailCount, count: tailCount)
        var at = tailCount - 22
        while at >= 0, !(tail[at] == 0x50 && tail[at + 1] == 0x4B && tail[at + 2] == 5 && tail[at + 3] == 6) { at -= 1 }
        guard at >= 0 else {
            throw ActivityError.notFormat(path: source, format: "zip", reason: "no end of central directory record (PK 05 06) in its last \(tailCount) bytes")
        }
        let endOffset = length - tailCount + at
        var count = Self.u16(tail, at + 10)
        var directorySize = Self.u32(tail, at + 12)
        var directoryOffset = Self.u32(tail, at + 16)
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // zip64: a locator just before the end record points at the zip64 end record.
            guard endOffset >= 20 else { throw damaged("a zip64 archive without its zip64 locator") }
            let locator = try read(at: endOffset - 20, count: 20)
            guard Self.u32(locator, 0) == 0x0706_4B50 else { throw damaged("a zip64 archive without its zip64 locator", at: endOffset - 20) }
            let recordOffset = Self.u64(locator, 8)
            let record = try read(at: recordOffset, count: 56)
            guard Self.u32(record, 0) == 0x0606_4B50 else { throw damaged("no zip64 end record at byte \(recordOffset)", at: recordOffset) }
            count = Self.u64(record, 32)
            directorySize = Self.u64(record, 40)
            directoryOffset = Self.u64(record, 48)
        }
        guard count <= Self.maximumEntries else {
            throw ActivityError.tooLarge(path: source, reason: "the archive lists \(count) entries; archives of more than \(Self.maximumEntries) are refused")
        }
        guard directoryOffset <= length, directorySize <= length - directoryOffset, directorySize >= count * 46 else {
            throw damaged("the central directory (\(directorySize) bytes at byte \(directoryOffset), \(count) entries) does not fit in the archive")
        }
        let directory = try read(at: directoryOffset, count: directorySize)
        var position = 0
        entries.reserveCapacity(count)
        for index in 0..<count {
            guard position + 46 <= directory.count, Self.u32(directory, position) == 0x0201_4B50 else {
                throw damaged("central directory entry \(index + 1) is not where the directory says", at: directoryOffset + position)
            }
            let nameLength = Self.u16(directory, position + 28)
            let extraLength = Self.u16(directory, position + 30)
            let commentLength = Self.u16(directory, position + 32)
            let end = position + 46 + nameLength + extraLength + commentLength
            guard end <= directory.count else { throw damaged("central directory entry \(index + 1) runs past the directory", at: directoryOffset + position) }
            let name = String(decoding: directory[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            var entry = Entry(
                name: name, method: UInt16(Self.u16(directory, position + 10)), flags: UInt16(Self.u16(directory, position + 8)),
                crc32: UInt32(Self.u32(directory, position + 16)), compressedSize: Self.u32(directory, position + 20),
                size: Self.u32(directory, position + 24), localHeaderOffset: Self.u32(directory, position + 42))
            // zip64 sizes and offset, in this order, for the fields that hold 0xFFFFFFFF.
            var extra = position + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = Self.u16(directory, extra), size = Self.u16(directory, extra + 2)
                guard extra + 4 + size <= extraEnd else { break }
                if id == 1 {
                    var field = extra + 4
                    func next() -> Int? {
                        guard field + 8 <= extra + 4 + size else { return nil }
                        defer { field += 8 }
                        return Self.u64(directory, field)
                    }
                    if entry.size == 0xFFFF_FFFF, let value = next() { entry.size = value }
                    if entry.compressedSize == 0xFFFF_FFFF, let value = next() { entry.compressedSize = value }
                    if entry.localHeaderOffset == 0xFFFF_FFFF, let value = next() { entry.localHeaderOffset = value }
                }
                extra += 4 + size
            }
            entries.append(entry)
            position = end
        }
        markOverlaps()
    }

    /// Marks the entries whose bytes overlap another's. An entry spans at least its 30-byte local
    /// header and its compressed data from its local header's offset (its name and extra field only
    /// add to that), so in a well-formed archive the next local header starts no earlier: one that
    /// does, and every entry it overlaps, are damaged. Judged from the directory alone (no read per
    /// entry); the bound it uses is never more than the real span, so a sound archive is never refused.
    private func markOverlaps() {
        guard entries.count > 1 else { return }
        let order = entries.indices.sorted { entries[$0].localHeaderOffset < entries[$1].localHeaderOffset }
        var furthest = order[0]
        var furthestEnd = span(entries[furthest])
        for index in order.dropFirst() {
            let entry = entries[index]
            if entry.localHeaderOffset < furthestEnd {
                entries[index].overlapsAnother = true
                entries[furthest].overlapsAnother = true
            }
            let end = span(entry)
            if end > furthestEnd { furthest = index; furthestEnd = end }
        }
    }

    /// The end of the least an entry spans: its local header's offset, 30 bytes and its compressed data.
    private func span(_ entry: Entry) -> Int {
        let (sum, overflow) = entry.localHeaderOffset.addingReportingOverflow(30)
        guard !overflow else { return Int.max }
        let (end, overflowed) = sum.addingReportingOverflow(entry.compressedSize)
        return overflowed ? Int.max : end
    }

    // MARK: - An entry's bytes

    /// Why an entry cannot be read at all (encrypted, another method, too large), nil when it can be tried.
    public func refusal(_ entry: Entry, maximumBytes: Int) -> String? {
        if entry.overlapsAnother {
            return "damaged zip: its data overlap another entry's (entries sharing their bytes); not read"
        }
        if entry.isEncrypted { return "encrypted (badgectl reads no encrypted entries)" }
        guard entry.method == 0 || entry.method == 8 else {
            return "compressed with method \(entry.method) (only stored and deflated entries are read)"
        }
        if entry.size > maximumBytes { return "declares \(entry.size) bytes inflated, over the \(maximumBytes) bytes read from one entry (a zip bomb?)" }
        return nil
    }

    /// A stream over the inflated bytes of `entry`: never more than `maximumBytes`, nor more than the
    /// entry declares; the CRC is checked at the end. `name` names the entry in messages.
    public func stream(_ entry: Entry, name: String, maximumBytes: Int = Gzip.defaultMaximumBytes) throws -> ZipEntryStream {
        if let reason = refusal(entry, maximumBytes: maximumBytes) { throw ActivityError.unreadable(path: name, reason: reason) }
        let header = try read(at: entry.localHeaderOffset, count: 30)
        guard Self.u32(header, 0) == 0x0403_4B50 else {
            throw ActivityError.malformed(path: name, line: nil, offset: entry.localHeaderOffset, reason: "damaged zip: no local header at byte \(entry.localHeaderOffset)")
        }
        let start = entry.localHeaderOffset + 30 + Self.u16(header, 26) + Self.u16(header, 28)
        guard start <= length, entry.compressedSize <= length - start else {
            throw ActivityError.malformed(path: name, line: nil, offset: start, reason: "damaged zip: the entry's \(entry.compressedSize) bytes run past the end of the archive")
        }
        return try ZipEntryStream(archive: self, entry: entry, name: name, start: start, maximumBytes: maximumBytes, budget: budget)
    }

    /// The whole inflated bytes of `entry`, their room held in the reading's memory budget
    /// (`MemoryBudget.current`) as they grow: an entry that declares a gigabyte over a few bytes of
    /// data (a zip bomb, a damaged size) is found out before the gigabyte is held.
    public func contents(_ entry: Entry, name: String, maximumBytes: Int = Gzip.defaultMaximumBytes) throws -> [UInt8] {
        let stream = try self.stream(entry, name: name, maximumBytes: maximumBytes)
        // Deflate rarely shrinks run files past 16 to 1; the room doubles past that, within what the entry declares.
        let first = min(entry.size, max(1 << 16, entry.method == 0 ? entry.size : entry.compressedSize * 16))
        // The stream checks the size and the CRC at its end.
        return try Inflater.collect(first: first, limit: entry.size) { try stream.read(into: $0, count: $1) }
    }

    fileprivate func readCompressed(at offset: Int, count: Int, into dest: UnsafeMutablePointer<UInt8>) throws {
        try read(at: offset, count: count, into: dest)
    }
}

/// The inflated bytes of one zip entry, read piecewise (`read(into:count:)`), CRC-checked at the end.
public final class ZipEntryStream {
    private let archive: ZipArchive
    private let entry: ZipArchive.Entry
    private let name: String
    private let maximumBytes: Int
    private let budget: ReadBudget?
    private var position: Int
    private let end: Int
    /// The one inflate loop, over raw deflate (-MAX_WBITS: no zlib or gzip header); nil for a stored entry.
    private let inflater: Inflater?
    private var crc: UInt = 0
    private var finished = false
    /// Inflated bytes produced so far.
    public private(set) var produced = 0
    private let damage: Inflater.Damage

    fileprivate init(archive: ZipArchive, entry: ZipArchive.Entry, name: String, start: Int, maximumBytes: Int, budget: ReadBudget?) throws {
        self.archive = archive
        self.budget = budget
        self.entry = entry
        self.name = name
        self.maximumBytes = min(maximumBytes, entry.size)
        position = start
        let end = start + entry.compressedSize
        self.end = end
        crc = crc32(0, nil, 0)
        damage = Inflater.Damage(
            corrupt: { message, _ in ZipEntryStream.damaged(name, "corrupt deflate data: \(message)") },
            stuck: { _ in ZipEntryStream.damaged(name, "corrupt deflate data: inflate made no progress") },
            truncated: { _ in ZipEntryStream.damaged(name, "the compressed data ends before the deflate stream does") })
        var at = start
        inflater = entry.method == 8
            ? try Inflater(windowBits: -MAX_WBITS, name: name) { dest, count in
                let n = min(count, end - at)
                if n > 0 { try archive.readCompressed(at: at, count: n, into: dest) }
                at += n
                return n
            }
            : nil
    }

    private static func damaged(_ name: String, _ reason: String) -> ActivityError {
        .malformed(path: name, line: nil, offset: nil, reason: "damaged zip entry: " + reason)
    }

    private func damaged(_ reason: String) -> ActivityError { ZipEntryStream.damaged(name, reason) }

    /// Inflates into `dest` (up to `count` bytes); returns how many were written, 0 at the end.
    public func read(into dest: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard !finished, count > 0 else { return 0 }
        guard let inflater else {
            // Stored: the bytes as they are.
            let n = min(count, end - position)
            if n > 0 { try archive.readCompressed(at: position, count: n, into: dest) }
            position += n
            if n == 0 { try finish() } else { try check(n, dest) }
            return n
        }
        let (made, ended) = try inflater.read(into: dest, count: count, damage: damage) { false }
        if made > 0 { try check(made, dest) }
        if ended { try finish() }
        return made
    }

    private func check(_ made: Int, _ dest: UnsafeMutablePointer<UInt8>) throws {
        produced += made
        guard produced <= maximumBytes else {
            if produced > entry.size { throw damaged("it inflates past the \(entry.size) bytes it declares (a zip bomb?)") }
            throw ActivityError.tooLarge(path: name, reason: "the entry inflates beyond \(maximumBytes) bytes; refusing it")
        }
        if let budget, !budget.takeInflated(made) {
            finished = true
            throw ActivityError.tooLarge(path: name, reason: "not read: " + budget.inflatedSpent)
        }
        crc = crc32(crc, dest, UInt32(made))
    }

    private func finish() throws {
        finished = true
        guard produced == entry.size else { throw damaged("\(produced) bytes inflated, \(entry.size) declared") }
        guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else {
            throw damaged("its CRC-32 is \(String(UInt32(truncatingIfNeeded: crc), radix: 16)), the directory says \(String(entry.crc32, radix: 16))")
        }
    }
}
