import RunFixtures
import Foundation
import XCTest

/// Issue S2: what badgectl writes besides its output. The league's spill files hold athletes' names,
/// sex, birth dates and teams: a private folder (0700) of private files (0600), removed when the
/// process is interrupted too. Under a file size limit (`ulimit -f`), a write that passes it ends with
/// a message, never by SIGXFSZ, and what was saved stays consistent.
final class SpillsAndLimitsEndToEndTests: XCTestCase {
    /// The facts of the league population's athletes (the map step's output).
    func facts(in folder: TemporaryFolder) throws -> (facts: String, options: [String]) {
        let lines = try LeagueEndToEndTests.population.write(to: folder.path)
        let options = ["--rules", "rules/places", "--no-cache", "--tz", "UTC", "--by", "sex", "team", "--min-athletes", "1"]
        let map = try CLI.run(["league", "--facts", "--root", folder.path] + options, stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(map.status, 0, map.stderr)
        return (map.stdout, options)
    }

    /// The reduce step with a 1 KiB sort buffer, its stdin left open once the facts are in: it has
    /// spilled, and waits. The folder and files are private; SIGINT or SIGTERM removes them and ends
    /// the process by that signal.
    /// `league --from-facts` with a 1 KiB sort buffer (it spills at once) and its spills in
    /// `temporary` (TMPDIR), reading the returned pipe; not started.
    static func spillingLeague(_ options: [String], temporary: TemporaryFolder) -> (Process, Pipe) {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["league", "--from-facts", "--sort-buffer-kib", "1"] + options
        process.currentDirectoryURL = CLI.repository
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return (process, pipe)
    }

    func testSpillsArePrivateAndGoneAfterAnInterrupt() throws {
        let folder = try TemporaryFolder()
        let (facts, options) = try facts(in: folder)
        for number in [SIGTERM, SIGINT] {
            let temporary = try TemporaryFolder()
            let (process, input) = Self.spillingLeague(options, temporary: temporary)
            // Enough facts for several 1 KiB runs, in the pipe before the process starts: they fit
            // its buffer, so the write never waits on the process.
            try input.fileHandleForWriting.write(contentsOf: Self.pipeful(facts))
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            // Wait for the spill folder and its first files (the process then waits for more input).
            var spill: String?
            var files: [String] = []
            for _ in 0..<200 {
                spill = try FileManager.default.contentsOfDirectory(atPath: temporary.path).first { $0.hasPrefix("badgectl-league-") }
                if let spill { files = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path + "/" + spill)) ?? [] }
                if !files.isEmpty { break }
                usleep(50_000)
            }
            let name = try XCTUnwrap(spill, "no spill folder in \(temporary.path)")
            XCTAssertFalse(files.isEmpty, "no spill file yet")
            let attributes = try FileManager.default.attributesOfItem(atPath: temporary.path + "/" + name)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o700, "the spill folder")
            for file in files {
                let mode = try FileManager.default.attributesOfItem(atPath: temporary.path + "/" + name + "/" + file)[.posixPermissions]
                XCTAssertEqual((mode as? NSNumber)?.intValue, 0o600, file)
            }
            kill(process.processIdentifier, number)
            guard Self.waitForExit(process) else {
                XCTFail("signal \(number): the process did not end within \(Self.exitTimeout) s")
                try? input.fileHandleForWriting.close()
                continue
            }
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "signal \(number)")
            XCTAssertEqual(process.terminationStatus, number)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [], "signal \(number): the spills are removed")
            try? input.fileHandleForWriting.close()
        }
    }

    /// Copies of `facts` up to 48 KB (at least one): what a pipe's 64 KiB buffer takes at once.
    static func pipeful(_ facts: String) -> Data {
        Data(String(repeating: facts, count: max(1, 48_000 / max(facts.utf8.count, 1))).utf8)
    }

    /// How long a signalled process may take to end before the test fails (and kills it).
    static let exitTimeout = 30.0

    /// Waits for `process` to end, at most `exitTimeout` seconds; false (the process killed) when it
    /// did not: a lost signal fails the test instead of hanging it.
    static func waitForExit(_ process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(exitTimeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        guard process.isRunning else {
            process.waitUntilExit()
            return true
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    /// SIGTERM or SIGINT at any moment of the reduce's start, from before its sorter arms the
    /// interrupt handling to its first spills: the process ends by that signal every time, and leaves
    /// no spill behind. (The handling was armed asynchronously once, with the signals ignored until
    /// then: a signal in that window was lost, and the process waited on its stdin for good.)
    func testAnInterruptAtAnyMomentEndsTheProcess() throws {
        let folder = try TemporaryFolder()
        let (facts, options) = try facts(in: folder)
        let input = Self.pipeful(facts)
        for round in 0..<12 {
            let number = round % 2 == 0 ? SIGTERM : SIGINT
            let temporary = try TemporaryFolder()
            let (process, pipe) = Self.spillingLeague(options, temporary: temporary)
            // In the pipe before the process starts (it fits the buffer), and stdin stays open.
            let writer = pipe.fileHandleForWriting
            try writer.write(contentsOf: input)
            try process.run()
            // Rounds 0 to 11: at once, then ever later into the start (pack loading, the sorter, the spills).
            usleep(UInt32(round) * 25_000)
            kill(process.processIdentifier, number)
            guard Self.waitForExit(process) else {
                XCTFail("round \(round), signal \(number): the process did not end within \(Self.exitTimeout) s")
                continue
            }
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "round \(round)")
            XCTAssertEqual(process.terminationStatus, number, "round \(round)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [], "round \(round): no spill left")
            try? writer.close()
        }
    }

    /// `bash -c 'ulimit -f BLOCKS; exec badgectl ...'`: the command under a file size limit.
    func underFileSizeLimit(blocks: Int, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> CLI.Output {
        let quoted = ([CLI.binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "ulimit -f \(blocks); exec \(quoted)"]
        process.currentDirectoryURL = CLI.repository
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "ended by signal \(process.terminationStatus): \(arguments)")
        return CLI.Output(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                          stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A cache, a saved state and league spills past `ulimit -f` (8 KiB): each ends with a message and
    /// an exit status, never SIGXFSZ. The cache's evaluate still gives every award, uncached; the state
    /// is either saved whole or not saved; the league names the write that failed.
    func testAFileSizeLimitEndsWithAMessageNotASignal() throws {
        let folder = try TemporaryFolder()
        let plain = try CLI.run(["evaluate", "runs", "--tz", "UTC", "--no-cache", "--format", "json"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let cached = try underFileSizeLimit(blocks: 8, ["evaluate", "runs", "--tz", "UTC", "--cache", folder.path + "/cache.sqlite", "--format", "json"])
        XCTAssertEqual(cached.status, 0, cached.stderr)
        XCTAssertEqual(cached.stdout, plain.stdout, "every award, uncached")
        XCTAssertTrue(cached.stderr.contains("cache"), cached.stderr)

        let state = folder.path + "/state"
        let saved = try underFileSizeLimit(blocks: 8, ["evaluate", "runs", "--tz", "UTC", "--no-cache", "--state", state])
        XCTAssertNotEqual(saved.status, 0, "the state cannot be saved in 8 KiB")
        XCTAssertFalse(saved.stderr.isEmpty, "it says why")
        // Whatever is there is not a state `add` would take for a whole one.
        let add = try CLI.run(["add", "--state", state, "runs/2026-08-01-first-run.gpx", "--no-cache"])
        XCTAssertNotEqual(add.status, 0, add.stdout)

        let (facts, options) = try facts(in: folder)
        let temporary = try TemporaryFolder()
        let league = try underFileSizeLimit(blocks: 1, ["league", "--from-facts", "--sort-buffer-kib", "1"] + options,
                                            stdin: String(repeating: facts, count: 20), environment: ["TMPDIR": temporary.path])
        XCTAssertNotEqual(league.status, 0)
        XCTAssertTrue(league.stderr.contains("badgectl-league-"), "names the spill it could not write: \(league.stderr)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [], "and removes its spills")
    }
}
