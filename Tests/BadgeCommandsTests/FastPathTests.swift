import RunFixtures
import ArgumentParser
@testable import BadgeCommands
import Foundation
import SyntheticRuns
import XCTest

/// `FastPath`: the command lines it runs without the argument parser are read as the parser reads
/// them, and run the same, through the built binary.
final class FastPathTests: XCTestCase {
    /// Random command lines from a vocabulary of what the fast path takes and what it must leave to
    /// the parser: every line it accepts, the parser parses to the same command and values.
    func testEveryLineTheFastPathTakesTheParserReadsTheSame() throws {
        let words = [
            "summarize", "summarize", "--no-cache", "--format", "json", "table", "xml", "a.fit", "b.gpx", "runs",
            "-x", "--", "-", "help", "", "--format=json", "--tz", "UTC", "--version", "--cache", "c.sqlite", "-h", "--help",
            "--generate-completion-script", "bash", "--rules", "--badges", "evaluate",
        ]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ n: Int) -> Int {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return Int(x % UInt64(n))
        }
        var accepted = 0, summarize = 0
        var lines: [[String]] = [
            ["--version"], ["summarize", "a.fit"], ["summarize", "a.fit", "--no-cache"], ["summarize", "--format", "json", "a.fit", "b.gpx"],
            ["summarize", "a.fit", "--no-cache", "--format", "table"], ["summarize", "a.fit", "--no-cache", "--no-cache"],
            ["summarize", "a.fit", "--format", "json", "--format", "table"], ["summarize"], ["summarize", "--no-cache"],
            ["summarize", "help"], ["summarize", "a.fit", "--format"], ["summarize", "a.fit", "--cache", "c.sqlite", "--no-cache"],
            ["summarize", "a.fit", "--cache", "c.sqlite", "--cache", "d.sqlite"], ["summarize", "a.fit", "--cache", "help"], ["summarize", "a.fit", "--format", "xml"], ["--version", "summarize"],
        ]
        for _ in 0..<3_000 {
            var line = random(3) == 0 ? [] : ["summarize"]
            for _ in 0..<random(6) { line.append(words[random(words.count)]) }
            lines.append(line)
        }
        for line in lines {
            guard let invocation = FastPath.parse(line) else { continue }
            accepted += 1
            switch invocation {
            case .version:
                XCTAssertEqual(line, ["--version"])
                XCTAssertThrowsError(try Badgectl.parseAsRoot(line)) { error in
                    XCTAssertEqual(Badgectl.exitCode(for: error), .success)
                    XCTAssertEqual(Badgectl.fullMessage(for: error), "0.1.0")
                }
            case .summarize(let settings):
                summarize += 1
                let parsed = try Badgectl.parseAsRoot(line)
                let command = try XCTUnwrap(parsed as? SummarizeCommand, "\(line)")
                XCTAssertEqual(command.settings, settings, "\(line)")
            }
        }
        XCTAssertGreaterThan(summarize, 100, "the fast path takes the plain lines")
        XCTAssertLessThan(accepted, lines.count / 2, "and leaves the others to the parser")
        XCTAssertNil(FastPath.parse(["summarize", "a.fit", "--no-cache", "--no-cache"]))
        XCTAssertNil(FastPath.parse(["summarize", "--format=json", "a.fit"]))
        XCTAssertNil(FastPath.parse(["summarize", "a.fit", "--cache", "--no-cache"]))
        XCTAssertEqual(FastPath.parse(["summarize", "a.fit", "--cache", "c.sqlite"]), .summarize(.init(files: ["a.fit"], cache: "c.sqlite")))
        XCTAssertEqual(FastPath.parse(["summarize", "a.fit", "--format", "json", "--no-cache"]),
                       .summarize(.init(files: ["a.fit"], format: .json, noCache: true)))
    }

    /// The binary gives the same output, errors and exit status for a line the fast path runs as for
    /// the same request spelt so that the parser reads it (`--format=table`, `--format=json`).
    func testTheBinaryRunsAFastLineAsItRunsAParsedOne() throws {
        let folder = try TemporaryFolder()
        let fit = folder.url.appendingPathComponent("run.fit").path
        try Data(FITWriter.encode(track: RunGenerator(seed: 7, distanceMeters: 3_000, paceSecondsPerKilometre: 330).track()))
            .write(to: URL(fileURLWithPath: fit))
        let missing = folder.url.appendingPathComponent("missing.gpx").path
        let bad = folder.url.appendingPathComponent("bad.fit").path
        try Data("not a fit file".utf8).write(to: URL(fileURLWithPath: bad))
        for files in [[fit], [fit, missing], [bad], [fit, bad, fit]] {
            for (fast, parsed) in [
                (["--no-cache"], ["--no-cache", "--format=table"]), (["--format", "json", "--no-cache"], ["--format=json", "--no-cache"]),
            ] {
                XCTAssertNotNil(FastPath.parse(["summarize"] + files + fast))
                XCTAssertNil(FastPath.parse(["summarize"] + files + parsed))
                let a = try CLI.run(["summarize"] + files + fast), b = try CLI.run(["summarize"] + files + parsed)
                XCTAssertEqual(a.status, b.status, "\(files) \(fast)")
                XCTAssertEqual(a.stdout, b.stdout, "\(files) \(fast)")
                XCTAssertEqual(a.stderr, b.stderr, "\(files) \(fast)")
            }
        }
        let version = try CLI.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.stdout, "0.1.0\n")
        XCTAssertEqual(version.stderr, "")
    }
}
