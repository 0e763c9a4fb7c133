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
            throw ValidationError("unknown time zone '\(tz)' (use a name like Europe/Paris or UTC)")
        }
        return zone
    }
}

/// Options shared by every command that runs rules.
struct RuleOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A rule pack folder, or a folder of packs. Repeat for more.",
        discussion: "Defaults to ./rules.", valueName: "path"))
    var rules: [String] = []

    @Option(name: .long, help: ArgumentHelp("The badge catalogue: badges.json or MoonRunner's badges.txt.", valueName: "file"))
    var badges: String = "badges.json"

    var rulePaths: [String] { rules.isEmpty ? ["rules"] : rules }
}
