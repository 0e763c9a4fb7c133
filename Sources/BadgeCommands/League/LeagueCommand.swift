import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunFiles

/// The output of `badgectl league`.
public enum LeagueFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case json, table
}

/// `badgectl league`: the worker's input lines, every athlete evaluated as the worker evaluates it,
/// then the cross-athlete lines (docs/league.md).
struct LeagueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "league",
        abstract: "Crowns, leaderboards, Local Legends, club challenges and rarity across the athletes of worker lines on stdin.",
        discussion: """
            Reads the worker's input lines (docs/worker.md; a line may also give "sex", "birth_date" \
            (YYYY-MM-DD) and "team"), evaluates each athlete as `badgectl worker` does, then writes one \
            JSON line per result, each with a kind (crown, rank, legend, club, rarity) and a deterministic id. \
            A bad line is skipped and named on stderr; exit status 2 when anything was skipped. \
            The lines are described in docs/league.md.

            Examples:
              badgectl league --root /data --by sex age < runs.jsonl > league.jsonl
              badgectl league --club distance=100000 --format table < runs.jsonl

            \(ExitStatus.help)
            """
    )

    @OptionGroup var options: PipelineOptions

    @Option(name: .long, help: ArgumentHelp("Output: json (one line per result) or table.", valueName: "format"))
    var format: LeagueFormat = .json

    @Option(name: .long, help: ArgumentHelp(
        "Rarity lines only when at least this many athletes have a counted run.", valueName: "count"))
    var minAthletes = 10

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp(
        "Leaderboards per category too: sex, age (group from birth_date) and/or team.", valueName: "category"))
    var by: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "A club goal, MEASURE=GOAL (distance and climb in metres, runs, time in seconds): each team's total over the club period against it. Repeatable.",
        valueName: "goal"))
    var club: [String] = []

    @Option(name: .long, help: ArgumentHelp("The club period in days, ending at the as-of instant.", valueName: "days"))
    var clubDays = 28

    @Flag(name: .long, help: ArgumentHelp(
        "Write each athlete's facts (one JSON line each) instead of the results: the map step of a distributed job (docs/league.md, \"Map and reduce\")."))
    var facts = false

    @Flag(name: .long, help: ArgumentHelp(
        "Read facts lines (written by --facts) on stdin instead of the worker's lines, and write the results: the reduce step."))
    var fromFacts = false

    @Option(name: .long, help: ArgumentHelp(
        "Read run files only inside this folder (as `badgectl worker --root`).", valueName: "dir"))
    var root: String?

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        if facts && fromFacts { throw ValidationError("--facts and --from-facts go to two different steps: give one") }
        if minAthletes < 1 { throw ValidationError("--min-athletes must be 1 or more") }
        if clubDays < 1 { throw ValidationError("--club-days must be 1 or more") }
        for category in by where League.Category(rawValue: category) == nil {
            throw ValidationError("--by \(ShownName.of(category)): expected sex, age or team")
        }
        for goal in club where League.ClubGoal(goal) == nil {
            throw ValidationError("--club \(ShownName.of(goal)): expected MEASURE=GOAL with MEASURE one of distance, climb, runs, time and GOAL > 0")
        }
        if let root {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--root \(ShownName.of(root)): no such folder")
            }
        }
    }

    func run() throws {
        let pipeline = try EvaluationPipeline(options, failures: .printAndExit)
        var runs = pipeline.runs
        runs.cache = cacheOptions.open()
        var leagueOptions = League.Options()
        leagueOptions.minimumAthletes = minAthletes
        leagueOptions.categories = by.compactMap(League.Category.init(rawValue:))
        leagueOptions.goals = club.compactMap(League.ClubGoal.init)
        leagueOptions.clubDays = clubDays
        leagueOptions.asOf = try LeagueCommand.endOfDay(options.asOf.date(), zone: runs.zone)
        let setup = Worker.Setup(pipeline: runs, sport: options.selection.sport, maximumErrors: nil,
                                 root: root.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
        let (league, reading) = fromFacts
            ? LeagueCommand.collectFacts(packs: runs.engine.packs, limits: runs.engine.limits, options: leagueOptions, from: 0)
            : LeagueCommand.collect(setup: setup, options: leagueOptions, from: 0)
        EvaluationPipeline.printWarnings(of: runs.cache)
        var text = ""
        if facts {
            for line in league.factLines() { text += WorkerLines.encode(line) + "\n" }
            WorkerCommand.writeAll(Array(text.utf8), to: 1)
            if case .skipped(let count) = reading, count > 0 { throw ExitCode(ExitStatus.partial.rawValue) }
            if case .readError(let message) = reading {
                Console.error(CommandError.prefix + "cannot read stdin: \(message)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
            return
        }
        let lines = league.lines()
        for failure in league.failures { Console.error(CommandError.prefix + failure) }
        var outcome = reading
        if case .skipped(let count) = reading { outcome = .skipped(count + league.failures.count) }
        switch format {
        case .json:
            for line in lines { text += WorkerLines.encode(line) + "\n" }
        case .table:
            text = LeagueCommand.table(lines)
        }
        WorkerCommand.writeAll(Array(text.utf8), to: 1)
        switch outcome {
        case .readError(let message):
            Console.error(CommandError.prefix + "cannot read stdin: \(message)")
            throw ExitCode(ExitStatus.failure.rawValue)
        case .skipped(let count) where count > 0:
            Console.error(CommandError.prefix + "\(count) line\(count == 1 ? "" : "s") or rule\(count == 1 ? "" : "s") failed; the rest was counted")
            throw ExitCode(ExitStatus.partial.rawValue)
        default:
            break
        }
    }

    /// How reading went.
    enum Outcome: Equatable {
        case skipped(Int)
        case readError(String)
    }

    /// Reads every line of `descriptor`, evaluates each athlete through the worker and gathers the
    /// facts (the library entry `badgectl league` calls; tests call it too).
    static func collect(setup: Setup, options: League.Options, from descriptor: Int32) -> (League, Outcome) {
        let league = League(packs: setup.pipeline.engine.packs, options: options)
        var hookFailures = 0
        for pack in setup.pipeline.engine.packs {
            do {
                if let hook = try LeagueHook.load(pack: pack, limits: setup.pipeline.engine.limits) { league.hooks.append(hook) }
            } catch {
                hookFailures += 1
                Console.error(CommandError.prefix + "\(error)")
            }
        }
        let worker = Worker(setup: setup, write: { _ in }, flush: {})
        var profiles: [String: League.Profile] = [:]
        var skipped = 0
        worker.observe = { athlete, runs, evaluation in
            league.add(athlete: athlete, profile: profiles.removeValue(forKey: athlete) ?? League.Profile(), runs: runs, evaluation: evaluation)
        }
        let limit = SummaryReader.maximumBytes + 4096
        let readError = LineReader(descriptor: descriptor, maximumBytes: limit).forEach { item in
            switch item {
            case .line(let number, let bytes):
                switch profile(of: bytes, number: number) {
                case .failure(let error):
                    skipped += 1
                    Console.error(CommandError.prefix + "line \(number): \(error.description); skipped")
                case .success(let found):
                    if let (athlete, profile) = found, profiles[athlete] == nil, profile != League.Profile() { profiles[athlete] = profile }
                    worker.take(line: number, bytes: bytes)
                }
            case .tooLong(let number): worker.takeTooLong(line: number, limit: limit)
            }
        }
        let outcome = worker.finish()
        if let readError { return (league, .readError(readError)) }
        switch outcome {
        case .complete: return (league, .skipped(skipped + hookFailures))
        case .partial(let errors), .stopped(_, let errors): return (league, .skipped(skipped + hookFailures + errors))
        }
    }

    typealias Setup = Worker.Setup

    /// Reads facts lines (`--facts`'s) from `descriptor` into a league over `packs` (the reduce step);
    /// a line that is not a facts line is skipped and named.
    static func collectFacts(packs: [RulePack], limits: RuleEngine.Limits, options: League.Options,
                             from descriptor: Int32) -> (League, Outcome) {
        let league = League(packs: packs, options: options)
        var skipped = 0
        for pack in packs {
            do {
                if let hook = try LeagueHook.load(pack: pack, limits: limits) { league.hooks.append(hook) }
            } catch {
                skipped += 1
                Console.error(CommandError.prefix + "\(error)")
            }
        }
        let decoder = JSONDecoder()
        var seen: [String: Int] = [:]
        let readError = LineReader(descriptor: descriptor, maximumBytes: 64 << 20).forEach { item in
            switch item {
            case .line(let number, let bytes):
                guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { return }
                do {
                    let facts = try decoder.decode(FactsLine.self, from: Data(buffer: bytes))
                    if let first = seen[facts.athlete] {
                        skipped += 1
                        Console.error(CommandError.prefix + "line \(number): " + Message.factsTwice(facts.athlete, first: first))
                        return
                    }
                    seen[facts.athlete] = number
                    league.add(facts)
                } catch {
                    skipped += 1
                    Console.error(CommandError.prefix + "line \(number): " + Message.notFacts(error))
                }
            case .tooLong(let number):
                skipped += 1
                Console.error(CommandError.prefix + "line \(number): longer than 64 MiB; skipped")
            }
        }
        if let readError { return (league, .readError(readError)) }
        return (league, .skipped(skipped))
    }

    /// Messages of a line's league fields.
    enum Message {
        static func mustBeString(_ field: String) -> String { "\"\(field)\" must be a non-empty string" }
        static let birthDate = "\"birth_date\" must be a date YYYY-MM-DD"
        static func factsTwice(_ athlete: String, first: Int) -> String {
            "athlete \(ShownValue.quoted(athlete))'s facts were given on line \(first) already (partition the worker's lines by athlete); skipped"
        }
        static func notFacts(_ error: Error) -> String { "not a facts line of badgectl league --facts (\(error)); skipped" }
    }

    /// The athlete and the league fields of a line (nil when the line names no athlete: the worker
    /// reports it); a field of the wrong type is the line's error.
    static func profile(of bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Result<(String, League.Profile)?, WorkerLine.LineError> {
        guard case .object(let fields)? = try? JSONText.parse(bytes, source: "line \(number)"),
              case .string(let athlete)? = fields["athlete"] else { return .success(nil) }
        var profile = League.Profile()
        for (key, path) in [("sex", \League.Profile.sex), ("team", \League.Profile.team), ("birth_date", \League.Profile.birthDate)] {
            switch fields[key] {
            case nil, .null?: continue
            case .string(let value)? where !value.isEmpty: profile[keyPath: path] = value
            default: return .failure(WorkerLine.LineError(description: Message.mustBeString(key)))
            }
        }
        if let birth = profile.birthDate, !AsOfOptions.isDate(birth) {
            return .failure(WorkerLine.LineError(description: Message.birthDate))
        }
        return .success((athlete, profile))
    }

    /// The end of local date `date` in `zone` (epoch seconds); nil without a date.
    static func endOfDay(_ date: String?, zone: TimeZone) -> Double? {
        guard let date else { return nil }
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
              let next = calendar.date(byAdding: .day, value: 1, to: start) else { return nil }
        return next.timeIntervalSince1970 - 0.001
    }

    /// The lines as a table for people: kind, key, athlete, value.
    static func table(_ lines: [LeagueLine]) -> String {
        let rows = [["KIND", "KEY", "ATHLETE", "VALUE"]] + lines.map { [$0.kind, $0.key, $0.athlete ?? "-", $0.value] }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[3]
        }.joined(separator: "\n") + "\n"
    }
}
