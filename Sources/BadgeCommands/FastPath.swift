import ArgumentParser
import Foundation

/// The two command lines a platform runs most often as whole processes, parsed without
/// swift-argument-parser: `badgectl --version` and `badgectl summarize FILE... [--no-cache]
/// [--format json|table] [--cache PATH]`.
///
/// The argument parser reflects the command tree (`Mirror` over every option of the command and of
/// its completion-script check), and each first reflection of a type looks its protocol
/// conformances up through every conformance record of the static binary: about 19M instructions,
/// a tenth of a 100k-record `summarize --no-cache`, and most of `--version` after the process's own
/// start. A command line of exactly these shapes is run here with the values the parser would give
/// (test `FastPathTests` holds each accepted line to `Badgectl.parseAsRoot`); anything else (any
/// other option or spelling, `--format=json`, `--`, an argument or value starting with `-`, `help`, an empty
/// argument, an option given twice, no file) is left to the parser, so every message, usage text,
/// completion script and exit status stays the parser's.
///
/// Kept by issue T's rule (code for speed stays where it moves a figure a user sees by 10% or more),
/// measured 2026-12-07 with scripts/bench/pair.sh, whole processes, paired medians of 30-40 rounds:
/// without it, `summarize` of a cached 100k-point file 4.6 -> 6.2 ms (+35%), `--version` 2.6 -> 3.5 ms,
/// `summarize --no-cache` of the 100k-record FIT 15.4 -> 17.3 ms (+12%).
enum FastPath {
    /// A command line `parse` accepted.
    enum Invocation: Equatable {
        case version
        case summarize(SummarizeCommand.Settings)
    }

    /// The invocation `arguments` (without the program's name) asks for, or nil when the argument
    /// parser is to read them.
    static func parse(_ arguments: [String]) -> Invocation? {
        if arguments == ["--version"] { return .version }
        guard arguments.first == "summarize", arguments.count >= 2 else { return nil }
        var settings = SummarizeCommand.Settings(files: [])
        var sawFormat = false, sawNoCache = false
        var i = 1
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            switch argument {
            case "--no-cache":
                guard !sawNoCache else { return nil }
                sawNoCache = true
                settings.noCache = true
            case "--cache":
                guard settings.cache == nil, i < arguments.count, !arguments[i].isEmpty, !arguments[i].hasPrefix("-") else { return nil }
                settings.cache = arguments[i]
                i += 1
            case "--format":
                guard !sawFormat, i < arguments.count, let format = OutputFormat(rawValue: arguments[i]) else { return nil }
                sawFormat = true
                settings.format = format
                i += 1
            default:
                guard !argument.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return nil }
                settings.files.append(argument)
            }
        }
        return settings.files.isEmpty ? nil : .summarize(settings)
    }
}

extension Badgectl {
    /// Runs what `FastPath.parse` accepted as `run(_:)` runs a parsed command: the same error
    /// handling and exit statuses.
    static func run(_ invocation: FastPath.Invocation) -> Never {
        switch invocation {
        case .version:
            print(configuration.version)
        case .summarize(let settings):
            do {
                try settings.run()
            } catch let error as ValidationError {
                Console.error(usageError(error.message, command: SummarizeCommand.self))
                Foundation.exit(ExitStatus.usage.rawValue)
            } catch {
                exit(withError: error)
            }
        }
        exit()
    }
}
