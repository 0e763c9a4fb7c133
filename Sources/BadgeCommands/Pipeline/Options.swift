import ArgumentParser
import Foundation

/// How results are printed.
public enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case table, json
}

/// Options shared by every command that reads runs.
struct RunOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Time zone for local dates of runs whose file has no UTC offset (e.g. Europe/Paris).",
        discussion: "Defaults to the machine's zone.", valueName: "zone"))
    var tz: String?

    func zone() throws -> TimeZone {
        guard let tz else { return .current }
        guard let zone = TimeZone(identifier: tz) else {
            throw CommandError.unknownTimeZone(name: tz).usage
        }
        return zone
    }
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
        "Show badges with a theme's names, information and images (a pack's `themes` in pack.lua).",
        discussion: "Awards do not change; an unknown name lists the themes the packs offer.", valueName: "name"))
    var theme: String?

    /// Each path is a pack (it holds `pack.lua`) or a folder of packs (every sub-folder, sorted);
    /// without `--rules`, the folder `Installation.locate` finds.
    func packDirectories() throws -> [String] {
        var result: [String] = []
        let fm = FileManager.default
        let paths = rules.isEmpty ? [try Installation.locate("rules", given: nil, flag: "--rules PATH", directory: true)] : rules
        for path in paths {
            let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            if fm.fileExists(atPath: trimmed + "/pack.lua") {
                result.append(trimmed)
                continue
            }
            let entries = (try? fm.contentsOfDirectory(atPath: trimmed)) ?? []
            let packs = entries.filter { entry in
                var isDirectory: ObjCBool = false
                return !entry.hasPrefix(".") && fm.fileExists(atPath: trimmed + "/" + entry, isDirectory: &isDirectory) && isDirectory.boolValue
            }.sorted()
            // A folder with no sub-folders is passed on as a pack, so the engine reports what is missing.
            result += packs.isEmpty ? [trimmed] : packs.map { trimmed + "/" + $0 }
        }
        return result
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

/// What every command that evaluates a folder takes (evaluate, explain, report): the rules, the
/// local time zone and the sports that count.
struct PipelineOptions: ParsableArguments {
    @OptionGroup var rules: RuleOptions
    @OptionGroup var runs: RunOptions
    @OptionGroup var selection: SelectionOptions
}
