import Foundation
import Glibc
import RunAnalysis
import RunFiles

/// A file's identity for the cache: its size and modification time (a row's key, with the path),
/// and a hash of its bytes (to tell a moved or renamed file from a different one).
extension RunCache {
    /// Size and modification time (nanoseconds since 1970) of a file, nil if it cannot be stat'ed.
    public static func stamp(path: String) -> RunLoader.Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return stamp(of: info)
    }

    /// Size and modification time (nanoseconds since 1970) of a status `stat` gave (the folder's walk keeps
    /// them, so that a warm read stats each file once).
    static func stamp(of info: stat) -> RunLoader.Stamp {
        RunLoader.Stamp(sizeBytes: Int64(info.st_size), modifiedNanoseconds: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
    }

    /// A fast 64-bit hash of a file's bytes (four independent multiply-xor-rotate lanes over 8-byte
    /// words, so the CPU runs them side by side, then an avalanche), read 64 KiB at a time. Not
    /// cryptographic: it only tells a moved file from a different one, and the size must match too.
    public static func hash(path: String) -> UInt64? {
        // A regular file only (a pipe swapped in since the folder was walked must not block).
        guard let (fd, _) = try? FileBytes.openRegular(path: path) else { return nil }
        defer { close(fd) }
        // 64 KiB, below glibc's mmap threshold (128 KiB). A 1 MiB buffer is mmapped, and its first
        // free raises that threshold, so later large buffers (the readers' too) come from the heap
        // and fragment it: a cold read of 200 runs peaked at 120-220 MB instead of about 45 MB.
        let capacity = 1 << 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 32)
        defer { buffer.deallocate() }
        var state = Hasher64()
        var atEnd = false
        while !atEnd {
            // Fill the buffer completely (short reads happen), so every chunk but the last is 64 KiB.
            var filled = 0
            while filled < capacity {
                let count = read(fd, buffer + filled, capacity - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    return nil
                }
                if count == 0 { atEnd = true; break }
                filled += count
            }
            if filled > 0 { state.update(UnsafeRawBufferPointer(start: buffer, count: filled)) }
        }
        return state.finish()
    }
}
