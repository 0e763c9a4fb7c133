import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// `badgectl add --state DIR FILE...`: evaluates only the new runs against a saved state.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add runs to a saved state (evaluate --state DIR): only the new runs are evaluated.",
        discussion: """
            Each fold goes on from the state it had after the last saved run; `finish` runs again, so \
            an award it makes can move to a new run: it is listed as withdrawn and the new one as new. \
            A pack that changed since the state was saved, a run that starts before the last saved one, \
            or a run already saved (the same id, or the same activity) makes badgectl evaluate the whole \
            history again from the saved summaries, and it says so on stderr. The state is then saved again.

            Without --rules, the packs the state was made with are loaded from the folders it recorded, \
            without --badges its catalogue from the file it recorded, and without --athlete the athlete \
            profile it recorded (evaluate --athlete); without --tz, runs are read in the state's zone.

            The output names what this addition changed: the awards new and withdrawn, and how many \
            awards the history holds. --all-awards also lists every award of the history (read from \
            the state database). A state database that cannot be read is made again from the saved \
            runs (runs.jsonl) and settings (settings.json) with --rebuild (the database that was there, \
            damaged or not, is kept as state.sqlite.damaged).

            Examples:
              badgectl evaluate ~/runs --state ~/.local/state/badgectl --tz Europe/Paris
              badgectl add --state ~/.local/state/badgectl ~/runs/2026-11-24-tempo.fit

            \(ExitStatus.help)
            """
    )

    @Option(name: .long, help: ArgumentHelp("The state folder `evaluate DIR --state` made.", valueName: "dir"))
    var state: String

    @Argument(help: ArgumentHelp("Run files to add (.gpx, .tcx, .fit, their .gz forms, .json summaries).", valueName: "file"))
    var files: [String] = []

    @Flag(name: .long, help: "Also list every award of the history (JSON `awards`, a table for people).")
    var allAwards = false

    @Flag(name: .long, help: "Make the state again from its saved runs (runs.jsonl), with any files given: for a damaged state database (the old one is kept as state.sqlite.damaged).")
    var rebuild = false

    @OptionGroup var options: StreamOptions

    @Option(name: .long, help: "Output format: table (for people) or json (new and withdrawn awards, statuses, next).")
    var format: OutputFormat = .table

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        if files.isEmpty && !rebuild && !allAwards { throw ValidationError("give the run files to add (or --all-awards, --rebuild)") }
    }

    func run() throws {
        let store = StateStore.at(state)
        let (saved, zone, pipeline) = try AddCommand.open(store, options: options, rebuild: rebuild)
        var runs = pipeline.runs
        runs.cache = cacheOptions.open()
        var read = RunFolder()
        for path in files {
            guard FileManager.default.fileExists(atPath: path) else {
                read.errors.append(RunFileError(path: path, message: "\(ActivityError.unreadable(path: path, reason: "no such file"))"))
                continue
            }
            let one = runs.read(files: [(path, AddCommand.id(of: path, folder: saved?.folder))])
            read.runs += one.runs
            read.errors += one.errors.map { RunFileError(path: path, message: $0.message) }
        }
        EvaluationPipeline.printWarnings(of: runs.cache)
        let evaluator = AthleteEvaluator(pipeline: runs)
        let selection = evaluator.select(read.runs)
        // A file read again that no longer counts (re-typed as a ride, now implausible) takes its
        // saved run out of the history; one still counted replaces it (same id).
        let update = try EvaluationPipeline.guarding(.printAndExit) {
            rebuild ? try evaluator.rebuild(selection, in: store, folder: saved?.folder)
                : try evaluator.add(selection, to: store, withdrawing: selection.noLongerCounted)
        }
        let history = allAwards ? try EvaluationPipeline.guarding(.printAndExit) { try store.awards() } : nil
        if let reason = update.replayed {
            Console.error(CommandError.prefix + "replayed the whole history (\(Format.count(update.runCount, "run"))): \(reason)")
        }
        let added = AddReport(update: update, pipeline: pipeline, zone: zone, selected: selection.selected, excluded: selection.excluded,
                              duplicates: selection.duplicates, errors: read.errors, awards: history)
        switch format {
        case .json: print(try added.json())
        case .table: print(added.table())
        }
        for error in read.errors { Console.error(CommandError.skipped + error.message) }
        for failure in update.evaluation.failures { Console.error(CommandError.failed(failure)) }
        if !read.errors.isEmpty || !update.evaluation.failures.isEmpty { throw ExitCode(ExitStatus.partial.rawValue) }
    }

    /// The state in `store` and the pipeline to go on with it: the saved header (nil only when
    /// rebuilding a state whose database cannot be read), its zone (or --tz, which must match), and
    /// the packs, catalogue and athlete it was made with unless the options give others.
    static func open(_ store: StateStore, options: StreamOptions, rebuild: Bool = false) throws
        -> (saved: SavedState?, zone: TimeZone, pipeline: EvaluationPipeline) {
        // --rebuild: the header when it can still be read, else the settings kept apart (settings.json),
        // else --tz and --rules must say what it held.
        let saved = rebuild ? (try? store.loadHeader()) ?? (try? store.loadSettings())
            : try EvaluationPipeline.guarding(.printAndExit) { try store.loadHeader() }
        if rebuild, saved == nil, options.runs.tz == nil || options.rules.rules.isEmpty {
            throw ValidationError("the state database cannot be read: give --tz and --rules to rebuild it")
        }
        // Without --tz the state's zone; with one, it must be the same (the evaluator says so).
        let zone = try options.runs.tz == nil ? saved.flatMap { ZoneNames.zone(named: $0.zone) } ?? options.runs.zone() : options.runs.zone()
        // Without --badges, the catalogue the state was made with; when that file is gone (an
        // installed one replaced by an upgrade), the one found as without a state, saying so.
        var options = options
        if options.rules.badges == nil, let recorded = saved?.catalogue {
            if FileManager.default.fileExists(atPath: recorded) {
                options.rules.badges = recorded
            } else {
                Console.error(CommandError.prefix + AddCommand.catalogueGone(recorded))
            }
        }
        // Without --athlete, the profile the state was made with (ctx.athlete, age grades, zones).
        if options.rules.athlete == nil, let recorded = saved?.athlete {
            if FileManager.default.fileExists(atPath: recorded) {
                options.rules.athlete = recorded
            } else {
                Console.error(CommandError.prefix + "the athlete profile the state was made with, \(ShownName.of(recorded)), is gone: adding without one (give --athlete FILE)")
            }
        }
        // Without --rules, the packs the state was made with, from where they were loaded.
        let packs = try EvaluationPipeline.guarding(.printAndExit) {
            if options.rules.rules.isEmpty, let saved { return try store.packFolders(of: saved) }
            return try options.rules.packDirectories()
        }
        let pipeline = try EvaluationPipeline(options, failures: .printAndExit, packDirectories: packs, zone: zone)
        return (saved, zone, pipeline)
    }

    /// The notice for a state whose recorded catalogue file is gone.
    static func catalogueGone(_ path: String) -> String {
        "the badge catalogue the state was made with, \(path), is gone: reading the one found without it (give one with --badges FILE)"
    }

    /// `path` made absolute and standardised.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        return (full as NSString).standardizingPath
    }

    /// A run's id: its path relative to `folder` when it is inside it (as `evaluate` named the saved
    /// runs), else the path as given.
    static func id(of path: String, folder: String?) -> String {
        guard let folder else { return path }
        let full = absolute(path)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return full.hasPrefix(prefix) ? String(full.dropFirst(prefix.count)) : path
    }
}

/// What `add` prints: the runs added, the awards new and withdrawn, the next badges.
struct AddReport: Encodable {
    var header: EvaluationReport.Header
    /// Runs added (ids, start order).
    var runs: [String]
    /// Runs taken out of the history (`remove`), as named.
    var removed: [String] = []
    @NullEncoded var replayed: String?
    var runCount: Int
    var added: [Award]
    var withdrawn: [Award]
    /// Awards in the history now.
    var awardCount: Int
    /// Every award of the history (`--all-awards`), nil otherwise (then left out of the JSON).
    var awards: [Award]?
    var statuses: [BadgeStatus]
    /// The next badge as `evaluate` chooses it (`EvaluationReport.nexts`), and each pack's own.
    @NullEncoded var next: EvaluationReport.Next?
    var nextByPack: [EvaluationReport.Next]
    var excluded: [ExcludedRun]
    var duplicates: [RunDuplicate]
    var errors: [RunFileError]
    var ruleErrors: [RuleFailure]
    var notes: [RuleNote]
    /// The local date of each run added (the table's DATE; others are dated in the state's zone).
    var localDates: [String: String] = [:]
    /// Badge names by id, as the catalogue and packs give them (the table's BADGE; not in the JSON).
    var names: [String: String] = [:]

    enum CodingKeys: String, CodingKey {
        case header, runs, removed, replayed
        case runCount = "run_count"
        case added, withdrawn
        case awardCount = "award_count"
        case awards, statuses, next
        case nextByPack = "next_by_pack"
        case excluded, duplicates, errors
        case ruleErrors = "rule_errors"
        case notes
    }

    init(update: StateUpdate, pipeline: EvaluationPipeline, zone: TimeZone, selected: [RunSummary], excluded: [ExcludedRun],
         duplicates: [RunDuplicate], errors: [RunFileError], awards: [Award]? = nil) {
        header = EvaluationReport.Header(zone: zone, packs: pipeline.engine.packs)
        runs = RuleEngine.ordered(selected).map(\.id)
        replayed = update.replayed
        runCount = update.runCount
        added = update.added
        withdrawn = update.withdrawn
        awardCount = update.awardCount
        self.awards = awards
        statuses = update.evaluation.statuses
        var known = pipeline.catalogue.badges
        for badge in pipeline.engine.packs.flatMap(\.badges) where !known.contains(where: { $0.id == badge.id }) { known.append(badge) }
        (next, nextByPack) = EvaluationReport.nexts(of: update.evaluation, catalogue: pipeline.catalogue, known: known)
        self.excluded = excluded
        self.duplicates = duplicates
        self.errors = errors
        ruleErrors = update.evaluation.failures
        notes = update.evaluation.notes
        for run in selected { localDates[run.id] = run.localDate }
        for badge in pipeline.catalogue.badges + pipeline.engine.packs.flatMap(\.badges) where names[badge.id] == nil {
            names[badge.id] = badge.name
        }
    }

    func json() throws -> String { try JSONOutput.encode(self) }

    func table() -> String {
        let changed = removed.isEmpty ? "\(Format.count(runs.count, "run")) added" : "\(Format.count(removed.count, "run")) removed"
        var out = ["\(changed), \(runCount) in the history; \(Format.count(added.count, "new award")), \(withdrawn.count) withdrawn, "
                   + "\(Format.count(awardCount, "award")) in all"
                   + (replayed.map { " (history replayed: \($0))" } ?? "")]
        func rows(_ awards: [Award]) -> String {
            var table = TextTable("BADGE", "TIER", "DATE", "RUN", "PACK", "DETAIL")
            table.droppable = ["PACK", "RUN"]
            let zone = ZoneNames.zone(named: header.zone) ?? TimeZone(secondsFromGMT: 0) ?? .current
            for award in awards {
                let date = localDates[award.run] ?? Format.localDate(award.at, run: nil, zone: zone)
                table.add(names[award.badge] ?? award.badge, award.tier, date, award.run, award.pack, award.detail.isEmpty ? ClockText.unknown : award.detail)
            }
            return table.render()
        }
        if !added.isEmpty { out += ["", "New:", rows(added)] }
        if !withdrawn.isEmpty {
            out += ["", removed.isEmpty ? "Withdrawn (moved to a later run or no longer earned):" : "Withdrawn (a run removed, or no longer earned):", rows(withdrawn)]
        }
        if let awards { out += ["", "All awards of the history:", awards.isEmpty ? "  none" : rows(awards)] }
        if let next {
            out += [""] + Format.paragraph("Next: \(names[next.badge] ?? next.badge) — \(Format.distance(next.remainingMeters)) to go.")
        }
        for note in notes { out += Format.paragraph("note (\(note.pack)\(note.rule.map { "/" + $0 } ?? "")): \(note.message)") }
        if !excluded.isEmpty {
            out += ["", "Not counted:"] + excluded.map { "  \(ShownName.of($0.id)): \($0.reason)" }
        }
        if !duplicates.isEmpty {
            out += ["", "Duplicates (not counted again):"] + duplicates.map { "  \(ShownName.of($0.id)): \($0.reason.rawValue) as \(ShownName.of($0.sameAs))" }
        }
        return out.joined(separator: "\n")
    }
}
