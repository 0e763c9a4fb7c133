import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// `badgectl explain BADGE DIR`: why a badge was earned (which run, which rule, which numbers) or why not
/// yet and what would earn it (the rules' hints and progress).
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain one badge: which run earned it and why, or how far you are and what would earn it.",
        discussion: """
            BADGE is a badge id (five-k, week-100k) or a badge's name ("Five K", themed names too). \
            Every run under DIR is evaluated as `badgectl evaluate` does; the answer lists each award of \
            the badge (tier, run, rule, the rule's detail and the run's distance, time and pace) and what \
            each rule says is still to do (its hint and progress).

            Examples:
              badgectl explain \"Ten K\" ~/runs
              badgectl explain week-100k ~/runs --as-of 2026-09-30

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("The badge id (or name).", valueName: "badge"))
    var badge: String

    @Argument(help: ArgumentHelp("A folder of run files (or one run file).", valueName: "dir"))
    var directory: String

    @OptionGroup var options: PipelineOptions

    @Option(name: .long, help: "Output format: table (for people) or json.")
    var format: OutputFormat = .table

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    @Flag(name: .long, help: "Show every column of the table, however wide (by default it fits the terminal or $COLUMNS).")
    var wide = false

    func run() throws {
        if wide { Terminal.unlimited = true }
        let text: String, explanation: BadgeExplanation
        do {
            (text, explanation) = try output()
        } catch let error as CommandError {
            // An unknown badge is a usage error (64, under explain's usage), with the closest badge suggested.
            if case .unknownBadge = error { throw error.usage }
            throw error
        }
        print(text)
        for failure in explanation.ruleErrors { Console.error(CommandError.failed(failure)) }
        for error in explanation.fileErrors { Console.error(CommandError.skipped + error) }
        if !explanation.ruleErrors.isEmpty || !explanation.fileErrors.isEmpty { throw ExitCode(ExitStatus.partial.rawValue) }
    }

    /// What `run` prints, and the explanation behind it (tests call this in-process).
    func output() throws -> (String, BadgeExplanation) {
        let pipeline = try EvaluationPipeline(options, failures: .rethrow)
        let known = pipeline.theme.apply(Self.knownBadges(catalogue: pipeline.catalogue, packs: pipeline.engine.packs))
        let target: CatalogueBadge
        do {
            target = try Self.find(badge, in: known)
        } catch CommandError.unknownBadge where !pipeline.engine.loadFailures.isEmpty {
            // The badge may be declared by a pack that did not load: its load error is the answer, not
            // a "did you mean" among the badges that did.
            throw CommandError.badgeOfUnloadedPack(id: badge, failures: pipeline.engine.loadFailures.map(\.description))
        }
        let outcome = try pipeline.run(directory: directory, cache: cacheOptions.open())
        let explanation = BadgeExplanation(badge: target, theme: pipeline.theme.name, evaluation: outcome.evaluation,
                                           runs: outcome.folder.runs, fileErrors: outcome.folder.errors.map { "\($0.message)" })
        switch format {
        case .json: return (try JSONOutput.encode(explanation), explanation)
        case .table: return (Self.table(explanation), explanation)
        }
    }

    /// The catalogue's badges, then the packs' own (first declaration of an id wins).
    static func knownBadges(catalogue: Catalogue, packs: [RulePack]) -> [CatalogueBadge] {
        var result = catalogue.badges
        var seen = Set(result.map(\.id))
        for badge in packs.flatMap(\.badges) where seen.insert(badge.id).inserted { result.append(badge) }
        return result
    }

    /// The badge with this id, else the one with this name (case-insensitive).
    /// - Throws: `CommandError.unknownBadge` with the closest id.
    static func find(_ query: String, in badges: [CatalogueBadge]) throws -> CatalogueBadge {
        if let exact = badges.first(where: { $0.id == query }) { return exact }
        let folded = query.lowercased()
        if let byName = badges.first(where: { $0.name.lowercased() == folded || $0.id.lowercased() == folded }) { return byName }
        // Ids and names alike (the one suggester, with no distance limit: some badge is always named).
        let candidates = badges.flatMap { [($0.id.lowercased(), $0.id), ($0.name.lowercased(), $0.id)] }
        let best = Suggestion.closest(to: folded, in: candidates.map { $0.0 }, maxDistance: Int.max)
        throw CommandError.unknownBadge(id: query, suggestion: best.flatMap { name in candidates.first { $0.0 == name }?.1 })
    }

    /// A measure behind an award: one line of its fields; a segment's efforts one line each (its run,
    /// elapsed time, pace and both gates: where and when the run crossed them); tiles by count, not key.
    static func measureLines(name: String, kind: String, value: MeasureValue?, run: String) -> [String] {
        guard let value else { return ["    measure \(name): nil"] }
        switch kind {
        case MeasureKind.segment.name:
            guard case .list(let efforts)? = value[.efforts] else { break }
            let best = value[.best]?.number.map { Int($0) }
            var lines = ["    measure \(name): segment of \(Format.distance(value[.lengthMeters]?.number)), \(Format.count(efforts.count, "effort")) on \(run)"]
            for (index, effort) in efforts.enumerated() {
                guard case .record(let f) = effort else { continue }
                func gate(_ lat: MeasureField, _ lon: MeasureField, _ elapsed: MeasureField) -> String {
                    let at = f[elapsed]?.number.map { " at " + Format.duration($0) } ?? ""
                    return Format.position(latitude: f[lat]?.number ?? .nan, longitude: f[lon]?.number ?? .nan) + at
                }
                let pace = f[.paceSecondsPerKilometre]?.number.map { " (\(Format.paceText($0)))" } ?? ""
                lines.append("      effort \(index + 1): \(Format.duration(f[.elapsedSeconds]?.number))\(pace), "
                             + "start gate \(gate(.startLatitude, .startLongitude, .startElapsedSeconds)), "
                             + "end gate \(gate(.endLatitude, .endLongitude, .endElapsedSeconds))"
                             + (best == index + 1 ? "  best" : ""))
            }
            return lines
        case MeasureKind.tiles.name:
            let zoom = value[.zoom]?.number.map { String(Int($0)) } ?? "?"
            return ["    measure \(name): \(value[.count]?.text ?? "0") tiles at zoom \(zoom)"]
        default:
            break
        }
        return ["    measure \(name): " + value.text(kind: kind)]
    }

    static func table(_ e: BadgeExplanation) -> String {
        var out: [String] = []
        let packs = Array(Set(e.awards.map(\.pack) + e.statuses.map(\.pack))).sorted()
        out.append("\(e.name) (\(e.badge))" + (packs.isEmpty ? "" : ", pack \(packs.joined(separator: ", "))"))
        if !e.information.isEmpty { out.append(e.information) }
        out.append("")
        if e.awards.isEmpty {
            out.append("Not earned yet.")
        } else {
            out.append("Earned: \(Format.count(e.awards.count, "award")).")
            var table = TextTable("TIER", "DATE", "RUN", "DISTANCE", "TIME", "PACE", "RULE", "DETAIL")
            table.droppable = ["RULE", "RUN", "TIME"]
            for award in e.awards {
                table.add(award.tier, award.localDate ?? Format.date(award.at), award.run, Format.distance(award.distanceMeters),
                          Format.duration(award.elapsedSeconds), Format.paceText(award.paceSecondsPerKilometre),
                          "\(award.pack)/\(award.rule)", award.detail.isEmpty ? ClockText.unknown : award.detail)
            }
            out.append(table.render())
            // The measures behind each award, as the rule read them, and the evidence it gave.
            for award in e.awards where !award.measureLines.isEmpty || award.evidence != nil {
                out.append("  \(award.tier) on \(award.run):")
                for measure in award.measureLines {
                    out += measureLines(name: measure.name, kind: measure.kind, value: measure.value, run: award.run)
                }
                if let evidence = award.evidence { out.append("    evidence: \(evidence.text)") }
            }
        }
        for note in e.measureNotes { out.append("Note: \(note)") }
        if !e.exclusions.isEmpty {
            out.append("")
            out.append("Runs the pack does not count (its eligibility in pack.lua):")
            for exclusion in e.exclusions { out.append("  \(exclusion.run) (\(exclusion.pack)): excluded: \(exclusion.reason)") }
        }
        if !e.statuses.isEmpty || e.remainingMeters != nil {
            out.append("")
            out.append(e.awards.isEmpty ? "What would earn it:" : "What next:")
            for status in e.statuses {
                var line = "  \(status.pack)/\(status.rule): \(status.hint ?? "no hint")"
                if let progress = status.progress { line += " [\(describe(progress))]" }
                out.append(line)
            }
            if let remaining = e.remainingMeters { out.append("  \(Format.distance(remaining)) to go.") }
            for target in e.targets {
                var pace = target.paceSecondsPerKilometre.map { " at \(Format.paceText($0)) or faster" } ?? ""
                if let elapsed = target.elapsedSeconds { pace = " in \(Format.duration(elapsed)) or less" }
                out.append("  \(targetLabel(target.tier)): a run of \(Format.distance(target.distanceMeters)) or more\(pace)")
            }
        }
        if !e.ruleErrors.isEmpty {
            out.append("")
            let packs = e.ruleErrors.filter(\.isPackFailure).count, rules = e.ruleErrors.count - packs
            let what = [packs > 0 ? Format.count(packs, "pack") : nil, rules > 0 ? Format.count(rules, "rule") : nil].compactMap { $0 }
            out.append("\(what.joined(separator: " and ")) failed (see stderr): the answer may be incomplete.")
        }
        return out.joined(separator: "\n")
    }

    /// What a target line says it is for: `to earn it` (never the bare tier `earned`, which would read
    /// as already earned), `for silver`.
    static func targetLabel(_ tier: String) -> String { tier == "earned" ? "to earn it" : "for \(tier)" }

    /// `38.2 of 100 km (38%)`; times (`s`) as clock times.
    static func describe(_ progress: BadgeRules.Progress) -> String {
        if progress.unit == "m" && progress.target >= 1000 {
            let share = progress.target > 0 ? min(1, progress.current / progress.target) * 100 : 0
            return "\(Format.distance(progress.current)) of \(Format.distance(progress.target))" + String(format: " (%.0f%%)", share)
        }
        func number(_ value: Double) -> String {
            if progress.unit == "s" { return Format.duration(value) }
            return value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.1f", value)
        }
        let unit = progress.unit == "s" ? "" : " " + progress.unit
        var text = "\(number(progress.current)) of \(number(progress.target))\(unit)"
        if progress.unit != "s" && progress.unit != "%" && progress.target > 0 {
            text += String(format: " (%.0f%%)", min(1, progress.current / progress.target) * 100)
        }
        return text
    }
}

/// What `badgectl explain --format json` prints.
public struct BadgeExplanation: Encodable, Sendable {
    /// One award of the badge, with the numbers of the run that earned it.
    public struct AwardLine: Encodable, Sendable {
        public var tier: String
        public var run: String
        @NullEncoded public var at: String?
        public var pack: String
        public var rule: String
        public var detail: String
        @NullEncoded public var distanceMeters: Double?
        @NullEncoded public var elapsedSeconds: Double?
        @NullEncoded public var paceSecondsPerKilometre: Double?
        @NullEncoded public var progress: BadgeRules.Progress?
        /// The measures the rule read from the run before awarding, by name (null: the run has none).
        public var measures: [String: MeasureValue?] = [:]
        /// Provenance: the pack's version and what the rule showed for the award (null: nothing).
        public var packVersion = ""
        @NullEncoded public var evidence: Evidence? = nil
        /// The same, in name order with their kinds (for the table).
        var measureLines: [AwardMeasure] = []
        /// The run's local date (`--tz`, or its file's offset), for the table's DATE.
        var localDate: String?

        enum CodingKeys: String, CodingKey {
            case tier, run, at, pack, rule, detail
            case distanceMeters = "distance_m"
            case elapsedSeconds = "elapsed_s"
            case paceSecondsPerKilometre = "pace_s_per_km"
            case progress, measures, evidence
            case packVersion = "pack_version"
        }
    }

    public var badge: String
    public var name: String
    public var information: String
    @NullEncoded public var image: String?
    @NullEncoded public var theme: String?
    /// True when the badge has an award (set with `awards`).
    public private(set) var earned: Bool
    public var awards: [AwardLine] { didSet { earned = !awards.isEmpty } }
    /// What each rule says about the badge ("why not yet", the next tier).
    public var statuses: [BadgeStatus]
    /// Distance still to run when a rule names this badge as its `next`.
    @NullEncoded public var remainingMeters: Double?
    public var ruleErrors: [RuleFailure]
    public var fileErrors: [String]
    /// Why measures of the badge's packs are nil in every run (no athlete profile for a zone).
    public var measureNotes: [String] = []
    /// The runs the badge's packs leave out by their `eligibility` (`pack.lua`), with why.
    public var exclusions: [Exclusion] = []
    /// Runs that would earn a tier still to earn, for a badge with a distance: the distance (the
    /// next 10 m above the badge's, as comparisons are strict) and, for silver and gold, the pace (the
    /// whole second below the rule's pace). Each is rounded to the qualifying side, so
    /// `badgectl whatif DIR --distance <distance_m>m --pace <pace>` earns the tier.
    public var targets: [Target] = []

    /// A run that would earn `tier`: at least `distanceMeters`, at `paceSecondsPerKilometre` or faster
    /// (nil: any pace); `rule` names the rule whose status gave it (nil: from the silver and gold paces).
    public struct Target: Encodable, Sendable, Equatable {
        public var tier: String
        public var distanceMeters: Double
        @NullEncoded public var paceSecondsPerKilometre: Double? = nil
        @NullEncoded public var rule: String? = nil
        /// The run's time, when the rule named one (`pace_s_per_km` is then this time over the distance).
        @NullEncoded public var elapsedSeconds: Double? = nil
        enum CodingKeys: String, CodingKey {
            case tier, rule
            case elapsedSeconds = "elapsed_s"
            case distanceMeters = "distance_m"
            case paceSecondsPerKilometre = "pace_s_per_km"
        }
    }

    /// The whole second below a pace a run must beat (`a < target`), at least 0.1 s below it (a what-if
    /// run is 0.01% slower than asked, `WhatIf.slowdown`; nobody paces to a tenth of a second).
    static func qualifyingPace(_ target: Double) -> Double { Format.tierPace(target) }
    /// The next 10 m strictly above a distance a run must exceed (`a > target`), and at least the
    /// shortest run `whatif` makes (100 m: the lace-up badge's distance is 0).
    static func qualifyingDistance(_ target: Double) -> Double {
        max(WhatIf.distanceRange.lowerBound, ((target / 10).rounded(.down) + 1) * 10)
    }

    init(badge: CatalogueBadge, theme: String?, evaluation: Evaluation, runs: [RunSummary], fileErrors: [String]) {
        self.badge = badge.id; name = badge.name; information = badge.information; image = badge.image
        self.theme = theme
        let byId = Dictionary(runs.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        awards = evaluation.awards.filter { $0.badge == badge.id }.map { award in
            let run = byId[award.run]
            var line = AwardLine(tier: award.tier, run: award.run, at: award.at, pack: award.pack, rule: award.rule, detail: award.detail,
                                 distanceMeters: run?.distanceMeters, elapsedSeconds: run?.elapsedSeconds,
                                 paceSecondsPerKilometre: run?.paceSecondsPerKilometre, progress: award.progress)
            line.measureLines = award.measures
            line.localDate = run?.localDate
            line.packVersion = award.packVersion
            line.evidence = award.evidence
            for measure in award.measures { line.measures[measure.name] = .some(measure.value) }
            return line
        }
        earned = !awards.isEmpty
        statuses = evaluation.statuses.filter { $0.badge == badge.id }
        remainingMeters = evaluation.nexts.filter { $0.badge == badge.id }.map(\.remainingMeters).min()
        ruleErrors = evaluation.failures
        self.fileErrors = fileErrors
        let packs = Set(awards.map(\.pack) + statuses.map(\.pack))
        // Only where the badge is not earned: then a measure that is nil everywhere may be why.
        let notes = evaluation.notes.filter { $0.rule == nil && packs.contains($0.pack) && RuleNote.isUnavailableMeasure($0.message) }
        measureNotes = awards.isEmpty ? notes.map { "\($0.pack): \($0.message)" } : []
        exclusions = evaluation.exclusions.filter { packs.contains($0.pack) }
        for status in statuses {
            guard let target = status.target else { continue }
            targets.append(Target(tier: target.tier, distanceMeters: target.distanceMeters,
                                  paceSecondsPerKilometre: target.elapsedSeconds.map { $0 / (target.distanceMeters / 1000) },
                                  rule: "\(status.pack)/\(status.rule)", elapsedSeconds: target.elapsedSeconds))
        }
        if let distance = badge.distanceMeters, !statuses.contains(where: { $0.target != nil }) {
            let over = Self.qualifyingDistance(distance)
            if awards.isEmpty && remainingMeters != nil { targets.append(Target(tier: "earned", distanceMeters: over)) }
            for status in statuses {
                if let silver = status.silverPaceSecondsPerKilometre, silver > 1 {
                    targets.append(Target(tier: "silver", distanceMeters: over, paceSecondsPerKilometre: Self.qualifyingPace(silver)))
                }
                if let gold = status.goldPaceSecondsPerKilometre, gold > 1 {
                    targets.append(Target(tier: "gold", distanceMeters: over, paceSecondsPerKilometre: Self.qualifyingPace(gold)))
                }
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case badge, name, information, image, theme, earned, awards, statuses
        case remainingMeters = "remaining_m"
        case ruleErrors = "rule_errors"
        case fileErrors = "file_errors"
        case measureNotes = "measure_notes"
        case exclusions
        case targets
    }
}
