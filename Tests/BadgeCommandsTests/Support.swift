import ArgumentParser
import BadgeCommands
import Foundation
import RunFixtures
import XCTest

/// Runs the built `badgectl` (the test target depends on it) and captures what it printed.
struct CLI {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The last non-empty line of stdout.
        var lastLine: String { stdout.split(separator: "\n").last.map(String.init) ?? "" }
    }

    /// The repository (for `rules/` and the golden fixtures).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
        let process = Process()
        var variables = ProcessInfo.processInfo.environment
        variables["COLUMNS"] = nil
        // A report says when it was made: tests that compare two pages (or run near a minute's
        // turn) get a fixed clock unless they give their own ("" for the real one).
        variables["SOURCE_DATE_EPOCH"] = "1893456000"
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        var inURL: URL?
        if let stdin {
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("badgectl-stdin-\(UUID().uuidString)")
            try Data(stdin.utf8).write(to: url)
            process.standardInput = try FileHandle(forReadingFrom: url)
            inURL = url
        }
        defer { if let inURL { try? FileManager.default.removeItem(at: inURL) } }
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let errURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("badgectl-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? err.close()
        let errData = (try? Data(contentsOf: errURL)) ?? Data()
        return Output(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A fresh temporary folder, removed at deinit.
final class TemporaryFolder {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("badgectl-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` at `relative`, making folders.
    func write(_ relative: String, _ text: String) throws {
        let target = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: target, atomically: true, encoding: .utf8)
    }
}
