import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// badgectl as a library, for Swift servers and apps that decide badges when a run is uploaded or
/// finished: read a file (or its bytes) or an app's samples into a run summary, load rule packs and
/// a catalogue, evaluate a runner's history, keep a saved state that each new run is added to, and
/// ask what a run would earn (`whatIf`), why a badge was earned (`explain`) and how athletes compare
/// (`league`).
///
/// Everything goes through the pipeline the command line uses: the same analyzer
/// (the splits, efforts, checkpoints and measures a rule sees are the same whether a run came from a
/// file or from an app's arrays), the same selection (by default the command line's: running only,
/// a run faster than the world record left out, several files of one activity counted once), so
/// that a history earns here exactly what `badgectl evaluate` gives it.
public struct BadgeEngine: Sendable {
    /// Which runs of a history earn badges: the sports counted (running by default), implausible runs
    /// out, one activity once, an as-of date; what `badgectl evaluate`'s `--sport` and `--as-of` set.
    public typealias Selection = RunPipeline.Selection
    /// A history sorted by `select(_:)`: the runs that earn badges, those left out and why, the duplicates.
    public typealias Selected = RunPipeline.Selected
    /// What one rule may spend: instructions per call and memory (the command line's defaults: `.default`).
    public typealias Limits = RuleEngine.Limits

    /// A loaded rule pack: its name, version and content fingerprint (`sha256:<hex>`, the same for the
    /// same files wherever they are), as awards name it.
    public struct Pack: Sendable, Equatable {
        /// `pack.lua`'s `name`.
        public var name: String
        /// `pack.lua`'s `version`.
        public var version: String
        /// `sha256:<hex>` of the pack's files.
        public var fingerprint: String
    }

    /// The pipeline every run goes through: packs, zone, selection, cache.
    private(set) var pipeline: RunPipeline

    /// The time zone of local dates for runs whose data carries no UTC offset.
    public var zone: TimeZone { pipeline.zone }
    /// Which runs earn badges (`Selection`): running only, implausible runs out,
    /// duplicates once, every date by default; each an option.
    public var selection: Selection {
        get { pipeline.selection }
        set { pipeline.selection = newValue }
    }
    /// Several files or uploads of one activity count once (the richest is kept); false counts them all.
    public var removesDuplicates: Bool {
        get { pipeline.selection.removesDuplicates }
        set { pipeline.selection.removesDuplicates = newValue }
    }
    /// Warnings about the cache (it could not be opened, a damaged file moved aside, a write that failed).
    public var cacheWarnings: [String] { openingWarnings + (pipeline.cache?.warnings ?? []) }
    private let openingWarnings: [String]

    /// Loads the packs (each a pack folder, or a folder of packs whose every sub-folder is a pack, as
    /// `--rules` takes them) and the catalogue (`badges.json` or MoonRunner's `badges.txt`). A pack that does not
    /// load is left out and listed in `loadFailures`. `cache`: a run-summary cache file (SQLite, made
    /// if missing, shareable with `badgectl --cache`) that files are read through; nil reads every file.
    /// - Throws: `BadgeKitError.catalogue` when the catalogue cannot be read.
    public init(packs: [String], catalogue: String, zone: TimeZone = .current, athlete: Athlete? = nil,
                limits: Limits = .default, selection: Selection = .default, cache: String? = nil) throws {
        let loaded: Catalogue
        do { loaded = try Catalogue.load(path: catalogue) } catch { throw BadgeKitError.catalogue(path: catalogue, reason: "\(error)") }
        var engine = RuleEngine(packDirectories: RulePack.folders(in: packs), catalogue: loaded, limits: limits)
        engine.athlete = athlete
        var opened: RunCache?
        var warning: String?
        if let cache { opened = RunCache.open(path: cache, warning: &warning) }
        openingWarnings = warning.map { [$0] } ?? []
        pipeline = RunPipeline(engine: engine, zone: zone, selection: selection, cache: opened)
    }

    /// This engine for one athlete's own profile (heart rates, zones, birth date, sex: what
    /// `--athlete FILE` or a worker line gives, parsed by `Athlete.parse`): runs read through it carry
    /// the measures the profile resolves (heart-rate zones, age grade), and its evaluations hand it to
    /// the rules as `ctx.athlete`. For a server evaluating many runners with one loaded engine.
    public func with(athlete: Athlete?) -> BadgeEngine {
        var engine = self
        engine.pipeline = pipeline.with(athlete: athlete)
        return engine
    }

    /// The packs that loaded, in order, each with its `name`, `version` and content `fingerprint`.
    public var packs: [Pack] {
        pipeline.engine.packs.map { Pack(name: $0.name, version: $0.version, fingerprint: $0.fingerprint) }
    }

    /// Packs that did not load (also in every evaluation's `failures`).
    public var loadFailures: [RuleFailure] { pipeline.engine.loadFailures }

    // MARK: - Runs

    /// Reads a run file (.gpx, .tcx, .fit, their .gz forms, a .json summary) into its runs (a TCX
    /// or FIT file may hold several: ids `id#1`, `id#2`), through the cache when there is one.
    /// `id` defaults to the path.
    /// - Throws: `BadgeKitError.run` naming the file and what is wrong.
    public func summaries(file path: String, id: String? = nil) throws -> [RunSummary] {
        let read = pipeline.read(files: [(path, id ?? path)])
        if let error = read.errors.first { throw BadgeKitError.run(id: id ?? path, reason: error.message) }
        return read.runs
    }

    /// Reads a run file's bytes (an upload); `fileName` says the format by its suffix (`run.fit`,
    /// `run.gpx.gz`, `export.zip`: a zip's runs are named `export.zip/<entry>`). `id` defaults to the file name.
    /// - Throws: `BadgeKitError.run` naming the file and what is wrong.
    public func summaries(bytes: [UInt8], fileName: String, id: String? = nil) throws -> [RunSummary] {
        let id = id ?? fileName
        guard RunFormat.of(path: fileName) != nil || RunArchive.isZip(fileName) else {
            throw BadgeKitError.run(id: id, reason: "unknown format: run files end in \(RunFormat.suffixes.map(\.suffix).joined(separator: ", "))")
        }
        do {
            return try pipeline.summaries(bytes: bytes, fileName: fileName, id: id)
        } catch {
            throw BadgeKitError.run(id: id, reason: "\(error)")
        }
    }

    /// Summarises what an app recorded (`RunSamples`): the same analysis as a file's points.
    /// - Throws: `BadgeKitError.samples` naming the point and what is wrong.
    public func summary(samples: RunSamples, id: String) throws -> RunSummary {
        var run = pipeline.summary(track: try samples.track(id: id), id: id)
        run.format = RunSamples.format
        return run
    }

    // MARK: - Badges

    /// The runs of a history that earn badges (`selection`), those left out and why, the duplicates.
    public func select(_ runs: [RunSummary]) -> Selected {
        pipeline.select(runs)
    }

    /// Evaluates a runner's whole history (any order: rules see it in start order), after `selection`
    /// (as `badgectl evaluate`). Awards, statuses ("why not yet"), `next` and any rule failures are in the result.
    public func evaluate(_ runs: [RunSummary]) -> Evaluation {
        AthleteEvaluator(pipeline: pipeline).evaluate(runs).evaluation
    }

    /// What a run like `run`, run after `history`, would earn (awards with tier, detail and
    /// evidence), what it would change (a `best` moving to it), and each pack's next badge before and
    /// after: `badgectl whatif` for an app ("run 12 km in an hour tomorrow and you earn..."). The run
    /// is generated even-paced through the same analyzer, so it has splits, efforts and measures.
    /// - Throws: `BadgeKitError.whatIf` for a run outside what can be made exactly (`WhatIfRun.outOfRange`:
    ///   100 m to 250 km, 1:30/km to 30:00/km, starting from 1970 to 2099).
    public func whatIf(_ run: WhatIfRun, history: [RunSummary]) throws -> WhatIfOutcome {
        do { return try pipeline.whatIf(run, selected: pipeline.select(history).selected) } catch {
            throw BadgeKitError.whatIf(reason: "\(error)")
        }
    }

    /// Why a badge was earned (which runs, which rules, the numbers they read and the evidence they
    /// showed) or what would earn it (each rule's hint and progress, the runs that would earn a tier),
    /// from `history` evaluated as `evaluate(_:)` does: `badgectl explain` as a value. `badge` is an
    /// id (`five-k`) or a name (`Five K`, any case), of the catalogue or of a pack.
    /// - Throws: `BadgeKitError.unknownBadge` with the closest badge when none has that id or name.
    public func explain(_ badge: String, history: [RunSummary]) throws -> BadgeExplanation {
        let known = BadgeExplanation.knownBadges(catalogue: pipeline.engine.catalogue, packs: pipeline.engine.packs)
        guard let found = BadgeExplanation.badge(badge, in: known) else {
            throw BadgeKitError.unknownBadge(id: badge, suggestion: BadgeExplanation.closestBadge(to: badge, in: known))
        }
        return BadgeExplanation(badge: found, theme: nil, evaluation: evaluate(history), runs: history, fileErrors: [])
    }

    /// Evaluates a runner's whole history and saves each rule's state in `directory` (replacing any
    /// state there), so that later runs can be added with `add(_:toStateIn:)`.
    /// - Throws: `BadgeKitError.state` when the folder cannot be written.
    public func saveState(of runs: [RunSummary], in directory: String) throws -> StateUpdate {
        let evaluator = AthleteEvaluator(pipeline: pipeline)
        do { return try evaluator.start(evaluator.select(runs), in: StateStore(directory: directory)) } catch {
            throw BadgeKitError.state(reason: "\(error)")
        }
    }

    /// Adds runs to the state saved in `directory`: only they are evaluated, unless a pack changed,
    /// a run is older than the last saved one or one is already saved (then the history is replayed:
    /// `StateUpdate.replayed` says why). The result lists the awards new and withdrawn (a `finish`
    /// award that moved) and how many the history holds (`awardCount`); the whole list is
    /// `awards(inStateIn:)`. Only what changed is read and written, so an addition costs the same
    /// however long the history.
    /// - Throws: `BadgeKitError.state` when there is no state, it cannot be read, or it was made in another zone.
    public func add(_ runs: [RunSummary], toStateIn directory: String) throws -> StateUpdate {
        let evaluator = AthleteEvaluator(pipeline: pipeline)
        do { return try evaluator.add(evaluator.select(runs), to: StateStore(directory: directory)) } catch {
            throw BadgeKitError.state(reason: "\(error)")
        }
    }
}

extension BadgeEngine {
    /// Every award of the history saved in `directory`, in evaluation order (what `evaluate` of its
    /// runs gives), read from the state database.
    /// - Throws: `BadgeKitError.state` when there is no state or it cannot be read.
    public func awards(inStateIn directory: String) throws -> [Award] {
        do { return try StateStore(directory: directory).awards() } catch {
            throw BadgeKitError.state(reason: "\(error)")
        }
    }
}
