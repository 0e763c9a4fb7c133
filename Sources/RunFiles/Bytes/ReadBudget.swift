import Foundation

/// One command's budget for what archives make of their few bytes, counted across every level of an
/// archive (zips inside zips) and every archive of a folder: the entries read, the bytes inflated
/// from them and the messages kept about them. `MemoryBudget` bounds the bytes held at once; this
/// bounds the work and the listing, which a per-archive cap cannot (four nested levels of 60 entries
/// are 13 million leaves, each archive well under its own cap).
///
/// What passes a limit is a named skip (the entry, and which budget), and the rest is still read.
/// Made once per read of a folder, a file list or an archive (`RunFolder.read`, `RunArchive.read`) and
/// handed down to every level; shared by the threads reading entries.
public final class ReadBudget: @unchecked Sendable {
    /// The limits of one command.
    public struct Limits: Sendable, Equatable {
        /// Archive entries (files, not folders) across every level and every archive: as many as the
        /// largest single archive may list (`ZipArchive.maximumEntries`), so that a million-entry
        /// account export is still read whole, and nesting cannot multiply it.
        public var entries: Int
        /// Bytes inflated from archive entries (an Apple Health export in a zip counts each of its two
        /// passes). 32 GiB: a heavy account export (a 5 GB `export.xml` read twice, 10,000 FIT files)
        /// fits three times over, and inflating it all takes a couple of minutes, not hours.
        public var inflatedBytes: Int
        /// Messages about archive entries (errors, entries ignored): 1,000,000 and 64 MiB of text,
        /// whichever comes first (an entry's name can be 64 KiB).
        public var messages: Int
        public var messageBytes: Int
        /// Workouts read from one Apple Health export (`AppleHealthReader.maximumWorkouts`).
        public var workoutsPerExport: Int

        public init(entries: Int = ZipArchive.maximumEntries, inflatedBytes: Int = 32 << 30, messages: Int = 1_000_000,
                    messageBytes: Int = 64 << 20, workoutsPerExport: Int = AppleHealthReader.maximumWorkouts) {
            self.entries = entries; self.inflatedBytes = inflatedBytes; self.messages = messages; self.messageBytes = messageBytes
            self.workoutsPerExport = workoutsPerExport
        }

        /// The limits every command reads under.
        public static let standard = Limits()
    }

    public let limits: Limits
    /// The budget of the archive whose entry is being read on this thread (set by `RunArchive` around
    /// each entry's reading), so that gzip data inside an entry counts its inflated bytes too: a
    /// `.fit.gz` deflated again in a zip is a bomb of a bomb. Nil for a folder's own files.
    @TaskLocal public static var current: ReadBudget?
    private let lock = NSLock()
    private var entries = 0
    private var inflated = 0
    private var messages = 0
    private var messageBytes = 0
    private var messagesRefused = 0

    public init(_ limits: Limits = .standard) {
        self.limits = limits
    }

    /// Takes up to `count` entries; returns how many were granted (the rest are skipped by the caller).
    public func takeEntries(_ count: Int) -> Int {
        lock.lock(); defer { lock.unlock() }
        let granted = max(0, min(count, limits.entries - entries))
        entries += granted
        return granted
    }

    /// Counts `count` more bytes inflated; false (nothing counted) when they would pass the limit.
    public func takeInflated(_ count: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard count <= limits.inflatedBytes - inflated else { return false }
        inflated += count
        return true
    }

    /// What a message costs to keep: its text, plus what a Swift string and its array slot hold besides.
    static func cost(_ text: String) -> Int { text.utf8.count + 32 }

    /// What `admit` says of a message.
    public enum Admission: Equatable {
        /// Keep it.
        case kept
        /// The first one refused: keep the note that says the budget is spent in its place.
        case firstRefused
        /// Leave it out.
        case refused
    }

    /// Admits a message of `text` (and `extra` related text, such as its reason).
    public func admit(_ text: String, extra: String = "") -> Admission {
        let cost = Self.cost(text) + (extra.isEmpty ? 0 : Self.cost(extra))
        lock.lock(); defer { lock.unlock() }
        if messagesRefused == 0, messages < limits.messages, cost <= limits.messageBytes - messageBytes {
            messages += 1
            messageBytes += cost
            return .kept
        }
        messagesRefused += 1
        return messagesRefused == 1 ? .firstRefused : .refused
    }

    /// Counts so far (for tests and measuring).
    public var usage: (entries: Int, inflatedBytes: Int, messages: Int, messagesRefused: Int) {
        lock.lock(); defer { lock.unlock() }
        return (entries, inflated, messages, messagesRefused)
    }

    // MARK: - Named skips

    /// Why entries past the entry budget are not read.
    public var entriesSpent: String {
        "the budget of \(limits.entries) archive entries for one command is spent (counted across every level and every archive)"
    }

    /// Why an entry inflating past the inflation budget is not read.
    public var inflatedSpent: String {
        "the budget of \(Self.size(limits.inflatedBytes)) inflated from archives for one command is spent "
            + "(counted across every level and every archive)"
    }

    /// The note that stands for every message past the message budget.
    public var messagesSpent: String {
        "further messages about archive entries are not listed: the budget of \(limits.messages) messages "
            + "(\(Self.size(limits.messageBytes)) of text) for one command is spent"
    }

    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return "\(bytes) bytes"
    }
}
