import RunFixtures
import Foundation
import GRDB
import RunAnalysis
import RunFiles
import RunLibrary
import SyntheticRuns
import XCTest

/// `badgectl evaluate` on the sample runs beside hostile entries (issue H items 2-4), as a user would
/// meet them: the same runs and awards as without the entry, within seconds, naming what it left out.
final class HostileFolderEndToEndTests: XCTestCase {
    /// Runs the built binary with extra environment, killed after `timeout` seconds (a hang fails the
    /// test instead of stopping the suite).
    static func badgectl(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60,
                         executable: String? = nil) throws -> CLI.Output {
        let process = try start(arguments, environment: environment, executable: executable)
        return try finish(process, timeout: timeout)
    }

    struct Started {
        var process: Process
        /// Holds `out` and `err`, removed with the last copy of this.
        var files: TemporaryFolder
        var out: URL { files.url.appendingPathComponent("out") }
        var err: URL { files.url.appendingPathComponent("err") }
    }

    static func start(_ arguments: [String], environment: [String: String] = [:], executable: String? = nil) throws -> Started {
        let process = Process()
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? CLI.binary
        process.arguments = arguments
        process.currentDirectoryURL = CLI.repository
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Files, not pipes: nothing can block on a full pipe.
        let started = Started(process: process, files: try TemporaryFolder())
        _ = FileManager.default.createFile(atPath: started.out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: started.err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: started.out)
        process.standardError = try FileHandle(forWritingTo: started.err)
        try process.run()
        return started
    }

    static func finish(_ started: Started, timeout: TimeInterval = 60) throws -> CLI.Output {
        let deadline = Date().addingTimeInterval(timeout)
        while started.process.isRunning, Date() < deadline { usleep(20_000) }
        if started.process.isRunning {
            started.process.terminate()
            started.process.waitUntilExit()
            XCTFail("badgectl \(started.process.arguments ?? []) did not end within \(timeout) s")
        }
        started.process.waitUntilExit()
        return CLI.Output(status: started.process.terminationStatus,
                          stdout: String(decoding: (try? Data(contentsOf: started.out)) ?? Data(), as: UTF8.self),
                          stderr: String(decoding: (try? Data(contentsOf: started.err)) ?? Data(), as: UTF8.self))
    }

    func report(_ output: CLI.Output) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], output.stderr)
    }

    /// The sample runs copied into `<parent>/runs`, alone in its parent folder.
    func sampleFolder() throws -> (parent: TemporaryFolder, runs: String) {
        let parent = try TemporaryFolder()
        let runs = parent.path + "/runs"
        try FileManager.default.copyItem(atPath: CLI.repository.appendingPathComponent("runs").path, toPath: runs)
        return (parent, runs)
    }

    func evaluate(_ folder: String) throws -> CLI.Output {
        try Self.badgectl(["evaluate", folder, "--format", "json", "--no-cache"])
    }

    func testHostileEntriesLeaveTheRunsAndAwardsAsTheyWere() throws {
        let (parent, runs) = try sampleFolder()
        _ = parent
        let plain = try evaluate(runs)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let expected = try report(plain)
        XCTAssertEqual((expected["runs"] as? [Any])?.count, 16)

        let hostile: [(String, () throws -> Void, [String: String])] = [
            ("zz.gpx (FIFO)", { XCTAssertEqual(mkfifo(runs + "/zz.gpx", 0o644), 0) },
             ["zz.gpx": "a named pipe (FIFO), not a regular file"]),
            ("x.fit -> /dev/zero", { try FileManager.default.createSymbolicLink(atPath: runs + "/x.fit", withDestinationPath: "/dev/zero") },
             ["x.fit": "a character device, not a regular file"]),
            ("self -> .", { try FileManager.default.createSymbolicLink(atPath: runs + "/self", withDestinationPath: ".") },
             ["self": "the same folder as ., read once"]),
            ("up -> ..", { try FileManager.default.createSymbolicLink(atPath: runs + "/up", withDestinationPath: "..") },
             ["up": "a link to a folder that holds the folder read (following it would read that folder again)"]),
            ("a file linked twice", {
                try FileManager.default.createSymbolicLink(atPath: runs + "/zz-again.gpx", withDestinationPath: "2026-08-04-canal.gpx")
            }, [:]),
            ("a hard link", { XCTAssertEqual(link(runs + "/2026-10-18-half.gpx", runs + "/zz-half.gpx"), 0) }, [:]),
        ]
        for (name, add, reasons) in hostile {
            try add()
            let started = Date()
            let result = try evaluate(runs)
            XCTAssertLessThan(Date().timeIntervalSince(started), 30, name)
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let got = try report(result)
            XCTAssertEqual(got["runs"] as? NSArray, expected["runs"] as? NSArray, name)
            XCTAssertEqual(got["awards"] as? NSArray, expected["awards"] as? NSArray, name)
            XCTAssertEqual(got["badges"] as? NSArray, expected["badges"] as? NSArray, name)
            let ignoredReasons = got["ignored_reasons"] as? [String: String] ?? [:]
            for (path, reason) in reasons { XCTAssertEqual(ignoredReasons[path], reason, name) }
            // The table says why too.
            if let (path, reason) = reasons.first {
                let table = try Self.badgectl(["evaluate", runs, "--no-cache"])
                XCTAssertTrue(table.stdout.contains("\(path) (\(reason))"), "\(name): \(table.stdout)")
            }
        }
    }

    /// Makes `name` (raw bytes, not valid UTF-8) under `folder`: a copy of `source` or, with no
    /// source, a folder holding a copy of `inside`.
    static func makeEntry(in folder: String, name: [UInt8], copyOf source: String? = nil, folderHolding inside: String? = nil) throws {
        let path = Array(folder.utf8) + [UInt8(ascii: "/")] + name + [0]
        try path.withUnsafeBufferPointer { buffer in
            let cPath = UnsafeRawPointer(try XCTUnwrap(buffer.baseAddress)).assumingMemoryBound(to: CChar.self)
            if let source {
                let data = try Data(contentsOf: URL(fileURLWithPath: source))
                let file = open(cPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                XCTAssertGreaterThanOrEqual(file, 0)
                _ = data.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
                close(file)
            } else {
                XCTAssertEqual(mkdir(cPath, 0o755), 0)
                if let inside {
                    let child = Array(path.dropLast()) + Array("/p.gpx".utf8) + [0]
                    let data = try Data(contentsOf: URL(fileURLWithPath: inside))
                    try child.withUnsafeBufferPointer { childBuffer in
                        let file = open(UnsafeRawPointer(try XCTUnwrap(childBuffer.baseAddress)).assumingMemoryBound(to: CChar.self),
                                        O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                        XCTAssertGreaterThanOrEqual(file, 0)
                        _ = data.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
                        close(file)
                    }
                }
            }
        }
    }

    /// A file or folder whose name is not valid UTF-8 was dropped silently (exit 0, runs lost): each
    /// is now an error naming it with the bad bytes escaped (exit 2), and the others are evaluated.
    func testNamesThatAreNotUTF8AreErrorsNotDropped() throws {
        let (parent, runs) = try sampleFolder()
        _ = parent
        let expected = try report(try evaluate(runs))
        try Self.makeEntry(in: runs, name: Array("r".utf8) + [0xFF] + Array(".gpx".utf8), copyOf: runs + "/2026-08-01-first-run.gpx")
        try Self.makeEntry(in: runs, name: [UInt8(ascii: "d"), 0xFE], folderHolding: runs + "/2026-08-08-park-loop.gpx")
        let result = try evaluate(runs)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("skipped \(runs)/d\\xFE: the folder name is not valid UTF-8; rename it (its files were not read)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("skipped \(runs)/r\\xFF.gpx: the file name is not valid UTF-8; rename it"), result.stderr)
        let got = try report(result)
        XCTAssertEqual(got["runs"] as? NSArray, expected["runs"] as? NSArray)
        XCTAssertEqual(got["awards"] as? NSArray, expected["awards"] as? NSArray)
        let errors = (got["errors"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        XCTAssertEqual(errors, ["d\\xFE", "r\\xFF.gpx"])
    }

    /// A link into /proc made the walk fail on a folder it could not list (exit 1, nothing printed):
    /// links into /proc, /sys and /dev are not followed (ignored, with why); a folder below the one
    /// read that cannot be listed is one error naming it, the rest is evaluated.
    func testSystemTreesAreNotFollowedAndAnUnlistableFolderIsOneError() throws {
        let (parent, runs) = try sampleFolder()
        _ = parent
        let expected = try report(try evaluate(runs))
        for (name, target) in [("p1", "/proc/1"), ("sys", "/sys"), ("devices", "/dev")] {
            try FileManager.default.createSymbolicLink(atPath: runs + "/" + name, withDestinationPath: target)
        }
        let linked = try evaluate(runs)
        XCTAssertEqual(linked.status, 0, linked.stderr)
        let got = try report(linked)
        XCTAssertEqual(got["runs"] as? NSArray, expected["runs"] as? NSArray)
        XCTAssertEqual(got["awards"] as? NSArray, expected["awards"] as? NSArray)
        let reasons = got["ignored_reasons"] as? [String: String] ?? [:]
        XCTAssertEqual(reasons["p1"], "a link into /proc (a system tree, not runs); not followed")
        XCTAssertEqual(reasons["sys"], "a link into /sys (a system tree, not runs); not followed")
        XCTAssertEqual(reasons["devices"], "a link into /dev (a system tree, not runs); not followed")

        // A folder nobody may list (root may list anything, so then badgectl runs as nobody).
        try FileManager.default.createDirectory(atPath: runs + "/locked", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: runs + "/2026-08-04-canal.gpx", toPath: runs + "/locked/c.gpx")
        XCTAssertEqual(chmod(runs + "/locked", 0), 0)
        defer { chmod(runs + "/locked", 0o755) }
        XCTAssertEqual(chmod(parent.path, 0o755), 0)
        let arguments = ["evaluate", runs, "--format", "json", "--no-cache"]
        let result = geteuid() == 0
            ? try Self.badgectl(["--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary.path] + arguments, executable: "/usr/bin/setpriv")
            : try Self.badgectl(arguments)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("skipped \(runs)/locked: cannot list the folder (Permission denied); its files were not read"), result.stderr)
        let partial = try report(result)
        XCTAssertEqual(partial["runs"] as? NSArray, expected["runs"] as? NSArray)
        XCTAssertEqual(partial["awards"] as? NSArray, expected["awards"] as? NSArray)
    }

    /// Another program's SQLite database given as `--cache` was renamed to `.corrupt`: it is now left
    /// untouched, with a warning naming it, and the evaluation runs without a cache (exit 0, as for a
    /// cache location that cannot be written).
    func testAnotherProgramsDatabaseAsTheCacheIsNotTouched() throws {
        let (parent, runs) = try sampleFolder()
        let expected = try report(try evaluate(runs))
        let database = parent.path + "/notes.sqlite"
        let other = try DatabaseQueue(path: database)
        try other.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');") }
        try other.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let result = try Self.badgectl(["evaluate", runs, "--format", "json", "--cache", database])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(database) is a SQLite database of another program; not touching it, evaluating without a cache"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: database + ".corrupt"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), before)
        let got = try report(result)
        XCTAssertEqual(got["runs"] as? NSArray, expected["runs"] as? NSArray)
        XCTAssertEqual(got["awards"] as? NSArray, expected["awards"] as? NSArray)
        // As a cache location that cannot be written: a warning, exit 0, the same results.
        let unwritable = try Self.badgectl(["evaluate", runs, "--format", "json", "--cache", runs + "/2026-08-04-canal.gpx/cache.sqlite"])
        XCTAssertEqual(unwritable.status, 0, unwritable.stderr)
        XCTAssertTrue(unwritable.stderr.contains("running without a cache"), unwritable.stderr)
    }

    /// A newline in a file name was printed raw, breaking a message (and a table row) across lines:
    /// control characters in names are escaped wherever names are printed as text.
    func testControlCharactersInNamesAreEscapedInText() throws {
        let (parent, runs) = try sampleFolder()
        _ = parent
        try "not gpx".write(toFile: runs + "/bad\nname.gpx", atomically: true, encoding: .utf8)
        XCTAssertEqual(mkfifo(runs + "/pipe\u{1B}[2J.gpx", 0o644), 0)
        try FileManager.default.moveItem(atPath: runs + "/2026-10-18-half.gpx", toPath: runs + "/half\tmarathon\n.gpx")
        let table = try Self.badgectl(["evaluate", runs, "--no-cache"])
        XCTAssertEqual(table.status, 2, table.stderr)
        let skipped = table.stderr.split(separator: "\n").filter { $0.hasPrefix("skipped ") }
        XCTAssertEqual(skipped.count, 1, table.stderr)
        XCTAssertTrue(skipped.first?.hasPrefix("skipped \(runs)/bad\\nname.gpx: ") == true, table.stderr)
        XCTAssertFalse(table.stdout.contains("\u{1B}"), table.stdout)
        XCTAssertTrue(table.stdout.contains("pipe\\u{1B}[2J.gpx (a named pipe (FIFO), not a regular file)"), table.stdout)
        XCTAssertTrue(table.stdout.contains("half\\tmarathon\\n.gpx"), table.stdout)
        XCTAssertFalse(table.stdout.contains("half\tmarathon"), table.stdout)
        // JSON carries the names as they are.
        let json = try report(try evaluate(runs))
        XCTAssertTrue((json["runs"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == "half\tmarathon\n.gpx" })
        let summary = try Self.badgectl(["summarize", runs])
        XCTAssertTrue(summary.stdout.contains("half\\tmarathon\\n.gpx"), summary.stdout)
        XCTAssertFalse(summary.stdout.contains("half\tmarathon"), summary.stdout)
        XCTAssertTrue(summary.stderr.contains("ignored pipe\\u{1B}[2J.gpx: a named pipe"), summary.stderr)
    }

    /// A duration of 5e-324 s made `summarize` print `"speed_m_per_s" : "inf"`: the file is now refused,
    /// naming it and the field, and the other runs are summarised.
    func testSummaryGivingAnInfiniteSpeedIsRefused() throws {
        let folder = try TemporaryFolder()
        try folder.write("tiny.json", #"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 5e-324}"#)
        try folder.write("good.json", #"{"start": "2024-05-10T07:00:00Z", "distance_m": 5200, "duration_s": 1700}"#)
        let result = try Self.badgectl(["summarize", folder.path, "--format", "json"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("tiny.json: field 'duration_s': 5e-324 s for 5200.0 m gives a speed that is not a finite number"), result.stderr)
        XCTAssertTrue(result.stdout.contains("good.json"), result.stdout)
        XCTAssertFalse(result.stdout.contains("inf"), result.stdout)
    }

    /// Two processes started together on a new cache file, 20 times: no message, nothing moved aside,
    /// the same results as without a cache.
    func testTwoProcessesOnANewCacheFile() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        for index in 0..<3 {
            try RunGenerator(seed: UInt64(index), distanceMeters: 3000 + Double(index) * 1000).writeGPX(to: folder.path + "/runs/r\(index).gpx")
        }
        let plain = try Self.badgectl(["evaluate", folder.path + "/runs", "--format", "json", "--no-cache"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        for round in 0..<20 {
            let cache = folder.path + "/cache-\(round).sqlite"
            let arguments = ["evaluate", folder.path + "/runs", "--format", "json", "--cache", cache]
            let both = try [Self.start(arguments), Self.start(arguments)]
            for started in both {
                let result = try Self.finish(started)
                XCTAssertEqual(result.status, 0, "round \(round): \(result.stderr)")
                XCTAssertEqual(result.stderr, "", "round \(round)")
                XCTAssertEqual(result.stdout, plain.stdout, "round \(round)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: cache + ".corrupt"), "round \(round)")
        }
    }

    /// The bomb folder in small: three gzip'd GPX runs that each fit the memory budget alone but not
    /// together are all read (the same runs as with room to spare); a budget smaller than one of them
    /// refuses it with a message naming it, keeps the others, and exits 2.
    func testMemoryBudgetHoldsForTheWholeProcess() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        for index in 0..<3 {
            // About 60,000 points each.
            var generator = RunGenerator(seed: UInt64(index), distanceMeters: 180_000, paceSecondsPerKilometre: 330)
            generator.startEpochSeconds += Double(index) * 86_400 * 7
            try Data(Gzip.compress(generator.gpxBytes(), level: 1)).write(to: URL(fileURLWithPath: folder.path + "/runs/bomb-\(index).gpx.gz"))
        }
        try #"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700}"#
            .write(toFile: folder.path + "/runs/treadmill.json", atomically: true, encoding: .utf8)
        let arguments = ["evaluate", folder.path + "/runs", "--format", "json", "--no-cache"]
        let roomy = try Self.badgectl(arguments)
        XCTAssertEqual(roomy.status, 0, roomy.stderr)
        let expected = try report(roomy)
        XCTAssertEqual((expected["runs"] as? [Any])?.count, 4)

        // What one needs, read alone with room to spare (MiB, rounded up).
        let roomyBudget = MemoryBudget(totalBytes: 1 << 30)
        _ = try RunLoader.load(path: folder.path + "/runs/bomb-0.gpx.gz", id: "bomb-0.gpx.gz", analyzer: RunAnalyzer(),
                               zoneOffsetSeconds: 0, budget: roomyBudget)
        let needs = (roomyBudget.usage.peakBytes >> 20) + 1
        XCTAssertGreaterThan(needs, 4)

        let tight = try Self.badgectl(arguments, environment: ["BADGECTL_MEMORY_BUDGET_MB": "\(needs * 3 / 2)"])
        XCTAssertEqual(tight.status, 0, tight.stderr)
        XCTAssertEqual(try report(tight)["runs"] as? NSArray, expected["runs"] as? NSArray)

        let small = try Self.badgectl(arguments, environment: ["BADGECTL_MEMORY_BUDGET_MB": "\(needs / 2)"])
        XCTAssertEqual(small.status, 2, small.stderr)
        let got = try report(small)
        XCTAssertEqual((got["runs"] as? [[String: Any]])?.map { $0["id"] as? String }, ["treadmill.json"])
        for index in 0..<3 {
            XCTAssertTrue(small.stderr.contains("/runs/bomb-\(index).gpx.gz: too large: reading it needs more than"), small.stderr)
        }
    }
}
