import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// The one way runs reach the rules, for every command, the worker and BadgeKit:
///
/// 1. **read** from any source: a folder or one file (`read(folder:)`), files with their ids
///    (`read(files:)`), a file's bytes (`summaries(bytes:fileName:)`), an app's track
///    (`summary(track:id:)`), a JSON run summary (`summary(fields:)`); through the run-summary cache
///    when there is one, and with the one analyzer (`analyzer`: the catalogue's checkpoints and the
///    packs' measures);
/// 2. **localise**: every run's local date, start and offset in its zone (`localise`);
/// 3. **select** (`select`): up to `--as-of`, each activity once, the sports that count, no
///    impossible run: `Selection`, one implementation with options;
/// 4. **hand on** to the rules: an athlete's runs meet them in one place, `AthleteEvaluator`
///    (a whole history, a saved state, many athletes in one loaded Lua state), or in a what-if
///    (`whatIf`); a diff is two pipelines over the same runs.
public struct RunPipeline: Sendable {
    /// Which runs earn badges. The defaults are the command line's: running only, a "run" faster
    /// than the world record left out, several files of one activity counted once, every date.
    public struct Selection: Sendable, Equatable {
        /// Normalised sports that count (`Sport.normalise`); nil: every sport.
        public var sports: Set<String>?
        /// Leave out a run faster than the world record for its distance (`RunSelection`).
        public var excludesImplausible: Bool
        /// Count several files of one activity once, the richest (`Duplicates`).
        public var removesDuplicates: Bool
        /// Only runs whose local date is this one or earlier (`YYYY-MM-DD`); nil: every run. A run
        /// without a start has no local date and is left out.
        public var asOf: String?

        public init(sports: Set<String>? = ["running"], excludesImplausible: Bool = true, removesDuplicates: Bool = true,
                    asOf: String? = nil) {
            self.sports = sports
            self.excludesImplausible = excludesImplausible
            self.removesDuplicates = removesDuplicates
            self.asOf = asOf
        }

        /// The command line's `--sport` (`running,walking`, `all`) with the other defaults.
        public init(sport option: String, removesDuplicates: Bool = true, asOf: String? = nil) {
            self.init(sports: RunSelection(option: option).sports, removesDuplicates: removesDuplicates, asOf: asOf)
        }

        /// Running only, implausible runs out, duplicates once, every date.
        public static let `default` = Selection()
    }

    /// What `select` made of some runs.
    public struct Selected: Sendable {
        /// The runs up to `asOf`, each activity once (unless duplicates are kept), of every sport: what
        /// a report lists.
        public var runs: [RunSummary]
        /// The runs the rules see (`runs` of the sports that count, none implausible), in the order given.
        public var selected: [RunSummary]
        /// Runs of `runs` not handed to the rules, and why (another sport, implausible).
        public var excluded: [ExcludedRun]
        /// Runs left out as another file of an activity kept in `runs`.
        public var duplicates: [RunDuplicate]
    }

    /// The packs, the catalogue, the athlete and the limits.
    public let engine: RuleEngine
    /// The zone of local dates for runs whose data carries no UTC offset (`--tz`).
    public let zone: TimeZone
    /// Which runs earn badges.
    public var selection: Selection
    /// The run-summary cache files are read through; nil reads every file.
    public var cache: RunCache?
    /// The analyzer every run goes through (no zone: `analyzer(routes:zone:)` gives one).
    let baseAnalyzer: RunAnalyzer

    public init(engine: RuleEngine, zone: TimeZone, selection: Selection = .default, cache: RunCache? = nil) {
        var engine = engine
        // ctx.zone: the zone this pipeline makes local dates in, unless the engine was given one.
        if engine.zone == nil { engine.zone = ZoneNames.name(of: zone) }
        self.engine = engine
        self.zone = zone
        self.selection = selection
        self.cache = cache
        baseAnalyzer = RunAnalyzer(checkpoints: engine.catalogue.checkpointTargets, measures: engine.measureDefinitions)
    }

    /// This pipeline for one athlete's own profile (a worker or league line's `birth_date`, `sex`,
    /// `max_hr`, `resting_hr`, `zones`): their runs are analysed with it (heart-rate zones, age grade)
    /// and evaluated with it (`ctx.athlete`). The same pipeline when the profile is the engine's.
    public func with(athlete: Athlete?) -> RunPipeline {
        if athlete == engine.athlete { return self }
        var engine = self.engine
        engine.athlete = athlete
        return RunPipeline(engine: engine, zone: zone, selection: selection, cache: cache)
    }

    // MARK: - The analyzer

    /// The one analyzer of this pipeline's runs: the catalogue's checkpoints and every measure the
    /// packs declare; `routes` keeps each run's drawn route (the report). Measures placed in time (the
    /// sun's day) are made in `zone` (the pipeline's by default), as the run is then localised.
    public func analyzer(routes: Bool = false, zone: TimeZone? = nil) -> RunAnalyzer {
        var analyzer = baseAnalyzer
        analyzer.includeRoutes = routes
        if !analyzer.measures.isEmpty { analyzer.zone = zone ?? self.zone }
        return analyzer
    }

    // MARK: - Sources

    /// Every run file under `directory` (or the one file it names), read on every core through the
    /// cache and localised; a Strava export's names and sports (`activities.csv`) applied. Files that
    /// fail are in the folder's `errors`. `routes` keeps each run's drawn route; `progress(done, total)`
    /// is called as files finish.
    /// - Throws: `ActivityError` when `directory` cannot be read at all.
    public func read(folder directory: String, routes: Bool = false, progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> RunFolder {
        var folder = try RunFolder.read(directory, analyzer: analyzer(routes: routes), zone: zone, cache: cache, progress: progress)
        do {
            folder.runs = try StravaExport.annotate(folder.runs, directory: directory)
        } catch {
            folder.errors.append(RunFileError(path: "activities.csv", message: "\(error)"))
        }
        return folder
    }

    /// Run files given with their run ids (`add`'s files, the worker's paths), read through the
    /// cache and localised in `zone` (the pipeline's by default). A file that fails is in `errors`.
    public func read(files: [(path: String, id: String)], zone: TimeZone? = nil) -> RunFolder {
        let zone = zone ?? self.zone
        return RunFolder.read(files: files, analyzer: analyzer(zone: zone), zone: zone, cache: cache, serial: files.count < 2)
    }

    /// A run file's bytes (an upload): `fileName` says the format by its suffix (`run.fit`,
    /// `run.gpx.gz`, `export.zip`); read by the readers a file goes through (`RunLoader.load(bytes:)`,
    /// `RunArchive` for a zip) and localised.
    /// A file holding several runs gives ids `id#1`, `id#2`.
    /// - Throws: `ActivityError` naming `fileName` and what is wrong.
    public func summaries(bytes: [UInt8], fileName: String, id: String, zone: TimeZone? = nil) throws -> [RunSummary] {
        if RunArchive.isZip(fileName) {
            // A zip uploaded: read as its file is (`RunArchive`); an entry that fails fails the upload, named.
            let read = RunArchive.read(zipBytes: bytes, id: id, analyzer: analyzer(zone: zone), zone: zone ?? self.zone)
            if let error = read.errors.first {
                // Its message names the archive first (`export.zip: a.gpx: …`): kept as the reason after that name.
                let reason = error.message.hasPrefix(id + ": ") ? String(error.message.dropFirst(id.count + 2)) : error.message
                throw ActivityError.malformed(path: id, line: nil, offset: nil, reason: reason)
            }
            return read.runs
        }
        guard let kind = RunFormat.of(path: fileName) else {
            let known = RunFormat.suffixes.map(\.suffix).joined(separator: ", ")
            throw ActivityError.notFormat(path: fileName, format: "run", reason: "unknown extension; run files end in \(known)")
        }
        return try RunLoader.load(bytes: bytes, format: kind.format, source: fileName, id: id, analyzer: analyzer(zone: zone),
                                  zoneOffsetSeconds: nil).map { localise($0, zone: zone) }
    }

    /// A track an app recorded (`BadgeKit`'s samples), through the same analyzer as a file, localised.
    public func summary(track: Track, id: String, zone: TimeZone? = nil) -> RunSummary {
        localise(analyzer(zone: zone).summarize(track, id: id, zoneOffsetSeconds: nil), zone: zone)
    }

    /// A JSON run summary already parsed (a worker line's `summary`), localised.
    /// - Throws: `ActivityError` naming `source` and the field at fault.
    public func summary(fields: [String: JSONValue], source: String, id: String, zone: TimeZone? = nil) throws -> RunSummary {
        var run = localise(try SummaryReader.read(fields: fields, source: source, id: id, zoneOffsetSeconds: nil), zone: zone)
        // As a summary file is read (`RunLoader`): the measures its totals give (its age grades).
        if !baseAnalyzer.measures.isEmpty { run.measures = analyzer(zone: zone).measures(ofSummary: run) }
        return run
    }

    /// A run's local date, start and offset: the file's own UTC offset when it had one, else `zone`
    /// (the pipeline's by default) at the run's start (`RunAnalyzer.localise`).
    public func localise(_ run: RunSummary, zone: TimeZone? = nil) -> RunSummary {
        RunAnalyzer.localise(run, zone: zone ?? self.zone)
    }

    // MARK: - Selection

    /// Which of `runs` earn badges, as `selection` says: first the runs up to `asOf`, then each
    /// activity once (the richest file), then the sports that count and no implausible run. The one
    /// selection of every entry point: evaluate, explain, report, whatif, diff, add, the worker, BadgeKit.
    public func select(_ runs: [RunSummary]) -> Selected {
        var runs = runs
        if let asOf = selection.asOf {
            runs = runs.filter { run in run.localDate.map { $0 <= asOf } ?? false }
        }
        var duplicates: [RunDuplicate] = []
        if selection.removesDuplicates {
            (runs, duplicates) = Duplicates.removeSameActivity(from: runs)
        }
        let (selected, excluded) = RunSelection(sports: selection.sports, excludesImplausible: selection.excludesImplausible).apply(runs)
        return Selected(runs: runs, selected: selected, excluded: excluded, duplicates: duplicates)
    }

    /// `select` over a folder's runs: the folder keeps the runs `select` keeps, and lists the
    /// duplicates it found after those of the walk.
    public func select(_ folder: RunFolder) -> (folder: RunFolder, selected: Selected) {
        let selected = select(folder.runs)
        var folder = folder
        folder.runs = selected.runs
        folder.duplicates += selected.duplicates
        return (folder, selected)
    }

    // MARK: - Handing on

    /// What `run`, run after the runs `history` selects, would earn and change (`WhatIf`), made by
    /// this pipeline's analyzer.
    /// - Throws: `WhatIf`'s error for a run that cannot be made as asked (`WhatIf.Run.outOfRange`).
    public func whatIf(_ run: WhatIf.Run, selected history: [RunSummary]) throws -> WhatIf.Outcome {
        try WhatIf.evaluate(run, history: history, engine: engine, analyzer: analyzer())
    }
}
