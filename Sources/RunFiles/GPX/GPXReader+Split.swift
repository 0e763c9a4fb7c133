import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `GPXReader.read(path:)` shares one big file between two threads: a second thread reads the
/// track points from the first one at or after a split offset (`GPXSplitWorker`) while this one
/// scans from the start; the second thread's points are taken only when this scan arrives at their
/// first byte in a state where it would read them the same way (`GPXScanner.canTakeFragment`), and
/// the scan goes on after them. Otherwise they are dropped and the scan simply goes on: every
/// error, line number and edge case is the sequential scan's own.
///
/// Kept by issue T's rule (code for speed stays where it moves a figure a user sees by 10% or more),
/// measured 2026-12-07 with scripts/bench/pair.sh, whole processes, paired medians of 30-40 rounds:
/// without the split read, `summarize --no-cache` of the 100k-point GPX (43.7 MB) 15.3 -> 20.9 ms (+37%).
enum GPXSplit: Equatable {
    /// Files of at least `GPXReader.splitThreshold` bytes are split in the middle.
    case automatic
    /// Files of at least this many bytes are split in the middle (tests lower the threshold).
    case automaticAbove(Int)
    /// Never split (the sequential scan).
    case never
    /// Split at this byte offset whatever the file's size (tests sweep it).
    case at(Int)
    /// Split at the first offset, and when the first thread gets there, share the second thread's
    /// rest from the second offset on, whatever is left (tests sweep both).
    case sharing(at: Int, rest: Int)
}

/// A wrong merge a test injects, to show that the differential test would catch one.
enum GPXSplitFault: Equatable {
    case none
    /// The fragment is taken in whatever state the scan is at its first byte.
    case anyState
    /// The fragment's first timestamp offset replaces the one the scan had already found.
    case fragmentOffsetWins
    /// The rest the first thread read itself (`GPXSplit.sharing`) is taken in whatever state the scan is at its first byte.
    case restInAnyState
}

/// What a split read did, for tests: how many points of the fragment were taken (0: none), the CPU
/// its second thread was asked not to start on and the one it started on (-1: not known), and
/// whether that thread then widened its mask back.
final class GPXSplitStatistics {
    var fragmentPoints = 0
    /// Points of the rest the first thread read itself after sharing it (`shareRest`), when taken.
    var restPoints = 0
    var avoidedCPU: Int32 = -1
    var startCPU: Int32 = -1
    /// The second thread widened its CPU mask back once started.
    var widened = false
}

/// The track points the second thread read: from the point starting at `start` (a file offset) to
/// `end`, just after the last one's end tag.
struct GPXFragment {
    var start: Int
    var end: Int
    /// Its points; `segmentStarts` is `[-1]` followed by the starts its pause markers made,
    /// relative to its first point (-1 so that none of them is taken for a start already made).
    var track: Track
    /// A timestamp was read; the first one's offset is `track.utcOffsetSeconds`.
    var sawTime: Bool
    /// Track points read (kept and dropped).
    var trackPoints: Int
}

/// The second thread of a split read: finds the first track point start (`<trkpt` or `<x:trkpt`)
/// at or after `split`, publishes its offset, then reads points of the usual shape with the fast
/// path (`GPXScanner.quickPoint`) until anything else (the segment's end, a comment, text, another
/// shape the fast path does not take, an error): that is the fragment. It never reports an error:
/// what it cannot read, the first thread reads.
final class GPXSplitWorker {
    private let fd: Int32
    private let path: String
    private let split: Int
    private let size: Int
    private let chunkSize: Int
    private let condition = NSCondition()
    private var startKnown = false
    private var start: Int?
    private var cancelled = false
    private var fragment: GPXFragment?
    /// Memory the first thread reserved for its columns, for this one to fault in (see `populate`).
    private var offered: [UnsafeMutableRawBufferPointer] = []
    /// The second thread, once launched.
    private var placed: PlacedThread?
    /// No point starting at or after this offset is read (`shareRest`): the first thread reads them.
    private var limit = Int.max
    /// Where the reading has got to (the start of its last window; until its points begin, `split`),
    /// for `shareRest`.
    private var progress: Int
    /// The reading has ended (its fragment, if any, is final).
    private var ended = false
    /// Tests: the points are read only once the first thread has given a limit (`shareRest(at:)`),
    /// so that the rest is shared wherever the test says.
    private let waitForLimit: Bool
    private var limitGiven = false
    /// How far past `split` a point start is looked for.
    static let searchLimit = 1 << 20

    init(fd: Int32, path: String, split: Int, size: Int, chunkSize: Int, waitForLimit: Bool = false) {
        self.fd = fd
        self.path = path
        self.split = split
        self.size = size
        self.chunkSize = chunkSize
        self.waitForLimit = waitForLimit
        progress = split
    }

    /// The CPU the thread was asked not to start on, -1 when it was not placed (`PlacedThread`).
    var avoidedCPU: Int32 { placed?.avoidedCPU ?? -1 }
    /// The CPU the thread started on, -1 when not known (read after it ended).
    var startCPU: Int32 { placed?.startCPU ?? -1 }
    /// The thread widened its mask back once started (read after it ended).
    var widened: Bool { placed?.widened ?? false }

    /// Starts the thread, on a CPU other than this one's (`PlacedThread`); false when it could not
    /// be made (the caller reads sequentially).
    func launch() -> Bool {
        placed = PlacedThread { [self] in run() }
        return placed != nil
    }

    /// The offset of the fragment's first point, once the thread knows it; nil for none.
    func waitForStart() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !startKnown { condition.wait() }
        return start
    }

    /// Waits for the thread to end and gives its fragment (nil for none).
    func finish() -> GPXFragment? {
        join()
        defer { fragment = nil }  // handed over: its columns live in the merged track only
        return fragment
    }

    /// Asks the thread to stop at its next window (its fragment will not be taken).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// When the thread is still reading and has at least `minimumBytes` of the file before it: asks it
    /// to stop at the first point starting at or after the middle of what it has left, and gives that
    /// offset (the caller reads the points from there: `GPXSplit`). nil when it is not worth it.
    func shareRest(minimumBytes: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard !ended, !cancelled, limit == .max, size - progress >= minimumBytes else { return nil }
        limit = progress + (size - progress) / 2
        return limit
    }

    /// `shareRest` at `offset`, whatever is left (tests).
    private func shareRest(at offset: Int) {
        condition.lock()
        limit = offset
        limitGiven = true
        condition.broadcast()
        condition.unlock()
    }

    /// Shares the thread's rest (from `forced` on, for tests, else as `shareRest(minimumBytes:)` decides)
    /// and reads it on the calling thread: the points from the first one starting at or after the
    /// shared offset, or nil when nothing was shared or read.
    func readSharedRest(from forced: Int?) -> GPXFragment? {
        let from: Int?
        if let forced {
            shareRest(at: forced)
            from = forced
        } else {
            from = shareRest(minimumBytes: GPXReader.shareMinimumBytes)
        }
        guard let from else { return nil }
        let reading = GPXSplitWorker(fd: fd, path: path, split: from, size: size, chunkSize: chunkSize)
        reading.run()
        return reading.finish()
    }

    /// Asks the thread to stop at its next window and waits for it.
    func cancelAndJoin() {
        cancel()
        join()
    }

    private func join() {
        placed?.join()
    }

    private func publish(_ offset: Int?) {
        condition.lock()
        start = offset
        startKnown = true
        condition.broadcast()
        condition.unlock()
    }

    /// Has this thread fault in `regions` (the first thread's columns, reserved for the whole
    /// file) while the first scans: its writes then find their pages mapped, and the merge copies
    /// the fragment into mapped memory. MADV_POPULATE_WRITE maps pages writable without touching
    /// their bytes, so it is harmless however the first thread is using them (or if it has freed
    /// them for bigger columns).
    func populate(_ regions: [UnsafeMutableRawBufferPointer]) {
        condition.lock()
        offered += regions
        condition.unlock()
    }

    private func populateOffered() {
        condition.lock()
        let regions = offered
        offered = []
        condition.unlock()
        for region in regions { GPXSplitWorker.populate(region) }
    }

    /// Faults in the whole pages of `region` (MADV_POPULATE_WRITE, Linux 5.14; elsewhere nothing).
    static func populate(_ region: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        guard let base = region.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: base) + page - 1) / page * page
        let end = (Int(bitPattern: base) + region.count) / page * page
        guard end > start, let first = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(first, end - start, 23)  // MADV_POPULATE_WRITE
        #endif
    }

    /// The memory `track`'s columns hold (their capacity, not only what they fill).
    static func regions(of track: Track) -> [UnsafeMutableRawBufferPointer] {
        [track.latitudes, track.longitudes, track.elevations, track.times, track.heartRates, track.cadences].compactMap { column in
            column.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(mutating: $0), count: column.capacity * 8) }
            }
        }
    }

    private var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// At each new window of points: records how far the reading has got, and gives the limit.
    private func poll(at offset: Int) -> (cancelled: Bool, limit: Int) {
        condition.lock()
        defer { condition.unlock() }
        progress = offset
        return (cancelled, limit)
    }

    private func run() {
        defer {
            condition.lock()
            ended = true
            condition.unlock()
        }
        let reader = ChunkedFileReader(descriptor: fd, path: path, from: split, chunkSize: chunkSize, totalBytes: size)
        var scanner = GPXScanner(source: path)
        defer { scanner.release() }
        // Phase 1: the first `<name` whose local name is `trkpt`, followed by a space or '>'.
        var used = 0
        var found: (window: ChunkedFileReader.Window, at: Int, nameLength: Int)?
        do {
            search: while let window = try reader.next(consumed: used) {
                let p = window.bytes, n = window.count
                var k = 0
                used = n
                while true {
                    let lt = XMLBytes.find(XMLBytes.lessThan, in: p, from: k, to: n)
                    if lt < 0 { break }
                    var colon = -1
                    let nameEnd = XMLBytes.nameEnd(p, from: lt + 1, to: n, colon: &colon)
                    if nameEnd >= n {
                        used = lt  // offered again with more bytes
                        break
                    }
                    let localStart = colon >= 0 ? colon + 1 : lt + 1
                    if nameEnd > lt + 1, GPXTag.classify(p + localStart, count: nameEnd - localStart, readable: n - localStart) == .trkpt,
                        XMLBytes.isSpace(p[nameEnd]) || p[nameEnd] == XMLBytes.greaterThan
                    {
                        found = (window, lt, nameEnd - lt - 1)
                        break search
                    }
                    k = lt + 1
                }
                if window.isFinal || window.offset + n - split > GPXSplitWorker.searchLimit || isCancelled { break }
            }
        } catch {
            found = nil
        }
        guard let found else { return publish(nil) }
        publish(found.window.offset + found.at)
        populateOffered()
        if waitForLimit {
            condition.lock()
            while !limitGiven && !cancelled { condition.wait() }
            condition.unlock()
        }

        // Phase 2: points of the usual shape, one after another.
        let nameLength = found.nameLength
        let name = UnsafeMutablePointer<UInt8>.allocate(capacity: nameLength)
        defer { name.deallocate() }
        name.update(from: found.window.bytes + found.at + 1, count: nameLength)
        scanner.track.segmentStarts = [-1]
        let first = found.window.offset + found.at
        var window = found.window
        var k = found.at
        var end = first
        var retried = -1
        var reserved = false
        var (stopNow, stopAt) = poll(at: first)
        do {
            while !stopNow {
                let p = window.bytes, n = window.count
                let lt = XMLBytes.skipIndentation(p, from: k, to: n)
                // The points from the limit on are the first thread's to read.
                if window.offset + lt >= stopAt { break }
                var next = -1
                let at = lt + 1
                if at + nameLength < n, p[lt] == XMLBytes.lessThan, XMLBytes.equal(p + at, name, nameLength),
                    let usual = GPXScanner.pointAttributes(p, from: at + nameLength, count: n)
                {
                    // What `startTag` does for a point with these attributes, then its body.
                    scanner.trackPoints += 1
                    scanner.inPoint = true
                    scanner.hasLatitude = true
                    scanner.hasLongitude = true
                    scanner.latitude = XMLBytes.parseDouble(p + usual.latStart, count: usual.latEnd - usual.latStart) ?? .nan
                    scanner.longitude = XMLBytes.parseDouble(p + usual.lonStart, count: usual.lonEnd - usual.lonStart) ?? .nan
                    scanner.elevation = .nan; scanner.time = .nan; scanner.heartRate = .nan; scanner.cadence = .nan
                    next = scanner.quickPoint(p, from: usual.end, count: n, name: name, nameLength: nameLength)
                    if next < 0 {
                        scanner.trackPoints -= 1
                        scanner.inPoint = false
                    }
                }
                if next >= 0 {
                    k = next
                    end = window.offset + next
                    continue
                }
                // Not a point of the usual shape here, or not all of it in this window: once more
                // with the next bytes, then that is the fragment's end.
                if window.isFinal || retried == window.offset + k { break }
                retried = window.offset + k
                guard let more = try reader.next(consumed: k) else { break }
                window = more
                k = 0
                (stopNow, stopAt) = poll(at: window.offset)
                if !reserved, scanner.track.count >= 16 {
                    reserved = scanner.reserveForRest(scanned: end - first, totalBytes: size - first)
                    if reserved { GPXSplitWorker.regions(of: scanner.track).forEach(GPXSplitWorker.populate) }
                }
                populateOffered()
            }
        } catch {
            return
        }
        guard end > first else { return }
        fragment = GPXFragment(start: first, end: end, track: scanner.track, sawTime: scanner.sawTime, trackPoints: scanner.trackPoints)
    }
}

extension GPXScanner {
    /// Whether the fragment's points, starting at the byte this scan has reached, would be read by
    /// this scan exactly as the second thread read them: between tokens (no text being captured, no
    /// point open, the root not closed) with a `trkseg` as the open element (so `<trkpt>` is a
    /// track point) and a segment begun (so the first point appended starts none of its own).
    func canTakeFragment() -> Bool {
        depth > 0 && stack[depth - 1].tag == .trkseg && capture == .none && inlineText == nil && !inPoint && !finished
            && !track.segmentStarts.isEmpty
    }

    /// Appends the fragment's points as the sequential scan would have appended them.
    mutating func take(_ fragment: GPXFragment, fault: GPXSplitFault) {
        let base = track.count
        let t = fragment.track
        track.latitudes.append(contentsOf: t.latitudes)
        track.longitudes.append(contentsOf: t.longitudes)
        track.elevations.append(contentsOf: t.elevations)
        track.times.append(contentsOf: t.times)
        // An optional column is empty until its first value, then as long as the track.
        func merge(_ column: inout [Double], _ theirs: [Double]) {
            guard !column.isEmpty || !theirs.isEmpty else { return }
            if column.count < base { column.append(contentsOf: repeatElement(Double.nan, count: base - column.count)) }
            column.append(contentsOf: theirs)
            if column.count < base + t.count { column.append(contentsOf: repeatElement(Double.nan, count: base + t.count - column.count)) }
        }
        merge(&track.heartRates, t.heartRates)
        merge(&track.cadences, t.cadences)
        merge(&track.deviceDistances, t.deviceDistances)
        for relative in t.segmentStarts.dropFirst() where track.segmentStarts.last != base + relative {
            track.segmentStarts.append(base + relative)
        }
        for (reason, count) in t.dropped { track.drop(reason, count: count) }
        if fragment.sawTime, !sawTime || fault == .fragmentOffsetWins {
            sawTime = true
            track.utcOffsetSeconds = t.utcOffsetSeconds
        }
        trackPoints += fragment.trackPoints
    }
}

extension GPXReader {
    /// Files of at least this many bytes are read by two threads (`GPXSplit.automatic`): below it
    /// the second thread's start, its columns' copy and its faults cost what it saves (measured on
    /// generated runs of 4.7, 7.9 and 15.7 MB, BENCHMARKS.md "fifth round: GPX on two cores").
    static let splitThreshold = 16 << 20

    /// The second thread's rest is shared (`GPXSplitWorker.shareRest`) when the first thread, done with
    /// its half, finds at least this much of the file still before it (below, reading its first point
    /// and a fragment's columns cost about what sharing would save).
    static let shareMinimumBytes = 1 << 20

    /// The split read of the open regular file `fd` (`size` bytes) at `split`: see `GPXSplit`.
    static func scanSplit(fd: Int32, size: Int, path: String, chunkSize: Int, split: Int, rest sharedRest: Int? = nil,
                          fault: GPXSplitFault, statistics: GPXSplitStatistics?) throws -> Track {
        let reader = ChunkedFileReader(descriptor: fd, path: path, from: 0, chunkSize: chunkSize, totalBytes: size)
        let worker = GPXSplitWorker(fd: fd, path: path, split: split, size: size, chunkSize: chunkSize, waitForLimit: sharedRest != nil)
        let launched = worker.launch()
        defer {
            worker.cancelAndJoin()
            statistics?.avoidedCPU = worker.avoidedCPU
            statistics?.startCPU = worker.startCPU
            statistics?.widened = worker.widened
        }
        var scanner = GPXScanner(source: path)
        defer { scanner.release() }
        // The next fragment's first byte, once known: the scan stops there to see whether it can take it.
        var stop: Int?
        // The rest this thread read itself after sharing it: the fragment after the second thread's.
        var rest: GPXFragment?
        var asked = !launched
        do {
            var used = 0
            var reserved = false
            let budget = MemoryBudget.current
            while let window = try reader.next(consumed: used) {
                var count = window.count, final = window.isFinal
                if !asked, window.offset + count > split {
                    asked = true
                    stop = worker.waitForStart()
                }
                if let s = stop, window.offset + count > s {
                    count = s - window.offset
                    final = false
                }
                guard let n = try scanner.feed(window.bytes, count: count, final: final, offset: window.offset) else { break }
                used = n
                if let s = stop, window.offset + n == s {
                    stop = nil
                    var fragment: GPXFragment?
                    let isRest = rest != nil
                    let takeable = scanner.canTakeFragment() || fault == .anyState || (isRest && fault == .restInAnyState)
                    if let own = rest {
                        rest = nil
                        fragment = takeable ? own : nil
                    } else if takeable {
                        // Still reading? Then its rest is shared: this thread reads the second half of it,
                        // taken (as any fragment) when the scan arrives at its first point.
                        rest = worker.readSharedRest(from: sharedRest)
                        fragment = worker.finish()
                    } else {
                        worker.cancel()
                    }
                    var position = s
                    if let fragment,
                       budget.map({ (try? $0.hold((scanner.track.memoryBytes + fragment.track.memoryBytes) * 2, as: .points)) != nil }) ?? true {
                        // Taken only when the merged columns fit the memory budget; otherwise the scan
                        // goes on alone and stops where (and as) the sequential scan would.
                        scanner.take(fragment, fault: fault)
                        if isRest { statistics?.restPoints = fragment.trackPoints } else { statistics?.fragmentPoints = fragment.trackPoints }
                        reader.skip(to: fragment.end)
                        used = 0
                        position = fragment.end
                    }
                    // The rest is taken where its first point starts, if the scan has not gone past it.
                    if let next = rest {
                        if next.start >= position { stop = next.start } else { rest = nil }
                    }
                } else if let s = stop, window.offset + count == s {
                    // A token runs across the fragment's first byte: it is no point start.
                    stop = nil
                    worker.cancel()
                    rest = nil
                }
                if !reserved {
                    reserved = scanner.reserveForRest(scanned: window.offset + n, totalBytes: size)
                    // Only where a column freed for a bigger one stays in badgectl's heap (blocks under
                    // 32 MiB, kept by its trim threshold): never populate memory given back to the system.
                    if reserved, launched, HugePages.enabled {
                        worker.populate(GPXSplitWorker.regions(of: scanner.track).filter { $0.count < HugePages.heapBlockLimit })
                    }
                }
                try budget?.hold(scanner.track.memoryBytes * 2, as: .points)
            }
        } catch let failure as GPXScanner.Failure {
            throw failure.error(source: path) { ChunkedFileReader.lineNumber(path: path, offset: $0) }
        }
        return try scanner.finish()
    }
}
