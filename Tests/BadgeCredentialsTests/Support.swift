import Foundation
import RunFixtures

/// The test data beside these tests (Fixtures/README.md says where each comes from).
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// The repository (for `runs/`, `rules/` and `badges.json`).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func data(_ relative: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(relative)) }

    static func text(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// The built `badgectl`, run from the repository with `SOURCE_DATE_EPOCH` fixed (2030-01-01), so that
/// proofs made in one test have the same `created`.
enum BuiltBadgectl {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let sourceDateEpoch = 1_893_456_000

    /// Runs it with `arguments`; stderr goes through a file in `scratch`.
    static func run(_ arguments: [String], scratch: URL) throws -> Output {
        let process = Process()
        process.executableURL = BuiltProducts.executable()
        process.arguments = arguments
        process.currentDirectoryURL = Fixtures.repository
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = String(sourceDateEpoch)
        process.environment = environment
        // stderr into a file, stdout through a pipe read to its end: neither can fill and stall the other.
        let errURL = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
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
