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
        let chunk = 256 * 1024
        return try bytes.withUnsafeBufferPointer { input -> [UInt8] in
            var position = 0
            let inflater = try GzipInflater(source: source, maximumBytes: maximumBytes) { dest, count in
                let n = min(count, input.count - position)
                if n > 0, let base = input.baseAddress { dest.update(from: base + position, count: n) }
                position += n
                return n
            }
            let budget = MemoryBudget.current
            var output: [UInt8] = []
            let first = min(maximumBytes, max(chunk, bytes.count * 4))
            try budget?.hold(first, as: .inflated)
            output.reserveCapacity(first)
            var buffer = [UInt8](repeating: 0, count: chunk)
            while true {
                let produced = try buffer.withUnsafeMutableBufferPointer { out -> Int in
                    guard let base = out.baseAddress else { return 0 }
                    return try inflater.read(into: base, count: out.count)
                }
                if produced == 0 { return output }
                if output.count + produced > output.capacity {
                    // What appending makes: double the room (or exactly what the cap still allows).
                    try budget?.hold(min(maximumBytes, max(output.count + produced, output.capacity * 2)), as: .inflated)
                }
                output.append(contentsOf: buffer[0..<produced])
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
    /// zlib's stream, at an address that never moves: zlib keeps a pointer back to it in its
    /// state (and checks it), so it is not a stored struct that `&` may hand over as a temporary.
    private let stream: UnsafeMutablePointer<z_stream>
    /// `inflateInit2` succeeded: `deinit` must end the stream.
    private var started = false
    private let source: String
    private let maximumBytes: Int
    /// Fills a buffer with compressed bytes; 0 at the end of the input.
    private let input: (UnsafeMutablePointer<UInt8>, Int) throws -> Int
    private let inputCapacity = 64 * 1024
    private let inputBuffer: UnsafeMutablePointer<UInt8>
    private var inputEnded = false
    /// Compressed bytes read so far (the position in the file of the next byte read).
    private var compressedRead = 0
    private var finished = false
    /// Inflated bytes produced so far.
    private(set) var produced = 0
    /// The read budget of the archive this gzip data came out of (`ReadBudget.current`), nil for a file of a folder.
    private let reads = ReadBudget.current

    /// Starts inflating; throws when the input does not start with the gzip magic number.
    ///
    /// Ownership: once every stored property is set, `deinit` alone releases the stream and the
    /// buffer, and it runs even when this initializer throws afterwards (a class whose stored
    /// properties are all initialised is deinitialised on a throw). So nothing here frees
    /// anything on the way out: doing so was a double free (issue S).
    init(source: String, maximumBytes: Int, input: @escaping (UnsafeMutablePointer<UInt8>, Int) throws -> Int) throws {
        self.source = source
        self.maximumBytes = maximumBytes
        self.input = input
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        inputBuffer = .allocate(capacity: inputCapacity)
        // 16 + MAX_WBITS: expect a gzip header and trailer (not raw zlib).
        let status = inflateInit2_(stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw ActivityError.unreadable(path: source, reason: "zlib could not start (inflateInit2 returned \(status))")
        }
        started = true
        try refill(keeping: 0)
        guard stream.pointee.avail_in >= 2, inputBuffer[0] == 0x1F, inputBuffer[1] == 0x8B else {
            throw ActivityError.notFormat(path: source, format: "gzip", reason: "no gzip magic number (1f 8b) at byte 0")
        }
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        inputBuffer.deallocate()
    }

    /// Position in the compressed input of the next byte inflate will use.
    private var consumed: Int { compressedRead - Int(stream.pointee.avail_in) }

    /// Moves the `keeping` unused bytes to the front and reads more after them, until at least two
    /// bytes are there or the input ends.
    private func refill(keeping: Int) throws {
        if keeping > 0, let next = stream.pointee.next_in, next != inputBuffer { inputBuffer.update(from: next, count: keeping) }
        var have = keeping
        while !inputEnded, have < 2 {
            let n = try input(inputBuffer + have, inputCapacity - have)
            if n == 0 { inputEnded = true }
            have += n
            compressedRead += n
        }
        stream.pointee.next_in = inputBuffer
        stream.pointee.avail_in = UInt32(have)
    }

    /// Inflates into `dest` (up to `count` bytes); returns how many were written, 0 at the end.
    func read(into dest: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard !finished, count > 0 else { return 0 }
        stream.pointee.next_out = dest
        stream.pointee.avail_out = UInt32(min(count, Int(UInt32.max)))
        let room = Int(stream.pointee.avail_out)
        while true {
            if stream.pointee.avail_in == 0, !inputEnded { try refill(keeping: 0) }
            let status = inflate(stream, Z_NO_FLUSH)
            let made = room - Int(stream.pointee.avail_out)
            switch status {
            case Z_OK:
                if made > 0 { return try counted(made) }
            case Z_STREAM_END:
                // Another member may follow; otherwise only zero padding is allowed.
                try afterMember()
                if made > 0 || finished { return try counted(made) }
            case Z_BUF_ERROR:
                // No progress: more input is needed (read at the top of the loop), unless there is none.
                if made > 0 { return try counted(made) }
                if stream.pointee.avail_in > 0 {
                    throw ActivityError.malformed(
                        path: source, line: nil, offset: consumed, reason: "corrupt gzip data near compressed byte \(consumed): inflate made no progress")
                }
                if inputEnded {
                    throw ActivityError.malformed(
                        path: source, line: nil, offset: consumed,
                        reason: "truncated gzip file: the compressed data ends after \(consumed) bytes before the gzip trailer")
                }
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw ActivityError.malformed(
                    path: source, line: nil, offset: consumed,
                    reason: "corrupt gzip data near compressed byte \(consumed): \(message)")
            }
        }
    }

    private func counted(_ made: Int) throws -> Int {
        produced += made
        guard produced <= maximumBytes else {
            throw ActivityError.tooLarge(path: source, reason: "gzip data inflates beyond \(maximumBytes) bytes; refusing it")
        }
        if let reads, !reads.takeInflated(made) {
            throw ActivityError.tooLarge(path: source, reason: "gzip data not read: " + reads.inflatedSpent)
        }
        return made
    }

    /// At the end of a member: starts the next one, or checks that only zero padding is left.
    private func afterMember() throws {
        if stream.pointee.avail_in < 2, !inputEnded { try refill(keeping: Int(stream.pointee.avail_in)) }
        let rest = Int(stream.pointee.avail_in)
        if rest == 0 {
            finished = true
            return
        }
        if let next = stream.pointee.next_in, rest >= 2, next[0] == 0x1F, next[1] == 0x8B {
            inflateReset(stream)
            return
        }
        let at = consumed
        var extra = 0
        var zeros = true
        while true {
            if let next = stream.pointee.next_in {
                let n = Int(stream.pointee.avail_in)
                extra += n
                if zeros { zeros = UnsafeBufferPointer(start: next, count: n).allSatisfy { $0 == 0 } }
            }
            stream.pointee.avail_in = 0
            if inputEnded { break }
            try refill(keeping: 0)
        }
        guard zeros else {
            throw ActivityError.malformed(
                path: source, line: nil, offset: at, reason: "\(extra) unexpected bytes after the end of the gzip data")
        }
        finished = true
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
