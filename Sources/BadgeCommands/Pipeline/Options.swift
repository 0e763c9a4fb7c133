import ArgumentParser
import BadgeRules
import Foundation
import RunAnalysis
import RunFiles

/// How results are printed.
public enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case table, json
}

/// Options shared by every command that reads runs.
struct RunOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Time zone for local dates and times (local_date, local_start) of runs whose file has no UTC offset (e.g. Europe/Paris, UTC).",
        discussion: "Defaults to the machine's zone. A JSON summary whose start has no zone is read as a time of day in this zone.", valueName: "zone"))
    var tz: String?

    /// An unknown zone is refused before the command runs, under the command's usage.
    func validate() throws { _ = try zone() }

    func zone() throws -> TimeZone { try RunOptions.zone(named: tz) }

    /// The zone `--tz NAME` names, the machine's without the option.
    static func zone(named tz: String?) throws -> TimeZone {
        guard let tz else { return ZoneNames.machine }
        guard let zone = ZoneNames.zone(named: tz) else {
            throw CommandError.unknownTimeZone(name: tz).usage
        }
        return zone
    }
}

/// `--theme NAME`: the commands that show badges by name (evaluate, explain, report, whatif, diff).
struct ThemeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Show badges with a theme's names, information and images (a pack's `themes` in pack.lua).",
        discussion: "Awards do not change; an unknown name lists the themes the packs offer.", valueName: "name"))
    var theme: String?
}

/// Options shared by every command that runs rules.
struct RuleOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A rule pack folder, or a folder of packs. Repeat for more.",
        discussion: "Defaults to ./rules, else the installed <binary>/../share/badgectl/rules.", valueName: "path"))
    var rules: [String] = []

    @Option(name: .long, help: ArgumentHelp(
        "The badge catalogue: badges.json or MoonRunner's badges.txt.",
        discussion: "Defaults to ./badges.json, else the installed <binary>/../share/badgectl/badges.json.", valueName: "file"))
    var badges: String?

    /// The catalogue's path: `--badges`, else found by `Installation.locate`.
    func cataloguePath() throws -> String {
        try Installation.locate("badges.json", given: badges, flag: "--badges FILE", directory: false)
    }

    @Option(name: .long, help: ArgumentHelp(
        "The runner's profile (JSON: max_hr, resting_hr or zones, birth_date, sex).",
        discussion: "Gives heart-rate zones to measures that ask for `zone = n` and `ctx.athlete` to rules.", valueName: "file"))
    var athlete: String?

    /// The profile `--athlete` names, nil without the flag.
    /// - Throws: `CommandError.badAthlete` (a usage error) naming the file and what is wrong.
    func athleteProfile() throws -> Athlete? {
        guard let athlete else { return nil }
        do { return try Athlete.read(path: athlete) } catch { throw CommandError.badAthlete(reason: "\(error)").usage }
    }

    /// The pack folders of `--rules` (`RulePack.folders(in:)`: each path a pack or a folder of packs);
    /// without `--rules`, the folder `Installation.locate` finds.
    func packDirectories() throws -> [String] {
        RulePack.folders(in: rules.isEmpty ? [try Installation.locate("rules", given: nil, flag: "--rules PATH", directory: true)] : rules)
    }
}

/// Which runs the rules see (evaluate, explain, report).
struct SelectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Sports that earn badges: a comma-separated list (running, walking, hiking, cycling, ...) or all.",
        discussion: "Runs of other sports are read and listed as excluded; they do not change the exit status. A run faster than the world record for its distance is excluded as implausible.",
        valueName: "sports"))
    var sport: String = "running"
}

/// `--keep-duplicates`: the commands that read a folder (evaluate, explain, report, whatif, diff).
struct DuplicateOptions: ParsableArguments {
    @Flag(name: .customLong("keep-duplicates"), help: ArgumentHelp(
        "Count every file, even several exports of one activity.",
        discussion: "By default runs whose starts and ends are each within 60 s and whose distances are within 5% are one activity: the richest file (FIT, then TCX, GPX, JSON) is kept and the others are listed as duplicates."))
    var keepDuplicates = false
}

/// The limits every rule call runs under (evaluate, explain, report, test): docs/rules.md, "Limits".
struct LimitOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Instructions one rule call may run.",
        discussion: "Library work counts too: sorting, pattern matching, scanning and building strings.",
        valueName: "count"))
    var maxInstructions: Int = RuleEngine.Limits.default.instructionsPerCall

    @Option(name: .long, help: ArgumentHelp("Megabytes the rules of one evaluation may hold.", valueName: "MB"))
    var maxMemory: Int = RuleEngine.Limits.default.memoryBytes >> 20

    @Option(name: .long, help: ArgumentHelp("Megabytes one rule call may allocate in all, freed or not.", valueName: "MB"))
    var maxAllocation: Int = RuleEngine.Limits.default.allocationBytesPerCall >> 20

    @Option(name: .long, help: ArgumentHelp(
        "The wall-clock backstop: seconds one rule call may run.",
        discussion: "Only for what the deterministic limits above do not count; a rule it stops says so.",
        valueName: "seconds"))
    var maxCallSeconds: Double = RuleEngine.Limits.default.callSeconds

    func validate() throws {
        let megabytes = 1...(1 << 20)
        func check(_ ok: Bool, _ flag: String, _ range: String) throws {
            if !ok { throw CommandError.limitOutOfRange(flag: flag, range: range).usage }
        }
        try check(maxInstructions >= 1, "--max-instructions", "1 up")
        try check(megabytes.contains(maxMemory), "--max-memory", "1 to 1048576 (MB)")
        try check(megabytes.contains(maxAllocation), "--max-allocation", "1 to 1048576 (MB)")
        try check(maxCallSeconds > 0 && maxCallSeconds <= 1e6, "--max-call-seconds", "above 0 to 1000000")
    }

    var limits: RuleEngine.Limits {
        RuleEngine.Limits(instructionsPerCall: maxInstructions, memoryBytes: maxMemory << 20,
                          allocationBytesPerCall: maxAllocation << 20, callSeconds: maxCallSeconds)
    }
}

/// `--as-of DATE`: replay the history up to the end of a local date (evaluate, explain, report).
struct AsOfOptions: ParsableArguments {
    @Option(name: .customLong("as-of"), help: ArgumentHelp(
        "Evaluate only the runs up to the end of this local date (YYYY-MM-DD): the badge wall as it was then.",
        discussion: "Runs whose local date (--tz) is later, and runs without a start, are left out, as if the folder held only the runs up to DATE; awards made at the end of the history (best) are those of that history.",
        valueName: "date"))
    var asOf: String?

    /// The date, checked (a real calendar date, YYYY-MM-DD); nil without the flag.
    func date() throws -> String? {
        guard let asOf else { return nil }
        guard AsOfOptions.isDate(asOf) else { throw CommandError.badDate(flag: "--as-of", value: asOf).usage }
        return asOf
    }

    /// Whether `text` is a calendar date `YYYY-MM-DD` (2025-02-30 is not).
    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), day >= 1 else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let first = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
              let days = calendar.range(of: .day, in: .month, for: first) else { return false }
        return days.contains(day)
    }
}

/// What every command that evaluates a folder takes (evaluate, explain, report): the rules, the
/// local time zone, the sports that count, the rules' limits and `--as-of`.
struct PipelineOptions: ParsableArguments {
    @OptionGroup var rules: RuleOptions
    @OptionGroup var theme: ThemeOptions
    @OptionGroup var limits: LimitOptions
    @OptionGroup var runs: RunOptions
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var duplicates: DuplicateOptions
    @OptionGroup var asOf: AsOfOptions
}

/// What `worker` and `add` take: the rules, their limits, the zone, the sports and duplicates. No
/// `--theme`: neither shows a badge by a theme's name (the worker writes ids; add names awards as
/// the catalogue does). `--as-of` only on the worker (add adds to the whole saved history):
/// options only where they act.
struct StreamOptions: ParsableArguments {
    @OptionGroup var rules: RuleOptions
    @OptionGroup var limits: LimitOptions
    @OptionGroup var runs: RunOptions
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var duplicates: DuplicateOptions
}
