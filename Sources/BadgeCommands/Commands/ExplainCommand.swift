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

    @Option(name: .long, help: ArgumentHelp(
        "A saved state (made by evaluate --state, kept by add, remove, or a worker's athlete as DIR/ATHLETE of its --state-dir): also name the badge's awards it took back, when and why.",
        valueName: "dir"))
    var state: String?

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
        let known = pipeline.theme.apply(BadgeExplanation.knownBadges(catalogue: pipeline.catalogue, packs: pipeline.engine.packs))
        let target: CatalogueBadge
        do {
            target = try Self.find(badge, in: known)
        } catch CommandError.unknownBadge where !pipeline.engine.loadFailures.isEmpty {
            // The badge may be declared by a pack that did not load: its load error is the answer, not
            // a "did you mean" among the badges that did.
            throw CommandError.badgeOfUnloadedPack(id: badge, failures: pipeline.engine.loadFailures.map(\.description))
        }
        let outcome = try pipeline.run(directory: directory, cache: cacheOptions.open())
        var explanation = BadgeExplanation(badge: target, theme: pipeline.theme.name, evaluation: outcome.evaluation,
                                           runs: outcome.folder.runs, fileErrors: outcome.folder.errors.map { "\($0.message)" })
        if let state {
            // What the state took back and the folder does not give again.
            let given = Set(outcome.evaluation.awards.map(IncrementalEvaluator.identity))
            explanation.withdrawn = try StateStore.at(state).takenBack()
                .filter { $0.award.badge == target.id && !given.contains(IncrementalEvaluator.identity($0.award)) }
        }
        switch format {
        case .json: return (try JSONOutput.encode(explanation), explanation)
        case .table: return (Self.table(explanation), explanation)
        }
    }

    /// The badge with this id, else the one with this name (case-insensitive).
    /// - Throws: `CommandError.unknownBadge` with the closest id.
    static func find(_ query: String, in badges: [CatalogueBadge]) throws -> CatalogueBadge {
        if let badge = BadgeExplanation.badge(query, in: badges) { return badge }
        throw CommandError.unknownBadge(id: query, suggestion: BadgeExplanation.closestBadge(to: query, in: badges))
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
        if !e.withdrawn.isEmpty {
            out.append("")
            out.append("Taken back (by the saved state):")
            var table = TextTable("TIER", "RUN", "TAKEN BACK", "WHY")
            table.droppable = ["RUN"]
            for withdrawal in e.withdrawn {
                table.add(withdrawal.award.tier, withdrawal.award.run, Format.date(withdrawal.at), withdrawal.why)
            }
            out.append(table.render())
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
