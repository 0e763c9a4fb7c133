import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunFiles
import RunAnalysis
import RunLibrary

/// `badgectl evaluate DIR`: who earned what, when, and what is next.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate a folder of runs against the rule packs: badges earned, tiers, and what is next.",
        discussion: """
            Reads every run file under DIR (.gpx, .tcx, .fit, their .gz forms, and .json run summaries; \
            other files are listed as ignored), orders the runs by start time and runs every rule pack. \
            A bad file or a failing rule is reported and skipped; everything else is still evaluated.

            Examples:
              badgectl evaluate ~/runs --tz Europe/Paris
              badgectl evaluate runs/ --format json > awards.json

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("A folder of run files (or one run file).", valueName: "dir"))
    var directory: String

    @OptionGroup var options: PipelineOptions

    @Option(name: .long, help: "Output format: table (for people) or json (the contract).")
    var format: OutputFormat = .table

    @OptionGroup var goldenOptions: GoldenOptions

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    @Flag(name: .long, help: "Show every column of the table, however wide (by default it fits the terminal or $COLUMNS).")
    var wide = false

    @Flag(name: .long, help: "Print each rule's cost (calls, time) and the reading time on stderr.")
    var profile = false

    @Option(name: .long, help: ArgumentHelp(
        "Save each rule's state after the evaluation in this folder, for `badgectl add --state DIR FILE...`.",
        discussion: "The folder holds state.sqlite (the rules' states, their awards, the packs' fingerprints, the zone, the runs' index), settings.json and runs.jsonl (the runs' summaries): docs/json.md, \"State\". Any state already there is replaced.",
        valueName: "dir"))
    var state: String?

    func validate() throws {
        if state != nil, profile { throw ValidationError("--state and --profile cannot be used together") }
    }

    func run() throws {
        if wide { Terminal.unlimited = true }
        let pipeline = try EvaluationPipeline(options, failures: .printAndExit)
        let evaluator = state.map { folder in
            { (selection: RunPipeline.Selected) throws -> Evaluation in
                try EvaluationPipeline.guarding(.printAndExit) {
                    try AthleteEvaluator(pipeline: pipeline.runs).start(selection, in: StateStore(directory: folder),
                                                                        folder: AddCommand.absolute(directory)).evaluation
                }
            }
        }
        let outcome = try pipeline.run(directory: directory, cache: cacheOptions.open(), profile: profile, evaluator: evaluator)
        if let costs = outcome.costs {
            Console.error(EvaluateCommand.profileTable(costs, readSeconds: outcome.readSeconds, runs: outcome.selected.count))
        }
        let report = pipeline.report(outcome)
        if let golden = goldenOptions.golden {
            // The header says what made the output (versions, pack fingerprints), not what it is: an
            // edited pack that awards the same still matches its snapshot.
            var snapshot = report
            snapshot.header = nil
            for index in snapshot.awards.indices { snapshot.awards[index].packFingerprint = nil }
            try Golden.run(try snapshot.json(), path: golden, update: goldenOptions.update)
            return
        }
        switch format {
        case .json: print(try report.json())
        case .table: print(EvaluateCommand.table(report))
        }
        try report.reportSkipped()
    }

    /// `--profile`: one line per rule, costliest first.
    static func profileTable(_ costs: [RuleCost], readSeconds: Double, runs: Int) -> String {
        var table = TextTable("PACK", "RULE", "CALLS", "TOTAL MS", "US/CALL")
        let total = costs.reduce(0) { $0 + $1.seconds }
        for cost in costs.sorted(by: { $0.seconds > $1.seconds }) {
            table.add(cost.pack, cost.rule, String(cost.calls), String(format: "%.2f", cost.seconds * 1000),
                      String(format: "%.1f", cost.calls > 0 ? cost.seconds * 1e6 / Double(cost.calls) : 0))
        }
        return String(format: "profile: read %d runs in %.3f s; rules %.3f s\n", runs, readSeconds, total) + table.render()
    }

    static func table(_ report: EvaluationReport) -> String {
        var out: [String] = []
        let runsById = Dictionary(report.runs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let zone = report.header.flatMap { ZoneNames.zone(named: $0.zone) } ?? TimeZone(secondsFromGMT: 0) ?? .current
        var table = TextTable("BADGE", "TIER", "DATE", "RUN", "DISTANCE", "PACE", "PACK", "DETAIL")
        table.droppable = ["PACK", "RUN", "PACE", "DISTANCE"]
        for award in report.awards {
            let run = runsById[award.run]
            let name = report.badges.first { $0.id == award.badge }?.name ?? award.badge
            table.add(name, award.tier, Format.localDate(award.at, run: run, zone: zone), award.run, Format.distance(run?.distanceMeters),
                      Format.pace(run?.paceSecondsPerKilometre), award.pack, award.detail.isEmpty ? ClockText.unknown : award.detail)
        }
        out.append("\(Format.count(report.runs.count, "run")), \(Format.count(report.awards.count, "award"))")
        out.append("")
        out.append(report.awards.isEmpty ? "No badges earned yet." : table.render())
        let chase = report.badges.filter { $0.earned != nil && ($0.silverPaceSecondsPerKilometre != nil || $0.goldPaceSecondsPerKilometre != nil) }
        if !chase.isEmpty {
            var paces = TextTable("BADGE", "SILVER PACE", "GOLD PACE")
            for row in chase {
                // No pace: the tier is held ("earned"), or the badge has no such tier (a status that names none).
                paces.add(row.name, row.silverPaceSecondsPerKilometre.map(Format.tierPaceText) ?? (row.silver != nil ? "earned" : ClockText.unknown),
                          row.goldPaceSecondsPerKilometre.map(Format.tierPaceText) ?? (row.gold != nil ? "earned" : ClockText.unknown))
            }
            out.append("")
            out += Format.paragraph("A run longer than the badge's distance at these paces earns the next tier:")
            out.append(paces.render())
        }
        out.append("")
        if let next = report.next {
            out += Format.paragraph("Next: \(next.name) — \(Format.distance(next.remainingMeters)) to go (a run must exceed \(next.name)'s distance).")
        } else if report.everyDistanceBadgeEarned {
            out.append("Next: every distance badge is earned.")
        }
        for other in report.nextByPack where other.badge != report.next?.badge {
            out += Format.paragraph("Also next (\(other.pack)): \(other.name) — \(Format.distance(other.remainingMeters)) to go.")
        }
        if !report.notes.isEmpty {
            out.append("")
            for note in report.notes {
                out += Format.paragraph("note (\(note.pack)\(note.rule.map { "/" + $0 } ?? "")): \(note.message)")
            }
        }
        let notCounted = report.excluded.filter { $0.pack == nil }
        if !notCounted.isEmpty {
            out.append("")
            out.append("Not counted:")
            for run in notCounted { out.append("  \(ShownName.of(run.id)): \(run.reason)") }
        }
        let leftOut = report.excluded.filter { $0.pack != nil }
        if !leftOut.isEmpty {
            // One line a run: each reason with the packs that gave it, in the order first met.
            out.append("")
            out.append("Left out by a pack's eligibility (the other packs count them):")
            var order: [String] = []
            var reasons: [String: [(reason: String, packs: [String])]] = [:]
            for run in leftOut {
                guard let pack = run.pack else { continue }
                if reasons[run.id] == nil { order.append(run.id) }
                var list = reasons[run.id] ?? []
                if let i = list.firstIndex(where: { $0.reason == run.reason }) { list[i].packs.append(pack) } else { list.append((run.reason, [pack])) }
                reasons[run.id] = list
            }
            for id in order {
                let text = (reasons[id] ?? []).map { "\($0.reason) (\($0.packs.joined(separator: ", ")))" }.joined(separator: "; ")
                out += Format.paragraph("  \(ShownName.of(id)): \(text)")
            }
        }
        if !report.duplicates.isEmpty {
            out.append("")
            out.append("Duplicates (not counted again; --keep-duplicates counts them):")
            for duplicate in report.duplicates {
                out.append("  \(ShownName.of(duplicate.id)): \(duplicate.reason.rawValue) as \(ShownName.of(duplicate.sameAs))")
            }
        }
        if !report.ignored.isEmpty {
            out.append("")
            let reasons = report.ignoredReasons ?? [:]
            out += Format.paragraph("Ignored (not run files): " + Self.ignoredSummary(report.ignored, reasons: reasons))
        }
        if !report.errors.isEmpty || !report.ruleErrors.isEmpty {
            out.append("")
            out.append("Skipped: \(CommandError.skippedCounts(files: report.errors.count, failures: report.ruleErrors)) (see stderr).")
        }
        return out.joined(separator: "\n")
    }

    /// The table's "Ignored" entries, short whatever their number: more than three of one folder with
    /// one reason (an Apple Health export's route files) as `folder/: 19 files (a.gpx, b.gpx, … s.gpx)
    /// (reason)`, others by name (and reason); in the order first met. The JSON's `ignored` lists every path.
    static func ignoredSummary(_ ignored: [String], reasons: [String: String]) -> String {
        var groups: [(folder: String, reason: String?, paths: [String])] = []
        var index: [String: Int] = [:]
        for path in ignored {
            let folder = (path as NSString).deletingLastPathComponent
            let key = folder + "\u{0}" + (reasons[path] ?? "")
            if let i = index[key] { groups[i].paths.append(path) } else {
                index[key] = groups.count
                groups.append((folder, reasons[path], [path]))
            }
        }
        var parts: [String] = []
        for group in groups {
            let why = group.reason.map { " (\($0))" } ?? ""
            if group.paths.count <= 3 {
                parts += group.paths.map { ShownName.of($0) + why }
            } else {
                let names = group.paths.map { ShownName.of(($0 as NSString).lastPathComponent) }
                let place = group.folder.isEmpty ? "" : ShownName.of(group.folder) + "/: "
                parts.append("\(place)\(names.count) files (\(names[0]), \(names[1]), … \(names[names.count - 1]))\(why)")
            }
        }
        return parts.joined(separator: ", ")
    }
}

