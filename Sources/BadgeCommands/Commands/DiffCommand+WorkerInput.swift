import ArgumentParser
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// `badgectl diff --worker-input FILE`: the same comparison for many athletes, from the lines
/// `badgectl worker` reads (docs/worker.md): `{"athlete", "tz"?, "path" | "summary", "id"?}`.
extension DiffCommand {
    /// One athlete's runs, as read from their lines.
    struct Athlete {
        var name: String
        /// Per run: the line it came from, its id, its zone, and where it comes from.
        var lines: [(line: Int, id: String?, zone: TimeZone, source: Source)] = []
    }

    /// Where a run comes from: a file, or a summary given in the line.
    enum Source {
        case path(String)
        case summary(Data)
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

    /// Reads the lines of `text` into athletes (in order of first appearance); bad lines become errors.
    static func athletes(from text: String, defaultZone: TimeZone) -> (athletes: [Athlete], errors: [LineError]) {
        var athletes: [Athlete] = []
        var index: [String: Int] = [:]
        var errors: [LineError] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                errors.append(LineError(line: number, athlete: nil, message: "not a JSON object"))
                continue
            }
            guard let name = object["athlete"] as? String, !name.isEmpty else {
                errors.append(LineError(line: number, athlete: nil, message: "missing field 'athlete' (a non-empty string)"))
                continue
            }
            func fail(_ message: String) { errors.append(LineError(line: number, athlete: name, message: message)) }
            var zone = defaultZone
            if let tz = object["tz"] {
                guard let identifier = tz as? String, let found = ZoneNames.zone(named: identifier) else {
                    fail("field 'tz' is not a time zone name (Europe/Paris, UTC)")
                    continue
                }
                zone = found
            }
            // As the worker names runs: `id`, else the file's name, else the summary's start as written.
            let id = object["id"] as? String ?? ((object["summary"] as? [String: Any])?["start"] as? String)
            let source: Source
            switch (object["path"], object["summary"]) {
            case let (path as String, nil):
                source = .path(path)
            case let (nil, summary?) where summary is [String: Any]:
                guard let data = try? JSONSerialization.data(withJSONObject: summary) else { fail("field 'summary' cannot be read"); continue }
                source = .summary(data)
            default:
                fail("give exactly one of 'path' (a run file) and 'summary' (a JSON run summary object)")
                continue
            }
            if index[name] == nil {
                index[name] = athletes.count
                athletes.append(Athlete(name: name))
            }
            athletes[index[name] ?? 0].lines.append((number, id, zone, source))
        }
        return (athletes, errors)
    }

    /// An athlete's runs as `pipeline` sees them (its analyzer: checkpoints and measures), selected as
    /// `evaluate` selects a folder's (duplicates, sport); lines that cannot be read become errors.
    static func runs(of athlete: Athlete, pipeline: EvaluationPipeline, errors: inout [LineError]) -> [RunSummary] {
        let analyzer = pipeline.analyzer()
        var runs: [RunSummary] = []
        var seen = Set<String>()
        for entry in athlete.lines {
            do {
                var read: [RunSummary]
                switch entry.source {
                case .path(let path):
                    let id = entry.id ?? (path as NSString).lastPathComponent
                    read = try RunLoader.load(path: path, id: id, analyzer: analyzer, zoneOffsetSeconds: nil)
                case .summary(let data):
                    let summary = try SummaryReader.read(data: data, source: "line \(entry.line)", id: entry.id ?? "line-\(entry.line)", zoneOffsetSeconds: nil)
                    read = [summary]
                }
                for run in read {
                    guard seen.insert(run.id).inserted else {
                        errors.append(LineError(line: entry.line, athlete: athlete.name, message: "a second run with id '\(run.id)'"))
                        continue
                    }
                    runs.append(RunFolder.localise(run, zone: entry.zone))
                }
            } catch {
                errors.append(LineError(line: entry.line, athlete: athlete.name, message: "\(error)"))
            }
        }
        if !pipeline.keepDuplicates { runs = Duplicates.removeSameActivity(from: runs).kept }
        return RunSelection(option: pipeline.sport).apply(runs).selected
    }

    /// `--worker-input`: evaluates every athlete with both sets of packs and prints the changes.
    func runAthletes(current: EvaluationPipeline, candidate: EvaluationPipeline, input: String) throws {
        let text: String
        do {
            text = input == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                : try String(contentsOfFile: input, encoding: .utf8)
        } catch {
            Console.error(CommandError.prefix + "--worker-input: cannot read \(input): \(error.localizedDescription)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        var (athletes, errors) = Self.athletes(from: text, defaultZone: current.zone)
        var changes: [AthleteChanges] = []
        var total = AwardDiff.Counts()
        var ruleErrors = Report.Sides(current: [], candidate: [])
        for athlete in athletes {
            var lineErrors: [LineError] = []
            let before = current.engine.evaluate(runs: Self.runs(of: athlete, pipeline: current, errors: &lineErrors))
            let after = candidate.engine.evaluate(runs: Self.runs(of: athlete, pipeline: candidate, errors: &lineErrors))
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
            var out = ["\(athletes.count) athletes, \(changes.count) with changes: \(total.gained) gained, \(total.lost) lost, \(total.moved) moved, \(total.unchanged) unchanged"]
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
        for failure in ruleErrors.current { Console.error(CommandError.ruleFailed + "current: \(failure)") }
        for failure in ruleErrors.candidate { Console.error(CommandError.ruleFailed + "candidate: \(failure)") }
        try DiffCommand.requireLoading(current: current, candidate: candidate)
        if total.differs { throw ExitCode(ExitStatus.testsFailed.rawValue) }
        if !errors.isEmpty || !ruleErrors.current.isEmpty || !ruleErrors.candidate.isEmpty { throw ExitCode(ExitStatus.partial.rawValue) }
    }
}
