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

    /// The decompressed bytes of a gzip file. `source` names the file in errors.
    public static func decompress(_ bytes: [UInt8], source: String, maximumBytes: Int = defaultMaximumBytes) throws -> [UInt8] {
        guard isGzip(bytes) else {
            throw ActivityError.notFormat(path: source, format: "gzip", reason: "no gzip magic number (1f 8b) at byte 0")
        }
        let chunk = 256 * 1024
        var output: [UInt8] = []
        output.reserveCapacity(min(maximumBytes, max(chunk, bytes.count * 4)))
        var stream = z_stream()
        // 16 + MAX_WBITS: expect a gzip header and trailer (not raw zlib).
        var status = inflateInit2_(&stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw ActivityError.unreadable(path: source, reason: "zlib could not start (inflateInit2 returned \(status))")
        }
        defer { inflateEnd(&stream) }
        var buffer = [UInt8](repeating: 0, count: chunk)
        try bytes.withUnsafeBufferPointer { input in
            guard let inputBase = input.baseAddress else { return }
            stream.next_in = UnsafeMutablePointer(mutating: inputBase)
            stream.avail_in = UInt32(input.count)
            while true {
                status = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk - Int(stream.avail_out)
                if produced > 0 {
                    guard output.count + produced <= maximumBytes else {
                        throw ActivityError.malformed(
                            path: source, line: nil, offset: Int(stream.total_in),
                            reason: "gzip data inflates beyond \(maximumBytes) bytes; refusing it")
                    }
                    output.append(contentsOf: buffer[0..<produced])
                }
                let consumed = input.count - Int(stream.avail_in)
                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    // Another member may follow; otherwise only zero padding is allowed.
                    let rest = input.count - consumed
                    if rest == 0 { return }
                    if rest >= 2, input[consumed] == 0x1F, input[consumed + 1] == 0x8B {
                        inflateReset(&stream)
                        continue
                    }
                    if input[consumed...].allSatisfy({ $0 == 0 }) { return }
                    throw ActivityError.malformed(
                        path: source, line: nil, offset: consumed,
                        reason: "\(rest) unexpected bytes after the end of the gzip data")
                case Z_BUF_ERROR:
                    if stream.avail_in == 0 || produced == 0 {
                        throw ActivityError.malformed(
                            path: source, line: nil, offset: consumed,
                            reason: "truncated gzip file: the compressed data ends after \(consumed) bytes before the gzip trailer")
                    }
                    continue
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    throw ActivityError.malformed(
                        path: source, line: nil, offset: consumed,
                        reason: "corrupt gzip data near compressed byte \(consumed): \(message)")
                }
            }
        }
        return output
    }
}

extension Gzip {
    /// gzip-compresses bytes (for writing `.fit.gz` / `.gpx.gz` fixtures and generated runs).
    public static func compress(_ bytes: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION) throws -> [UInt8] {
        var stream = z_stream()
        let status = deflateInit2_(
            &stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw ActivityError.unreadable(path: "<gzip>", reason: "zlib could not start (deflateInit2 returned \(status))")
        }
        defer { deflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        let count = input.count
        try input.withUnsafeMutableBufferPointer { inp in
            stream.next_in = inp.baseAddress
            stream.avail_in = UInt32(count)
            while true {
                let result = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    return deflate(&stream, Z_FINISH)
                }
                output.append(contentsOf: buffer[0..<(buffer.count - Int(stream.avail_out))])
                if result == Z_STREAM_END { return }
                guard result == Z_OK || result == Z_BUF_ERROR else {
                    throw ActivityError.unreadable(path: "<gzip>", reason: "deflate failed with zlib status \(result)")
                }
            }
        }
        return output
    }
}
