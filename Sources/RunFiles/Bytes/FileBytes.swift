import Foundation

/// Opens and reads run files for the readers: regular files only, never past the size cap.
package enum FileBytes {
    /// A file larger than this (or a gzip file inflating beyond it) is refused: a run file is megabytes.
    package static let maximumBytes = Gzip.defaultMaximumBytes

    /// Opens `path` for reading, refusing anything that is not a regular file (a named pipe, a
    /// device, a socket: opening a pipe blocks, reading `/dev/zero` never ends) and any file over
    /// `maximumBytes`. The file is opened without blocking and checked with `fstat` on the open
    /// descriptor, so that it cannot be swapped for a pipe between a check and the open.
    /// Returns the descriptor (the caller closes it) and the file's size.
    package static func openRegular(path: String, maximumBytes: Int = maximumBytes) throws -> (fd: Int32, size: Int) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw ActivityError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ActivityError.unreadable(path: path, reason: reason)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ActivityError.unreadable(path: path, reason: status.st_mode & S_IFMT == S_IFDIR ? "a directory, not a file" : "not a regular file")
        }
        guard Int(status.st_size) <= maximumBytes else {
            close(fd)
            throw ActivityError.tooLarge(path: path, reason: "the file is \(status.st_size) bytes; files over \(maximumBytes) bytes are refused")
        }
        // Reads of a regular file never block; clear the flag so that they are ordinary reads.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return (fd, Int(status.st_size))
    }

    /// The whole file (a regular file of at most `maximumBytes`), its room held in the reading's
    /// memory budget first.
    package static func read(path: String, maximumBytes: Int = maximumBytes) throws -> [UInt8] {
        let (fd, size) = try openRegular(path: path, maximumBytes: maximumBytes)
        defer { close(fd) }
        try MemoryBudget.current?.hold(size, as: .file)
        HugePages.prepare(fileBytes: size)
        // Read straight into an array of the size `fstat` gave (no bounce buffer, no copy, no
        // zero-filling); a file that grew since is read on in 64 KiB steps, one that shrank ends early.
        var result = try [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress else { return }
            while count < size {
                let n = Foundation.read(fd, base + count, size - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ActivityError.unreadable(path: path, reason: "read error after \(count) bytes: \(String(cString: strerror(errno)))")
                }
                if n == 0 { break }
                count += n
            }
        }
        guard result.count == size else { return result }
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1 << 16) { buffer in
            while true {
                let n = Foundation.read(fd, buffer.baseAddress, buffer.count)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ActivityError.unreadable(path: path, reason: "read error after \(result.count) bytes: \(String(cString: strerror(errno)))")
                }
                if n == 0 { break }
                guard result.count + n <= maximumBytes else {
                    throw ActivityError.tooLarge(path: path, reason: "the file grew past \(maximumBytes) bytes while read; files over that are refused")
                }
                try MemoryBudget.current?.hold(result.count + n, as: .file)
                result.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<n]))
            }
        }
        return result
    }
}
