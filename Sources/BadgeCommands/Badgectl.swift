import ArgumentParser
import BadgeRules
import Foundation
import RunFiles
#if canImport(Glibc)
import Glibc
#endif

/// The `badgectl` command. The executable target only calls `Badgectl.main()`.
public struct Badgectl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "badgectl",
        abstract: "A scriptable badge rules engine for runners.",
        discussion: """
            Reads runs (GPX, TCX, FIT, gzip'd or not, and JSON summaries), computes what a runner \
            would want to know about them, and lets Lua rule packs award badges.

            Examples:
              badgectl evaluate ~/runs --tz Europe/Paris
              badgectl explain "Ten K" ~/runs

            \(ExitStatus.help)
            """,
        version: "0.1.0",
        subcommands: [
            EvaluateCommand.self, SummarizeCommand.self, ExplainCommand.self, TestCommand.self, NewCommand.self,
            ReportCommand.self, GenerateCommand.self, DiffCommand.self, WhatifCommand.self, WorkerCommand.self, AddCommand.self,
            LeagueCommand.self, EditorCommand.self,
        ]
    )

    public init() {}

    /// Parses the arguments and runs the command (what `main.swift` calls).
    public static func main() {
        run(Array(CommandLine.arguments.dropFirst()))
    }

    /// Parses `arguments` and runs the command, as `ParsableCommand.main` does, with two differences:
    /// a misspelt subcommand gets "did you mean" (the one suggester, `Suggestion`), and a usage error
    /// a command finds while running (a `ValidationError` from `run()`: `--tz Europe/Pari`, whatif
    /// without `--time`) is printed under that command's own usage, not badgectl's, and exits 64.
    static func run(_ arguments: [String]) -> Never {
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            if let message = misspeltSubcommand(arguments) {
                Console.error(message)
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
        do {
            try command.run()
        } catch let error as ValidationError {
            Console.error(usageError(error.message, command: type(of: command)))
            Foundation.exit(ExitStatus.usage.rawValue)
        } catch {
            exit(withError: error)
        }
        exit()
    }

    /// `Error: MESSAGE`, then the usage of `command` and where its help is, as the argument parser
    /// prints a usage error of its own.
    static func usageError(_ message: String, command: ParsableCommand.Type) -> String {
        let path = commandPath(command)
        return "Error: \(message)\n" + usageString(for: command).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().map { $0.offset == 0 ? "Usage: " + $0.element : String($0.element) }.joined(separator: "\n")
            + "\n  See '\(path) --help' for more information."
    }

    /// `badgectl new pack`: the names from the root to `command`.
    static func commandPath(_ command: ParsableCommand.Type) -> String {
        func find(_ node: ParsableCommand.Type, _ path: [String]) -> [String]? {
            let here = path + [node.configuration.commandName ?? "badgectl"]
            if node == command { return here }
            for sub in node.configuration.subcommands { if let found = find(sub, here) { return found } }
            return nil
        }
        return (find(Badgectl.self, []) ?? ["badgectl"]).joined(separator: " ")
    }

    /// When an argument where a subcommand is expected names none but is close to one (`evalute`,
    /// `new pak`): the error with "did you mean" and the commands there; nil otherwise.
    static func misspeltSubcommand(_ arguments: [String]) -> String? {
        var node: ParsableCommand.Type = Badgectl.self
        var path = ["badgectl"]
        for argument in arguments {
            let subcommands = node.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-") else { return nil }
            if let next = subcommands.first(where: { $0.configuration.commandName == argument }) {
                node = next
                path.append(argument)
                continue
            }
            let names = subcommands.compactMap { $0.configuration.commandName }
            if node == Badgectl.self && argument == "help" { return nil }
            let guess = Suggestion.closest(to: argument, in: names)
            let shown = path.count == 1 ? "'\(argument)'" : "'\(argument)' for '\(path.joined(separator: " "))'"
            return "Error: unknown command \(shown)" + (guess.map { "; did you mean '\($0)'?" } ?? "")
                + "\nCommands: \(names.joined(separator: ", "))"
                + "\n  See '\(path.joined(separator: " ")) --help' for more information."
        }
        return nil
    }
}

/// badgectl's exit statuses.
public enum ExitStatus: Int32 {
    case success = 0
    /// Nothing could be evaluated.
    case failure = 1
    /// Something was skipped; the rest was reported.
    case partial = 2
    /// `badgectl test`: a test failed or a test file, pack or catalogue did not load
    /// (`badgectl evaluate --golden`: the output differs from the snapshot).
    case testsFailed = 3
    /// `badgectl diff`: the current or the candidate packs do not load (a path without a pack, a pack
    /// without pack.lua, a pack.lua or rule file that fails to load): the comparison is not of the
    /// packs asked for.
    case packsDoNotLoad = 4
    /// A usage error: an unknown command or option, a value that cannot be read (printed with the
    /// command's usage line).
    case usage = 64

    /// The statuses, for every command's help (the README's "Exit status" says the same).
    static let help = """
        Exit status: 0 when every file was read and every rule ran; 2 when something was skipped (a bad \
        run file, a failing rule) with everything else still reported; 1 when nothing could be evaluated \
        (no such folder, unreadable catalogue); 3 when a pack test fails, a golden file differs or `diff` \
        finds awards that differ; 4 when `diff`'s packs do not load; 64 for a usage error (an unknown \
        command, option or badge, a value that cannot be read).
        """
}
