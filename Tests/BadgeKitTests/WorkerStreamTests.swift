import BadgeKit
import Foundation
import RunFixtures
import XCTest

/// `BadgeEngine.workerStream` writes what `badgectl worker` writes for the same lines, byte for byte:
/// paths under a root, summaries, an athlete's profile, a bad line, a flush; and with a state
/// directory, a second batch that takes a run back (`remove`) and adds another.
final class WorkerStreamTests: XCTestCase {
    static let root = Repository.root.path
    static let profile = #""birth_date": "1988-04-02", "sex": "F", "max_hr": 188, "resting_hr": 52"#

    static let firstBatch = [
        #"{"athlete": "ana", "tz": "Europe/Paris", "path": "2026-08-01-first-run.gpx", \#(profile)}"#,
        #"{"athlete": "ana", "tz": "Europe/Paris", "path": "2026-08-20-first-10k.fit", \#(profile)}"#,
        #"{"athlete": "ana", "tz": "Europe/Paris", "path": "2026-09-12-fifteen.gpx"}"#,
        "",
        #"{"athlete": "ben", "summary": {"start": "2026-03-01T18:00:00Z", "distance_m": 5000, "duration_s": 1500}, "id": "u-1"}"#,
        "not json",
        #"{"athlete": "ben", "summary": {"start": "2026-03-08T18:00:00Z", "distance_m": 10000, "duration_s": 3300}, "id": "u-2"}"#,
        #"{"flush": true}"#,
        #"{"athlete": "cleo", "path": "../Package.swift"}"#,
        #"{"athlete": "cleo", "summary": {"start": "2026-04-01T06:00:00Z", "distance_m": 21100, "duration_s": 7000}}"#,
    ]

    static let secondBatch = [
        #"{"athlete": "ana", "remove": "2026-08-20-first-10k.fit", \#(profile)}"#,
        #"{"athlete": "ana", "tz": "Europe/Paris", "path": "2026-10-18-half.gpx", \#(profile)}"#,
        #"{"athlete": "ben", "remove": "u-1"}"#,
    ]

    /// `badgectl worker` over the repository's packs, with `--root runs` and `flags`: its status and stdout.
    func command(_ lines: [String], flags: [String] = []) throws -> (status: Int32, stdout: String) {
        let arguments = ["worker", "--rules", Self.root + "/rules", "--badges", Self.root + "/badges.json", "--tz", "UTC", "--no-cache",
                         "--root", Self.root + "/runs"] + flags
        let result = try ChildProcess.run(BuiltProducts.executable(), arguments, in: Repository.root, stdin: lines.joined(separator: "\n") + "\n",
                                          environment: ProcessInfo.processInfo.environment)
        return (result.status, result.stdout)
    }

    /// The same lines through a stream of an engine over the same packs: its outcome and what it wrote.
    func stream(_ lines: [String], stateDirectory: String? = nil, maximumErrors: Int? = nil) throws -> (outcome: WorkerStream.Outcome, stdout: String) {
        let engine = try BadgeEngine(packs: [Self.root + "/rules"], catalogue: Self.root + "/badges.json", zone: TimeZone(identifier: "UTC") ?? .current)
        var written = ""
        let options = WorkerStream.Options(stateDirectory: stateDirectory, root: Self.root + "/runs", maximumErrors: maximumErrors)
        let stream = engine.workerStream(options) { written += $0 + "\n" }
        for line in lines {
            if line == #"{"flush": true}"# { stream.flush() } else { stream.take(line) }
        }
        let outcome = stream.finish()
        // Once finished, a stream takes no more lines and keeps its outcome.
        let before = written
        stream.take(Self.firstBatch[0])
        XCTAssertEqual(stream.finish(), outcome)
        XCTAssertEqual(written, before)
        return (outcome, written)
    }

    func testMaximumErrorsStopsTheStreamWhereTheWorkerStops() throws {
        let command = try command(Self.firstBatch, flags: ["--max-errors", "1"])
        let stream = try stream(Self.firstBatch, maximumErrors: 1)
        XCTAssertEqual(stream.stdout, command.stdout)
        XCTAssertEqual(command.status, 1)
        XCTAssertEqual(stream.outcome, .stopped(line: 9, errors: 2))
    }

    func testTheStreamWritesWhatTheWorkerWrites() throws {
        let command = try command(Self.firstBatch)
        let stream = try stream(Self.firstBatch)
        XCTAssertEqual(stream.stdout, command.stdout)
        // Two errors (the line that is not JSON, the path outside the root): the command's status 2.
        XCTAssertEqual(command.status, 2)
        XCTAssertEqual(stream.outcome, .partial(errors: 2))
        XCTAssertTrue(stream.stdout.contains(#""type":"award""#), stream.stdout)
        XCTAssertTrue(stream.stdout.contains(#"{"type":"flushed"}"#), stream.stdout)
        XCTAssertEqual(stream.stdout.components(separatedBy: #""type":"status""#).count - 1, 3)

        // Lines given as bytes, several in one text, are the same lines.
        let engine = try BadgeEngine(packs: [Self.root + "/rules"], catalogue: Self.root + "/badges.json", zone: TimeZone(identifier: "UTC") ?? .current)
        var written = ""
        let bytes = engine.workerStream(WorkerStream.Options(root: Self.root + "/runs")) { written += $0 + "\n" }
        bytes.take(line: Array(Self.firstBatch[0..<5].joined(separator: "\n").utf8))
        for line in Self.firstBatch[5...] { bytes.take(line: Array(line.utf8)) }
        XCTAssertEqual(bytes.finish(), .partial(errors: 2))
        XCTAssertEqual(written, command.stdout)
    }

    func testWithAStateDirectoryASecondBatchWritesWhatTheWorkerWrites() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let commandStates = temporary.path + "/command", streamStates = temporary.path + "/stream"
        let first = Array(Self.firstBatch.prefix(7))
        var outputs: [String] = []
        for batch in [first, Self.secondBatch] {
            let command = try command(batch, flags: ["--state-dir", commandStates])
            let stream = try stream(batch, stateDirectory: streamStates)
            XCTAssertEqual(stream.stdout, command.stdout)
            XCTAssertEqual(stream.outcome, batch == first ? .partial(errors: 1) : .complete, "the first batch's line that is not JSON")
            XCTAssertEqual(command.status, batch == first ? 2 : 0)
            outputs.append(stream.stdout)
        }
        // The runs taken back moved awards: withdrawn lines.
        XCTAssertTrue(outputs[1].contains(#""type":"withdrawn""#), outputs[1])
    }

    // MARK: - The article

    static let article = Repository.root.appendingPathComponent("Sources/BadgeKit/BadgeKit.docc/WorkerStreams.md")

    /// The code of the article WorkerStreams.md (between the `worker-stream` markers; the article's
    /// one Swift block must be this region, `testTheArticleShowsThisCode`).
    func workerStreamArticle(repository: String, stateFolder: String) throws -> (lines: [String], outcome: WorkerStream.Outcome) {
        // BEGIN worker-stream
        // One engine for the server's life; a stream per batch of lines (a queue's messages, say).
        let engine = try BadgeEngine(packs: [repository + "/rules"], catalogue: repository + "/badges.json",
                                     zone: TimeZone(identifier: "UTC") ?? .current)
        var written: [String] = []
        let stream = engine.workerStream(WorkerStream.Options(stateDirectory: stateFolder, root: repository + "/runs")) { line in
            written.append(line)  // what `badgectl worker --state-dir --root` writes, line for line
        }

        // One run per line, a file under the root or a summary; an athlete's lines together.
        let profile = #""sex": "F", "birth_date": "1988-04-02""#
        stream.take(#"{"athlete": "ana", "tz": "Europe/Paris", "path": "2026-08-20-first-10k.fit", \#(profile)}"#)
        stream.take(#"{"athlete": "ana", "tz": "Europe/Paris", "path": "2026-09-12-fifteen.gpx", \#(profile)}"#)
        stream.flush()  // ana's award and status lines now, then {"type":"flushed"}
        stream.take(#"{"athlete": "ben", "summary": {"start": "2026-03-01T18:00:00Z", "distance_m": 5000, "duration_s": 1500}}"#)

        // The end of the batch: ben's lines are written. Complete, partial (see the error lines) or stopped.
        let outcome = stream.finish()
        if case .partial(let errors) = outcome { print("\(errors) lines or rules failed") }
        // END worker-stream
        return (written, outcome)
    }

    func testTheArticlesCodeRuns() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let (lines, outcome) = try workerStreamArticle(repository: Self.root, stateFolder: temporary.path + "/states")
        XCTAssertEqual(outcome, .complete)
        XCTAssertTrue(lines.first?.contains(#""type":"header""#) == true)
        XCTAssertTrue(lines.contains { $0.contains(#""athlete":"ana""#) && $0.contains(#""badge":"ten-k""#) }, "\(lines)")
        XCTAssertEqual(lines.filter { $0 == #"{"type":"flushed"}"# }.count, 1)
        XCTAssertEqual(lines.filter { $0.contains(#""type":"status""#) }.count, 2)
        XCTAssertTrue(FileManager.default.fileExists(atPath: temporary.path + "/states"), "the athletes' states are kept")
    }

    func testTheArticleShowsThisCode() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let region = try XCTUnwrap(GettingStartedTests.region(of: source, named: "worker-stream"), "no worker-stream region in \(#filePath)")
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let block = try XCTUnwrap(GettingStartedTests.swiftBlock(in: text), "no ```swift block in \(Self.article.path)")
        XCTAssertFalse(region.isEmpty)
        XCTAssertEqual(block, region, "WorkerStreams.md's code and WorkerStreamTests.workerStreamArticle differ: copy one to the other")
    }
}
