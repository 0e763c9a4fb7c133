import ArgumentParser
import BadgeCommands
import Foundation
import RunFixtures
import XCTest

/// Runs the built `badgectl` (the test target depends on it) and captures what it printed
/// (`ChildProcess`, shared by every test target through RunFixtures, as `TemporaryFolder` is).
struct CLI {
    typealias Output = ChildProcess.Output

    /// The repository (for `rules/` and the golden fixtures).
    static let repository = Repository.root

    static var binary: URL { BuiltProducts.executable() }

    /// Every command and nested command of `badgectl`, as typed (["new", "pack"]), read from the
    /// parser's own tree: a command added later is in every test that walks this list.
    static var everyCommand: [[String]] {
        func walk(_ command: ParsableCommand.Type, _ path: [String]) -> [[String]] {
            let name = command.configuration.commandName ?? String(describing: command)
            let here = path + [name]
            return [here] + command.configuration.subcommands.flatMap { walk($0, here) }
        }
        return Badgectl.configuration.subcommands.flatMap { walk($0, []) }
    }

    /// `stdin`: bytes the command reads on its standard input (nil: none given).
    /// `environment`: variables set for the command over the test's own, without `COLUMNS` unless
    /// given (tables fit `COLUMNS`: a test's output must not depend on the terminal it ran in), and
    /// with `SOURCE_DATE_EPOCH` fixed at 2030-01-01 unless given.
    static func run(_ arguments: [String], in directory: URL = repository, stdin: String? = nil,
                    environment: [String: String] = [:]) throws -> Output {
        var variables = ProcessInfo.processInfo.environment
        variables["COLUMNS"] = nil
        // A report says when it was made: tests that compare two pages (or run near a minute's
        // turn) get a fixed clock unless they give their own ("" for the real one).
        variables["SOURCE_DATE_EPOCH"] = "1893456000"
        for (name, value) in environment { variables[name] = value }
        return try ChildProcess.run(binary, arguments, in: directory, stdin: stdin, environment: variables)
    }
}
