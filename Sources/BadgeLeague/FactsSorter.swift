import Foundation
import RunFiles
#if canImport(Glibc)
import Glibc
#endif

/// Sorts facts lines by their bytes (as `LC_ALL=C sort` and Spark's string order do) in bounded
/// memory: lines are held until `bufferBytes`, then sorted and written to a temporary file (a run);
/// `finish` merges the runs (k-way, at most `fanIn` at once, 64 KiB read buffers) and hands the
/// lines over in order. The runs hold athletes' facts (names, sex, birth dates, teams): they go to a
/// folder only this user may open (0700, made by `mkdtemp` under `$TMPDIR`), each file 0600, and the
/// folder is removed when done, and at SIGINT or SIGTERM before the process ends (`SpillFolders`).
public final class FactsSorter {
    /// Byte order of two lines.
    public static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    private let bufferBytes: Int
    private var buffer: [String] = []
    private var buffered = 0
    private var folder: URL?
    private var runs: [URL] = []

    /// At most this many runs are merged at once (more are first merged into longer runs), so the
    /// merge holds at most this many read buffers.
    let fanIn: Int

    /// `removeOnInterrupt`: the command's own process (`badgectl league`) has its spills removed at
    /// SIGINT and SIGTERM too (`SpillFolders`); a library's host keeps its signals to itself.
    public init(bufferBytes: Int = 32 << 20, fanIn: Int = 64, removeOnInterrupt: Bool = false) {
        self.bufferBytes = max(bufferBytes, 1)
        self.fanIn = max(fanIn, 2)
        // The interrupt handlers are armed now, long before a spill: a signal source is armed
        // asynchronously, and until then the signal would be ignored.
        if removeOnInterrupt { SpillFolders.prepare() }
    }

    deinit { if let folder { SpillFolders.remove(folder) } }

    /// How many sorted runs went to temporary files so far.
    public var spilled: Int { runs.count }

    public func add(_ line: String) throws {
        buffer.append(line)
        buffered += line.utf8.count + 48
        if buffered >= bufferBytes { try spill() }
    }

    private func spill() throws {
        guard !buffer.isEmpty else { return }
        buffer.sort(by: FactsSorter.precedes)
        let folder = try self.folder ?? {
            let made = try SpillFolders.make()
            self.folder = made
            return made
        }()
        let file = folder.appendingPathComponent("run-\(runs.count)")
        var data = Data()
        data.reserveCapacity(buffered)
        for line in buffer {
            data.append(contentsOf: line.utf8)
            data.append(0x0A)
        }
        let handle = try SpillFolders.create(file)
        defer { try? handle.close() }
        do { try handle.write(contentsOf: data) } catch { throw SpillError(path: file.path, error: error) }
        runs.append(file)
        buffer = []
        buffered = 0
    }


    /// Hands every line over in byte order.
    public func finish(_ body: (String) -> Void) throws {
        if runs.isEmpty {
            buffer.sort(by: FactsSorter.precedes)
            for line in buffer { body(line) }
            buffer = []
            return
        }
        try spill()
        while runs.count > fanIn, let folder {
            let merged = folder.appendingPathComponent("run-\(UUID().uuidString)")
            let handle = try SpillFolders.create(merged)
            var data = Data()
            var written = true
            try FactsSorter.merge(Array(runs.prefix(fanIn))) { line in
                data.append(contentsOf: line.utf8)
                data.append(0x0A)
                if data.count >= FactsSorter.chunkBytes {
                    written = written && (try? handle.write(contentsOf: data)) != nil
                    data.removeAll(keepingCapacity: true)
                }
            }
            written = written && (try? handle.write(contentsOf: data)) != nil
            try handle.close()
            // A full disk or a file size limit: the merge cannot go on, and says so.
            guard written else { throw SpillError(path: merged.path, reason: "the write failed (a full disk or a file size limit)") }
            for run in runs.prefix(fanIn) { try? FileManager.default.removeItem(at: run) }
            runs = Array(runs.dropFirst(fanIn)) + [merged]
        }
        try FactsSorter.merge(runs, body)
    }

    /// The bytes a run is read (and a merged run written) by at a time.
    static let chunkBytes = 64 << 10

    /// The lines of sorted `files`, merged.
    private static func merge(_ files: [URL], _ body: (String) -> Void) throws {
        var readers = try files.map { try RunReader(url: $0) }
        var heads = readers.indices.map { readers[$0].next() }
        while true {
            var smallest: Int?
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if let current = smallest, let best = heads[current], !FactsSorter.precedes(head, best) { continue }
                smallest = index
            }
            guard let index = smallest, let line = heads[index] else { break }
            body(line)
            heads[index] = readers[index].next()
        }
    }

    /// Reads one run file line by line, `chunkBytes` at a time.
    private struct RunReader {
        let handle: FileHandle
        var pending: [UInt8] = []
        var start = 0
        var ended = false

        init(url: URL) throws { handle = try FileHandle(forReadingFrom: url) }

        mutating func next() -> String? {
            while true {
                if let newline = pending[start...].firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[start..<newline], as: UTF8.self)
                    start = newline + 1
                    return line
                }
                if ended { return nil }
                pending.removeSubrange(0..<start)
                start = 0
                let chunk = handle.readData(ofLength: FactsSorter.chunkBytes)
                if chunk.isEmpty { ended = true; try? handle.close() } else { pending.append(contentsOf: chunk) }
            }
        }
    }
}

/// A spill that could not be made or written: the file and why.
struct SpillError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    init(path: String, reason: String) { self.path = path; self.reason = reason }
    init(path: String, error: Error) {
        self.path = path
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        reason = underlying.map { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32($0.code))) : $0.localizedDescription }
            ?? error.localizedDescription
    }
    var description: String { "cannot write \(ShownName.of(path)): \(reason)" }
}

/// The league's spill folders: made private (`mkdtemp`, 0700) with private files (0600), and removed
/// when their sorter is done, or at SIGINT or SIGTERM once `prepare` armed handlers (Dispatch signal
/// sources, so the removal runs on a thread of its own, not inside a signal handler) that remove
/// every folder still listed, then end the process by the same signal, as it would have ended.
enum SpillFolders {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var folders: Set<String> = []
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    /// Set by an interrupt's handler: no more spill files.
    nonisolated(unsafe) private static var ending = false

    /// A new folder under `$TMPDIR` (or /tmp) that only this user may open.
    static func make() throws -> URL {
        let base = FileManager.default.temporaryDirectory.path
        lock.lock()
        defer { lock.unlock() }
        guard !ending else { throw SpillError(path: base, reason: "the process is ending") }
        var template = Array((base + "/badgectl-league-XXXXXX").utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress, mkdtemp(start) != nil else { return nil }
            return String(cString: start)
        }
        guard let path = made else { throw SpillError(path: base + "/badgectl-league-XXXXXX", reason: String(cString: strerror(errno))) }
        folders.insert(path)
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// A new file only this user may read (0600); fails if the name is taken. Made under the lock,
    /// so that an interrupt's removal never races a file being made (its folder would stay).
    static func create(_ file: URL) throws -> FileHandle {
        lock.lock()
        defer { lock.unlock() }
        guard !ending else { throw SpillError(path: file.path, reason: "the process is ending") }
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SpillError(path: file.path, reason: String(cString: strerror(errno))) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Removes a folder `make` made, and forgets it.
    static func remove(_ folder: URL) {
        lock.lock()
        folders.remove(folder.path)
        lock.unlock()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Arms the interrupt handlers (once per process).
    static func prepare() {
        lock.lock()
        installHandlers()
        lock.unlock()
    }

    /// Called under the lock.
    private static func installHandlers() {
        guard sources.isEmpty else { return }
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // Held to the end: no spill file is made from here on (`create`), so each folder's
                // removal finds every file there is. A write to a file already made goes to its
                // removed name, harmlessly.
                lock.lock()
                ending = true
                for path in folders { try? FileManager.default.removeItem(atPath: path) }
                // The process ends by the signal from this thread: default action, unblocked here
                // (Dispatch's threads block signals), raised to this thread. A signal sent to the
                // process instead could be taken by Dispatch's own watch again, and run this handler
                // a second time, waiting for the lock held here, while the process lived on.
                signal(number, SIG_DFL)
                var only = sigset_t()
                sigemptyset(&only)
                sigaddset(&only, number)
                pthread_sigmask(SIG_UNBLOCK, &only, nil)
                raise(number)
                _exit(128 + number)  // not reached: the default action of SIGINT and SIGTERM ends the process
            }
            source.resume()
            sources.append(source)
        }
    }
}
