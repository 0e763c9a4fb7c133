import Foundation

/// The memory that reading run files may hold at once, across every thread of the process: file
/// bytes read whole, gzip data inflated, point columns and the analysis of those points. A per-file
/// cap times the number of threads is no bound (three 1 GB gzip bombs read in parallel need 3 GB);
/// a budget shared by all is.
///
/// Each file read runs inside `reading(_:)`, which reserves its share of the budget (`Reservation`),
/// made current for the readers on that thread; a reader holds room (`hold(_:as:)`) before it
/// inflates or grows big buffers. Deadlock-free by construction: a file that holds room never
/// waits for more. When the room a file needs is taken by others, it gives up what it holds and is
/// read again alone (once every other file in progress is done, none starting meanwhile). A file
/// that needs more than the whole budget is refused with an error naming it, never an abort on an
/// allocation.
public final class MemoryBudget: @unchecked Sendable {
    /// 1.25 GiB: with a 1 GiB gzip bomb streamed, its points and their analysis fit, and the whole
    /// process (rules, summaries, the cache) stays under 2 GB of resident memory.
    public static let defaultBytes = 1280 << 20

    /// The process's budget: `defaultBytes`, or `BADGECTL_MEMORY_BUDGET_MB` megabytes (MiB) when set.
    public static let shared = MemoryBudget(totalBytes: environmentBytes() ?? defaultBytes)

    static func environmentBytes() -> Int? {
        guard let text = ProcessInfo.processInfo.environment["BADGECTL_MEMORY_BUDGET_MB"],
              let megabytes = Int(text.trimmingCharacters(in: .whitespaces)), megabytes > 0, megabytes < 1 << 40 else { return nil }
        return megabytes << 20
    }

    /// The reservation of the file being read on this thread (set by `reading(_:)`), nil outside one.
    @TaskLocal public static var current: Reservation?

    public let totalBytes: Int
    private let condition = NSCondition()
    /// Bytes reserved by all files now being read.
    private var reserved = 0
    /// A file is being read alone (or waits for the others to finish so that it can be).
    private var alone = false
    /// Files being read now, whether or not they hold room at this moment: one that holds nothing
    /// between two buffers can still take room, so a file read alone waits for this to reach 0,
    /// not for `reserved` to.
    private var active = 0

    /// The most ever reserved at once, and how many readings were started again alone (for tests and measuring).
    private var peak = 0
    private var restarts = 0

    public init(totalBytes: Int) {
        self.totalBytes = max(1, totalBytes)
    }

    /// Bytes reserved now, the most ever reserved at once, and how many readings restarted alone.
    public var usage: (reservedBytes: Int, peakBytes: Int, restarts: Int) {
        condition.lock(); defer { condition.unlock() }
        return (reserved, peak, restarts)
    }

    /// What a file's share is held for; each kind is held at its largest size until the file is done.
    public enum Use: Int, CaseIterable, Sendable {
        /// The file's bytes read whole into memory.
        case file
        /// gzip data inflated into memory.
        case inflated
        /// The points' columns.
        case points
        /// The analysis of the points (distances, times, the profile).
        case analysis
        /// Tracks kept to be joined, as a sum (an Apple Health workout's route files).
        case joined
        /// A streaming reader's buffer grown past its chunk (a token longer than a chunk).
        case buffer
    }

    /// Room kept after its reading ended, for bytes that outlive it (a zip inside a zip, held while
    /// its entries are read, each in a reading of its own): charged until `release()` (or until it
    /// goes away). Not a reading: a file read alone waits for readings to end, never for this, and
    /// finds the budget smaller by what is kept.
    public final class Kept: @unchecked Sendable {
        let budget: MemoryBudget
        private var bytes: Int
        private let lock = NSLock()

        init(budget: MemoryBudget, bytes: Int) {
            self.budget = budget; self.bytes = bytes
        }

        deinit { release() }

        /// Gives the room back (once; later calls do nothing).
        public func release() {
            lock.lock()
            let count = bytes
            bytes = 0
            lock.unlock()
            if count > 0 { budget.give(count) }
        }
    }

    /// Thrown inside a reading when its room is taken by others: the reading is restarted alone.
    struct Shortage: Error {}

    /// One file's share of the budget. Used by one thread (the one reading the file).
    public final class Reservation: @unchecked Sendable {
        let budget: MemoryBudget
        /// The file, for errors.
        public let source: String
        /// Read alone: nobody else holds room, so a shortage means the file is too big.
        let alone: Bool
        private var held = [Int](repeating: 0, count: Use.allCases.count)
        /// What this file holds in the budget (the sum of `held`).
        public private(set) var bytes = 0

        /// `initial` bytes are already taken from the budget, held for `.file`.
        init(budget: MemoryBudget, source: String, alone: Bool, initial: Int) {
            self.budget = budget; self.source = source; self.alone = alone
            held[Use.file.rawValue] = initial
            bytes = initial
        }

        /// Holds `count` bytes for `use` (more than held for it before; less is a no-op). Throws when the
        /// budget cannot give it: `ActivityError.tooLarge` when the file alone needs more than the
        /// whole budget, else a shortage that restarts the reading alone.
        public func hold(_ count: Int, as use: Use) throws {
            let more = count - held[use.rawValue]
            guard more > 0 else { return }
            guard bytes + more <= budget.totalBytes else { throw budget.tooLarge(source, needs: bytes + more) }
            guard budget.take(more) else {
                if alone { throw budget.tooLarge(source, needs: bytes + more) }
                throw Shortage()
            }
            held[use.rawValue] = count
            bytes += more
        }

        /// Holds exactly `count` bytes for `use`: more as `hold`, less gives the rest back (an
        /// estimate made before a reader ran, replaced by what it made).
        public func adjust(_ count: Int, as use: Use) throws {
            let less = held[use.rawValue] - count
            guard less > 0 else { return try hold(count, as: use) }
            held[use.rawValue] = count
            bytes -= less
            budget.give(less)
        }

        /// Moves what is held for `use` out of this reading into room kept past its end (`Kept`): the
        /// bytes stay charged while the caller holds them.
        public func keep(_ use: Use) -> Kept {
            let count = held[use.rawValue]
            held[use.rawValue] = 0
            bytes -= count
            return Kept(budget: budget, bytes: count)
        }

        /// Gives back what is held for `use` (the buffer is gone).
        public func release(_ use: Use) {
            let less = held[use.rawValue]
            guard less > 0 else { return }
            held[use.rawValue] = 0
            bytes -= less
            budget.give(less)
        }
    }

    func tooLarge(_ source: String, needs: Int) -> ActivityError {
        .tooLarge(path: source, reason: "reading it needs more than \(needs >> 20) MiB of memory, over the budget of \(totalBytes >> 20) MiB "
            + "for the files read at once (BADGECTL_MEMORY_BUDGET_MB sets it)")
    }

    /// Takes `count` more bytes if they fit now; never waits.
    private func take(_ count: Int) -> Bool {
        condition.lock(); defer { condition.unlock() }
        guard reserved + count <= totalBytes else { return false }
        reserved += count
        peak = max(peak, reserved)
        return true
    }

    fileprivate func give(_ count: Int) {
        condition.lock()
        reserved -= count
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` (the reading of `source`) with a reservation of `initialBytes` current on this
    /// thread, waiting for that much room first. When the room it then needs is taken by other
    /// files, the reading is started again, alone.
    public func reading<T>(_ source: String, initialBytes: Int = 0, _ body: () throws -> T) throws -> T {
        let initial = max(0, initialBytes)
        if initial > totalBytes { throw tooLarge(source, needs: initial) }
        var readAlone = false
        while true {
            let reservation = begin(source, initial: initial, alone: readAlone)
            defer { end(reservation) }
            do {
                return try MemoryBudget.$current.withValue(reservation) { try body() }
            } catch is Shortage where !readAlone {
                readAlone = true
                condition.lock(); restarts += 1; condition.unlock()
            }
        }
    }

    private func begin(_ source: String, initial: Int, alone readAlone: Bool) -> Reservation {
        condition.lock(); defer { condition.unlock() }
        if readAlone {
            while alone { condition.wait() }
            alone = true
            // Files in progress finish (or give up and queue to be read alone); none starts meanwhile.
            while active > 0 { condition.wait() }
        } else {
            while alone || reserved + initial > totalBytes { condition.wait() }
        }
        active += 1
        reserved += initial
        peak = max(peak, reserved)
        return Reservation(budget: self, source: source, alone: readAlone, initial: initial)
    }

    private func end(_ reservation: Reservation) {
        for use in Use.allCases { reservation.release(use) }
        condition.lock()
        active -= 1
        if reservation.alone { alone = false }
        condition.broadcast()
        condition.unlock()
    }
}
