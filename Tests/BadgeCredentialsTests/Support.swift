import Foundation
import RunFixtures

/// The test data beside these tests (Fixtures/README.md says where each comes from).
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// The repository (for `runs/`, `rules/` and `badges.json`).
    static let repository = Repository.root

    static func data(_ relative: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(relative)) }

    static func text(_ relative: String) throws -> String {
        String(decoding: try data(relative), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// The built `badgectl`, run from the repository with `SOURCE_DATE_EPOCH` fixed (2030-01-01), so that
/// proofs made in one test have the same `created` (`ChildProcess`, as every test target runs it).
enum BuiltBadgectl {
    typealias Output = ChildProcess.Output

    static let sourceDateEpoch = 1_893_456_000

    /// Runs it with `arguments`.
    static func run(_ arguments: [String], scratch: URL) throws -> Output {
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = String(sourceDateEpoch)
        return try ChildProcess.run(BuiltProducts.executable(), arguments, in: Fixtures.repository, environment: environment)
    }
}
