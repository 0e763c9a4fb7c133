import BadgeLeague
import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary
import SyntheticRuns

/// The entrances users take, as functions of bytes: what a command calls for a run file, the
/// worker's stdin, a saved state and a pack. The fuzz targets (`Fuzz/`) call these and nothing
/// else, and `FuzzRegressionTests` replays every committed crasher through them, so a fuzzer
/// exercises the code a command runs, not a neighbour of it (issue S: the gzip reader the loader
/// streams through was never fuzzed while its neighbour was). `EntrancesTests` checks that each
/// command still goes through the function named here.
///
/// Each writes its bytes to files in a scratch folder of this process (under /dev/shm when there
/// is one) and reads them back through the command's own path; every outcome is a value, never a
/// crash: an error becomes its message.
public enum Entrances {
    /// What one entrance made of its input: what it read and the messages of what it refused.
    public struct Outcome: Equatable, Sendable {
        /// Runs read (run files), output lines (worker), runs in the state, awards (pack).
        public var count: Int
        /// Error messages, in order.
        public var errors: [String]

        public init(count: Int, errors: [String]) {
            self.count = count
            self.errors = errors
        }
    }

    /// A scratch folder for this process, emptied before each input.
    static let scratch: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = (base as NSString).appendingPathComponent("badgectl-entrances-\(getpid())")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// The scratch folder's path (which the outcomes' messages name; tests hide it).
    public static var scratchPath: String { scratch }

    /// An empty folder `name` in the scratch folder.
    static func freshFolder(_ name: String) -> String {
        let path = (scratch as NSString).appendingPathComponent(name)
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ bytes: [UInt8], to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    // MARK: - Run files

    /// A run file named `name` (its suffix chooses the reader, as in a folder) holding `bytes`, read
    /// the way `summarize FILE` and `evaluate` read it: through the one pipeline (`RunPipeline.read`,
    /// its analyzer, `RunFolder.readOne` and `RunLoader.load`: the format dispatch, gzip streaming for
    /// `.gpx.gz`, the memory budget; a `.zip` or an `export.xml` through `RunArchive`). Driven by FuzzGPX,
    /// FuzzTCX, FuzzFIT, FuzzJSON, FuzzGzip and FuzzZip.
    public static func runFile(_ bytes: [UInt8], named name: String) -> Outcome {
        let folder = freshFolder("run")
        let path = (folder as NSString).appendingPathComponent(name)
        write(bytes, to: path)
        do {
            let engine = RuleEngine(packDirectories: [], catalogue: Catalogue(badges: []), limits: fuzzLimits)
            let read = try RunPipeline(engine: engine, zone: TimeZone(identifier: "UTC") ?? .current).read(folder: path)
            return Outcome(count: read.runs.count, errors: read.errors.map(\.message))
        } catch {
            return Outcome(count: 0, errors: ["\(error)"])
        }
    }

    // MARK: - A cache's blob

    /// A run's summaries as a cache row holds them (`SummaryCodec`'s bytes), read as `evaluate`
    /// reads a warm cache: a run file is read once through the pipeline into a cache of this
    /// process, then its row's blob is replaced by `bytes` and the folder read again through the same
    /// pipeline and cache (the lookup, the decoding, and the file read again when the blob does not
    /// decode). Driven by FuzzCache.
    public static func cacheBlob(_ bytes: [UInt8]) -> Outcome {
        guard let (cache, row, folder) = cacheSetup else { return Outcome(count: 0, errors: ["no cache could be made"]) }
        var fuzzed = row
        fuzzed.summaries = Data(bytes)
        cache.store([fuzzed])
        do {
            let engine = RuleEngine(packDirectories: [], catalogue: Catalogue(badges: []), limits: fuzzLimits)
            let read = try RunPipeline(engine: engine, zone: TimeZone(identifier: "UTC") ?? .current, cache: cache).read(folder: folder)
            return Outcome(count: read.runs.count, errors: read.errors.map(\.message) + cache.warnings)
        } catch {
            return Outcome(count: 0, errors: ["\(error)"])
        }
    }

    /// The cache, the row of its one run file and that file's folder (made once per process).
    nonisolated(unsafe) static let cacheSetup: (RunCache, RunCache.Row, String)? = {
        let folder = freshFolder("cached")
        let file = (folder as NSString).appendingPathComponent("run.gpx")
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="fuzz"><trk><trkseg>"#
        for i in 0..<30 {
            gpx += #"<trkpt lat="\#(52.37 + Double(i) * 0.0002)" lon="\#(4.89 + Double(i) * 0.0001)"><ele>2</ele>"#
                + "<time>\(Timestamps.iso8601(1_785_567_600 + Double(i) * 5))</time></trkpt>"
        }
        write(Array((gpx + "</trkseg></trk></gpx>").utf8), to: file)
        var warning: String?
        guard let cache = RunCache.open(path: (scratch as NSString).appendingPathComponent("fuzz-cache.sqlite"), warning: &warning) else { return nil }
        let engine = RuleEngine(packDirectories: [], catalogue: Catalogue(badges: []), limits: fuzzLimits)
        guard (try? RunPipeline(engine: engine, zone: TimeZone(identifier: "UTC") ?? .current, cache: cache).read(folder: folder)) != nil,
              let info = try? FileManager.default.attributesOfItem(atPath: file), let size = (info[.size] as? NSNumber)?.int64Value
        else { return nil }
        var status = stat()
        guard stat(file, &status) == 0 else { return nil }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        let key = RunCache.key(checkpoints: [])
        guard let entry = cache.lookup(path: file, sizeBytes: size, modifiedNanoseconds: modified, key: key) else { return nil }
        return (cache, RunCache.Row(path: file, sizeBytes: size, modifiedNanoseconds: modified, hash: entry.hash, key: key, id: entry.id,
                                    summaries: entry.summaries), folder)
    }()

    // MARK: - League facts

    /// `bytes` as `badgectl league --from-facts --rules PACK...` reads its stdin:
    /// `LeagueCommand.readFacts` (the line reader, each line's group key and `FactRecord`: a `Fact`), the facts
    /// sorted in bounded memory (`FactsSorter`, spilled past 4 KiB) and reduced (`League.Reduce`, with
    /// the packs' `league.lua` hooks), by sex and team with a club goal. Driven by FuzzFacts (with the
    /// places pack, whose segment the seeds' facts name).
    public static func leagueFacts(_ bytes: [UInt8], packs: [String] = []) -> Outcome {
        let folder = freshFolder("facts")
        let path = (folder as NSString).appendingPathComponent("facts.txt")
        write(bytes, to: path)
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return Outcome(count: 0, errors: ["cannot open \(path)"]) }
        defer { close(descriptor) }
        var options = League.Options()
        options.minimumAthletes = 1
        options.categories = [.sex, .team]
        options.goals = League.ClubGoal("distance=20000").map { [$0] } ?? []
        let engine = RuleEngine(packDirectories: packs, catalogue: Catalogue(badges: []), limits: fuzzLimits)
        let league = League(packs: engine.packs, options: options)
        var errors = league.loadHooks(of: engine.packs, limits: engine.limits)
        let sorter = FactsSorter(bufferBytes: 4 << 10)
        let reading = LeagueCommand.readFacts(from: descriptor) { fact in
            do { try sorter.add(fact) } catch { errors.append("\(error)") }
        }
        if case .readError(let message) = reading { errors.append(message) }
        var lines = 0
        let reduce = League.Reduce(league: league) { _ in lines += 1 }
        do { try sorter.finish { reduce.take($0) } } catch { errors.append("\(error)") }
        reduce.finish()
        return Outcome(count: lines, errors: errors + league.failures)
    }

    // MARK: - Worker

    /// `bytes` as the worker's stdin: `WorkerCommand.feed` (the `LineReader` and `Worker.take`, the
    /// one JSON reader of lines) into a worker over `packs` (none by default: the lines alone).
    /// Paths in the lines are read as the worker reads them, confined to `root` when one is given
    /// (`worker --root`). Driven by FuzzWorker (with the checkout as the root).
    public static func workerLines(_ bytes: [UInt8], packs: [String] = [], root: String? = nil) -> Outcome {
        let folder = freshFolder("worker")
        let path = (folder as NSString).appendingPathComponent("lines.jsonl")
        write(bytes, to: path)
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return Outcome(count: 0, errors: ["cannot open \(path)"]) }
        defer { close(descriptor) }
        let utc = TimeZone(identifier: "UTC") ?? .current
        let catalogue = Catalogue(badges: [])
        let engine = RuleEngine(packDirectories: packs, catalogue: catalogue, limits: fuzzLimits)
        var lines: [String] = []
        let worker = Worker(
            setup: Worker.Setup(pipeline: RunPipeline(engine: engine, zone: utc), sport: "running", maximumErrors: nil, root: root),
            write: { lines.append(String(decoding: $0, as: UTF8.self)) }, flush: {})
        worker.start()
        let readError = WorkerCommand.feed(worker, from: descriptor)
        _ = worker.finish()
        let errors = lines.filter { $0.contains("\"type\":\"error\"") } + (readError.map { [$0] } ?? [])
        return Outcome(count: lines.count, errors: errors)
    }

    // MARK: - Saved state

    /// A state folder holding `stateJSON` as `state.json`, `index` as `runs.index` and `runs` as
    /// `runs.jsonl` (a nil part is left out), read as `badgectl add` reads it: `StateStore.loadHeader` (which
    /// moves the format-1 folder to the state database),
    /// then `IncrementalEvaluator.add` (the database rows and the summaries it needs) with no new run, over no
    /// pack. Driven by FuzzState. It makes its `IncrementalEvaluator` itself, not through
    /// `AthleteEvaluator`: the zone is the saved state's as read, with no pipeline around it.
    public static func state(stateJSON: [UInt8]?, index: [UInt8]?, runs: [UInt8]?) -> Outcome {
        let folder = freshFolder("state")
        for (bytes, name) in [(stateJSON, "state.json"), (index, "runs.index"), (runs, "runs.jsonl")] {
            if let bytes { write(bytes, to: (folder as NSString).appendingPathComponent(name)) }
        }
        let store = StateStore(directory: folder)
        do {
            let saved = try store.loadHeader()
            let engine = RuleEngine(packDirectories: [], catalogue: Catalogue(badges: []), limits: fuzzLimits)
            let update = try IncrementalEvaluator(engine: engine, store: store, zone: saved.zone).add([])
            return Outcome(count: update.runCount, errors: update.evaluation.failures.map { "\($0)" })
        } catch {
            return Outcome(count: 0, errors: ["\(error)"])
        }
    }

    // MARK: - Packs

    /// A pack folder holding `files` (relative path: bytes; `pack.lua`, rule files, `lib/…` modules,
    /// `segments/…` files), loaded as `evaluate --rules` loads it (`RuleEngine(packDirectories:)`:
    /// pack.lua, its measures and segment files) and evaluated on `runs` (the generator's, by
    /// default none). Rule limits are the fuzz's own (small), so a hostile input ends quickly.
    /// Driven by FuzzPack. The engine evaluates the runs itself, not through `AthleteEvaluator`: the
    /// fuzzed runs are the generator's, with no selection or pipeline to go through.
    public static func pack(_ files: [String: [UInt8]], runs: [RunSummary] = []) -> Outcome {
        let folder = freshFolder("pack")
        let pack = (folder as NSString).appendingPathComponent("fuzzed")
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let path = (pack as NSString).appendingPathComponent(name)
            try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            write(bytes, to: path)
        }
        let engine = RuleEngine(packDirectories: [pack], catalogue: Catalogue(badges: []), limits: fuzzLimits)
        let evaluation = engine.evaluate(runs: runs)
        // The evaluation lists the packs that did not load among its failures.
        return Outcome(count: evaluation.awards.count, errors: evaluation.failures.map { "\($0)" })
    }

    /// The pack files of FuzzPack's parts, in order: `pack.lua`, `rule.lua`, `lib/util.lua`,
    /// `segments/route.gpx` (parts past those are ignored, missing ones left out).
    public static func packFiles(_ parts: [[UInt8]]) -> [String: [UInt8]] {
        let names = ["pack.lua", "rule.lua", "lib/util.lua", "segments/route.gpx"]
        var files: [String: [UInt8]] = [:]
        for (name, bytes) in zip(names, parts) { files[name] = bytes }
        return files
    }

    /// One generated 5 km run (the generator's first seed), for packs to be evaluated on.
    public static let sampleRuns: [RunSummary] = [RunAnalyzer().summarize(RunGenerator(seed: 1).track(), id: "sample.gpx", zoneOffsetSeconds: 0)]

    /// `bytes` cut at each line that holds only `%%` (the multi-file inputs of FuzzState and
    /// FuzzPack, and their committed seeds and regressions).
    public static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var start = 0
        var lineStart = 0
        var index = 0
        let marker: [UInt8] = [0x25, 0x25]  // %%
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == 0x0A {
                if index - lineStart == 2, Array(bytes[lineStart..<index]) == marker {
                    parts.append(Array(bytes[start..<max(start, lineStart - 1)]))
                    start = min(bytes.count, index + 1)
                }
                lineStart = index + 1
            }
            index += 1
        }
        parts.append(Array(bytes[min(start, bytes.count)...]))
        return parts
    }

    /// Small rule limits for fuzzing: a runaway rule stops in milliseconds.
    static let fuzzLimits = RuleEngine.Limits(instructionsPerCall: 200_000, memoryBytes: 16 << 20, allocationBytesPerCall: 4 << 20, callSeconds: 2)
}
