import Foundation

/// Reads whole files into memory for the readers.
package enum FileBytes {
    package static func read(path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            let reason = String(cString: strerror(errno))
            throw ActivityError.unreadable(path: path, reason: reason)
        }
        defer { fclose(file) }
        var result: [UInt8] = []
        if fseeko(file, 0, SEEK_END) == 0 {
            let size = ftello(file)
            if size > 0 { result.reserveCapacity(Int(size)) }
            _ = fseeko(file, 0, SEEK_SET)
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { result.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count {
                if ferror(file) != 0 {
                    throw ActivityError.unreadable(path: path, reason: "read error after \(result.count) bytes")
                }
                break
            }
        }
        return result
    }
}
