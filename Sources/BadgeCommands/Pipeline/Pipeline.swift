import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// Where a command keeps its run-summary cache by default: a file name under
/// `$XDG_CACHE_HOME/badgectl` (`~/.cache/badgectl`).
protocol CacheLocation {
    static var fileName: String { get }
}

/// The summaries `evaluate` and `explain` read (no routes).
enum SummaryCache: CacheLocation {
    static let fileName = "runs.sqlite"
}

/// The summaries `report` reads: each with its drawn route, so that a warm report reads no run file.
/// A file of its own, so that `report` and `evaluate` do not replace each other's rows.
enum RouteCache: CacheLocation {
    static let fileName = "report.sqlite"
}

/// `--cache PATH` and `--no-cache`, shared by every command that reads a folder of runs.
struct CacheOptions<Location: CacheLocation>: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The run-summary cache (SQLite).",
        discussion: "Defaults to $XDG_CACHE_HOME/badgectl/\(Location.fileName) (~/.cache/badgectl/\(Location.fileName)).",
        valueName: "path"))
    var cache: String?

    @Flag(name: .customLong("no-cache"), help: "Read and summarise every file; neither read nor write the cache.")
    var noCache = false

    /// The cache to use: none with `--no-cache`; a location that cannot hold one gives a warning and none.
    func open() -> RunCache? { Self.open(cache: cache, noCache: noCache) }

    /// `open()` for the values of `--cache` and `--no-cache`.
    static func open(cache: String?, noCache: Bool) -> RunCache? {
        if noCache { return nil }
        let path: String
        if let cache {
            path = cache
        } else {
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache")
            let folder = (base as NSString).appendingPathComponent("badgectl")
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            path = (folder as NSString).appendingPathComponent(Location.fileName)
        }
        var warning: String?
        let opened = RunCache.open(path: path, warning: &warning)
        if let warning { Console.error(CommandError.warningPrefix + warning) }
        return opened
    }
}

/// The command line's side of the one pipeline (`RunPipeline`, in BadgePipeline): the options
/// (`--rules`, `--badges`, `--tz`, `--sport`, `--keep-duplicates`, `--as-of`, the limits) turned
/// into a `RunPipeline`, the theme, and how failures are shown. Every command that reads runs
/// (evaluate, explain, report, whatif, diff, add, worker) goes through it; reading, selecting and
/// evaluating are `RunPipeline`'s; BadgeKit's `BadgeEngine` is the library's face of the same
/// `RunPipeline`, and `RuleEngine` (BadgeRules) the rules host underneath both.
struct EvaluationPipeline {
    /// How a command shows a catalogue or folder that cannot be read.
    enum Failures {
        /// `badgectl: <error>` on stderr and the `failure` exit status (evaluate, report).
        case printAndExit
        /// Thrown as is, for the argument parser to print (explain).
        case rethrow
    }

    /// What reading and evaluating a folder gave.
    struct Outcome {
        /// Every run read (annotated from a Strava export), the ignored files and the file errors.
        var folder: RunFolder
        /// The runs the rules saw.
        var selected: [RunSummary]
        /// Runs read but not given to the rules, and why.
        var excluded: [ExcludedRun]
        var evaluation: Evaluation
        /// Each rule's cost, when asked for (`--profile`).
        var costs: [RuleCost]?
        /// Wall time spent reading the folder (cache included).
        var readSeconds: Double
    }

    /// The pipeline itself: packs, catalogue, zone and selection.
    let runs: RunPipeline
    let theme: Theme
    let failures: Failures

    var catalogue: Catalogue { runs.engine.catalogue }
    var engine: RuleEngine { runs.engine }
    /// Local dates of runs whose file has no UTC offset.
    var zone: TimeZone { runs.zone }

    /// Checks the time zone, then loads the catalogue, the packs and the theme.
    /// - Throws: `--tz`'s usage error, the catalogue's error (as `failures` says), `CommandError.unknownTheme`.
    init(_ options: PipelineOptions, failures: Failures) throws {
        _ = try options.runs.zone()
        _ = try options.asOf.date()
        _ = try Self.guarding(failures) { try options.rules.cataloguePath() }
        let packs = try Self.guarding(failures) { try options.rules.packDirectories() }
        try self.init(options, failures: failures, packDirectories: packs)
    }

    /// The pipeline of `options` with other packs (`badgectl diff`'s `--against`, `add`'s saved packs),
    /// and in another zone when `zone` is given (`add` in its state's zone).
    init(_ options: PipelineOptions, failures: Failures, packDirectories packs: [String], zone: TimeZone? = nil) throws {
        let selection = RunPipeline.Selection(sport: options.selection.sport, removesDuplicates: !options.duplicates.keepDuplicates,
                                              asOf: try options.asOf.date())
        try self.init(rules: options.rules, limits: options.limits, zone: try zone ?? options.runs.zone(), selection: selection,
                      theme: options.theme.theme, failures: failures, packDirectories: packs)
    }

    /// The pipeline of `worker` and `add` (`StreamOptions`: no theme, as-of or duplicates flag), with
    /// `packs` (default: `--rules`, else found as every command finds them) and in `zone` (default `--tz`).
    init(_ options: StreamOptions, failures: Failures, packDirectories packs: [String]? = nil, zone: TimeZone? = nil,
         asOf: String? = nil) throws {
        let zone = try zone ?? options.runs.zone()
        _ = try Self.guarding(failures) { try options.rules.cataloguePath() }
        let packs = try packs ?? Self.guarding(failures) { try options.rules.packDirectories() }
        try self.init(rules: options.rules, limits: options.limits, zone: zone, selection: RunPipeline.Selection(sport: options.selection.sport, removesDuplicates: !options.duplicates.keepDuplicates, asOf: asOf),
                      theme: nil, failures: failures, packDirectories: packs)
    }

    /// Loads the catalogue (`rules`' lookup), the packs, the athlete and the theme.
    init(rules: RuleOptions, limits: LimitOptions, zone: TimeZone, selection: RunPipeline.Selection, theme: String?,
         failures: Failures, packDirectories packs: [String]) throws {
        self.failures = failures
        let catalogue = try Self.guarding(failures) { try Catalogue.load(path: try rules.cataloguePath()) }
        var engine = RuleEngine(packDirectories: packs, catalogue: catalogue, limits: limits.limits)
        engine.athlete = try rules.athleteProfile()
        runs = RunPipeline(engine: engine, zone: zone, selection: selection)
        self.theme = try Theme.resolve(theme, packs: engine.packs)
    }

    /// The catalogue with the theme's names.
    var themedCatalogue: Catalogue { theme.apply(catalogue) }

    /// The packs' own badges with the theme's names.
    var themedPackBadges: [CatalogueBadge] { theme.apply(engine.packs.flatMap(\.badges)) }

    /// Reads `directory` through `cache` (its warnings go to stderr), selects the runs (`RunPipeline.select`)
    /// and evaluates them (`AthleteEvaluator`). `routes` keeps each run's drawn route (the report); `profile` times every rule;
    /// `evaluator`, when given, evaluates the selection in place of a fresh evaluation (`evaluate --state`).
    func run(directory: String, cache: RunCache?, routes: Bool = false, profile: Bool = false,
             evaluator: ((RunPipeline.Selected) throws -> Evaluation)? = nil) throws -> Outcome {
        let readStart = DispatchTime.now().uptimeNanoseconds
        var pipeline = runs
        pipeline.cache = cache
        let read = try Self.guarding(failures) {
            defer { ProgressLine.finish() }
            return try pipeline.read(folder: directory, routes: routes, progress: isatty(2) != 0 ? ProgressLine.report : nil)
        }
        Self.printWarnings(of: cache)
        let readSeconds = Double(DispatchTime.now().uptimeNanoseconds - readStart) / 1e9
        let (folder, selection) = pipeline.select(read)
        let selected = selection.selected
        let athlete = AthleteEvaluator(pipeline: pipeline)
        if profile {
            let profiled = athlete.evaluateProfiled(selection)
            return Outcome(folder: folder, selected: selected, excluded: selection.excluded, evaluation: profiled.evaluation,
                           costs: profiled.costs, readSeconds: readSeconds)
        }
        let evaluation = try evaluator?(selection) ?? athlete.evaluate(selection)
        return Outcome(folder: folder, selected: selected, excluded: selection.excluded, evaluation: evaluation,
                       costs: nil, readSeconds: readSeconds)
    }

    /// The cache's warnings (a file moved aside, a write that failed) on stderr.
    static func printWarnings(of cache: RunCache?) {
        for warning in cache?.warnings ?? [] { Console.error(CommandError.warningPrefix + warning) }
    }

    /// The JSON header: version, zone, and the packs with their fingerprints.
    var header: EvaluationReport.Header { EvaluationReport.Header(zone: zone, packs: engine.packs) }

    /// The `evaluate` contract of an outcome (themed).
    func report(_ outcome: Outcome) -> EvaluationReport {
        EvaluationReport(folder: outcome.folder, evaluation: outcome.evaluation, catalogue: themedCatalogue,
                         packBadges: themedPackBadges, excluded: outcome.excluded, header: header)
    }

    /// Runs `body`; with `.printAndExit`, an error is printed as `badgectl: <error>` and becomes the
    /// `failure` exit status.
    static func guarding<T>(_ failures: Failures, _ body: () throws -> T) throws -> T {
        switch failures {
        case .rethrow:
            return try body()
        case .printAndExit:
            do {
                return try body()
            } catch {
                Console.error(CommandError.prefix + "\(error)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
    }
}

/// A one-line "reading runs n/total" on stderr, redrawn at most every 1/10 s (only when stderr is a terminal).
enum ProgressLine {
    private static let state = ProgressState()

    static let report: @Sendable (Int, Int) -> Void = { done, total in
        guard state.due(done: done, total: total) else { return }
        FileHandle.standardError.write(Data("\rreading runs: \(done)/\(total)".utf8))
    }

    static func finish() {
        if state.drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}

final class ProgressState: @unchecked Sendable {
    private let lock = NSLock()
    private var last: UInt64 = 0
    private(set) var drawn = false

    func due(done: Int, total: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        guard done == total || now - last > 100_000_000 else { return false }
        last = now
        drawn = true
        return true
    }
}
