import ArgumentParser
import BadgeLeague
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
            Reads the worker's input lines (docs/worker.md; a line's profile "sex" and "birth_date" \
            (YYYY-MM-DD) are also the athlete's categories, and it may give "team"), evaluates each athlete \
            with their own profile as `badgectl worker` does, then writes one \
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
        "Write the facts (a KEY<tab>JSON line per group each athlete is in) instead of the results: the map step of a distributed job (docs/league.md, \"Map and reduce\")."))
    var facts = false

    @Flag(name: .long, help: ArgumentHelp(
        "Read facts lines (written by --facts, in any order) on stdin instead of the worker's lines, and write the results: the reduce step."))
    var fromFacts = false

    @Option(name: .long, help: ArgumentHelp(
        "Facts held in memory before a sorted run goes to a temporary file, in KiB: the stage's memory beside the largest group (docs/league.md, \"Memory\").",
        valueName: "kib"))
    var sortBufferKib = 32768

    @Option(name: .long, help: ArgumentHelp(
        "Read run files only inside this folder (as `badgectl worker --root`).", valueName: "dir"))
    var root: String?

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        if facts && fromFacts { throw ValidationError("--facts and --from-facts go to two different steps: give one") }
        if minAthletes < 1 { throw ValidationError("--min-athletes must be 1 or more") }
        if sortBufferKib < 1 { throw ValidationError("--sort-buffer-kib must be 1 or more") }
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
        let league = League(packs: runs.engine.packs, options: leagueOptions)
        var hookFailures = 0
        if !facts {
            for failure in league.loadHooks(of: runs.engine.packs, limits: runs.engine.limits) {
                hookFailures += 1
                Console.error(CommandError.prefix + failure)
            }
        }
        if facts {
            // The map alone: each athlete's facts as it is evaluated, unsorted, as lines for another process.
            var pending: [UInt8] = []
            let reading = LeagueCommand.map(setup: setup, league: league, from: 0) { fact in
                pending += Array(fact.line.utf8) + [0x0A]
                if pending.count >= 1 << 16 { WorkerCommand.writeAll(pending, to: 1); pending = [] }
            }
            WorkerCommand.writeAll(pending, to: 1)
            EvaluationPipeline.printWarnings(of: runs.cache)
            try LeagueCommand.exit(reading, extra: 0)
            return
        }
        // Map (or read facts), sort in bounded memory, reduce one group at a time.
        let sorter = FactsSorter(bufferBytes: sortBufferKib << 10, removeOnInterrupt: true)
        var sortError: Error?
        let add: (Fact) -> Void = { fact in
            guard sortError == nil else { return }
            do { try sorter.add(fact) } catch { sortError = error }
        }
        let reading = fromFacts
            ? LeagueCommand.readFacts(from: 0, add)
            : LeagueCommand.map(setup: setup, league: league, from: 0, add)
        EvaluationPipeline.printWarnings(of: runs.cache)
        var tableLines: [LeagueLine] = []
        var pending: [UInt8] = []
        let json = format == .json
        let reduce = League.Reduce(league: league) { line in
            guard json else { tableLines.append(line); return }
            pending += Array(JSONOutput.line(line).utf8) + [0x0A]
            if pending.count >= 1 << 16 { WorkerCommand.writeAll(pending, to: 1); pending = [] }
        }
        do {
            if let sortError { throw sortError }
            try sorter.finish { reduce.take($0) }
        } catch {
            Console.error(CommandError.prefix + "cannot sort the facts in a temporary folder: \(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        reduce.finish()
        WorkerCommand.writeAll(json ? pending : Array(LeagueCommand.table(tableLines).utf8), to: 1)
        for failure in league.failures { Console.error(CommandError.prefix + failure) }
        try LeagueCommand.exit(reading, extra: hookFailures + league.failures.count)
    }

    /// The exit for how reading went and `extra` failures (hooks, refused facts).
    static func exit(_ reading: Outcome, extra: Int) throws {
        switch reading {
        case .readError(let message):
            Console.error(CommandError.prefix + "cannot read stdin: \(message)")
            throw ExitCode(ExitStatus.failure.rawValue)
        case .skipped(let skipped):
            let count = skipped + extra
            guard count > 0 else { return }
            Console.error(CommandError.prefix + "\(count) line\(count == 1 ? "" : "s") or rule\(count == 1 ? "" : "s") failed; the rest was counted")
            throw ExitCode(ExitStatus.partial.rawValue)
        }
    }

    /// How reading went.
    enum Outcome: Equatable {
        case skipped(Int)
        case readError(String)
    }

    typealias Setup = Worker.Setup

    /// The map: reads every line of `descriptor`, evaluates each athlete through the worker and hands
    /// over its facts (after the groups' markers) as it goes; nothing of an athlete is kept.
    static func map(setup: Setup, league: League, from descriptor: Int32, _ write: @escaping (Fact) -> Void) -> Outcome {
        for fact in league.markers() { write(fact) }
        let worker = Worker(setup: setup, write: { _ in }, flush: {})
        worker.diagnose = { Console.error(CommandError.prefix + $0) }
        var teams: [String: String] = [:]
        var skipped = 0
        worker.observe = { athlete, given, runs, evaluation in
            // Sex and birth date are the athlete's profile, as the worker read it from their lines
            // (the one profile parser; WorkerLine.Profiles); the team is the league's own field.
            let profile = League.Profile(sex: given?.sex, birthDate: given?.birthDate, team: teams.removeValue(forKey: athlete))
            for fact in league.facts(athlete: athlete, profile: profile, runs: runs, evaluation: evaluation) { write(fact) }
        }
        let limit = AthleteGrouping.maximumLineBytes
        let readError = LineReader(descriptor: descriptor, maximumBytes: limit).forEach { item in
            switch item {
            case .line(let number, let bytes):
                switch team(of: bytes, number: number) {
                case .failure(let error):
                    skipped += 1
                    Console.error(CommandError.prefix + "line \(number): \(error.description); skipped")
                case .success(let found):
                    if let (athlete, team) = found, teams[athlete] == nil, let team { teams[athlete] = team }
                    worker.take(line: number, bytes: bytes)
                }
            case .tooLong(let number): worker.takeTooLong(line: number, limit: limit)
            }
        }
        let outcome = worker.finish()
        if let readError { return .readError(readError) }
        switch outcome {
        case .complete: return .skipped(skipped)
        case .partial(let errors), .stopped(_, let errors): return .skipped(skipped + errors)
        }
    }

    /// Reads facts lines (`--facts`'s, in any order) from `descriptor` and hands over each that is
    /// one (`KEY<tab>JSON` with a known key and a facts object) as its fact, read once; any other is
    /// skipped and named.
    static func readFacts(from descriptor: Int32, _ add: (Fact) -> Void) -> Outcome {
        let decoder = JSONTextDecoder()
        var skipped = 0
        let readError = LineReader(descriptor: descriptor, maximumBytes: 64 << 20).forEach { item in
            switch item {
            case .line(let number, let bytes):
                guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { return }
                var text = String(decoding: bytes, as: UTF8.self)
                if text.hasSuffix("\r") { text.removeLast() }
                guard let tab = text.firstIndex(of: "\t"), FactsKey(String(text[..<tab])) != nil else {
                    skipped += 1
                    Console.error(CommandError.prefix + "line \(number): " + League.Message.notFacts("no group key and tab before the JSON"))
                    return
                }
                do {
                    add(try Fact(key: String(text[..<tab]), text: String(text[text.index(after: tab)...]), decoder: decoder))
                } catch {
                    skipped += 1
                    Console.error(CommandError.prefix + "line \(number): " + League.Message.notFacts("\(error)"))
                }
            case .tooLong(let number):
                skipped += 1
                Console.error(CommandError.prefix + "line \(number): longer than 64 MiB; skipped")
            }
        }
        if let readError { return .readError(readError) }
        return .skipped(skipped)
    }

    /// Messages of a line's league field.
    enum Message {
        static func mustBeString(_ field: String) -> String { "\"\(field)\" must be a non-empty string" }
    }

    /// The athlete and the `team` of a line (nil when the line names no athlete: the worker reports
    /// it); a team of the wrong type is the line's error. The line's `sex` and `birth_date` are the
    /// athlete's profile, which the worker reads (`WorkerLine`).
    static func team(of bytes: UnsafeBufferPointer<UInt8>, number: Int) -> Result<(String, String?)?, WorkerLine.LineError> {
        guard case .object(let fields)? = try? JSONText.parse(bytes, source: "line \(number)"),
              case .string(let athlete)? = fields["athlete"] else { return .success(nil) }
        switch fields["team"] {
        case nil, .null?: return .success((athlete, nil))
        case .string(let value)? where !value.isEmpty: return .success((athlete, value))
        default: return .failure(WorkerLine.LineError(description: Message.mustBeString("team")))
        }
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

    /// The lines as a table for people: kind, key, athlete, value, as every table of badgectl is
    /// written (`TextTable`: fitted to the terminal, the value wrapping under itself). Every cell came
    /// from outside (an athlete's name and team from the input lines, a segment from a pack, a detail
    /// from a hook): `TextTable` escapes control characters (`ShownName`), so a name never forges a
    /// row or moves the cursor.
    static func table(_ lines: [LeagueLine], width: Int? = Terminal.width) -> String {
        var table = TextTable("KIND", "KEY", "ATHLETE", "VALUE")
        for line in lines { table.add(line.kind, line.key, line.athlete ?? "-", line.value) }
        return table.render(width: width) + "\n"
    }
}
