import RunFixtures
import Foundation
import SyntheticRuns
import XCTest

/// Every command that reads run files shares one pipeline: each takes `--cache PATH` and `--no-cache`,
/// and what a warm cache gives is byte for byte what reading every file gives.
final class PipelineCacheTests: XCTestCase {
    static func badgectl(_ arguments: [String]) throws -> CLI.Output {
        try CLI.run(arguments, in: CLI.repository)
    }

    func testExplainIsTheSameFromACacheAsWithout() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path + "/runs.sqlite"
        let fresh = try Self.badgectl(["explain", "five-k", "runs/", "--format", "json", "--no-cache"])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        let cold = try Self.badgectl(["explain", "five-k", "runs/", "--format", "json", "--cache", cache])
        XCTAssertTrue(FileManager.default.fileExists(atPath: cache), "explain wrote no cache")
        let warm = try Self.badgectl(["explain", "five-k", "runs/", "--format", "json", "--cache", cache])
        XCTAssertEqual(cold.stdout, fresh.stdout)
        XCTAssertEqual(warm.stdout, fresh.stdout)
        XCTAssertEqual(warm.stderr, fresh.stderr)
    }

    /// The report's cache holds each run's drawn route: a warm report writes the same page; and an
    /// `evaluate` given the same cache file never shows a route in its JSON.
    func testReportIsTheSameFromACacheAndEvaluateSharesTheFileSafely() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path + "/report.sqlite"
        let pages = ["fresh", "cold", "warm"].map { folder.path + "/\($0).html" }
        let fresh = try Self.badgectl(["report", "runs/", "-o", pages[0], "--no-cache"])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        for page in pages.dropFirst() {
            let result = try Self.badgectl(["report", "runs/", "-o", page, "--cache", cache])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let bytes = try pages.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        XCTAssertEqual(bytes[1], bytes[0])
        XCTAssertEqual(bytes[2], bytes[0])

        let plain = try Self.badgectl(["evaluate", "runs/", "--format", "json", "--no-cache"])
        let shared = try Self.badgectl(["evaluate", "runs/", "--format", "json", "--cache", cache])
        XCTAssertEqual(shared.stdout, plain.stdout)
        XCTAssertFalse(shared.stdout.contains("\"route\""))
        // And back: the report still draws every route after evaluate replaced the rows.
        let again = folder.path + "/again.html"
        _ = try Self.badgectl(["report", "runs/", "-o", again, "--cache", cache])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: again)), bytes[0])
    }

    /// `worker`, `add` and `summarize` read run files through the cache as evaluate does (issue P:
    /// they never used it): each writes the cache it is given, and prints, cold and warm, what it
    /// prints without one.
    func testWorkerAddAndSummarizeReadThroughTheCache() throws {
        let folder = try TemporaryFolder()
        let files = ["runs/2026-08-20-first-10k.fit", "runs/2026-09-12-fifteen.gpx"]
        func same(_ arguments: [String], stdin: String? = nil, cache: String) throws {
            let fresh = try CLI.run(arguments + ["--no-cache"], stdin: stdin)
            XCTAssertEqual(fresh.status, 0, fresh.stderr)
            for pass in ["cold", "warm"] {
                let cached = try CLI.run(arguments + ["--cache", cache], stdin: stdin)
                XCTAssertEqual(cached.stdout, fresh.stdout, "\(arguments[0]) through the cache (\(pass))")
            }
            XCTAssertTrue(FileManager.default.fileExists(atPath: cache), "\(arguments[0]) wrote no cache")
        }
        try same(["summarize"] + files + ["--tz", "UTC", "--format", "json"], cache: folder.path + "/summarize.sqlite")
        let lines = files.map { #"{"athlete": "a", "path": "\#($0)"}"# }.joined(separator: "\n") + "\n"
        try same(["worker", "--tz", "UTC"], stdin: lines, cache: folder.path + "/worker.sqlite")
        let state = folder.path + "/state"
        let first = CLI.repository.appendingPathComponent("runs/2026-08-01-first-run.gpx").path
        XCTAssertEqual(try CLI.run(["evaluate", first, "--state", state, "--tz", "UTC", "--no-cache"]).status, 0)
        let cache = folder.path + "/add.sqlite"
        let added = try CLI.run(["add", "--state", state] + files + ["--format", "json", "--cache", cache])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cache), "add wrote no cache")
    }

    /// `summarize` reads a folder as `evaluate` does (`RunPipeline.read(folder:)`): a Strava export's
    /// names and sports from its activities.csv (it showed the files' own), and `add` takes no `--as-of`
    /// (it adds to the whole saved history; the option was accepted and ignored).
    func testSummarizeReadsAStravaExportAsEvaluateDoesAndAddRefusesAsOf() throws {
        let folder = try TemporaryFolder()
        var generator = RunGenerator(seed: 3, distanceMeters: 2000, paceSecondsPerKilometre: 300)
        try FileManager.default.createDirectory(atPath: folder.path + "/export/activities", withIntermediateDirectories: true)
        try generator.writeGPX(to: folder.path + "/export/activities/101.gpx")
        generator.seed = 4
        generator.startEpochSeconds += 86_400
        try generator.writeGPX(to: folder.path + "/export/activities/102.gpx")
        try folder.write("export/activities.csv", """
            Activity ID,Activity Date,Activity Name,Activity Type,Elapsed Time,Distance,Filename
            101,"Apr 30, 2024, 6:30:00 AM",Easy loop,Run,600,2.0,activities/101.gpx
            102,"May 1, 2024, 6:30:00 AM",Commute,Ride,600,2.0,activities/102.gpx

            """)
        let summary = try CLI.run(["summarize", folder.path + "/export", "--format", "json", "--no-cache"])
        XCTAssertEqual(summary.status, 0, summary.stderr)
        let runs = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(summary.stdout.utf8)) as? [String: Any])?["runs"] as? [[String: Any]])
        XCTAssertEqual(runs.map { $0["name"] as? String }, ["Easy loop", "Commute"])
        XCTAssertEqual(runs.map { $0["sport"] as? String }, ["running", "cycling"])

        let asOf = try CLI.run(["add", "--state", folder.path + "/state", folder.path + "/export/activities/101.gpx", "--as-of", "2024-05-01"])
        XCTAssertEqual(asOf.status, 64, asOf.stderr)
        XCTAssertTrue(asOf.stderr.contains("Unknown option '--as-of'"), asOf.stderr)
    }

    /// `--cache FILE` naming a user's file (issue S2): every command that reads runs leaves it, its
    /// `-wal` and a `.corrupt` folder beside it exactly as they were, says so naming the file, and
    /// still gives its results (exit 0: nothing was skipped).
    func testACacheFlagNamingAUsersFileTouchesNothing() throws {
        let folder = try TemporaryFolder()
        try folder.write("notes.txt", "my training notes\n")
        try folder.write("notes.txt-wal", "not SQLite's\n")
        try folder.write("notes.txt.corrupt/keep.txt", "keep\n")
        let notes = folder.path + "/notes.txt"
        for arguments in [["evaluate", "runs"], ["summarize", "runs/2026-08-01-first-run.gpx"], ["explain", "five-k", "runs"]] {
            let result = try CLI.run(arguments + ["--cache", notes, "--tz", "UTC"], in: CLI.repository)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("the cache \(notes) is not a badgectl cache"), "\(arguments): \(result.stderr)")
            XCTAssertEqual(try String(contentsOfFile: notes, encoding: .utf8), "my training notes\n")
            XCTAssertEqual(try String(contentsOfFile: notes + "-wal", encoding: .utf8), "not SQLite's\n")
            XCTAssertEqual(try String(contentsOfFile: notes + ".corrupt/keep.txt", encoding: .utf8), "keep\n")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["notes.txt", "notes.txt-wal", "notes.txt.corrupt"])
        }
    }

    func testEveryPipelineCommandTakesTheCacheFlags() throws {
        for command in [["evaluate"], ["explain", "five-k"], ["report"], ["worker"], ["add"], ["summarize"], ["diff"], ["whatif"]] {
            let help = try Self.badgectl(command + ["--help"])
            XCTAssertTrue(help.stdout.contains("--cache <path>"), "\(command[0]) --help: \(help.stdout)")
            XCTAssertTrue(help.stdout.contains("--no-cache"), "\(command[0]) --help")
        }
    }
}
