import Foundation
import RunAnalysis
import RunFiles

/// A file that yielded no run, and why.
public struct RunFileError: Codable, Sendable, Equatable {
    public var path: String
    public var message: String
    public init(path: String, message: String) { self.path = path; self.message = message }
}

/// Everything read from one folder of run files: the runs, the files that are not run files
/// (listed, not errors) and the files that failed (one bad file never stops the others).
public struct RunFolder: Sendable {
    public var runs: [RunSummary] = []
    public var ignored: [String] = []
    /// Why an entry of `ignored` is not read, when it is not simply another kind of file (a named
    /// pipe, a device, a socket, a dangling symbolic link).
    public var ignoredReasons: [String: String] = [:]
    public var errors: [RunFileError] = []
    /// Runs left out as the same as a kept one (listed, not errors): the same file reached by a
    /// second path (`.sameFile`, found while walking), and, once the pipeline has applied
    /// `Duplicates.removeSameActivity`, several exports of one activity (`.sameActivity`).
    public var duplicates: [RunDuplicate] = []

    public init(runs: [RunSummary] = [], ignored: [String] = [], errors: [RunFileError] = []) {
        self.runs = runs; self.ignored = ignored; self.errors = errors
    }

    /// Reads every run file under `directory` (or the single file `directory` names), on every core
    /// (results gathered in file order, so the outcome is the same as reading one by one).
    /// `zone` gives local dates to runs whose file carried no UTC offset.
    /// `serial` reads on the calling thread only, one file after another (for measuring).
    /// `cache` (optional) is consulted by path, size and modification time before any file is read,
    /// then by content hash; new summaries are stored in it. `progress(done, total)` is called from
    /// worker threads as files finish. `budget` bounds the memory all the files being read hold at
    /// once (`MemoryBudget`; the process's own by default). `limits`: what the archives of the whole
    /// read may list, inflate and say (`ReadBudget`, one for every archive under `directory`).
    public static func read(
        _ directory: String, analyzer: RunAnalyzer = RunAnalyzer(), zone: TimeZone = .current,
        cache: RunCache? = nil, serial: Bool = false, budget: MemoryBudget = .shared,
        limits: ReadBudget.Limits = .standard, progress: (@Sendable (Int, Int) -> Void)? = nil
    ) throws -> RunFolder {
        var folder = RunFolder()
        var status = stat()
        guard stat(directory, &status) == 0 else {
            throw ActivityError.unreadable(path: directory, reason: "no such file or directory")
        }
        let files: [(path: String, id: String)]
        var stamps: [String: RunLoader.Stamp] = [:]
        var archives: [(path: String, id: String)] = []
        var exports: [(path: String, id: String)] = []
        if status.st_mode & S_IFMT == S_IFDIR {
            let found = try RunLoader.discover(directory: directory)
            folder.ignored = found.ignored
            folder.ignoredReasons = found.ignoredReasons
            folder.duplicates = found.duplicates
            folder.errors = found.errors
            stamps = found.stamps
            files = found.runs.map { ((directory as NSString).appendingPathComponent($0), $0) }
            archives = found.archives.map { ((directory as NSString).appendingPathComponent($0), $0) }
            exports = found.healthExports.map { ((directory as NSString).appendingPathComponent($0), $0) }
        } else {
            guard status.st_mode & S_IFMT == S_IFREG else {
                folder.ignored = [directory]
                folder.ignoredReasons = [directory: RunLoader.kindReason(status.st_mode)]
                return folder
            }
            let name = (directory as NSString).lastPathComponent
            if RunArchive.isZip(directory) {
                archives = [(directory, name)]
                files = []
            } else if RunArchive.isHealthExport(directory) {
                exports = [(directory, name)]
                files = []
            } else {
                guard RunFormat.of(path: directory) != nil else {
                    folder.ignored = [directory]
                    return folder
                }
                files = [(directory, name)]
            }
        }
        folder.read(files, analyzer: analyzer, zone: zone, cache: cache, serial: serial, budget: budget, progress: progress, stamps: stamps)
        folder.readArchives(archives, exports: exports, analyzer: analyzer, zone: zone, serial: serial, budget: budget,
                            reads: ReadBudget(limits))
        return folder
    }

    /// Reads zips and Apple Health exports (`RunArchive`) into this folder: their runs, the entries
    /// they ignore and their errors. Not through the cache: an archive's runs are read afresh.
    /// `reads` spans them all: the entries, bytes inflated and messages of every level of every one.
    mutating func readArchives(_ archives: [(path: String, id: String)], exports: [(path: String, id: String)], analyzer: RunAnalyzer,
                               zone: TimeZone, serial: Bool, budget: MemoryBudget, reads: ReadBudget) {
        var zoned = analyzer
        if zoned.zone == nil, !zoned.measures.isEmpty { zoned.zone = zone }
        var parts: [RunFolder] = []
        for export in exports {
            parts.append(RunArchive.read(healthExport: export.path, id: export.id, analyzer: zoned, zone: zone, budget: budget, reads: reads))
        }
        for archive in archives {
            parts.append(RunArchive.read(zip: archive.path, id: archive.id, analyzer: zoned, zone: zone, serial: serial, budget: budget,
                                         reads: reads))
        }
        for part in parts {
            runs += part.runs
            ignored += part.ignored
            ignoredReasons.merge(part.ignoredReasons) { first, _ in first }
            errors += part.errors
        }
    }

    /// Reads run files given by path, each with its run id (`add`'s and the worker's files), as a
    /// folder's files are read: through `cache` when there is one, localised in `zone`. Their runs and
    /// errors (never thrown: one bad file never stops the others) are in the result.
    public static func read(
        files: [(path: String, id: String)], analyzer: RunAnalyzer = RunAnalyzer(), zone: TimeZone = .current,
        cache: RunCache? = nil, serial: Bool = false, budget: MemoryBudget = .shared, limits: ReadBudget.Limits = .standard
    ) -> RunFolder {
        var folder = RunFolder()
        // Zips and Apple Health exports given as files are read as their folders are.
        let archives = files.filter { RunArchive.isZip($0.path) }
        let exports = files.filter { RunArchive.isHealthExport($0.path) }
        let plain = files.filter { !RunArchive.isZip($0.path) && !RunArchive.isHealthExport($0.path) }
        folder.read(plain, analyzer: analyzer, zone: zone, cache: cache, serial: serial, budget: budget, progress: nil)
        folder.readArchives(archives, exports: exports, analyzer: analyzer, zone: zone, serial: serial, budget: budget,
                            reads: ReadBudget(limits))
        return folder
    }

    /// Reads `files` (on every core unless `serial`), appending their runs (localised) and errors in file order.
    /// `stamps`: the files' sizes and times as the folder's walk found them, by id (the others are stat'ed).
    private mutating func read(
        _ files: [(path: String, id: String)], analyzer: RunAnalyzer, zone: TimeZone, cache: RunCache?, serial: Bool,
        budget: MemoryBudget, progress: (@Sendable (Int, Int) -> Void)?, stamps: [String: RunLoader.Stamp] = [:]
    ) {
        // Measures placed in time (the sun's day) are made in `zone`, so that `localise` keeps them as they are.
        var zoned = analyzer
        if zoned.zone == nil, !zoned.measures.isEmpty { zoned.zone = zone }
        let analyzer = zoned
        // Summaries that carry their drawn route (the report) are never handed to a reader that asked for none.
        let key = RunCache.key(checkpoints: analyzer.checkpoints, routes: analyzer.includeRoutes)
        let measureKeys = MeasureKeys(analyzer)
        let outcomes = Outcomes(count: files.count)
        let counter = Counter()
        let work: @Sendable (Int) -> Void = { index in
            let file = files[index]
            let outcome = RunFolder.readOne(path: file.path, id: file.id, analyzer: analyzer, cache: cache, key: key, measureKeys: measureKeys,
                                            budget: budget, stamp: stamps[file.id])
            outcomes.set(index, outcome)
            if let progress { progress(counter.increment(), files.count) }
        }
        func readAll() {
            // One file is read on this thread: `concurrentPerform` would run it here anyway, after setting
            // libdispatch up (6.8 % of a one-file `summarize --no-cache` of a small FIT, BENCHMARKS.md,
            // issue F, eleventh and twelfth rounds).
            if serial || files.count < 2 {
                for index in files.indices { work(index) }
            } else {
                DispatchQueue.concurrentPerform(iterations: files.count, execute: work)
            }
        }
        // The lookups share one read transaction; nothing is written until every file is read.
        if let cache { cache.readingTogether(readAll) } else { readAll() }
        var rows: [RunCache.Row] = []
        var measureRows: [RunCache.MeasureRow] = []
        for (index, outcome) in outcomes.values.enumerated() {
            switch outcome {
            case .runs(let read, let row, let measures)?:
                runs.append(contentsOf: read.map { RunAnalyzer.localise($0, zone: zone) })
                if let row { rows.append(row) }
                measureRows.append(contentsOf: measures)
            case .failed(let error)?:
                errors.append(error)
            case nil:
                errors.append(RunFileError(path: files[index].id, message: "\(ShownName.of(files[index].id)): not read"))
            }
        }
        cache?.store(rows)
        cache?.storeMeasures(measureRows)
    }

    /// What reading one file gave: its runs (and a cache row to store, when it was read afresh, and the
    /// rows of the measures it computed) or an error.
    enum Outcome: Sendable {
        case runs([RunSummary], RunCache.Row?, [RunCache.MeasureRow] = [])
        case failed(RunFileError)
    }

    /// One file: from the cache when its path, size and time (or, failing that, its content hash) match,
    /// else read and summarised (and a row returned for the cache). When the analyzer asks for measures,
    /// a cached summary is used only with every measure cached for the file's content; a file missing
    /// one is read again, once, and gives rows for its measures (its summary row is already stored).
    /// `measureKeys`: the cache keys of the analyzer's measures (made once per folder; nil: made here).
    /// `stamp`: the file's size and time from the folder's walk (nil: stat'ed here).
    static func readOne(path: String, id: String, analyzer: RunAnalyzer, cache: RunCache?, key: String, measureKeys: MeasureKeys? = nil,
                        budget: MemoryBudget = .shared, stamp walked: RunLoader.Stamp? = nil) -> Outcome {
        let measureKeys = measureKeys ?? MeasureKeys(analyzer)
        let withMeasures = !analyzer.measures.isEmpty
        var row: RunCache.Row?
        var hasher: ContentHasher?
        /// The content hash of a file read again only for its measures (its summary is cached), and those measures.
        var knownHash: UInt64?
        var missing: [MeasureDefinition] = []
        var sizeBytes: Int64 = 0
        if let cache, let stamp = walked ?? RunCache.stamp(path: path) {
            sizeBytes = stamp.sizeBytes
            let absolute = absolutePath(path)
            func makeRow(hash: UInt64, summaries: Data = Data()) -> RunCache.Row {
                RunCache.Row(path: absolute, sizeBytes: stamp.sizeBytes, modifiedNanoseconds: stamp.modifiedNanoseconds,
                             hash: hash, key: key, id: id, summaries: summaries)
            }
            if let entry = cache.lookup(path: absolute, sizeBytes: stamp.sizeBytes, modifiedNanoseconds: stamp.modifiedNanoseconds, key: key,
                                        measures: withMeasures),
               let runs = decode(entry, id: id) {
                switch attachMeasures(runs, analyzer: analyzer, keys: measureKeys, stored: entry.measures) {
                case .complete(let measured): return .runs(measured, nil)
                case .missing(let definitions): missing = definitions
                }
                knownHash = entry.hash
            } else if !cache.hasRow(sizeBytes: stamp.sizeBytes, key: key) {
                // No cached file has this size, so this one cannot be a moved file: read it once,
                // hashing it on the way, for the row to store.
                hasher = ContentHasher()
                row = makeRow(hash: 0)  // the hash is set once the file has been read
            } else if let hash = RunCache.hash(path: path) {
                // A moved or renamed file: store it under its new path and id.
                if let entry = cache.lookup(hash: hash, sizeBytes: stamp.sizeBytes, key: key, measures: withMeasures), let runs = decode(entry, id: id),
                   case .complete(let measured) = attachMeasures(runs, analyzer: analyzer, keys: measureKeys, stored: entry.measures) {
                    return .runs(measured, makeRow(hash: hash, summaries: SummaryCodec.encode(runs)))
                }
                row = makeRow(hash: hash)
            }
        }
        do {
            // No local date yet: `localise` gives every run (read or cached) its one, from `zone`.
            let runs = try RunLoader.load(path: path, id: id, analyzer: analyzer, zoneOffsetSeconds: nil, hasher: hasher, budget: budget)
            if let hash = knownHash {
                // Only the missing measures are stored: the others' rows stay as they are.
                return .runs(runs, nil, measureRows(runs, missing, hash: hash, sizeBytes: sizeBytes))
            }
            if var made = row {
                if let hasher {
                    made.hash = hasher.finish()
                    // The file changed while it was read: its stamp would describe other bytes.
                    guard let after = RunCache.stamp(path: path), after.sizeBytes == made.sizeBytes,
                          after.modifiedNanoseconds == made.modifiedNanoseconds else { return .runs(runs, nil) }
                }
                made.summaries = SummaryCodec.encode(runs)
                return .runs(runs, made, measureRows(runs, analyzer.measures, hash: made.hash, sizeBytes: made.sizeBytes))
            }
            return .runs(runs, nil)
        } catch let error as ActivityError {
            return .failed(RunFileError(path: id, message: error.description))
        } catch {
            return .failed(RunFileError(path: id, message: "\(ShownName.of(id)): \(error)"))
        }
    }

    /// What the cache holds of the analyzer's measures for a file's content.
    enum CachedMeasures {
        /// Every one: the runs with their measures.
        case complete([RunSummary])
        /// These are not cached (the file is read again for them).
        case missing([MeasureDefinition])
    }

    /// The cache keys of an analyzer's measures (`RunCache.measureKey`), as text and as the UTF-8 a
    /// set's entries are matched against: made once per folder.
    struct MeasureKeys: Sendable {
        var text: [String]
        var utf8: [[UInt8]]
        init(_ analyzer: RunAnalyzer) {
            text = analyzer.measures.map { RunCache.measureKey($0) }
            utf8 = text.map { Array($0.utf8) }
        }
    }

    /// `runs` with the analyzer's measures from the cache, or the measures it lacks. Without measures,
    /// `runs` as they are.
    /// `stored`: the set of measures the cache holds for the file's content (from the lookup of its summary);
    /// only the entries of the analyzer's measures are decoded.
    static func attachMeasures(_ runs: [RunSummary], analyzer: RunAnalyzer, keys: MeasureKeys, stored: Data) -> CachedMeasures {
        guard !analyzer.measures.isEmpty else { return .complete(runs) }
        // Kept as their bytes, checked whole: a rule's read decodes what it reads (`MeasureValue`).
        let decoded = MeasureCodec.decodeSet(stored, keys: keys.utf8, encoded: true)
        var missing: [MeasureDefinition] = []
        for (definition, values) in zip(analyzer.measures, decoded) where values?.count != runs.count { missing.append(definition) }
        guard missing.isEmpty else { return .missing(missing) }
        var runs = runs
        for index in runs.indices {
            var measures = [String: MeasureValue](minimumCapacity: analyzer.measures.count)
            for (definition, values) in zip(analyzer.measures, decoded) {
                if let value = values?[index] { measures[definition.key] = value }
            }
            runs[index].measures = measures
        }
        return .complete(runs)
    }

    /// The measure rows of a file's runs for `definitions`: one per measure, the value of each run in order.
    static func measureRows(_ runs: [RunSummary], _ definitions: [MeasureDefinition], hash: UInt64, sizeBytes: Int64) -> [RunCache.MeasureRow] {
        definitions.map { definition in
            let values: [MeasureValue?] = runs.map { $0.measures[definition.key] }
            return RunCache.MeasureRow(hash: hash, sizeBytes: sizeBytes, key: RunCache.measureKey(definition), value: MeasureCodec.encode(values))
        }
    }

    /// Cached summaries under the current id (a file holding several runs gives `id#1`, `id#2`, ...).
    /// nil when the row cannot be decoded (bytes of another layout, truncated, damaged): the file is then read again.
    static func decode(_ entry: RunCache.Entry, id: String) -> [RunSummary]? {
        guard var runs = try? SummaryCodec.decode(entry.summaries), !runs.isEmpty else { return nil }
        if entry.id != id {
            if runs.count == 1 {
                runs[0].id = id
            } else {
                for index in runs.indices { runs[index].id = "\(id)#\(index + 1)" }
            }
        }
        return runs
    }

    /// The cache's name for a file: `ConfinedPath.standardizedAbsolute` (absolute, `.`, `..` and repeated
    /// slashes taken out by the text alone; links not resolved: `NSString.standardizingPath` did, a
    /// `readlink` per component of every file, 6% of a warm read of 1,000 files). The name only
    /// identifies a row, whose size and modification time (`stat`, through the links) must still match.
    static func absolutePath(_ path: String) -> String {
        ConfinedPath.standardizedAbsolute(path)
    }

    /// Keeps an error about an archive's entry within the message budget of `reads`: the first one past
    /// it gives its place to the note that says so, the others are left out.
    mutating func report(_ error: RunFileError, _ reads: ReadBudget) {
        switch reads.admit(error.path, extra: error.message) {
        case .kept: errors.append(error)
        case .firstRefused: errors.append(RunFileError(path: error.path, message: "\(ShownName.of(error.path)): \(reads.messagesSpent)"))
        case .refused: break
        }
    }

    /// Lists an archive's entry as ignored (with its reason, when it has one) within the message budget of `reads`.
    mutating func ignore(_ id: String, reason: String?, _ reads: ReadBudget) {
        switch reads.admit(id, extra: reason ?? "") {
        case .kept:
            ignored.append(id)
            if let reason { ignoredReasons[id] = reason }
        case .firstRefused: errors.append(RunFileError(path: id, message: "\(ShownName.of(id)): \(reads.messagesSpent)"))
        case .refused: break
        }
    }

    /// One slot per file, written by the worker that read it.
    final class Outcomes: @unchecked Sendable {
        private(set) var values: [Outcome?]
        private let lock = NSLock()
        init(count: Int) { values = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ outcome: Outcome) {
            lock.lock(); values[index] = outcome; lock.unlock()
        }
    }

    final class Counter: @unchecked Sendable {
        private var value = 0
        private let lock = NSLock()
        func increment() -> Int {
            lock.lock(); defer { lock.unlock() }
            value += 1
            return value
        }
    }
}
