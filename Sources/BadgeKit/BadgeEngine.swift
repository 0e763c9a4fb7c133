import Foundation
import RunAnalysis
@_exported import BadgeLeague
@_exported import BadgePipeline
@_exported import BadgeRules
@_exported import RunFiles
import RunLibrary

/// badgectl as a library, for Swift servers and apps that decide badges when a run is uploaded or
/// finished: read a file (or its bytes) or an app's samples into a run summary, load rule packs and
/// a catalogue, evaluate a runner's history, and keep a saved state that each new run is added to.
///
/// Everything goes through the pipeline the command line uses (`RunPipeline`): the same analyzer
/// (the splits, efforts, checkpoints and measures a rule sees are the same whether a run came from a
/// file or from an app's arrays), the same selection (by default the command line's: running only,
/// a run faster than the world record left out, several files of one activity counted once), so
/// that a history earns here exactly what `badgectl evaluate` gives it.
public struct BadgeEngine: Sendable {
    /// The pipeline every run goes through: packs, zone, selection, cache.
    public private(set) var pipeline: RunPipeline

    /// The loaded packs (`RuleEngine.packs`: name, version, `fingerprint`), the catalogue, the limits.
    public var rules: RuleEngine { pipeline.engine }
    /// The time zone of local dates for runs whose data carries no UTC offset.
    public var zone: TimeZone { pipeline.zone }
    /// Which runs earn badges (`RunPipeline.Selection`): running only, implausible runs out,
    /// duplicates once, every date by default; each an option.
    public var selection: RunPipeline.Selection {
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

    /// Loads the packs (each a pack folder or a folder of packs: `RulePack.folders(in:)`, as
    /// `--rules`) and the catalogue (`badges.json` or MoonRunner's `badges.txt`). A pack that does not
    /// load is left out and listed in `loadFailures`. `cache`: a run-summary cache file (SQLite, made
    /// if missing, shareable with `badgectl --cache`) that files are read through; nil reads every file.
    /// - Throws: `BadgeKitError.catalogue` when the catalogue cannot be read.
    public init(packs: [String], catalogue: String, zone: TimeZone = .current, athlete: Athlete? = nil,
                limits: RuleEngine.Limits = .default, selection: RunPipeline.Selection = .default, cache: String? = nil) throws {
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
    public var packs: [RulePack] { rules.packs }

    /// Packs that did not load (also in every evaluation's `failures`).
    public var loadFailures: [RuleFailure] { rules.loadFailures }

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
    public func select(_ runs: [RunSummary]) -> RunPipeline.Selected {
        pipeline.select(runs)
    }

    /// Evaluates a runner's whole history (any order: rules see it in start order), after `selection`
    /// (as `badgectl evaluate`). Awards, statuses ("why not yet"), `next` and any rule failures are in the result.
    public func evaluate(_ runs: [RunSummary]) -> Evaluation {
        pipeline.evaluate(runs)
    }

    /// What a run like `run`, run after `history`, would earn (awards with tier, detail and
    /// evidence), what it would change (a `best` moving to it), and each pack's next badge before and
    /// after: `badgectl whatif` for an app ("run 12 km in an hour tomorrow and you earn..."). The run
    /// is generated even-paced through the same analyzer, so it has splits, efforts and measures.
    /// - Throws: `BadgeKitError.whatIf` for a run outside what can be made exactly (`WhatIf.Run.outOfRange`:
    ///   100 m to 250 km, 1:30/km to 30:00/km, starting from 1970 to 2099).
    public func whatIf(_ run: WhatIf.Run, history: [RunSummary]) throws -> WhatIf.Outcome {
        do { return try pipeline.whatIf(run, selected: pipeline.select(history).selected) } catch {
            throw BadgeKitError.whatIf(reason: "\(error)")
        }
    }

    /// Evaluates a runner's whole history and saves each rule's state in `directory` (replacing any
    /// state there), so that later runs can be added with `add(_:toStateIn:)`.
    /// - Throws: `BadgeKitError.state` when the folder cannot be written.
    public func saveState(of runs: [RunSummary], in directory: String) throws -> StateUpdate {
        do { return try pipeline.incremental(StateStore(directory: directory)).start(pipeline.select(runs).selected) } catch {
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
        do { return try pipeline.incremental(StateStore(directory: directory)).add(pipeline.select(runs).selected) } catch {
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

/// What an app has after a run: one entry per sample in each array, in time order.
public struct RunSamples: Sendable, Equatable {
    /// The `format` of a summary made from samples.
    public static let format = "samples"

    /// Seconds since 1970-01-01T00:00:00Z (UTC).
    public var times: [Double]
    /// Degrees, WGS84.
    public var latitudes: [Double]
    /// Degrees, WGS84.
    public var longitudes: [Double]
    /// Metres above sea level, one per sample (`.nan` for a sample without); nil when none.
    public var elevations: [Double]?
    /// Beats per minute, one per sample (`.nan` for a sample without); nil when none.
    public var heartRates: [Double]?
    /// The sport as the app names it ("running" when nil).
    public var sport: String?
    /// A name for the run.
    public var name: String?
    /// The runner's UTC offset at the start, in seconds, when the app knows it (local dates);
    /// nil: the engine's zone.
    public var utcOffsetSeconds: Int?

    /// Samples; `elevations` and `heartRates` are optional.
    public init(times: [Double], latitudes: [Double], longitudes: [Double], elevations: [Double]? = nil,
                heartRates: [Double]? = nil, sport: String? = nil, name: String? = nil, utcOffsetSeconds: Int? = nil) {
        self.times = times; self.latitudes = latitudes; self.longitudes = longitudes
        self.elevations = elevations; self.heartRates = heartRates
        self.sport = sport; self.name = name; self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The samples as a track (one segment), checked.
    func track(id: String) throws -> Track {
        let count = times.count
        func check(_ column: [Double]?, _ name: String) throws {
            if let column, column.count != count {
                throw BadgeKitError.samples(id: id, reason: "\(column.count) \(name) for \(count) times (one per sample)")
            }
        }
        try check(latitudes, "latitudes")
        try check(longitudes, "longitudes")
        try check(elevations, "elevations")
        try check(heartRates, "heart rates")
        guard count >= 2 else { throw BadgeKitError.samples(id: id, reason: "\(count) samples; a run needs at least 2") }
        for i in 0..<count {
            guard times[i].isFinite else { throw BadgeKitError.samples(id: id, reason: "sample \(i): time \(times[i]) is not a number of seconds") }
            guard latitudes[i].isFinite, abs(latitudes[i]) <= 90 else { throw BadgeKitError.samples(id: id, reason: "sample \(i): latitude \(latitudes[i]) is not from -90 to 90") }
            guard longitudes[i].isFinite, abs(longitudes[i]) <= 180 else { throw BadgeKitError.samples(id: id, reason: "sample \(i): longitude \(longitudes[i]) is not from -180 to 180") }
        }
        var track = Track(source: id)
        track.name = name
        track.sport = sport ?? "running"
        track.times = times
        track.latitudes = latitudes
        track.longitudes = longitudes
        track.elevations = elevations ?? Array(repeating: .nan, count: count)
        if let heartRates, heartRates.contains(where: { !$0.isNaN }) { track.heartRates = heartRates }
        track.segmentStarts = [0]
        track.utcOffsetSeconds = utcOffsetSeconds
        return track
    }
}

/// What the library reports when it cannot do what was asked.
public enum BadgeKitError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The catalogue at `path` cannot be read.
    case catalogue(path: String, reason: String)
    /// A run file (or upload) `id` cannot be read: the reader's message (file, line or byte, what is wrong).
    case run(id: String, reason: String)
    /// The samples of run `id` are not usable (columns of different lengths, a value out of range).
    case samples(id: String, reason: String)
    /// A saved state cannot be read, written or used: the file and what is wrong.
    case state(reason: String)
    /// A what-if run that cannot be made as asked: why, with the limits.
    case whatIf(reason: String)

    /// A message naming what is at fault.
    public var description: String {
        switch self {
        case .catalogue(let path, let reason): return "catalogue \(path): \(reason)"
        case .run(let id, let reason): return "run \(id): \(reason)"
        case .samples(let id, let reason): return "run \(id): \(reason)"
        case .state(let reason): return "state: \(reason)"
        case .whatIf(let reason): return reason
        }
    }
}

// MARK: - Across athletes

/// One athlete for `BadgeEngine.league`: their name, what their worker line would say of them
/// (sex, birth date `YYYY-MM-DD`, team), their own profile when they have one, and their runs (any order).
public struct LeagueAthlete: Sendable {
    public var name: String
    public var profile: League.Profile
    /// Their profile (heart rates, zones, birth date, sex), as a worker line gives it: their measures
    /// and rules use it (`ctx.athlete`, zones, age grade); nil: the engine's. Read their runs with
    /// `engine.with(athlete:)` of the same profile, so that the runs carry the measures it resolves.
    /// Their categories take its sex and birth date where `profile` gives none.
    public var athlete: Athlete?
    public var runs: [RunSummary]

    public init(name: String, profile: League.Profile = League.Profile(), athlete: Athlete? = nil, runs: [RunSummary]) {
        self.name = name; self.profile = profile; self.athlete = athlete; self.runs = runs
    }
}

/// What `BadgeEngine.league` gives: the lines (`badgectl league`'s, as values) and the packs'
/// league hooks that failed to load or failed on a group (file:line and the reason).
public struct LeagueOutcome: Sendable {
    public var lines: [LeagueLine]
    public var failures: [String]
}

extension BadgeEngine {
    /// The cross-athlete stage of `badgectl league` (docs/league.md): each athlete evaluated as the
    /// worker evaluates them (this engine's selection, then its packs), then crowns, leaderboards,
    /// Local Legends, club challenges, rarity and the packs' `league.lua` awards, through the same
    /// `League` the command runs. Athletes' names must differ (a repeated one is left out and named
    /// in `failures`).
    public func league(_ athletes: [LeagueAthlete], options: League.Options = League.Options()) -> LeagueOutcome {
        let league = League(packs: rules.packs, options: options)
        var failures: [String] = []
        for pack in rules.packs {
            do {
                if let hook = try LeagueHook.load(pack: pack, limits: rules.limits) { league.hooks.append(hook) }
            } catch {
                failures.append("\(error)")
            }
        }
        var seen: Set<String> = []
        for athlete in athletes {
            guard seen.insert(athlete.name).inserted else {
                failures.append("athlete \(athlete.name) given twice: left out the second time")
                continue
            }
            let own = athlete.athlete.map { pipeline.with(athlete: $0) } ?? pipeline
            let selection = own.select(athlete.runs)
            var profile = athlete.profile
            profile.sex = profile.sex ?? athlete.athlete?.sex
            profile.birthDate = profile.birthDate ?? athlete.athlete?.birthDate
            league.add(athlete: athlete.name, profile: profile, runs: selection.selected,
                       evaluation: own.engine.evaluate(runs: selection.selected))
        }
        let lines = league.lines()
        return LeagueOutcome(lines: lines, failures: failures + league.failures)
    }
}
