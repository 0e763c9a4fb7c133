import RunFixtures
import Foundation
import XCTest

/// What people read, compared with reviewed snapshots under Snapshots/ (as swift-argument-parser
/// tests its help): every command's help and the evaluate table, narrow and `--wide`. A change shows
/// as a diff; `BADGECTL_RECORD_SNAPSHOTS=1 swift test --filter SnapshotTests` re-records them (the
/// test then fails, saying so: a recording is never silent), and the diff is reviewed in git.
final class SnapshotTests: XCTestCase {
    static let folder = CLI.repository.appendingPathComponent("Tests/BadgeCommandsTests/Snapshots")
    static var recording: Bool { ProcessInfo.processInfo.environment["BADGECTL_RECORD_SNAPSHOTS"] == "1" }

    /// Compares `actual` with Snapshots/`name`, or records it.
    func assertSnapshot(_ actual: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = Self.folder.appendingPathComponent(name)
        if Self.recording {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            XCTFail("recorded \(name): review it, then run without BADGECTL_RECORD_SNAPSHOTS", file: file, line: line)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("no snapshot \(name): record it with BADGECTL_RECORD_SNAPSHOTS=1", file: file, line: line)
            return
        }
        guard expected != actual else { return }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let first = zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, new.count)
        let snapshotLine = first < old.count ? String(old[first]) : "(end)"
        let nowLine = first < new.count ? String(new[first]) : "(end)"
        XCTFail("\(name) differs at line \(first + 1):\n- \(snapshotLine)\n+ \(nowLine)\n"
                + "(BADGECTL_RECORD_SNAPSHOTS=1 re-records it)", file: file, line: line)
    }

    /// Help at a fixed width (the argument parser wraps to COLUMNS).
    func help(_ command: [String]) throws -> String {
        let output = try CLI.run(command + ["--help"], environment: ["COLUMNS": "100"])
        XCTAssertEqual(output.status, 0, output.stderr)
        return output.stdout
    }

    func testHelpOfEveryCommand() throws {
        try assertSnapshot(try help([]), "help.txt")
        XCTAssertGreaterThan(CLI.everyCommand.count, 14)
        for command in CLI.everyCommand {
            try assertSnapshot(try help(command), "help-\(command.joined(separator: "-")).txt")
        }
    }

    /// The golden fixture's evaluation as a table: 72 columns (columns dropped, details wrapped) and --wide.
    func testEvaluateTable() throws {
        let arguments = ["evaluate", "Tests/BadgeCommandsTests/Golden/runs", "--rules", "rules/checkpoints",
                         "--badges", "Tests/BadgeCommandsTests/Golden/badges.json", "--tz", "UTC", "--no-cache"]
        let narrow = try CLI.run(arguments, environment: ["COLUMNS": "72"])
        XCTAssertEqual(narrow.status, 0, narrow.stderr)
        try assertSnapshot(narrow.stdout, "evaluate-72.txt")
        let wide = try CLI.run(arguments + ["--wide"], environment: ["COLUMNS": "72"])
        XCTAssertEqual(wide.status, 0, wide.stderr)
        try assertSnapshot(wide.stdout, "evaluate-wide.txt")
    }

    /// Argument errors, as printed: under the command's own usage, with a suggestion.
    func testUsageErrors() throws {
        var text = ""
        for arguments in [["evalute", "."], ["new", "pak", "mine"], ["whatif", "runs/", "--distance", "10km"], ["explain", "Ten L", "runs/", "--no-cache"],
                          ["evaluate", "runs/", "--tz", "Europe/Pari"]] {
            let output = try CLI.run(arguments, environment: ["COLUMNS": "100"])
            text += "$ badgectl \(arguments.joined(separator: " "))\n\(output.stderr)exit \(output.status)\n\n"
        }
        try assertSnapshot(text, "usage-errors.txt")
    }
}
