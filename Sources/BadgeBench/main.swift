// badgectl's benchmark driver (scripts/bench.sh builds it with `swift build -c release`).
// Each measurement runs several times, ours and the peer alternating so that noise hits both alike,
// and prints `name value` lines (medians, seconds) for the script to collect. Not part of `swift test`.
// It calls the rules engine itself (`RuleEngine.evaluate`, `evaluateProfiled`), not BadgePipeline's
// `AthleteEvaluator` (where every command's runs meet the rules): it measures the engine alone, and
// does not link BadgePipeline.
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunFixtures
import RunLibrary
import SyntheticRuns
#if canImport(FoundationXML)
import FoundationXML
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Foundation's XMLParser doing nothing but scanning: the cheapest thing it can do with the file.
final class ScanDelegate: NSObject, XMLParserDelegate {
    var elements = 0
    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        elements += 1
    }
}

enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case failed(String)
    var description: String {
        switch self {
        case .usage(let text): return "usage: \(text)"
        case .failed(let text): return text
        }
    }
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

func time(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
}

/// CPU seconds (user + system) this process has used so far, every thread included.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
}

/// The 1-minute load average (how busy the shared machine was), or -1 when unknown.
func loadAverage() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
          let first = text.split(separator: " ").first, let value = Double(first) else { return -1 }
    return value
}

func maxRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func emit(_ name: String, _ value: Double) { print(name, String(format: "%.6f", value)) }
func emit(_ name: String, _ value: Int) { print(name, value) }
/// The median of repeated timings as `name`, and their spread as `name.min` / `name.max`, so that a
/// later run can be checked against the spread of an earlier one.
func emitTimes(_ name: String, _ values: [Double]) {
    emit(name, median(values))
    if values.count > 1 {
        emit(name + ".min", values.min() ?? .nan)
        emit(name + ".max", values.max() ?? .nan)
    }
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
}

/// A Garmin Connect-style run of `points` one-second points (extensions: heart rate, cadence).
func generator(points: Int, seed: UInt64 = 42) -> RunGenerator {
    var g = RunGenerator(seed: seed, distanceMeters: Double(points) * 1000 / 330, paceSecondsPerKilometre: 330)
    g.style = .garminConnect
    return g
}

/// GPX: GPXReader.read + full summary, against XMLParser scanning the same file.
func benchGPX(_ path: String, runs: Int) throws {
    var ours: [Double] = []
    var readOnly: [Double] = []
    var xml: [Double] = []
    var points = 0
    var elements = 0
    for _ in 0..<runs {
        ours.append(try time {
            let track = try GPXReader.read(path: path)
            let summary = RunAnalyzer().summarize(track, id: path)
            points = track.count
            guard summary.distanceMeters > 0 else { throw BenchError.failed("\(path): no distance") }
        })
        xml.append(try time {
            guard let parser = XMLParser(contentsOf: URL(fileURLWithPath: path)) else { throw BenchError.failed("XMLParser cannot open \(path)") }
            let delegate = ScanDelegate()
            parser.delegate = delegate
            guard parser.parse() else { throw BenchError.failed("XMLParser failed on \(path)") }
            elements = delegate.elements
        })
        readOnly.append(try time { _ = try GPXReader.read(path: path) })
    }
    emit("points", points)
    emit("bytes", fileSize(path))
    emit("xml_elements", elements)
    emitTimes("ours_s", ours)
    emitTimes("xmlparser_s", xml)
    emitTimes("read_only_s", readOnly)
}

/// FIT: FITReader.read + full summary.
func benchFIT(_ path: String, runs: Int) throws {
    var ours: [Double] = []
    var readOnly: [Double] = []
    var records = 0
    for _ in 0..<runs {
        ours.append(try time {
            let tracks = try FITReader.read(path: path)
            records = tracks.reduce(0) { $0 + $1.count }
            for track in tracks { _ = RunAnalyzer().summarize(track, id: path) }
        })
        readOnly.append(try time { _ = try FITReader.read(path: path) })
    }
    emit("records", records)
    emitTimes("ours_s", ours)
    emitTimes("read_only_s", readOnly)
}

/// TCX: TCXReader.read + full summary (no peer: TCX has no common reader to race).
func benchTCX(_ path: String, runs: Int) throws {
    var ours: [Double] = []
    var readOnly: [Double] = []
    var points = 0
    for _ in 0..<runs {
        ours.append(try time {
            let tracks = try TCXReader.read(path: path)
            points = tracks.reduce(0) { $0 + $1.count }
            for track in tracks { _ = RunAnalyzer().summarize(track, id: path) }
        })
        readOnly.append(try time { _ = try TCXReader.read(path: path) })
    }
    emit("points", points)
    emit("bytes", fileSize(path))
    emitTimes("ours_s", ours)
    emitTimes("read_only_s", readOnly)
}

/// A folder: one core reading file after file, then RunFolder.read on every core without a cache,
/// cold with a new cache, and warm (the same cache again).
func benchFolder(_ directory: String, runs: Int, cachePath: String) throws {
    let files = try RunLoader.discover(directory: directory).runs
    var single: [Double] = []
    var parallel: [Double] = []
    var cold: [Double] = []
    var warm: [Double] = []
    var coldSingle: [Double] = []
    var singleCPU: [Double] = []
    var parallelCPU: [Double] = []
    var count = 0
    let loadBefore = loadAverage()
    for _ in 0..<runs {
        var cpu = cpuSeconds()
        single.append(try time {
            count = 0
            for id in files {
                count += try RunLoader.load(path: directory + "/" + id, id: id, analyzer: RunAnalyzer(), zoneOffsetSeconds: 0).count
            }
        })
        singleCPU.append(cpuSeconds() - cpu)
        cpu = cpuSeconds()
        parallel.append(try time { _ = try RunFolder.read(directory) })
        parallelCPU.append(cpuSeconds() - cpu)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cachePath + suffix) }
        coldSingle.append(try time {
            var warning: String?
            let cache = RunCache.open(path: cachePath, warning: &warning)
            guard cache != nil else { throw BenchError.failed(warning ?? "no cache") }
            _ = try RunFolder.read(directory, cache: cache, serial: true)
        })
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cachePath + suffix) }
        cold.append(try time {
            var warning: String?
            let cache = RunCache.open(path: cachePath, warning: &warning)
            guard cache != nil else { throw BenchError.failed(warning ?? "no cache") }
            _ = try RunFolder.read(directory, cache: cache)
        })
        warm.append(try time {
            var warning: String?
            let cache = RunCache.open(path: cachePath, warning: &warning)
            let folder = try RunFolder.read(directory, cache: cache)
            guard folder.runs.count == count else { throw BenchError.failed("warm read gave \(folder.runs.count) runs, not \(count)") }
        })
    }
    emit("files", files.count)
    emit("runs", count)
    emit("bytes", files.reduce(0) { $0 + fileSize(directory + "/" + $1) })
    emit("cores", ProcessInfo.processInfo.activeProcessorCount)
    emitTimes("single_s", single)
    emitTimes("parallel_s", parallel)
    // CPU time of the same passes: when the parallel pass costs no more CPU than the single one,
    // the threads do not slow each other down and any shortfall in wall time is cores taken by
    // other programs on the machine.
    emitTimes("single_cpu_s", singleCPU)
    emitTimes("parallel_cpu_s", parallelCPU)
    emit("load_before", loadBefore)
    emit("load_after", loadAverage())
    emitTimes("cold_cache_single_s", coldSingle)
    emitTimes("cold_cache_s", cold)
    emitTimes("warm_cache_s", warm)
}

/// A folder of packs stands for every pack in it, as `badgectl --rules` takes it.
func packDirectories(_ paths: [String]) -> [String] {
    var directories: [String] = []
    for path in paths {
        if FileManager.default.fileExists(atPath: path + "/pack.lua") {
            directories.append(path)
        } else {
            let entries = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
            directories += entries.filter { FileManager.default.fileExists(atPath: path + "/" + $0 + "/pack.lua") }.map { path + "/" + $0 }
        }
    }
    return directories
}

/// The cost of measures: the folder read cold (through a new cache, every core) without measures and
/// with every measure the packs declare, alternating, then warm with the measures.
func benchFolderMeasures(_ directory: String, cachePath: String, packs: [String], runs: Int) throws {
    let directories = packDirectories(packs)
    let loaded = try directories.map { try RulePack.load(directory: $0) }
    let athlete = Athlete(source: "bench", maxHeartRate: 190, restingHeartRate: 50, zones: Athlete.defaultZones(max: 190, resting: 50))
    let definitions = PackMeasureTable.definitions(of: loaded, athlete: athlete)
    let plain = RunAnalyzer(), measured = RunAnalyzer(measures: definitions)
    func clear() { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cachePath + suffix) } }
    func read(_ analyzer: RunAnalyzer) throws -> Int {
        var warning: String?
        guard let cache = RunCache.open(path: cachePath, warning: &warning) else { throw BenchError.failed(warning ?? "no cache") }
        return try RunFolder.read(directory, analyzer: analyzer, cache: cache).runs.count
    }
    var without: [Double] = [], with: [Double] = [], warmWithout: [Double] = [], warmWith: [Double] = []
    for _ in 0..<runs {
        clear()
        without.append(try time { _ = try read(plain) })
        warmWithout.append(try time { _ = try read(plain) })
        clear()
        with.append(try time { _ = try read(measured) })
        warmWith.append(try time { _ = try read(measured) })
    }
    clear()
    emit("measures", definitions.count)
    emitTimes("cold_without_s", without)
    emitTimes("cold_with_s", with)
    emit("cold_ratio", median(with) / median(without))
    emitTimes("warm_without_s", warmWithout)
    emitTimes("warm_with_s", warmWith)
    emit("warm_ratio", median(warmWith) / median(warmWithout))
}

/// Segments: summarising the GPX files of `directory` (read once, in memory) with `count` segment measures
/// (1 km paths on a 40-wide grid over 2° of latitude and longitude round the generated runs' start, so a run
/// touches the boxes of a few) against no measure, alternating, medians of `runs`.
func benchSegments(_ directory: String, count: Int, runs: Int) throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".gpx") }.sorted()
    let tracks = try files.map { try GPXReader.read(path: directory + "/" + $0) }
    var definitions: [MeasureDefinition] = []
    // BENCH_SEGMENT_SHIFT moves the grid north by that many degrees (10: no run comes near any segment).
    let shift = Double(ProcessInfo.processInfo.environment["BENCH_SEGMENT_SHIFT"] ?? "") ?? 0
    for i in 0..<count {
        let lat = shift + 51.4 + 2.0 * Double(i / 40) / Double(max(1, (count + 39) / 40)), lon = 3.9 + 2.0 * Double(i % 40) / 40
        var definition = MeasureDefinition(kind: "segment", parameters: ["file": .text("segments/s\(i).gpx"), "tolerance_m": .number(25)])
        definition.path = SegmentPath(latitudes: [lat, lat + 0.005, lat + 0.009], longitudes: [lon, lon + 0.004, lon + 0.006], tolerance: 25)
        definitions.append(definition)
    }
    let plain = RunAnalyzer(), measured = RunAnalyzer(measures: definitions)
    var without: [Double] = [], with: [Double] = []
    var matched = 0
    for _ in 0..<runs {
        without.append(time { for (i, track) in tracks.enumerated() { _ = plain.summarize(track, id: "\(i)") } })
        with.append(time { matched = 0; for (i, track) in tracks.enumerated() { matched += measured.summarize(track, id: "\(i)").measures.count } })
    }
    emit("segments", count)
    emit("files", tracks.count)
    emit("bounding_box_hits", matched)
    emitTimes("without_s", without)
    emitTimes("with_s", with)
    emit("per_run_us", (median(with) - median(without)) / Double(max(1, tracks.count)) * 1e6)
}

/// Rules: every pack over `count` summaries (a few generated runs, repeated on successive days).
func benchRules(count: Int, runs: Int, packs: [String], badges: String) throws {
    let catalogue = try Catalogue.load(path: badges)
    let targets = catalogue.checkpointTargets
    let analyzer = RunAnalyzer(checkpoints: targets)
    var templates: [RunSummary] = []
    for (index, kilometres) in [3.0, 5.2, 8.0, 10.5, 15.0, 21.3, 30.0, 42.4].enumerated() {
        var g = RunGenerator(seed: UInt64(index + 1), distanceMeters: kilometres * 1000, paceSecondsPerKilometre: 300 + Double(index) * 10)
        g.sampling = .every(5)
        templates.append(analyzer.summarize(g.track(), id: "t\(index)"))
    }
    var summaries: [RunSummary] = []
    summaries.reserveCapacity(count)
    for index in 0..<count {
        var run = templates[index % templates.count]
        run.id = String(format: "run-%05d.gpx", index)
        let start = 1_500_000_000 + Double(index) * 86_400
        run.startEpochSeconds = start
        run.localDate = Timestamps.date(start, offsetSeconds: 0)
        run.localStart = Timestamps.localTime(start, offsetSeconds: 0)
        run.localOffsetSeconds = 0
        summaries.append(run)
    }
    let directories = packDirectories(packs)
    let engine = RuleEngine(packDirectories: directories, catalogue: catalogue)
    guard engine.loadFailures.isEmpty else { throw BenchError.failed("packs did not load: \(engine.loadFailures)") }
    var times: [Double] = []
    var awards = 0
    var failures = 0
    for _ in 0..<runs {
        times.append(time {
            let evaluation = engine.evaluate(runs: summaries)
            awards = evaluation.awards.count
            failures = evaluation.failures.count
        })
    }
    emit("summaries", count)
    emit("rules", engine.packs.reduce(0) { $0 + $1.ruleFiles.count })
    emit("awards", awards)
    emit("failures", failures)
    emitTimes("rules_s", times)
    emit("max_rss_mb", maxRSSMegabytes())
    // Where the time goes, rule by rule (one profiled evaluation).
    for cost in engine.evaluateProfiled(runs: summaries).costs.sorted(by: { $0.seconds > $1.seconds }) {
        emit("rule_s:\(cost.pack)/\(cost.rule)", cost.seconds)
    }
}

/// Warm reads only, for instruction counts (`callgrind --toggle-collect='*warmReads*'`): the folder
/// through `cachePath`, primed first if it is empty, then read warm `count` times on the calling thread,
/// with every measure the packs declare (`with`) or none. The packs are loaded either way, so the two
/// modes differ only in the reads.
func benchWarmMeasures(_ directory: String, cachePath: String, with: Bool, count: Int, packs: [String]) throws {
    let loaded = try packDirectories(packs).map { try RulePack.load(directory: $0) }
    let athlete = Athlete(source: "bench", maxHeartRate: 190, restingHeartRate: 50, zones: Athlete.defaultZones(max: 190, resting: 50))
    let definitions = PackMeasureTable.definitions(of: loaded, athlete: athlete)
    let analyzer = with ? RunAnalyzer(measures: definitions) : RunAnalyzer()
    var warning: String?
    guard let cache = RunCache.open(path: cachePath, warning: &warning) else { throw BenchError.failed(warning ?? "no cache") }
    let expected = try RunFolder.read(directory, analyzer: analyzer, cache: cache, serial: true).runs.count
    let runs = try warmReads(directory, analyzer: analyzer, cache: cache, count: count)
    guard runs == expected * count else { throw BenchError.failed("warm reads gave \(runs) runs, not \(expected * count)") }
    emit("measures", with ? definitions.count : 0)
    emit("runs", expected)
    // BENCH_EVALUATE=BADGES: also every pack's rules over the runs of a warm read, `count` times
    // (`--toggle-collect='*warmEvaluations*'`): what the rules pay to read the measures.
    if let badges = ProcessInfo.processInfo.environment["BENCH_EVALUATE"] {
        let folder = try RunFolder.read(directory, analyzer: analyzer, cache: cache, serial: true)
        var engine = RuleEngine(packDirectories: packDirectories(packs), catalogue: try Catalogue.load(path: badges))
        engine.athlete = athlete
        guard engine.loadFailures.isEmpty else { throw BenchError.failed("packs did not load: \(engine.loadFailures)") }
        emit("awards", warmEvaluations(engine, runs: folder.runs, count: count))
    }
}

@inline(never)
func warmEvaluations(_ engine: RuleEngine, runs: [RunSummary], count: Int) -> Int {
    var awards = 0
    for _ in 0..<count { awards += engine.evaluate(runs: runs).awards.count }
    return awards
}

@inline(never)
func warmReads(_ directory: String, analyzer: RunAnalyzer, cache: RunCache, count: Int) throws -> Int {
    var runs = 0
    for _ in 0..<count { runs += try RunFolder.read(directory, analyzer: analyzer, cache: cache, serial: true).runs.count }
    return runs
}

func run() throws {
    let args = Array(CommandLine.arguments.dropFirst())
    func arg(_ index: Int, _ usage: String) throws -> String {
        guard index < args.count else { throw BenchError.usage(usage) }
        return args[index]
    }
    switch args.first {
    case "gen-gpx":
        let usage = "gen-gpx POINTS PATH [compact]"
        var g = generator(points: Int(try arg(1, usage)) ?? 100_000)
        if args.count > 3, args[3] == "compact" { g.style = .compact }
        try g.writeGPX(to: try arg(2, usage))
    case "gen-tcx":
        let usage = "gen-tcx POINTS PATH"
        let bytes = TCXWriter.encode(track: generator(points: Int(try arg(1, usage)) ?? 100_000).track())
        try Data(bytes).write(to: URL(fileURLWithPath: try arg(2, usage)))
    case "gen-fit":
        let usage = "gen-fit RECORDS PATH"
        let bytes = FITWriter.encode(track: generator(points: Int(try arg(1, usage)) ?? 100_000).track())
        try Data(bytes).write(to: URL(fileURLWithPath: try arg(2, usage)))
    case "gen-fit-runs":
        // 1,000 distinct FIT runs for the zip benchmark (issue 27): seeds 1...N, a day apart.
        let usage = "gen-fit-runs COUNT MINUTES DIR"
        let count = Int(try arg(1, usage)) ?? 1000, minutes = Double(try arg(2, usage)) ?? 30
        let directory = try arg(3, usage)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for index in 1...max(1, count) {
            var generator = RunGenerator(seed: UInt64(index), distanceMeters: minutes * 60 / 330 * 1000)
            generator.startEpochSeconds += Double(index) * 86_400
            let name = "run-\(String(repeating: "0", count: max(0, 5 - String(index).count)))\(index).fit"
            try Data(FITWriter.encode(track: generator.track())).write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent(name)))
        }
    case "xmlscan":
        // One bare XMLParser scan of a file, as a whole process (scripts/bench/process.sh's peer).
        let path = try arg(1, "xmlscan FILE")
        guard let parser = XMLParser(contentsOf: URL(fileURLWithPath: path)) else { throw BenchError.failed("XMLParser cannot open \(path)") }
        let delegate = ScanDelegate()
        parser.delegate = delegate
        guard parser.parse() else { throw BenchError.failed("XMLParser failed on \(path)") }
    case "gpx":
        try benchGPX(try arg(1, "gpx FILE [RUNS]"), runs: Int(args.count > 2 ? args[2] : "") ?? 7)
    case "fit":
        try benchFIT(try arg(1, "fit FILE [RUNS]"), runs: Int(args.count > 2 ? args[2] : "") ?? 7)
    case "tcx":
        try benchTCX(try arg(1, "tcx FILE [RUNS]"), runs: Int(args.count > 2 ? args[2] : "") ?? 7)
    case "folder":
        let usage = "folder DIR CACHE [RUNS]"
        try benchFolder(try arg(1, usage), runs: Int(args.count > 3 ? args[3] : "") ?? 5, cachePath: try arg(2, usage))
    case "rules":
        let usage = "rules COUNT BADGES PACK... (RUNS from BENCH_RUNS, default 5)"
        let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
        try benchRules(count: Int(try arg(1, usage)) ?? 10_000, runs: runs, packs: Array(args.dropFirst(3)), badges: try arg(2, usage))
    case "ours-gpx":
        // Only our reader and summary, N times (for perf record / callgrind: no peer in the profile).
        let usage = "ours-gpx FILE [N] [read|summary|both]"
        let path = try arg(1, usage)
        let n = Int(args.count > 2 ? args[2] : "") ?? 10
        let mode = args.count > 3 ? args[3] : "both"
        var times: [Double] = []
        let track = mode == "summary" ? try GPXReader.read(path: path) : nil
        for _ in 0..<n {
            times.append(try time {
                let t = try track ?? GPXReader.read(path: path)
                if mode != "read" { _ = RunAnalyzer().summarize(t, id: path) }
            })
        }
        emitTimes("ours_s", times)
    case "efforts":
        // Only the fastest-effort search of one file's run, N times (its in-process cost; the
        // summary's other parts and the reader left out).
        let usage = "efforts FILE [N]"
        let path = try arg(1, usage)
        let n = Int(args.count > 2 ? args[2] : "") ?? 20
        let track = path.hasSuffix(".fit") ? try FITReader.read(path: path)[0] : try GPXReader.read(path: path)
        let profile = RunAnalyzer.profile(of: track)
        var times: [Double] = []
        var found = 0
        for _ in 0..<n { times.append(time { found = RunAnalyzer.efforts(of: profile).count }) }
        emit("efforts", found)
        emitTimes("efforts_s", times)
    case "cache-parts":
        // Where a cold cache's extra time goes, one core: hashing every file, encoding the
        // summaries, storing the rows.
        let directory = try arg(1, "cache-parts DIR CACHE")
        let cachePath = try arg(2, "cache-parts DIR CACHE")
        let files = try RunLoader.discover(directory: directory).runs
        var summaries: [[RunSummary]] = []
        let read = try time {
            for id in files { summaries.append(try RunLoader.load(path: directory + "/" + id, id: id, analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)) }
        }
        var hashes: [UInt64] = []
        let hashing = time { for id in files { hashes.append(RunCache.hash(path: directory + "/" + id) ?? 0) } }
        var blobs: [Data] = []
        let encoding = time { for runs in summaries { blobs.append(SummaryCodec.encode(runs)) } }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cachePath + suffix) }
        var warning: String?
        guard let cache = RunCache.open(path: cachePath, warning: &warning) else { throw BenchError.failed(warning ?? "no cache") }
        let key = RunCache.key(checkpoints: [])
        var rows: [RunCache.Row] = []
        let lookups = time {
            for (k, id) in files.enumerated() {
                let path = directory + "/" + id
                let stamp = RunCache.stamp(path: path)
                _ = cache.lookup(path: path, sizeBytes: stamp?.sizeBytes ?? 0, modifiedNanoseconds: stamp?.modifiedNanoseconds ?? 0, key: key)
                _ = cache.lookup(hash: hashes[k], sizeBytes: stamp?.sizeBytes ?? 0, key: key)
                rows.append(RunCache.Row(path: path, sizeBytes: stamp?.sizeBytes ?? 0, modifiedNanoseconds: stamp?.modifiedNanoseconds ?? 0,
                                         hash: hashes[k], key: key, id: id, summaries: blobs[k]))
            }
        }
        let storing = time { cache.store(rows) }
        emit("read_s", read)
        emit("hash_s", hashing)
        emit("encode_s", encoding)
        emit("lookups_s", lookups)
        emit("store_s", storing)
        emit("json_bytes", blobs.reduce(0) { $0 + $1.count })
    case "warm-measures":
        let usage = "warm-measures DIR CACHE with|without COUNT PACK..."
        let mode = try arg(3, usage)
        guard mode == "with" || mode == "without" else { throw BenchError.usage(usage) }
        try benchWarmMeasures(try arg(1, usage), cachePath: try arg(2, usage), with: mode == "with",
                              count: Int(try arg(4, usage)) ?? 1, packs: Array(args.dropFirst(5)))
    case "rss-gpx":
        // Reads and summarises one file once; the script reads the peak RSS from /usr/bin/time -v.
        let path = try arg(1, "rss-gpx FILE")
        let track = try GPXReader.read(path: path)
        emit("read_max_rss_mb", maxRSSMegabytes())
        let summary = RunAnalyzer().summarize(track, id: path)
        emit("points", track.count)
        emit("distance_m", summary.distanceMeters)
        emit("max_rss_mb", maxRSSMegabytes())
    case "sun":
        // The bridge of scripts/check-realdata's sun check: a line "LAT LON YYYY-MM-DD" in, a line
        // "SUNRISE SUNSET" (epoch seconds), "polar-day" or "polar-night" out.
        while let line = readLine() {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
                throw BenchError.usage("sun: lines of LAT LON YYYY-MM-DD on stdin, got '\(line)'")
            }
            let date = parts[2].split(separator: "-").compactMap { Int($0) }
            guard date.count == 3 else { throw BenchError.usage("sun: a date YYYY-MM-DD, got '\(parts[2])'") }
            switch Sun.day(year: date[0], month: date[1], day: date[2], latitude: latitude, longitude: longitude) {
            case .events(let sunrise, let sunset): print(String(format: "%.1f %.1f", sunrise, sunset))
            case .polarDay: print("polar-day")
            case .polarNight: print("polar-night")
            }
        }
    case "segments":
        let usage = "segments DIR N (RUNS from BENCH_RUNS, default 5)"
        let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
        try benchSegments(try arg(1, usage), count: Int(try arg(2, usage)) ?? 1000, runs: runs)
    case "folder-measures":
        let usage = "folder-measures DIR CACHE PACK... (RUNS from BENCH_RUNS, default 5)"
        let runs = Int(ProcessInfo.processInfo.environment["BENCH_RUNS"] ?? "") ?? 5
        try benchFolderMeasures(try arg(1, usage), cachePath: try arg(2, usage), packs: Array(args.dropFirst(3)), runs: runs)
    default:
        throw BenchError.usage("BadgeBench gen-gpx|gen-fit|gen-fit-runs|gen-tcx|gpx|fit|tcx|folder|folder-measures|segments|rules|ours-gpx|cache-parts|rss-gpx|sun ...")
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("BadgeBench: \(error)\n".utf8))
    exit(1)
}
