import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary
#if canImport(Glibc)
import Glibc
#endif

/// `badgectl diff --worker-input FILE`: the same comparison for many athletes, from the lines
/// `badgectl worker` reads (docs/worker.md): `{"athlete", "tz"?, "path" | "summary", "id"?}`, read
/// by the worker's own reader (`LineReader`, `WorkerLine`, `AthleteGrouping`), run through the same
/// `RunPipeline` and evaluated where every athlete is (`AthleteEvaluator`).
extension DiffCommand {
    /// One athlete's runs, as read from their lines (`WorkerLine`).
    struct Athlete {
        var name: String
        /// The profile their lines gave, fixed by the first (`AthleteGrouping`, as the worker); nil: `--athlete`'s.
        var profile: RunAnalysis.Athlete?
        /// Per run: the line it came from and what it held.
        var lines: [(line: Int, run: WorkerLine)] = []
    }

    /// A line that could not be used: its number, the athlete it named and why.
    struct LineError: Encodable, Equatable {
        var line: Int
        @NullEncoded var athlete: String?
        var message: String
    }

    /// One athlete's changes.
    struct AthleteChanges: Encodable {
        var athlete: String
        var badges: [AwardDiff.BadgeChanges]
        var counts: AwardDiff.Counts
    }

    /// The JSON of `diff --worker-input ... --format json`.
    struct AthletesReport: Encodable {
        var current: EvaluationReport.Header
        var candidate: EvaluationReport.Header
        /// Athletes with a change, in input order.
        var athletes: [AthleteChanges]
        /// Totals over every athlete.
        var counts: AwardDiff.Counts
        var errors: [LineError]
        var ruleErrors: Report.Sides
        enum CodingKeys: String, CodingKey {
            case current, candidate, athletes, counts, errors
            case ruleErrors = "rule_errors"
        }
    }

    /// Reads the lines of `descriptor` with the worker's reader (`LineReader`, `AthleteGrouping`) into
    /// athletes, in order of first appearance (an athlete's lines need not be together here); bad lines
    /// become errors, with the worker's messages. A read error is returned.
    static func athletes(from descriptor: Int32) -> (athletes: [Athlete], errors: [LineError], readError: String?) {
        var athletes: [Athlete] = []
        var errors: [LineError] = []
        let grouping = AthleteGrouping(order: .anyOrder)
        let limit = AthleteGrouping.maximumLineBytes
        let readError = LineReader(descriptor: descriptor, maximumBytes: limit).forEach { item in
            switch item {
            case .tooLong(let number):
                errors.append(LineError(line: number, athlete: nil, message: Worker.Message.tooLong(limit)))
            case .line(let number, let bytes):
                switch grouping.take(line: number, bytes: bytes) {
                case .blank, .flush: break
                case .refused(let name, let message): errors.append(LineError(line: number, athlete: name, message: message))
                case .line(let name, _, _, .failure(let error)): errors.append(LineError(line: number, athlete: name, message: error.description))
                case .line(let name, let ordinal, let starts, .success(let taken)):
                    if starts { athletes.append(Athlete(name: name, profile: taken.profile)) }
                    athletes[ordinal].lines.append((number, taken.run))
                }
            }
        }
        return (athletes, errors, readError)
    }

    /// An athlete's runs as `pipeline` reads them (its analyzer, the cache), to be selected and
    /// evaluated by `AthleteEvaluator`; lines that cannot be read become errors.
    static func runs(of athlete: Athlete, pipeline: RunPipeline, errors: inout [LineError]) -> [RunSummary] {
        var runs: [RunSummary] = []
        var seen: [String: Int] = [:]
        for (number, line) in athlete.lines {
            do {
                if case .remove(let id) = line.source {
                    // A run taken back: the history compared is the one left.
                    runs.removeAll { $0.id == id }
                    seen[id] = nil
                    continue
                }
                if case .forget = line.source {
                    // The athlete's history forgotten: what follows starts it again.
                    runs.removeAll()
                    seen.removeAll()
                    continue
                }
                let read = try line.runs(number: number, pipeline: pipeline)
                for run in read {
                    if let first = seen[run.id] {
                        errors.append(LineError(line: number, athlete: athlete.name, message: Worker.Message.duplicateID(run.id, first)))
                        continue
                    }
                    seen[run.id] = number
                    runs.append(run)
                }
            } catch {
                errors.append(LineError(line: number, athlete: athlete.name, message: "\(error)"))
            }
        }
        return runs
    }

    /// `--worker-input`: evaluates every athlete with both sets of packs and prints the changes.
    func runAthletes(current: EvaluationPipeline, candidate: EvaluationPipeline, input: String, cache: RunCache?) throws {
        let descriptor = input == "-" ? 0 : open(input, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            Console.error(CommandError.prefix + "--worker-input: cannot read \(input): \(String(cString: strerror(errno)))")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        var (athletes, errors, readError) = Self.athletes(from: descriptor)
        if descriptor != 0 { close(descriptor) }
        if let readError {
            Console.error(CommandError.prefix + "--worker-input: cannot read \(input): \(readError)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        var currentRuns = current.runs, candidateRuns = candidate.runs
        currentRuns.cache = cache
        candidateRuns.cache = cache
        var changes: [AthleteChanges] = []
        var total = AwardDiff.Counts()
        var ruleErrors = Report.Sides(current: [], candidate: [])
        let currentEvaluator = AthleteEvaluator(pipeline: currentRuns), candidateEvaluator = AthleteEvaluator(pipeline: candidateRuns)
        for athlete in athletes {
            var lineErrors: [LineError] = []
            let profile = athlete.profile
            let currentHistory = Self.runs(of: athlete, pipeline: currentEvaluator.pipeline(for: profile), errors: &lineErrors)
            let before = currentEvaluator.evaluate(currentHistory, profile: profile).evaluation
            let candidateHistory = Self.runs(of: athlete, pipeline: candidateEvaluator.pipeline(for: profile), errors: &lineErrors)
            let after = candidateEvaluator.evaluate(candidateHistory, profile: profile).evaluation
            // Each side reads the lines; a line that fails fails on both, reported once.
            for error in lineErrors where !errors.contains(error) { errors.append(error) }
            ruleErrors.current += before.failures
            ruleErrors.candidate += after.failures
            let diff = AwardDiff(current: before.awards, candidate: after.awards)
            total.gained += diff.counts.gained
            total.lost += diff.counts.lost
            total.moved += diff.counts.moved
            total.unchanged += diff.counts.unchanged
            if diff.counts.differs { changes.append(AthleteChanges(athlete: athlete.name, badges: diff.badges, counts: diff.counts)) }
        }
        errors.sort { $0.line < $1.line }
        let report = AthletesReport(current: current.header, candidate: candidate.header, athletes: changes, counts: total,
                                    errors: errors, ruleErrors: ruleErrors)
        switch format {
        case .json: print(try JSONOutput.encode(report))
        case .table:
            let names = current.themedCatalogue.badges + current.themedPackBadges + candidate.themedPackBadges
            var out = ["\(Format.count(athletes.count, "athlete")), \(changes.count) with changes: \(total.gained) gained, \(total.lost) lost, \(total.moved) moved, \(total.unchanged) unchanged"]
            for athlete in changes {
                out.append("")
                out.append("\(athlete.athlete):")
                let one = Report(current: report.current, candidate: report.candidate, badges: athlete.badges, counts: athlete.counts,
                                 errors: [], ruleErrors: Report.Sides(current: [], candidate: []))
                out.append(DiffCommand.table(one, names: names))
            }
            print(out.joined(separator: "\n"))
        }
        for error in errors { Console.error(CommandError.skipped + "line \(error.line)\(error.athlete.map { " (\($0))" } ?? ""): \(error.message)") }
        for failure in ruleErrors.current { Console.error(CommandError.failed(failure, side: "current: ")) }
        for failure in ruleErrors.candidate { Console.error(CommandError.failed(failure, side: "candidate: ")) }
        try DiffCommand.requireLoading(current: current, candidate: candidate)
        if total.differs { throw ExitCode(ExitStatus.testsFailed.rawValue) }
        if !errors.isEmpty || !ruleErrors.current.isEmpty || !ruleErrors.candidate.isEmpty { throw ExitCode(ExitStatus.partial.rawValue) }
    }
}
