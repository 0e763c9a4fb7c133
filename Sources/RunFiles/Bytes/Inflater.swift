import CZlib
import Foundation

/// zlib's inflate over compressed bytes that arrive piecewise: the one inflate loop of badgectl.
/// `GzipInflater` (gzip files and streams: members, trailing padding) and `ZipEntryStream` (a zip
/// entry's raw deflate: declared size, CRC) are its framings; each says what a stream's end means
/// and how its damage is named, and counts what it makes against its caps.
final class Inflater {
    /// zlib's stream, at an address that never moves: zlib keeps a pointer back to it in its
    /// state (and checks it), so it is not a stored struct that `&` may hand over as a temporary.
    let stream: UnsafeMutablePointer<z_stream>
    /// `inflateInit2` succeeded: `deinit` must end the stream.
    private var started = false
    /// Fills a buffer with compressed bytes; 0 at the end of the input.
    private let input: (UnsafeMutablePointer<UInt8>, Int) throws -> Int
    private let inputCapacity = 64 * 1024
    let inputBuffer: UnsafeMutablePointer<UInt8>
    /// The input said it has no more.
    private(set) var inputEnded = false
    /// Compressed bytes read so far.
    private var compressedRead = 0

    /// How a framing names what went wrong (each gets the compressed position it happened at).
    struct Damage {
        /// zlib's own message (`inflate` failed).
        var corrupt: (_ message: String, _ at: Int) -> Error
        /// `inflate` made no progress with input left.
        var stuck: (_ at: Int) -> Error
        /// The input ended inside the stream.
        var truncated: (_ at: Int) -> Error
    }

    /// Starts an inflate with zlib's `windowBits` (16 + MAX_WBITS: gzip; -MAX_WBITS: raw deflate).
    ///
    /// Ownership: once every stored property is set, `deinit` alone releases the stream and the
    /// buffer, and it runs even when this initializer throws afterwards (a class whose stored
    /// properties are all initialised is deinitialised on a throw). So nothing here frees anything
    /// on the way out: doing so was a double free (issue S).
    init(windowBits: Int32, name: String, input: @escaping (UnsafeMutablePointer<UInt8>, Int) throws -> Int) throws {
        self.input = input
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        inputBuffer = .allocate(capacity: inputCapacity)
        let status = inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw ActivityError.unreadable(path: name, reason: "zlib could not start (inflateInit2 returned \(status))")
        }
        started = true
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        inputBuffer.deallocate()
    }

    /// Position in the compressed input of the next byte inflate will use.
    var consumed: Int { compressedRead - Int(stream.pointee.avail_in) }
    /// Compressed bytes read and not yet used.
    var available: Int { Int(stream.pointee.avail_in) }

    /// Moves the `keeping` unused bytes to the front and reads more after them, until at least
    /// `least` bytes are there or the input ends.
    func refill(keeping: Int, least: Int = 1) throws {
        if keeping > 0, let next = stream.pointee.next_in, next != inputBuffer { inputBuffer.update(from: next, count: keeping) }
        var have = keeping
        while !inputEnded, have < least {
            let n = try input(inputBuffer + have, inputCapacity - have)
            if n == 0 { inputEnded = true }
            have += n
            compressedRead += n
        }
        stream.pointee.next_in = inputBuffer
        stream.pointee.avail_in = UInt32(have)
    }

    /// Forgets the input not yet used (what a framing has looked at and judged).
    func dropAvailable() { stream.pointee.avail_in = 0 }

    /// Starts a new stream on the same input (the next gzip member).
    func reset() { inflateReset(stream) }

    /// Inflates into `dest` (up to `count` bytes, at least 1). Returns the bytes made and whether the
    /// deflate stream ended with them; it returns only once it made some or the stream ended (then
    /// `streamEnded` says whether another follows: it starts it with `reset()` and returns true).
    func read(into dest: UnsafeMutablePointer<UInt8>, count: Int, damage: Damage,
              streamEnded: () throws -> Bool) throws -> (made: Int, ended: Bool) {
        stream.pointee.next_out = dest
        stream.pointee.avail_out = UInt32(min(count, Int(UInt32.max)))
        let room = Int(stream.pointee.avail_out)
        while true {
            if stream.pointee.avail_in == 0, !inputEnded { try refill(keeping: 0) }
            let status = inflate(stream, Z_NO_FLUSH)
            let made = room - Int(stream.pointee.avail_out)
            switch status {
            case Z_OK:
                if made > 0 { return (made, false) }
            case Z_STREAM_END:
                let another = try streamEnded()
                if made > 0 || !another { return (made, !another) }
            case Z_BUF_ERROR:
                // No progress: more input is needed (read at the top of the loop), unless there is none.
                if made > 0 { return (made, false) }
                if stream.pointee.avail_in > 0 { throw damage.stuck(consumed) }
                if inputEnded { throw damage.truncated(consumed) }
            default:
                throw damage.corrupt(stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)", consumed)
            }
        }
    }

    /// The whole of what `read` makes, in a buffer that grows as it fills, its room held in the
    /// reading's memory budget (`MemoryBudget.current`) before it is taken: `first` bytes at once,
    /// then doubling, never past `limit` (what the data may make at most). The one collecting loop
    /// of a gzip file and a zip entry.
    static func collect(first: Int, limit: Int, _ read: (UnsafeMutablePointer<UInt8>, Int) throws -> Int) throws -> [UInt8] {
        let budget = MemoryBudget.current
        try budget?.hold(first, as: .inflated)
        var output: [UInt8] = []
        output.reserveCapacity(first)
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        while true {
            let made = try buffer.withUnsafeMutableBufferPointer { chunk -> Int in
                guard let base = chunk.baseAddress else { return 0 }
                return try read(base, chunk.count)
            }
            if made == 0 { return output }
            if output.count + made > output.capacity {
                // What appending makes: double the room (or exactly what the limit still allows).
                try budget?.hold(min(limit, max(output.count + made, output.capacity * 2)), as: .inflated)
            }
            output.append(contentsOf: buffer[0..<made])
        }
    }
}
