import Foundation
import RunFiles
#if canImport(Glibc)
import Glibc
#endif

/// Sorts facts in the byte order of their lines (as `LC_ALL=C sort` and Spark's string order do) in
/// bounded memory: facts are held, typed, until `bufferBytes`, then sorted and written to a
/// temporary file as lines (a run: the one place a fact of this process is written as JSON, between
/// its memory and the disk); `finish` merges the runs (k-way, at most `fanIn` at once, 64 KiB read
/// buffers), reads their lines back into facts and hands them over in order. The runs hold athletes'
/// facts (names, sex, birth dates, teams): they go to a folder only this user may open (0700, made by
/// `mkdtemp` under `$TMPDIR`), each file 0600, and the folder is removed when done, and at SIGINT or
/// SIGTERM before the process ends (`SpillFolders`).
public final class FactsSorter {
    /// Byte order of two lines.
    public static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    private let bufferBytes: Int
    private var buffer: [Fact] = []
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
        if removeOnInterrupt { SpillFolders.prepare() }
    }

    deinit { if let folder { SpillFolders.remove(folder) } }

    /// How many sorted runs went to temporary files so far.
    public var spilled: Int { runs.count }

    public func add(_ fact: Fact) throws {
        buffer.append(fact)
        buffered += fact.heldBytes
        if buffered >= bufferBytes { try spill() }
    }

    private func spill() throws {
        guard !buffer.isEmpty else { return }
        buffer.sort(by: Fact.precedes)
        let folder = try self.folder ?? {
            let made = try SpillFolders.make()
            self.folder = made
            return made
        }()
        let file = folder.appendingPathComponent("run-\(runs.count)")
        var data = Data()
        data.reserveCapacity(buffered)
        // Between this process's memory and the disk: each fact as its line.
        for fact in buffer {
            data.append(contentsOf: fact.line.utf8)
            data.append(0x0A)
        }
        let handle = try SpillFolders.create(file)
        defer { try? handle.close() }
        do { try handle.write(contentsOf: data) } catch { throw SpillError(path: file.path, error: error) }
        runs.append(file)
        buffer = []
        buffered = 0
    }

    /// Hands every fact over in the byte order of their lines.
    public func finish(_ body: (Fact) -> Void) throws {
        if runs.isEmpty {
            buffer.sort(by: Fact.precedes)
            for fact in buffer { body(fact) }
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
        // The lines read back into facts: every one was a fact when it was written.
        let decoder = JSONTextDecoder()
        var unread: Error?
        try FactsSorter.merge(runs) { line in
            guard unread == nil else { return }
            do { body(try Fact(line: line, decoder: decoder)) } catch { unread = error }
        }
        if let unread { throw SpillError(path: folder?.path ?? "", reason: "a line read back is no fact (\(unread))") }
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
/// when their sorter is done, or at SIGINT or SIGTERM once `prepare` armed the interrupt handling:
/// a thread of its own waits for either signal (`sigwait`), removes every folder still listed (not
/// inside a signal handler), then ends the process by the same signal, as it would have ended.
enum SpillFolders {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var folders: Set<String> = []
    /// Set by an interrupt's handling: no more spill files.
    nonisolated(unsafe) private static var ending = false
    /// The thread that waits for SIGINT and SIGTERM; nil until `prepare` made it.
    nonisolated(unsafe) private static var waiter: pthread_t?

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

    /// SIGINT and SIGTERM.
    private static var interrupts: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Arms the interrupt handling (once per process), wholly before it returns, so that no signal
    /// is lost at any moment: both signals are blocked in the calling thread (and so in every thread
    /// it makes from here on; Dispatch's threads block them anyway), so one sent from now on waits,
    /// pending, for the waiting thread's `sigwait`; a thread made earlier that does not block them
    /// runs `forward`, which passes the signal on to that thread.
    ///
    /// Before, a Dispatch signal source did this, with the signals set to SIG_IGN until it was
    /// armed: Dispatch arms a source on its manager thread, later (that thread was first made then),
    /// and a signal sent to a process that ignores it is dropped by the kernel at once. A 1 KiB sort
    /// buffer spills within a millisecond of `prepare`, and on a loaded machine the manager thread
    /// ran later still: a SIGTERM sent as soon as the spill appeared was dropped, and the process
    /// waited on its stdin for good (testSpillsArePrivateAndGoneAfterAnInterrupt hung).
    ///
    /// The calling thread keeps the signals blocked, and a process it starts would inherit that:
    /// `badgectl league` starts none.
    static func prepare() {
        lock.lock()
        defer { lock.unlock() }
        guard waiter == nil else { return }
        var signals = interrupts
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var thread = pthread_t()
        // The new thread starts with this thread's mask: both signals blocked, as `sigwait` wants.
        guard pthread_create(&thread, nil, { _ in SpillFolders.waitForInterrupt() }, nil) == 0 else {
            // No thread: the signals end the process as before `prepare` (the spills stay).
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            return
        }
        waiter = thread
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SpillFolders.forward
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    /// The signal handler, for a thread that does not block the signals: hands the signal to the
    /// waiting thread (`pthread_kill` is async-signal-safe; `waiter` is set before the handler is).
    private static let forward: @convention(c) (Int32) -> Void = { number in
        if let waiter = SpillFolders.waiter { pthread_kill(waiter, number) }
    }

    /// The waiting thread: at the first SIGINT or SIGTERM, removes every folder still listed and
    /// ends the process by that signal.
    private static func waitForInterrupt() -> UnsafeMutableRawPointer? {
        var signals = interrupts
        var number: Int32 = 0
        while sigwait(&signals, &number) != 0 {}
        // Held to the end: no spill file is made from here on (`create`), so each folder's removal
        // finds every file there is. A write to a file already made goes to its removed name, harmlessly.
        lock.lock()
        ending = true
        for path in folders { try? FileManager.default.removeItem(atPath: path) }
        // The process ends by the signal from this thread: default action, unblocked here, raised to
        // this thread (a second signal meanwhile waits, blocked, and ends it the same way).
        signal(number, SIG_DFL)
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, number)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        raise(number)
        _exit(128 + number)  // not reached: the default action of SIGINT and SIGTERM ends the process
    }
}
