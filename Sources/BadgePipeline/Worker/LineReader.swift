import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a file descriptor in blocks, without holding more than one line (at most
/// `maximumBytes`) and one block: a line longer than that is reported by its number and skipped
/// to its newline, never held.
package struct LineReader {
    package enum Item {
        /// A line's bytes (without its newline; a final line without one counts).
        case line(number: Int, bytes: UnsafeBufferPointer<UInt8>)
        /// A line over `maximumBytes`, skipped.
        case tooLong(number: Int)
    }

    package let descriptor: Int32
    package let maximumBytes: Int
    static let blockBytes = 1 << 16

    package init(descriptor: Int32, maximumBytes: Int) {
        self.descriptor = descriptor
        self.maximumBytes = maximumBytes
    }

    /// Calls `body` for every line, in order, until the end of the input (or a read error, returned).
    package func forEach(_ body: (Item) -> Void) -> String? {
        var block = [UInt8](repeating: 0, count: LineReader.blockBytes)
        var pending: [UInt8] = []
        var skipping = false
        var number = 0
        while true {
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, LineReader.blockBytes) }
            if count < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            if count == 0 { break }
            block.withUnsafeBufferPointer { buffer in
                var start = 0
                for index in 0..<count where buffer[index] == 0x0A {
                    number += 1
                    if skipping {
                        skipping = false
                    } else if pending.count + (index - start) > maximumBytes {
                        body(.tooLong(number: number))
                    } else if pending.isEmpty {
                        body(.line(number: number, bytes: UnsafeBufferPointer(rebasing: buffer[start..<index])))
                    } else {
                        pending.append(contentsOf: buffer[start..<index])
                        pending.withUnsafeBufferPointer { body(.line(number: number, bytes: $0)) }
                    }
                    pending.removeAll(keepingCapacity: pending.count <= LineReader.blockBytes)
                    start = index + 1
                }
                guard !skipping else { return }
                if pending.count + (count - start) > maximumBytes {
                    body(.tooLong(number: number + 1))
                    pending.removeAll()
                    skipping = true
                } else {
                    pending.append(contentsOf: buffer[start..<count])
                }
            }
        }
        if !pending.isEmpty, !skipping {
            number += 1
            pending.withUnsafeBufferPointer { body(.line(number: number, bytes: $0)) }
        }
        return nil
    }
}
