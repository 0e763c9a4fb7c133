import ArgumentParser
import BadgeCredentials
import BadgePipeline
import BadgeReport
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// `badgectl report DIR -o report.html`: the badge wall and every run's pace-coloured route in one HTML file.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write one self-contained HTML file: the badge wall and each run's route coloured by speed.",
        discussion: """
            The page fetches nothing from a network: SVG and CSS are inline, badge images (from --images) \
            are embedded. Routes are simplified (Douglas–Peucker) and coloured from red (slow) through \
            yellow to green (fast) on each run's 5th–95th percentile speeds; a marker shows where each \
            badge distance was reached.

            Examples:
              badgectl report ~/runs -o report.html
              badgectl report ~/runs -o report.html --images badges/ --theme moon
              badgectl report ~/runs -o report.html --league league.jsonl --league-athlete ana

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("A folder of run files (or one run file).", valueName: "dir"))
    var directory: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Where to write the HTML.", valueName: "file"))
    var output: String = "report.html"

    @Option(help: ArgumentHelp("A folder holding the catalogue's badge images (embedded in the page).", valueName: "dir"))
    var images: String?

    @Option(help: "The page title.")
    var title: String = "Badges"

    @Option(help: ArgumentHelp(
        "badgectl league's JSON lines: the page shows --league-athlete's crowns, ranks and Local Legend status, and each badge's rarity (docs/report.md).",
        valueName: "file"))
    var league: String?

    @Option(name: .customLong("league-athlete"), help: ArgumentHelp(
        "Who the runner is in the --league lines (their \"athlete\" in the worker's lines).", valueName: "name"))
    var leagueAthlete: String?

    @Option(help: ArgumentHelp(
        "A folder `badgectl credentials issue --out` wrote: each award's Why links its credential and card there.",
        valueName: "dir"))
    var credentials: String?

    @Option(help: ArgumentHelp(
        "A saved state (made by evaluate --state, kept by add, remove, or a worker's athlete as DIR/ATHLETE of its --state-dir): a section names the awards it took back, when and why.",
        valueName: "dir"))
    var state: String?

    @OptionGroup var options: PipelineOptions
    @OptionGroup var cacheOptions: CacheOptions<RouteCache>

    func validate() throws {
        if league != nil && leagueAthlete == nil { throw ValidationError("--league needs --league-athlete NAME: the runner the page is about") }
        if leagueAthlete != nil && league == nil { throw ValidationError("--league-athlete goes with --league FILE") }
    }

    func run() throws {
        let pipeline = try EvaluationPipeline(options, failures: .printAndExit)
        let outcome = try pipeline.run(directory: directory, cache: cacheOptions.open(), routes: true)
        let themed = pipeline.themedCatalogue
        let packBadges = pipeline.themedPackBadges
        let report = EvaluationReport(folder: outcome.folder, evaluation: outcome.evaluation, catalogue: themed,
                                      packBadges: packBadges, excluded: outcome.excluded, header: pipeline.header)
        let links = credentials.map { folder in { (award: Award) in ReportCommand.credentialLinks(award, folder: folder, page: output) } }
        var input = ReportCommand.input(report, catalogue: themed, packBadges: packBadges,
                                        title: title, imagesDirectory: images, credentialLinks: links)
        ReportCommand.addGeography(to: &input, packs: pipeline.engine.packs)
        if let state {
            // What the state took back and these runs do not give again.
            let given = Set(outcome.evaluation.awards.map(IncrementalEvaluator.identity))
            let names = Dictionary((themed.badges + packBadges).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            input.takenBack = try StateStore.at(state).takenBack().filter { !given.contains(IncrementalEvaluator.identity($0.award)) }.map {
                ReportTakenBack(badge: names[$0.award.badge] ?? $0.award.badge, tier: $0.award.tier, run: $0.award.run, date: Format.date($0.at), why: $0.why)
            }
        }
        do {
            if let league, let leagueAthlete { input.league = try ReportLeague.read(path: league, athlete: leagueAthlete) }
            let bytes = try HTMLReport.write(input, to: output)
            print("wrote \(output) (\(Format.count(report.runs.count, "run")), \(Format.count(report.awards.count, "award")), \(Format.count(bytes, "byte")))")
        } catch {
            Console.error(CommandError.prefix + "\(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        try report.reportSkipped()
    }

    /// How many awards of one badge the report explains (the first and the last half of them).
    static let provenanceShown = 12

    /// The packs' segments (each drawn on the runs that passed it) and their first tiles measure.
    static func addGeography(to input: inout ReportInput, packs: [RulePack]) {
        for pack in packs {
            for measure in pack.measures {
                let definition = measure.definition
                if definition.kind == MeasureKind.segment.name, let path = definition.path {
                    input.segments.append(ReportSegment(name: "\(pack.name).\(measure.name)", latitudes: path.latitudes,
                                                        longitudes: path.longitudes, measureKey: definition.key))
                } else if definition.kind == MeasureKind.tiles.name, input.tiles == nil {
                    input.tiles = ReportTiles(name: "\(pack.name).\(measure.name)", zoom: Int(definition.number("zoom") ?? 14), measureKey: definition.key)
                }
            }
        }
    }

    /// When the page is made: now, or `SOURCE_DATE_EPOCH` (seconds since 1970) when set, the
    /// reproducible-builds convention, so that tests and anyone who wants the same runs to give the
    /// same bytes can fix the clock.
    static func now(environment: [String: String] = ProcessInfo.processInfo.environment) -> Date {
        if let text = environment["SOURCE_DATE_EPOCH"], let seconds = Double(text), seconds.isFinite, seconds >= 0 {
            return Date(timeIntervalSince1970: seconds)
        }
        return Date()
    }

    /// The award's credential and card in `folder` (`credentials issue --out`), as links relative to
    /// the page at `page`; nil when the folder holds no credential for it.
    static func credentialLinks(_ award: Award, folder: String, page: String) -> (json: String, card: String)? {
        let id = AwardFacts.awardId(pack: award.pack, badge: award.badge, tier: award.tier, run: award.run)
        let base = (folder as NSString).appendingPathComponent(id)
        guard FileManager.default.fileExists(atPath: base + ".json") else { return nil }
        let pageFolder = ((page as NSString).deletingLastPathComponent as NSString)
        func absolute(_ path: String) -> [String] {
            let full = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
            return (full as NSString).standardizingPath.split(separator: "/").map(String.init)
        }
        let from = absolute(pageFolder.length == 0 ? "." : pageFolder as String), to = absolute(base)
        let common = zip(from, to).prefix { $0 == $1 }.count
        let relative = Array(repeating: "..", count: from.count - common) + to.dropFirst(common)
        let link = relative.map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;"))) ?? $0 }
            .joined(separator: "/")
        return (link + ".json", link + ".svg")
    }

    /// Turns the evaluation into the report's input, generated `now()`; `credentialLinks` gives an
    /// award's links to its credential and card (`--credentials`).
    static func input(_ report: EvaluationReport, catalogue: Catalogue, packBadges: [CatalogueBadge],
                      title: String, imagesDirectory: String?,
                      credentialLinks: ((Award) -> (json: String, card: String)?)? = nil) -> ReportInput {
        let runs = Dictionary(report.runs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var details: [String: CatalogueBadge] = [:]
        for badge in catalogue.badges + packBadges where details[badge.id] == nil { details[badge.id] = badge }
        func award(_ ref: EvaluationReport.AwardRef?) -> ReportAward? {
            guard let ref else { return nil }
            // The run's local date (--tz, or its file's offset), as the tables show it.
            return ReportAward(runId: ref.run, date: runs[ref.run]?.localDate ?? ref.at.map { String($0.prefix(10)) },
                               paceSecondsPerKilometre: runs[ref.run]?.paceSecondsPerKilometre)
        }
        let badges = report.badges.map { row in
            let info = details[row.id]
            var badge = ReportBadge(
                id: row.id, name: row.name, information: info?.information ?? "", image: info?.image,
                distanceMeters: info?.distanceMeters, earned: award(row.earned), silver: award(row.silver),
                gold: award(row.gold), best: award(row.best),
                // "at X or faster": the whole second below the pace the rule compares against (strictly).
                silverPaceSecondsPerKilometre: row.silverPaceSecondsPerKilometre.map(BadgeExplanation.qualifyingPace),
                goldPaceSecondsPerKilometre: row.goldPaceSecondsPerKilometre.map(BadgeExplanation.qualifyingPace), hint: row.hint)
            // At most the first and the last `provenanceShown / 2` awards (a repeatable badge can have hundreds).
            var awards = report.awards.filter { $0.badge == row.id }
            if awards.count > ReportCommand.provenanceShown {
                badge.provenanceLeftOut = awards.count - ReportCommand.provenanceShown
                awards = Array(awards.prefix(ReportCommand.provenanceShown / 2) + awards.suffix(ReportCommand.provenanceShown / 2))
            }
            badge.provenance = awards.map { award in
                var fields: [(name: String, value: String)] = []
                switch award.evidence {
                case .record(let values)?: fields = values.keys.sorted().map { ($0, values[$0]?.text ?? "") }
                case let other?: fields = [("evidence", other.text)]
                case nil: break
                }
                if let fingerprint = award.packFingerprint { fields.append(("pack fingerprint", fingerprint)) }
                return ReportProvenance(tier: award.tier, runId: award.run, date: runs[award.run]?.localDate ?? award.at.map { String($0.prefix(10)) },
                                        pack: "\(award.pack) \(award.packVersion)", rule: award.rule, detail: award.detail, evidence: fields,
                                        credentialLinks: credentialLinks?(award))
            }
            // Declared tiers, or tiers of its own a rule gave (not earned/silver/gold/best): one mark each.
            let standard: Set<String> = ["earned", "silver", "gold", "best"]
            if packBadges.contains(where: { $0.id == row.id && $0.tiers != nil }) || row.tierOrder.contains(where: { !standard.contains($0) }) {
                badge.declaredTiers = row.tierOrder.map { tier in
                    ReportTier(name: tier, award: award(row.tiers[tier].flatMap { $0 }.map { EvaluationReport.AwardRef(run: $0.run, at: $0.at) }))
                }
            }
            return badge
        }
        return ReportInput(
            title: title, generatedAt: ReportCommand.now(), badges: badges, runs: report.runs,
            next: report.next.map { BadgeReport.NextBadge(name: $0.name, remainingMeters: $0.remainingMeters) },
            imagesDirectory: imagesDirectory)
    }
}
