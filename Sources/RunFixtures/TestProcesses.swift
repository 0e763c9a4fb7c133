import Foundation

/// The repository the package is in (its `runs/`, `rules/`, `badges.json`, `docs/`), for every test
/// target: found once, from this file's place (Sources/RunFixtures/).
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// A fresh temporary folder, removed at deinit: the one every test target makes its files in. A
/// test holds it for as long as it uses the folder (`withExtendedLifetime` where only its path is
/// used later, `remove()` in an `addTeardownBlock`). Sendable: one immutable URL.
public final class TemporaryFolder: Sendable {
    public let url: URL
    public var path: String { url.path }

    public init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("badgectl-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// Removes the folder now (for an `addTeardownBlock`: XCTest keeps its blocks, and so the folder,
    /// until the process ends).
    public func remove() { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` at `relative`, making folders.
    public func write(_ relative: String, _ text: String) throws {
        let target = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: target, atomically: true, encoding: .utf8)
    }
}

/// A built executable run to its end, its output captured: the one way the test targets run
/// `badgectl` (`CLI.run`, the credentials' end-to-end tests).
public enum ChildProcess {
    public struct Output {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The last non-empty line of stdout.
        public var lastLine: String { stdout.split(separator: "\n").last.map(String.init) ?? "" }

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status; self.stdout = stdout; self.stderr = stderr
        }
    }

    /// Runs `executable` with `arguments` in `directory`; `stdin`: bytes it reads on its standard
    /// input (nil: none); `environment`: the whole environment it gets. stdout goes through a pipe
    /// read to its end and stderr through a file, so neither can fill and stall the other.
    public static func run(_ executable: URL, _ arguments: [String], in directory: URL, stdin: String? = nil,
                           environment: [String: String]) throws -> Output {
        let process = Process()
        process.environment = environment
        var inURL: URL?
        if let stdin {
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("badgectl-stdin-\(UUID().uuidString)")
            try Data(stdin.utf8).write(to: url)
            process.standardInput = try FileHandle(forReadingFrom: url)
            inURL = url
        }
        defer { if let inURL { try? FileManager.default.removeItem(at: inURL) } }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errURL = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("badgectl-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let err = try FileHandle(forWritingTo: errURL)
        let out = Pipe()
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
