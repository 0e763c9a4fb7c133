import Crypto
import Foundation
import RunFiles

/// The fingerprint of a pack as a state records it.
public struct PackStamp: Codable, Equatable, Sendable {
    /// Pack name.
    public var name: String
    /// Pack version (`pack.lua`).
    public var version: String
    /// Content fingerprint (`RulePack.fingerprint`).
    public var fingerprint: String
    /// The folder it was loaded from, absolute (not compared): `add` without `--rules` loads the
    /// packs from there. Absent in states saved before it was kept; relative in states saved before
    /// it was made absolute.
    public var directory: String?

    /// A stamp of `pack`.
    public init(_ pack: RulePack) {
        name = pack.name; version = pack.version; fingerprint = pack.fingerprint
        guard !pack.directory.isEmpty else { directory = nil; return }
        let absolute = pack.directory.hasPrefix("/") ? pack.directory
            : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(pack.directory)
        directory = (absolute as NSString).standardizingPath
    }

    /// Equal when name, version and fingerprint are (where a pack was loaded from does not matter).
    public static func == (a: PackStamp, b: PackStamp) -> Bool {
        a.name == b.name && a.version == b.version && a.fingerprint == b.fingerprint
    }
}

/// The last run of a saved history (in start order, ties by id).
public struct RunStamp: Codable, Equatable, Sendable {
    /// Run id.
    public var id: String
    /// Start, `YYYY-MM-DDThh:mm:ssZ`, nil for a run without times.
    public var start: String?
    /// Start in seconds since 1970 (for ordering), nil for a run without times.
    public var startSeconds: Double?

    /// The stamp of `run`.
    public init(_ run: RunSummary) { id = run.id; start = run.start; startSeconds = run.startEpochSeconds }

    enum CodingKeys: String, CodingKey {
        case id, start
        case startSeconds = "start_s"
    }
}

/// The head of a state folder (the `header` of `state.sqlite`; `state.json` in the earlier format): what
/// the saved states were made with, and the rules' states.
public struct SavedState: Codable, Equatable, Sendable {
    /// The format: 2 (the state database); 1 was `state.json`.
    public var format: Int
    /// The time zone the runs were read in (`--tz`).
    public var zone: String
    /// The folder the history was read from (absolute), when there was one: ids of runs added from
    /// files inside it are their paths relative to it, as in the evaluation.
    public var folder: String?
    /// The badge catalogue the states were made with (absolute), when it was read from a file: what
    /// `badgectl add` reads when it is given no `--badges`, wherever it is run. Nil in states saved
    /// before badgectl recorded it.
    public var catalogue: String? = nil
    /// The athlete profile (`--athlete`) the states were made with (absolute), when there was one: what
    /// `badgectl add` reads when it is given no `--athlete`, so that an addition's `ctx.athlete` and
    /// age grades are the evaluation's. Nil without a profile and in states saved before it was recorded.
    public var athlete: String? = nil
    /// Every pack the states were made with, in order.
    public var packs: [PackStamp]
    /// How many runs the history holds (lines of `runs.jsonl`).
    public var runCount: Int
    /// The last run of the history, nil when it is empty.
    public var lastRun: RunStamp?
    /// Bytes of `runs.jsonl` (and, in format 1, `runs.index`) that belong to this state (a later
    /// write that did not finish left more; they are cut).
    public var runsBytes: Int
    /// See `runsBytes`: format 1's `runs.index`; 0 in format 2, whose run index is the `run` table.
    public var indexBytes: Int
    /// Every rule's state, in pack and rule order.
    public var rules: [RuleState]

    enum CodingKeys: String, CodingKey {
        case format, zone, folder, catalogue, athlete, packs
        case runCount = "run_count"
        case lastRun = "last_run"
        case runsBytes = "runs_bytes"
        case indexBytes = "index_bytes"
        case rules
    }
}

/// A state folder (`evaluate --state DIR`, `badgectl add --state DIR`): `state.sqlite` (the state
/// database, `StateDatabase`: the header, each rule's state, the awards, the runs' index) and
/// `runs.jsonl` (every run of the history, one summary a line, in start order: for runs the states
/// name and for replays), so that an addition reads only the rows and summaries it needs.
///
/// Format 1 kept the state in `state.json` and the index in `runs.index`: such a folder is moved to
/// the database the first time it is read (silently; the old files are renamed `*.old`).
///
/// An athlete's state in a worker's store (`AthleteStore`, `worker --state-dir`) is a `StateStore`
/// too: its `directory` is its address (the store's folder and the athlete's key), its rows are in
/// the store's shard, and its runs' lines in the rows themselves.
public struct StateStore: Sendable {
    /// The folder; for an athlete of a worker's store, their address (`DIR/KEY`).
    public let directory: String
    /// An athlete's state in a worker's store: their rows over the shard's connection.
    let shared: SharedRows?

    /// A store in `directory` (made when first saved).
    public init(directory: String) { self.directory = directory; shared = nil }

    /// An athlete's state in a worker's store (`AthleteStore`).
    init(address: String, rows: StateDatabase) { directory = address; shared = SharedRows(database: rows) }

    /// An athlete's rows in a worker's store (`StateStore.shared`). (One thread uses them at a time:
    /// the worker's, or one of its `--threads`, each with connections of its own.)
    final class SharedRows: @unchecked Sendable {
        let database: StateDatabase
        init(database: StateDatabase) { self.database = database }
    }

    /// Whether this is an athlete's state in a worker's store rather than a folder of its own.
    package var inStore: Bool { shared != nil }

    /// The folder, inside a folder of many athletes' states (`worker --state-dir`), of `athlete`'s:
    /// the name itself when it is a safe one on every file system (lowercase letters, digits, `.`,
    /// `_`, `-`, not starting with `.`, at most 64 bytes), else `~` and 32 hex digits of its SHA-256,
    /// so that no name can reach outside the folder or meet another's on a case-blind disk.
    public static func folderName(forAthlete athlete: String) -> String {
        let bytes = Array(athlete.utf8)
        let safe = !bytes.isEmpty && bytes.count <= 64 && bytes[0] != UInt8(ascii: ".") && bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return safe ? athlete : "~" + PackFingerprint.hex(SHA256.hash(data: bytes).prefix(16))
    }

    /// Current format of the state (the database).
    public static let format = 2
    /// The format of `state.json` (read once, to move it to the database).
    public static let legacyFormat = 1

    /// The state database; for an athlete in a worker's store, their address.
    public var statePath: String { shared == nil ? (directory as NSString).appendingPathComponent("state.sqlite") : directory }
    var legacyStatePath: String { (directory as NSString).appendingPathComponent("state.json") }
    var runsPath: String { (directory as NSString).appendingPathComponent("runs.jsonl") }
    /// The zone, folder and packs, apart from the database (written when the state is saved whole,
    /// never by an addition), so that `add --rebuild` can make a damaged database again without them.
    var settingsPath: String { (directory as NSString).appendingPathComponent("settings.json") }
    var indexPath: String { (directory as NSString).appendingPathComponent("runs.index") }

    /// Whether the folder holds a state (the database, or a `state.json` of format 1).
    public var exists: Bool {
        if let shared { return (try? shared.database.holdsState()) ?? false }
        return FileManager.default.fileExists(atPath: statePath) || FileManager.default.fileExists(atPath: legacyStatePath)
    }

    /// One run of the history: a line of format 1's `runs.index`, a row of the database's `run` table.
    public struct IndexEntry: Equatable, Sendable {
        /// Run id.
        public var id: String
        /// Start (seconds since 1970), elapsed seconds and distance, as the duplicate check needs them.
        public var startSeconds: Double?
        /// See `startSeconds`.
        public var elapsedSeconds: Double?
        /// See `startSeconds`.
        public var distanceMeters: Double
        /// Where the run's line is in `runs.jsonl` (bytes, the newline excluded).
        public var offset: Int
        /// See `offset`.
        public var length: Int
        /// The run's position in the history (0 for the first), when read from the state database.
        public var position: Int = 0
        /// The run's line itself, in a worker's store (a folder keeps it in `runs.jsonl`).
        var line: Data? = nil
    }

    // MARK: - Reading

    /// `state.json` and `runs.index` larger than this are refused before they are read (a 10,000-run
    /// history's are a few megabytes).
    static let maximumFileBytes = 256 << 20

    /// A state file's bytes (a regular file within `maximumFileBytes`). Throws `RulesError.state`
    /// naming the file: "cannot read it", why (the reader's reason: missing, too large, not a regular
    /// file, a read error), then `advice`.
    static func contents(_ path: String, advice: String) throws -> Data {
        do {
            return Data(try FileBytes.read(path: path, maximumBytes: maximumFileBytes))
        } catch let error as ActivityError {
            throw RulesError.state(path: path, reason: "cannot read it: \(error.reason)\(advice)")
        }
    }

    /// The state database, after moving a format-1 folder to it (under the folder's lock, unless
    /// the caller holds it: `holdingLock`). Throws `RulesError.state` naming the file when there is
    /// no state or it cannot be read.
    func database(holdingLock: Bool = false) throws -> StateDatabase {
        if let shared {
            guard try shared.database.holdsState() else {
                throw RulesError.state(path: directory, reason: "no saved state for this athlete in the store (the worker saves one with their first upload)")
            }
            return shared.database
        }
        try StateStore.requireRegularFile(statePath)
        if !FileManager.default.fileExists(atPath: statePath) {
            guard FileManager.default.fileExists(atPath: legacyStatePath) else {
                throw RulesError.state(path: statePath, reason: "cannot read it: no such file (no saved state here? `badgectl evaluate DIR --state \(directory)` makes one)")
            }
            // Another process may have moved it meanwhile: looked at again under the lock.
            let move = { if !FileManager.default.fileExists(atPath: self.statePath) { try self.migrate() } }
            if holdingLock { try move() } else { try locked(move) }
        }
        return try StateDatabase.open(path: statePath, create: false)
    }

    /// The zone, folder and packs as `settings.json` keeps them (its counts are not kept up to date).
    public func loadSettings() throws -> SavedState {
        if shared != nil { return try loadHeader() }
        let data = try StateStore.contents(settingsPath, advice: "")
        do { return try StateStore.decoder().decode(SavedState.self, from: data, source: settingsPath) } catch {
            throw RulesError.state(path: settingsPath, reason: "not the state's settings: \(StateStore.describe(error))")
        }
    }

    /// Writes a new database holding `state` over `index` (a temporary file, renamed into place),
    /// and `settings.json`.
    func writeDatabase(_ state: SavedState, index: [IndexEntry]) throws {
        if let shared {
            // In the store: the athlete's rows replaced, in one transaction.
            try shared.database.transaction { try shared.database.replaceAll(state, index: index) }
            return
        }
        var settings = state
        settings.rules = []
        try write(try StateStore.encode(settings), to: settingsPath)
        let temporary = statePath + ".tmp"
        let database = try StateDatabase.open(path: temporary, create: true)
        do {
            try database.replaceAll(state, index: index)
            try database.queue.close()
        } catch {
            try? database.queue.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        guard rename(temporary, statePath) == 0 else {
            throw RulesError.state(path: statePath, reason: "cannot save the state: replacing this file failed: \(String(cString: strerror(errno)))")
        }
    }

    /// The saved state without its rules (zone, folder, packs, run count, last run).
    public func loadHeader() throws -> SavedState {
        try database().header()
    }

    /// The whole saved state: the header and every rule's state with all its awards.
    public func loadState() throws -> SavedState {
        let database = try database()
        var state = try database.header()
        state.rules = try database.rules(awards: .all).rules
        return state
    }

    /// Every award of the saved history, in evaluation order (what a full evaluation of its runs gives).
    public func awards() throws -> [Award] {
        try database().awards()
    }

    /// The awards this state took back and does not hold now (given again since: left out), each
    /// with its last withdrawal, in the order they were taken back.
    public func takenBack() throws -> [Withdrawal] {
        let database = try database()
        let held = Set(try database.awards().map(IncrementalEvaluator.identity))
        var last: [String: Withdrawal] = [:]
        var order: [String] = []
        for withdrawal in try database.withdrawals() {
            let identity = IncrementalEvaluator.identity(withdrawal.award)
            guard !held.contains(identity) else { continue }
            if last[identity] == nil { order.append(identity) }
            last[identity] = withdrawal
        }
        return order.compactMap { last[$0] }
    }

    /// Which of `ids` the saved history holds.
    public func holds(_ ids: Set<String>) throws -> Set<String> {
        Set(try database().runs(ids: ids).map(\.id))
    }

    /// Refuses a state file that is not a regular file (a FIFO would block reading or writing it).
    static func requireRegularFile(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }  // missing: the read that follows says so
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw RulesError.state(path: path, reason: "not a regular file: damaged (evaluate with --state again)")
        }
    }

    /// The saved summaries of `entries`, read from `runs.jsonl`.
    public func summaries(_ entries: [IndexEntry]) throws -> [RunSummary] {
        if shared != nil { return try entries.map(storedSummary) }
        try StateStore.requireRegularFile(runsPath)
        guard let handle = FileHandle(forReadingAtPath: runsPath) else { throw RulesError.state(path: runsPath, reason: "cannot read it") }
        defer { try? handle.close() }
        let decoder = StateStore.decoder()
        var runs: [RunSummary] = []
        runs.reserveCapacity(entries.count)
        // Entries in file order, read in runs of adjacent lines.
        for entry in entries {
            do {
                try handle.seek(toOffset: UInt64(entry.offset))
                guard let data = try handle.read(upToCount: entry.length), data.count == entry.length else {
                    throw RulesError.state(path: runsPath, reason: "run '\(entry.id)': the file ends before byte \(entry.offset + entry.length)")
                }
                let run = try decoder.decode(SavedRun.self, from: data, source: runsPath).summary
                guard run.id == entry.id else {
                    throw RulesError.state(path: runsPath, reason: "byte \(entry.offset): run '\(run.id)', the index says '\(entry.id)'")
                }
                runs.append(run)
            } catch let error as RulesError {
                throw error
            } catch {
                throw RulesError.state(path: runsPath, reason: "byte \(entry.offset) (run '\(entry.id)'): \(StateStore.describe(error))")
            }
        }
        return runs
    }

    /// The summary of a run of a worker's store, from its line in the row.
    private func storedSummary(_ entry: IndexEntry) throws -> RunSummary {
        guard let line = entry.line else {
            throw RulesError.state(path: directory, reason: "run \(entry.position) ('\(ShownName.of(entry.id))') has no line in the store: damaged")
        }
        let run: RunSummary
        do { run = try StateStore.decoder().decode(SavedRun.self, from: line, source: directory).summary } catch {
            throw RulesError.state(path: directory, reason: "run \(entry.position) ('\(ShownName.of(entry.id))'): \(StateStore.describe(error))")
        }
        guard run.id == entry.id else {
            throw RulesError.state(path: directory, reason: "run \(entry.position): its line is run '\(ShownName.of(run.id))', the index says '\(ShownName.of(entry.id))'")
        }
        return run
    }

    /// Every run of `runs.jsonl` (a last line cut short by a write that did not finish is left out),
    /// for `IncrementalEvaluator.rebuild`. Throws `RulesError.state` naming the file and line.
    func allSavedRuns() throws -> [RunSummary] {
        if shared != nil { return try summaries(try database().allRuns()) }
        try StateStore.requireRegularFile(runsPath)
        let data = try StateStore.contents(runsPath, advice: "")
        let decoder = StateStore.decoder()
        var runs: [RunSummary] = []
        var lineNumber = 0
        var start = data.startIndex
        while start < data.endIndex {
            lineNumber += 1
            guard let end = data[start...].firstIndex(of: 0x0A) else { break }  // cut short: left out
            let line = data[start..<end]
            start = end + 1
            if line.isEmpty { continue }
            do {
                runs.append(try decoder.decode(SavedRun.self, from: Data(line), source: runsPath).summary)
            } catch {
                throw RulesError.state(path: runsPath, reason: "line \(lineNumber): \(StateStore.describe(error))")
            }
        }
        return runs
    }

    /// Runs `body` holding the folder's lock (`DIR/lock`, `flock`): two processes adding runs to one
    /// state take turns instead of writing over each other. The folder is made if missing.
    /// In a worker's store: `body` in one transaction of the shard (SQLite's lock).
    public func locked<T>(_ body: () throws -> T) throws -> T {
        if let shared { return try shared.database.transaction(body) }
        try makeFolder()
        let path = (directory as NSString).appendingPathComponent("lock")
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RulesError.state(path: path, reason: "cannot open the lock: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw RulesError.state(path: path, reason: "cannot lock: \(String(cString: strerror(errno)))") }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    // MARK: - Writing

    /// Replaces the folder's state with `rules` over `runs` (in start order): every file written again.
    /// `catalogue`: the catalogue's file (`Catalogue.file`), recorded when it was read from one.
    /// `athlete`: the athlete profile's file, absolute, when there was one.
    public func save(rules: [RuleState], runs: [RunSummary], packs: [RulePack], zone: String, folder: String?, catalogue: String? = nil,
                     athlete: String? = nil) throws {
        let state = SavedState(format: StateStore.format, zone: zone, folder: folder, catalogue: catalogue, athlete: athlete,
                               packs: packs.map(PackStamp.init), runCount: runs.count, lastRun: runs.last.map(RunStamp.init),
                               runsBytes: 0, indexBytes: 0, rules: rules)
        try save(state, runs: runs)
    }

    /// Replaces the state with `state` (its header and rules) over `runs` (in start order; its counts
    /// are made from them).
    func save(_ whole: SavedState, runs: [RunSummary]) throws {
        var state = whole
        state.runCount = runs.count
        state.lastRun = runs.last.map(RunStamp.init)
        state.indexBytes = 0
        if shared != nil {
            state.runsBytes = 0
            try writeDatabase(state, index: try StateStore.lines(runs, startingAt: 0, keepingLines: true).1)
            return
        }
        try makeFolder()
        let (runBytes, index) = try StateStore.lines(runs, startingAt: 0)
        try write(runBytes, to: runsPath)
        state.runsBytes = runBytes.count
        try writeDatabase(state, index: index)
        // A format-1 state left here would be stale.
        for path in [legacyStatePath, indexPath] { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The lines of `runs.jsonl` for `runs` (after `start` bytes), and their index entries (each with
    /// its line when `keepingLines`: a worker's store keeps them in the rows).
    static func lines(_ runs: [RunSummary], startingAt start: Int, keepingLines: Bool = false) throws -> (Data, [IndexEntry]) {
        let encoder = StateStore.encoder()
        var runBytes = Data()
        var entries: [IndexEntry] = []
        entries.reserveCapacity(runs.count)
        for run in runs {
            let line = try encoder.encode(SavedRun(run))
            entries.append(IndexEntry(id: run.id, startSeconds: run.startEpochSeconds, elapsedSeconds: run.elapsedSeconds,
                                      distanceMeters: run.distanceMeters, offset: start + runBytes.count, length: line.count,
                                      line: keepingLines ? line : nil))
            runBytes.append(line)
            runBytes.append(0x0A)
        }
        return (runBytes, entries)
    }

    /// The JSON of the state files: keys sorted, a non-finite number as "nan", "inf" or "-inf".
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    /// Reads what `encoder()` writes, through badgectl's one JSON parser (`JSONTextDecoder`: a
    /// repeated key or invalid UTF-8 is refused at its byte, as in every JSON badgectl reads).
    static func decoder() -> JSONTextDecoder {
        var decoder = JSONTextDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    static func encode(_ state: SavedState) throws -> Data {
        var data = try encoder().encode(state)
        data.append(0x0A)
        return data
    }

    func makeFolder() throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RulesError.state(path: directory, reason: "cannot make the folder: \(StateStore.describe(error))")
        }
    }

    /// What a failed write of a state file says after its path.
    static func writeFailure(_ why: String) -> String { "cannot save the state: writing this file failed: \(why)" }

    /// Writes `data` to `path` through a temporary file and a rename.
    func write(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw RulesError.state(path: temporary, reason: StateStore.writeFailure(StateStore.describe(error)))
        }
        guard rename(temporary, path) == 0 else {
            throw RulesError.state(path: path, reason: "cannot save the state: replacing this file failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `data` at byte `offset` of `path`, cutting what followed.
    func appendBytes(_ data: Data, to path: String, at offset: Int) throws {
        try StateStore.requireRegularFile(path)
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw RulesError.state(path: path, reason: StateStore.writeFailure("cannot open it for writing: \(String(cString: strerror(errno)))"))
        }
        defer { try? handle.close() }
        do {
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: data)
        } catch {
            throw RulesError.state(path: path, reason: StateStore.writeFailure(StateStore.describe(error)))
        }
    }

    static func describe(_ error: Error) -> String {
        // The JSON parser's errors name the file already (the caller does too): the byte and the reason.
        if case .malformed(_, _, let offset, let reason)? = error as? ActivityError {
            return (offset.map { "byte \($0): " } ?? "") + reason
        }
        if let decoding = error as? DecodingError {
            switch decoding {
            case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
                let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                return (path.isEmpty ? "" : "at \(path): ") + context.debugDescription
            @unknown default: return "\(error)"
            }
        }
        // Foundation's file errors print as `Error Domain=NSCocoaErrorDomain Code=512 "(null)" UserInfo=
        // {NSUnderlyingError=... Code=27 "File too large"}`: say the system's reason ("File too large",
        // "No space left on device") instead.
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        // (On Linux the underlying error is a Swift error that `as? NSError` does not match.)
        if let underlying = (nsError.userInfo[NSUnderlyingErrorKey] as? Error).map({ $0 as NSError }), underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain, let reason = nsError.userInfo[NSLocalizedFailureReasonErrorKey] as? String { return reason }
        return "\(error)"
    }
}

/// One line of `runs.jsonl`: a run's summary as `evaluate --format json` writes it, and the measures
/// its packs declared (which that JSON leaves out), so that a saved run is the run the rules saw.
struct SavedRun: Codable {
    var summary: RunSummary

    init(_ summary: RunSummary) { self.summary = summary }

    enum CodingKeys: String, CodingKey { case run, measures }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        summary = try c.decode(RunSummary.self, forKey: .run)
        summary.measures = try c.decodeIfPresent([String: MeasureValue].self, forKey: .measures) ?? [:]
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(summary, forKey: .run)
        if !summary.measures.isEmpty { try c.encode(summary.measures, forKey: .measures) }
    }
}
