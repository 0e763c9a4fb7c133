import ArgumentParser
import BadgePipeline
import BadgeRules

/// Errors of badgectl's commands that are about what the user asked for. Cases a command reports as
/// a usage error (printed with the usage line, exit status 64) are thrown as
/// `ValidationError(CommandError.….description)`; the others are thrown as they are.
public enum CommandError: Error, Equatable, CustomStringConvertible {
    /// `--theme NAME` that no loaded pack defines; `available` lists the themes the packs offer.
    case unknownTheme(name: String, available: [String])
    /// A badge id (or name) neither the catalogue nor any pack knows; `suggestion` is the closest id.
    case unknownBadge(id: String, suggestion: String?)
    /// A badge no loaded pack nor the catalogue knows while some pack did not load (`failures`, each
    /// `file:line: pack 'x': reason`): the badge may be that pack's, so its load error is the answer.
    case badgeOfUnloadedPack(id: String, failures: [String])
    /// `--tz NAME` that is not a time zone identifier.
    case unknownTimeZone(name: String)
    /// `generate --count` below 1.
    case countNotPositive
    /// `--update` without `--golden FILE`.
    case updateWithoutGolden
    /// `new pack|rule NAME` with a name that is not lower-case letters, digits and '-' (`what`: pack, rule).
    case invalidName(what: String, name: String)
    /// `new`: the file or folder to create is already there.
    case alreadyExists(path: String)
    /// `new rule --pack PACK`: no `pack.lua` in the folder PACK names.
    case noPack(folder: String)
    /// `test DIR`: DIR is not a folder.
    case noSuchFolder(path: String)
    /// A limit flag (`--max-instructions`, `--max-memory`, ...) outside `range` (its text, e.g. "1 to 1048576").
    case limitOutOfRange(flag: String, range: String)
    /// No flag named the packs or the catalogue and none was found where badgectl looks (`looked`, in
    /// order); `flag` names them.
    case cannotFind(what: String, looked: [String], flag: String)
    /// `--athlete FILE` that cannot be read or is not a valid profile (`reason` names the file and field).
    case badAthlete(reason: String)
    /// A date flag (`--as-of`, `whatif --date`) whose value is not a calendar date `YYYY-MM-DD`.
    case badDate(flag: String, value: String)
    /// A quantity flag of `whatif` (`--distance 12km`, `--time 1:00:00`, `--pace 5:00`) that cannot be read; `expected` says what it takes.
    case badQuantity(flag: String, value: String, expected: String)
    /// A flag whose value is read but lies outside what the command does (`whatif --distance 1m`);
    /// `limits` says what it takes.
    case outOfRange(flag: String, value: String, limits: String)
    /// `whatif` without a speed, or with both `--time` and `--pace` (`both`).
    case timeOrPace(both: Bool)
    /// `whatif` with both `--distance` and `--segment` (`both`), or with neither.
    case distanceOrSegment(both: Bool)
    /// `whatif --place` with `--segment` (`segment`), or without `--distance`.
    case placeRoute(segment: Bool)

    public var description: String {
        switch self {
        case .unknownTheme(let name, let available):
            if available.isEmpty { return "unknown theme '\(name)': the loaded packs define no themes" }
            return "unknown theme '\(name)'; available: \(available.joined(separator: ", "))"
        case .unknownBadge(let id, let suggestion):
            return "unknown badge '\(id)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? " (the catalogue and the packs define no badges)")
        case .badgeOfUnloadedPack(let id, let failures):
            let packs = failures.count == 1 ? "a pack did not load" : "\(failures.count) packs did not load"
            return "unknown badge '\(id)': \(packs), so the badges it declares are unknown; fix it and try again:\n"
                + failures.map { "  " + $0 }.joined(separator: "\n")
        case .unknownTimeZone(let name):
            return "unknown time zone '\(name)' (use a name like Europe/Paris or UTC)"
        case .countNotPositive:
            return "--count must be positive"
        case .updateWithoutGolden:
            return "--update needs --golden FILE"
        case .invalidName(let what, let name):
            return "\(what) name '\(name)' must be lower-case letters, digits and '-', starting with a letter (e.g. morning-runs)"
        case .alreadyExists(let path):
            return "\(path) already exists; not overwritten"
        case .noPack(let folder):
            return "no pack at \(folder) (no pack.lua); create one with `badgectl new pack NAME`"
        case .noSuchFolder(let path):
            return "no such folder \(path)"
        case .limitOutOfRange(let flag, let range):
            return "\(flag) must be from \(range)"
        case .cannotFind(let what, let looked, let flag):
            return "cannot find the \(what): looked in \(looked.joined(separator: ", ")); give it with \(flag)"
        case .badAthlete(let reason):
            return "--athlete: \(reason)"
        case .badDate(let flag, let value):
            return "\(flag): '\(value)' is not a date; give YYYY-MM-DD (e.g. 2026-09-30)"
        case .badQuantity(let flag, let value, let expected):
            return "\(flag): cannot read '\(value)'; expected \(expected)"
        case .outOfRange(let flag, let value, let limits):
            return "\(flag): '\(value)' is out of range: \(limits)"
        case .timeOrPace(let both):
            return both ? "give the run's --time (h:mm:ss) or its --pace (m:ss per km), not both"
                : "give the run's --time (h:mm:ss) or its --pace (m:ss per km): how fast the run would be"
        case .distanceOrSegment(let both):
            return both ? "give the run's --distance or a --segment PACK/NAME to run along (its length is the segment's), not both"
                : "give the run's --distance (12km) or a --segment PACK/NAME to run along"
        case .placeRoute(let segment):
            return segment ? "give a --place PACK/NAME to run through or a --segment PACK/NAME to run along, not both"
                : "give the run's --distance (12km) with --place PACK/NAME: the run goes out and back through the place"
        }
    }

    /// This error as the argument parser's usage error (its message, the usage line, exit status 64).
    var usage: ValidationError { ValidationError(description) }

    /// Before an error that stops a command: `badgectl: <error>`.
    static let prefix = "badgectl: "
    /// Before a warning that does not: `badgectl: warning: <text>`.
    static let warningPrefix = "badgectl: warning: "
    /// Before a file that yielded no run: `skipped <message>`.
    static let skipped = "skipped "
    /// A failure of an evaluation on stderr, as the worker's error lines name it (`RuleFailure.shown`):
    /// `pack failed: …` or `rule failed: …`, `side` after that (`current: `).
    static func failed(_ failure: RuleFailure, side: String = "") -> String {
        failure.shown(side: side)
    }

    /// "N files, N packs, N rules" of the skipped: packs only when one failed (its rules never ran).
    static func skippedCounts(files: Int, failures: [RuleFailure]) -> String {
        let packs = failures.filter(\.isPackFailure).count
        var parts = [Format.count(files, "file")]
        if packs > 0 { parts.append(Format.count(packs, "pack")) }
        parts.append(Format.count(failures.count - packs, "rule"))
        return parts.joined(separator: ", ")
    }
}
