#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a file (or a memory buffer, for tests) through one reusable buffer, so a reader never
/// holds the whole file.
///
/// Pull-based: `next(consumed:)` drops the bytes the reader used from the current window, keeps
/// the rest (an incomplete token), appends the next chunk and returns the new window. When the
/// reader used nothing and the buffer is full (a token longer than the buffer), the buffer grows:
/// its room held in the reading's memory budget (`MemoryBudget.current`) first, and never past
/// `maximumCapacity` (a token longer than that is refused by name, never an abort on an allocation).
/// The window whose `isFinal` is true holds everything that is left; after it, `next` returns nil.
final class ChunkedFileReader {
    struct Window {
        var bytes: UnsafePointer<UInt8>
        var count: Int
        /// No more bytes will come: the reader must use everything or fail.
        var isFinal: Bool
        /// Stream position of `bytes[0]`, for error messages.
        var offset: Int
    }

    private let chunkSize: Int
    /// The buffer never grows past this many bytes (256 MiB: no tag or token of a run file comes near).
    var maximumCapacity = 256 << 20
    /// The size of the file or buffer when known (to size what the reader builds), else nil.
    let totalBytes: Int?
    private var capacity: Int
    private var buffer: UnsafeMutablePointer<UInt8>
    private var length = 0
    private var offset = 0
    private var done = false
    private let fill: (UnsafeMutablePointer<UInt8>, Int) throws -> Int
    private let closeFile: () -> Void
    /// A reader made by `init(descriptor:...)` reads with pread(2) from `position`, so that two
    /// readers can share one descriptor and `skip(to:)` can move on; -1 for the others.
    private var descriptor: Int32 = -1
    private var position = 0
    private var path = ""

    private init(chunkSize: Int, totalBytes: Int?, fill: @escaping (UnsafeMutablePointer<UInt8>, Int) throws -> Int, close: @escaping () -> Void) {
        self.chunkSize = max(1, chunkSize)
        self.totalBytes = totalBytes
        capacity = self.chunkSize
        buffer = .allocate(capacity: capacity)
        self.fill = fill
        closeFile = close
    }

    deinit {
        buffer.deallocate()
        closeFile()
    }

    /// Opens `path` (a regular file of at most `FileBytes.maximumBytes`) for reading with read(2)
    /// in chunks of `chunkSize` bytes. `hasher` (optional) sees every byte of the file as it is read.
    convenience init(path: String, chunkSize: Int, hasher: ContentHasher? = nil) throws {
        let (fd, size) = try FileBytes.openRegular(path: path)
        self.init(openedDescriptor: fd, size: size, path: path, chunkSize: chunkSize, hasher: hasher)
    }

    /// Reads `fd`, opened by `FileBytes.openRegular` (which gave `size`), with read(2) in chunks of
    /// `chunkSize` bytes, and closes it when done. `hasher` (optional) sees every byte as it is read.
    convenience init(openedDescriptor fd: Int32, size: Int, path: String, chunkSize: Int, hasher: ContentHasher? = nil) {
        self.init(
            chunkSize: chunkSize, totalBytes: size > 0 ? size : nil,
            fill: ChunkedFileReader.reading(fd, path: path, hasher: hasher),
            close: { _ = close(fd) })
        self.path = path
    }

    /// Opens the gzip file `path` and serves its inflated bytes (never all in memory at once), in
    /// chunks of `chunkSize`; more than `maximumBytes` inflated is refused. `hasher` (optional) sees
    /// every byte of the file (compressed) as it is read.
    convenience init(gzipPath path: String, chunkSize: Int, maximumBytes: Int = Gzip.defaultMaximumBytes, hasher: ContentHasher? = nil) throws {
        let (fd, _) = try FileBytes.openRegular(path: path)
        let inflater: GzipInflater
        do {
            inflater = try GzipInflater(source: path, maximumBytes: maximumBytes, input: ChunkedFileReader.reading(fd, path: path, hasher: hasher))
        } catch {
            close(fd)
            throw error
        }
        self.init(
            chunkSize: chunkSize, totalBytes: nil,
            fill: { dest, max in try inflater.read(into: dest, count: max) },
            close: { _ = close(fd) })
        self.path = path
    }

    /// Serves what `fill` gives (a zip entry's inflated bytes, any stream), in chunks of `chunkSize`.
    convenience init(chunkSize: Int, fill: @escaping (UnsafeMutablePointer<UInt8>, Int) throws -> Int) {
        self.init(chunkSize: chunkSize, totalBytes: nil, fill: fill, close: {})
    }

    /// Reads the open file `fd` (which the caller closes, after this reader is gone) with pread(2)
    /// from byte `start` on, in chunks of `chunkSize`; `totalBytes` is the file's size. Window
    /// offsets are file offsets. Two such readers may read one descriptor from two threads.
    convenience init(descriptor fd: Int32, path: String, from start: Int, chunkSize: Int, totalBytes: Int) {
        self.init(chunkSize: chunkSize, totalBytes: totalBytes > 0 ? totalBytes : nil, fill: { _, _ in 0 }, close: {})
        descriptor = fd
        self.path = path
        position = start
        offset = start
    }

    /// Drops what the buffer holds and goes on from byte `target` of the file: the next window
    /// starts there (a reader made by `init(descriptor:...)` only; `target` at or after the last
    /// window's start).
    func skip(to target: Int) {
        precondition(descriptor >= 0, "skip(to:) needs a reader made by init(descriptor:...)")
        length = 0
        offset = target
        position = target
        done = false
    }

    /// pread(2) from `position`, retried on EINTR; 0 at the end of the file.
    private func readAtPosition(_ dest: UnsafeMutablePointer<UInt8>, _ max: Int) throws -> Int {
        while true {
            let r = pread(descriptor, dest, max, off_t(position))
            if r >= 0 {
                position += r
                return r
            }
            if errno == EINTR { continue }
            throw ActivityError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// read(2) from `fd` into a buffer, retried on EINTR; 0 at the end of the file.
    private static func reading(_ fd: Int32, path: String, hasher: ContentHasher?) -> (UnsafeMutablePointer<UInt8>, Int) throws -> Int {
        { dest, max in
            while true {
                let r = read(fd, dest, max)
                if r >= 0 {
                    if r > 0, let hasher { hasher.update(UnsafeRawBufferPointer(start: dest, count: r)) }
                    return r
                }
                if errno == EINTR { continue }
                throw ActivityError.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Serves a memory buffer in chunks of `chunkSize` (tests use tiny chunks so that boundaries
    /// fall inside every kind of token). `bytes` must outlive the reader.
    convenience init(bytes: UnsafeRawBufferPointer, chunkSize: Int) {
        var position = 0
        self.init(
            chunkSize: chunkSize, totalBytes: bytes.count,
            fill: { dest, max in
                let n = min(max, bytes.count - position)
                if n > 0, let base = bytes.baseAddress {
                    UnsafeMutableRawPointer(dest).copyMemory(from: base + position, byteCount: n)
                }
                position += n
                return n
            },
            close: {})
    }

    /// Drops the first `consumed` bytes of the last window and returns the next one, or nil after
    /// the final window.
    func next(consumed: Int) throws -> Window? {
        if done { return nil }
        if consumed > 0 {
            if consumed < length { memmove(buffer, buffer + consumed, length - consumed) }
            length -= consumed
            offset += consumed
        }
        if length == capacity || (length > capacity / 2 && capacity - length < chunkSize) {
            guard capacity <= maximumCapacity / 2 else {
                throw ActivityError.tooLarge(path: path.isEmpty ? "the stream" : path,
                                             reason: "one token of more than \(capacity >> 20) MiB from byte \(offset) (a tag without its end?); "
                                                 + "the reader's buffer stops at \(maximumCapacity >> 20) MiB")
            }
            // Two chunks are the reader's working set (a window and the unfinished token it leaves); past
            // them, the buffer is held in the budget (the old one and the new at once) before it grows.
            if capacity >= chunkSize * 2 { try MemoryBudget.current?.hold(capacity * 3, as: .buffer) }
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: buffer, count: length)
            buffer.deallocate()
            buffer = bigger
            capacity *= 2
        }
        let room = min(chunkSize, capacity - length)
        let got = descriptor >= 0 ? try readAtPosition(buffer + length, room) : try fill(buffer + length, room)
        length += got
        if got == 0 { done = true }
        return Window(bytes: UnsafePointer(buffer), count: length, isFinal: got == 0, offset: offset)
    }

    /// 1-based line number of byte `offset` of a gzip file's inflated text, inflating it again in
    /// chunks (never whole), computed only when an error needs it.
    static func lineNumber(gzipPath path: String, offset: Int) -> Int? {
        guard let reader = try? ChunkedFileReader(gzipPath: path, chunkSize: 1 << 16) else { return nil }
        var line = 1
        var used = 0
        while let window = try? reader.next(consumed: used), window.offset < offset {
            line += XMLBytes.countNewlines(window.bytes, count: min(window.count, offset - window.offset))
            used = window.count
            if window.isFinal { break }
        }
        return line
    }

    /// 1-based line number of byte `offset` of a file, computed only when an error needs it.
    static func lineNumber(path: String, offset: Int) -> Int? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let size = 1 << 16
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { buffer.deallocate() }
        var line = 1
        var position = 0
        while position < offset {
            let r = read(fd, buffer, min(size, offset - position))
            if r <= 0 { break }
            line += XMLBytes.countNewlines(buffer, count: r)
            position += r
        }
        return line
    }
}
