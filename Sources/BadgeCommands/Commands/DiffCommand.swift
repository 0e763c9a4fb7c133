import ArgumentParser
import BadgeRules
import Foundation
import RunFiles
import RunLibrary

/// `badgectl diff DIR --rules PATH --against PATH`: what a new version of the packs would change.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare the awards of two sets of rule packs on one history: gained, lost and moved, per badge.",
        discussion: """
            Evaluates DIR with the packs of --rules (the current ones) and again with the packs of \
            --against (the candidate), and lists per badge the awards the candidate gains, loses and \
            moves (the same badge and tier for another run). Awards match by badge, tier and run; a \
            changed detail or evidence alone is not a difference.

            Exit status: \(ExitStatus.packsDoNotLoad.rawValue) when the current or the candidate packs \
            do not load (a path without a pack, an empty folder, a pack without pack.lua, a pack.lua \
            or rule file with a syntax error or that does not declare its rule): what is compared is \
            then not what was asked for; else \(ExitStatus.testsFailed.rawValue) when the awards differ, \
            else \(ExitStatus.partial.rawValue) when a file or a rule was skipped (on either side), \
            else 0: a pack repository's CI can require the difference to be acknowledged, and tell a \
            broken candidate from a changed one.

            Examples:
              badgectl diff ~/runs --rules rules --against ../next/rules
              badgectl diff --worker-input runs.jsonl --rules rules --against ../next/rules --format json

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("A folder of run files (or one run file).", valueName: "dir"))
    var directory: String?

    @Option(name: .customLong("worker-input"), help: ArgumentHelp(
        "Instead of DIR: many athletes, as JSON lines in `badgectl worker`'s format (docs/worker.md); - reads stdin.",
        discussion: "Each athlete's runs are evaluated with both sets of packs; the changes are listed per athlete.",
        valueName: "file"))
    var workerInput: String?

    @OptionGroup var options: PipelineOptions

    @Option(name: .long, help: ArgumentHelp(
        "A candidate rule pack folder, or a folder of packs. Repeat for more.",
        discussion: "The current packs are those of --rules (default ./rules).", valueName: "path"))
    var against: [String] = []

    @Option(name: .long, help: "Output format: table (for people) or json.")
    var format: OutputFormat = .table

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        if against.isEmpty { throw ValidationError("diff needs the candidate packs: --against PATH (repeat for more)") }
        if (directory == nil) == (workerInput == nil) { throw ValidationError("diff needs a folder of runs (DIR) or --worker-input FILE, not both") }
    }

    /// The JSON of `diff --format json`.
    struct Report: Encodable {
        /// What made each side: badgectl, the zone, the packs with their fingerprints.
        var current: EvaluationReport.Header
        var candidate: EvaluationReport.Header
        var badges: [AwardDiff.BadgeChanges]
        var counts: AwardDiff.Counts
        /// Files that could not be read (the same on both sides).
        var errors: [RunFileError]
        var ruleErrors: Sides

        struct Sides: Encodable {
            var current: [RuleFailure]
            var candidate: [RuleFailure]
        }

        enum CodingKeys: String, CodingKey {
            case current, candidate, badges, counts, errors
            case ruleErrors = "rule_errors"
        }
    }

    func run() throws {
        let current = try EvaluationPipeline(options, failures: .printAndExit)
        var candidateRules = options.rules
        candidateRules.rules = against
        let candidatePacks = try EvaluationPipeline.guarding(.printAndExit) { try candidateRules.packDirectories() }
        let candidate = try EvaluationPipeline(options, failures: .printAndExit, packDirectories: candidatePacks)
        let cache = cacheOptions.open()
        guard let directory else { return try runAthletes(current: current, candidate: candidate, input: workerInput ?? "-", cache: cache) }
        // Each side reads the folder with its own packs' measures (the cache keeps both).
        let before = try current.run(directory: directory, cache: cache)
        let after = try candidate.run(directory: directory, cache: cache)
        let diff = AwardDiff(current: before.evaluation.awards, candidate: after.evaluation.awards)
        let report = Report(current: current.header, candidate: candidate.header, badges: diff.badges, counts: diff.counts,
                            errors: before.folder.errors,
                            ruleErrors: Report.Sides(current: before.evaluation.failures, candidate: after.evaluation.failures))
        switch format {
        case .json: print(try JSONOutput.encode(report))
        case .table: print(DiffCommand.table(report, names: current.themedCatalogue.badges + current.themedPackBadges + candidate.themedPackBadges))
        }
        for error in report.errors { Console.error(CommandError.skipped + error.message) }
        for failure in report.ruleErrors.current { Console.error(CommandError.failed(failure, side: "current: ")) }
        for failure in report.ruleErrors.candidate { Console.error(CommandError.failed(failure, side: "candidate: ")) }
        try DiffCommand.requireLoading(current: current, candidate: candidate)
        if diff.counts.differs { throw ExitCode(ExitStatus.testsFailed.rawValue) }
        if !report.errors.isEmpty || !report.ruleErrors.current.isEmpty || !report.ruleErrors.candidate.isEmpty {
            throw ExitCode(ExitStatus.partial.rawValue)
        }
    }

    /// Exits with `packsDoNotLoad` when a pack or rule file of either side does not load (each problem
    /// was printed with the rule failures; this says which side, for a CI log).
    static func requireLoading(current: EvaluationPipeline, candidate: EvaluationPipeline) throws {
        let sides = [("current", "--rules", current.engine.loadProblems()), ("candidate", "--against", candidate.engine.loadProblems())]
        let broken = sides.filter { !$0.2.isEmpty }
        guard !broken.isEmpty else { return }
        for (side, flag, problems) in broken {
            Console.error(CommandError.prefix + "the \(side) packs (\(flag)) do not load: \(Format.count(problems.count, "problem")) "
                          + "(first: \(problems[0])); exit status \(ExitStatus.packsDoNotLoad.rawValue)")
        }
        throw ExitCode(ExitStatus.packsDoNotLoad.rawValue)
    }

    static func table(_ report: Report, names: [CatalogueBadge]) -> String {
        func name(_ id: String) -> String { names.first { $0.id == id }?.name ?? id }
        let counts = report.counts
        var out = ["\(counts.gained) gained, \(counts.lost) lost, \(counts.moved) moved, \(counts.unchanged) unchanged"]
        if report.badges.isEmpty {
            out.append("")
            out.append("The candidate packs give the same awards.")
            return out.joined(separator: "\n")
        }
        var table = TextTable("BADGE", "TIER", "CHANGE", "CURRENT", "CANDIDATE")
        table.droppable = ["TIER"]
        for badge in report.badges {
            let shown = "\(name(badge.badge)) (+\(badge.counts.gained) -\(badge.counts.lost) ~\(badge.counts.moved))"
            func place(_ run: String, _ at: String?) -> String {
                "\(ShownName.of(run)) \(Format.localDate(at, run: nil, zone: ZoneNames.zone(named: report.current.zone) ?? .current))"
            }
            for change in badge.gained { table.add(shown, change.tier, "gained", "", place(change.run, change.at)) }
            for change in badge.lost { table.add(shown, change.tier, "lost", place(change.run, change.at), "") }
            for move in badge.moved { table.add(shown, move.tier, "moved", place(move.from.run, move.from.at), place(move.to.run, move.to.at)) }
        }
        out.append("")
        out.append(table.render())
        return out.joined(separator: "\n")
    }
}
