import CZlib
import Foundation

/// gzip decompression through the system zlib (`.gpx.gz`, `.tcx.gz`, `.fit.gz` as Strava exports them).
///
/// Decompresses in 256 KiB steps into a growing buffer, so memory is the output plus one step.
/// Concatenated gzip members (what `cat a.gz b.gz` makes, and some exporters write) are read one
/// after the other; zero padding after the last member is ignored, other trailing bytes are an error.
public enum Gzip {
    /// Refuses to inflate beyond this many bytes (a run file is megabytes; this stops a gzip bomb).
    public static let defaultMaximumBytes = 1 << 30

    /// True when the bytes start with the gzip magic number 1f 8b.
    public static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// The decompressed bytes of a gzip file. `source` names the file in errors. The room for the
    /// output is held in the reading's memory budget (`MemoryBudget.current`) as it grows.
    public static func decompress(_ bytes: [UInt8], source: String, maximumBytes: Int = defaultMaximumBytes) throws -> [UInt8] {
        guard isGzip(bytes) else {
            throw ActivityError.notFormat(path: source, format: "gzip", reason: "no gzip magic number (1f 8b) at byte 0")
        }
        return try bytes.withUnsafeBufferPointer { input -> [UInt8] in
            var position = 0
            let inflater = try GzipInflater(source: source, maximumBytes: maximumBytes) { dest, count in
                let n = min(count, input.count - position)
                if n > 0, let base = input.baseAddress { dest.update(from: base + position, count: n) }
                position += n
                return n
            }
            return try Inflater.collect(first: min(maximumBytes, max(1 << 18, bytes.count * 4)), limit: maximumBytes) {
                try inflater.read(into: $0, count: $1)
            }
        }
    }
}

/// Inflates gzip data that arrives piecewise (from memory or streamed from a file descriptor), so
/// that a reader can scan a `.gpx.gz` without ever holding its inflated bytes.
///
/// Concatenated members are read one after the other; zero padding after the last member is
/// ignored, other trailing bytes are an error. More than `maximumBytes` of output is refused.
final class GzipInflater {
    /// The one inflate loop, over gzip framing (16 + MAX_WBITS: a header and a trailer, not raw zlib).
    private let inflater: Inflater
    private let source: String
    private let maximumBytes: Int
    private var finished = false
    /// Inflated bytes produced so far.
    private(set) var produced = 0
    /// The read budget of the archive this gzip data came out of (`ReadBudget.current`), nil for a file of a folder.
    private let reads = ReadBudget.current
    private let damage: Inflater.Damage

    /// Starts inflating; throws when the input does not start with the gzip magic number.
    init(source: String, maximumBytes: Int, input: @escaping (UnsafeMutablePointer<UInt8>, Int) throws -> Int) throws {
        self.source = source
        self.maximumBytes = maximumBytes
        inflater = try Inflater(windowBits: 16 + MAX_WBITS, name: source, input: input)
        damage = Inflater.Damage(
            corrupt: { message, at in
                ActivityError.malformed(path: source, line: nil, offset: at, reason: "corrupt gzip data near compressed byte \(at): \(message)")
            },
            stuck: { at in
                ActivityError.malformed(path: source, line: nil, offset: at, reason: "corrupt gzip data near compressed byte \(at): inflate made no progress")
            },
            truncated: { at in
                ActivityError.malformed(path: source, line: nil, offset: at,
                                        reason: "truncated gzip file: the compressed data ends after \(at) bytes before the gzip trailer")
            })
        try inflater.refill(keeping: 0, least: 2)
        guard inflater.available >= 2, inflater.inputBuffer[0] == 0x1F, inflater.inputBuffer[1] == 0x8B else {
            throw ActivityError.notFormat(path: source, format: "gzip", reason: "no gzip magic number (1f 8b) at byte 0")
        }
    }

    /// Inflates into `dest` (up to `count` bytes); returns how many were written, 0 at the end.
    func read(into dest: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard !finished, count > 0 else { return 0 }
        // At a member's end another may follow; otherwise only zero padding is allowed.
        let (made, _) = try inflater.read(into: dest, count: count, damage: damage) { try afterMember() }
        return try counted(made)
    }

    private func counted(_ made: Int) throws -> Int {
        produced += made
        guard produced <= maximumBytes else {
            throw ActivityError.tooLarge(path: source, reason: "gzip data inflates beyond \(maximumBytes) bytes; refusing it")
        }
        if let reads, made > 0, !reads.takeInflated(made) {
            throw ActivityError.tooLarge(path: source, reason: "gzip data not read: " + reads.inflatedSpent)
        }
        return made
    }

    /// At the end of a member: starts the next one (true), or checks that only zero padding is left
    /// and ends (false).
    private func afterMember() throws -> Bool {
        let stream = inflater.stream
        if inflater.available < 2, !inflater.inputEnded { try inflater.refill(keeping: inflater.available, least: 2) }
        let rest = inflater.available
        if rest == 0 {
            finished = true
            return false
        }
        if let next = stream.pointee.next_in, rest >= 2, next[0] == 0x1F, next[1] == 0x8B {
            inflater.reset()
            return true
        }
        let at = inflater.consumed
        var extra = 0
        var zeros = true
        while true {
            if let next = stream.pointee.next_in {
                let n = inflater.available
                extra += n
                if zeros { zeros = UnsafeBufferPointer(start: next, count: n).allSatisfy { $0 == 0 } }
            }
            inflater.dropAvailable()
            if inflater.inputEnded { break }
            try inflater.refill(keeping: 0)
        }
        guard zeros else {
            throw ActivityError.malformed(
                path: source, line: nil, offset: at, reason: "\(extra) unexpected bytes after the end of the gzip data")
        }
        finished = true
        return false
    }
}

extension Gzip {
    /// gzip-compresses bytes (for writing `.fit.gz` / `.gpx.gz` fixtures and generated runs).
    public static func compress(_ bytes: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION) throws -> [UInt8] {
        try deflated(bytes, level: level, windowBits: 16 + MAX_WBITS)
    }

    /// Raw deflate, no zlib or gzip header: what a zip entry holds (for zip fixtures).
    public static func deflateRaw(_ bytes: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION) throws -> [UInt8] {
        try deflated(bytes, level: level, windowBits: -MAX_WBITS)
    }

    /// The one deflate loop: `windowBits` 16 + 15 writes gzip's header and trailer, -15 none.
    private static func deflated(_ bytes: [UInt8], level: Int32, windowBits: Int32) throws -> [UInt8] {
        // At an address that never moves (zlib keeps a pointer back to its stream), as in GzipInflater.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw ActivityError.unreadable(path: "<gzip>", reason: "zlib could not start (deflateInit2 returned \(status))")
        }
        defer { deflateEnd(stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        let count = input.count
        try input.withUnsafeMutableBufferPointer { inp in
            stream.pointee.next_in = inp.baseAddress
            stream.pointee.avail_in = UInt32(count)
            while true {
                let result = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    return deflate(stream, Z_FINISH)
                }
                output.append(contentsOf: buffer[0..<(buffer.count - Int(stream.pointee.avail_out))])
                if result == Z_STREAM_END { return }
                guard result == Z_OK || result == Z_BUF_ERROR else {
                    throw ActivityError.unreadable(path: "<gzip>", reason: "deflate failed with zlib status \(result)")
                }
            }
        }
        return output
    }
}
