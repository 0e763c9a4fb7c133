import RunFixtures
import Foundation
import GRDB
import XCTest

/// `evaluate --state DIR` then `badgectl add --state DIR FILE...`, the built binary end to end.
final class AddCommandTests: XCTestCase {
    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func identities(_ list: Any?) -> [String] {
        (list as? [[String: Any]] ?? []).map { "\($0["pack"] ?? "")/\($0["badge"] ?? "")/\($0["tier"] ?? "")/\($0["run"] ?? "")" }
    }

    func testAddEqualsEvaluatingEverything() throws {
        let folder = try TemporaryFolder()
        let runs = folder.url.appendingPathComponent("runs")
        try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs"), to: runs)
        let state = folder.url.appendingPathComponent("state").path
        let common = ["--tz", "UTC", "--no-cache", "--rules", "rules", "--badges", "badges.json"]
        let saved = try CLI.run(["evaluate", runs.path, "--state", state] + common)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + "/state.sqlite"))

        // A faster, longer run after the last one: inside the folder, so named as evaluate names it.
        let late = runs.appendingPathComponent("2026-11-01-long.json")
        try #"{"start":"2026-11-01T07:00:00Z","distance_m":22000,"duration_s":6000}"#.write(to: late, atomically: true, encoding: .utf8)
        let added = try CLI.run(["add", "--state", state, late.path, "--format", "json", "--rules", "rules", "--badges", "badges.json"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let report = try json(added.stdout)
        XCTAssertTrue(report["replayed"] is NSNull)
        XCTAssertEqual(report["run_count"] as? Int, 17)
        // What this step changed, not every award of the history (that is --all-awards).
        XCTAssertNil(report["awards"], added.stdout)
        XCTAssertEqual(report["runs"] as? [String], ["2026-11-01-long.json"])
        XCTAssertTrue(identities(report["withdrawn"]).contains("checkpoints/half-marathon/best/2026-10-18-half.gpx"), added.stdout)
        XCTAssertTrue(identities(report["added"]).contains("checkpoints/half-marathon/best/2026-11-01-long.json"), added.stdout)

        let full = try CLI.run(["evaluate", runs.path, "--format", "json"] + common)
        let everything = identities(try json(full.stdout)["awards"])
        XCTAssertEqual(report["award_count"] as? Int, everything.count, added.stdout)
        XCTAssertTrue(added.stdout.contains("\"award_count\""))

        // --all-awards reads every award of the history from the state database: a full evaluation's.
        let listed = try CLI.run(["add", "--state", state, "--all-awards", "--format", "json", "--rules", "rules", "--badges", "badges.json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(identities(try json(listed.stdout)["awards"]), everything)

        // The same file again: the history is replayed, and says so; nothing moves.
        let again = try CLI.run(["add", "--state", state, late.path, "--rules", "rules", "--badges", "badges.json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("badgectl: replayed the whole history (17 runs): run '2026-11-01-long.json' is already saved"), again.stderr)
        XCTAssertTrue(again.stdout.hasPrefix("1 run added, 17 in the history; 0 new awards, 0 withdrawn, \(everything.count) awards in all"), again.stdout)

        // Other packs than the state's (here: only checkpoints, as a forgotten --rules finds another
        // ./rules) would withdraw the missing packs' awards: refused, naming them and their folders.
        let fewer = try CLI.run(["add", "--state", state, late.path, "--rules", "rules/checkpoints", "--badges", "badges.json"])
        XCTAssertEqual(fewer.status, 1, fewer.stderr)
        XCTAssertTrue(fewer.stderr.contains("made with packs 'agegrade' (from "), fewer.stderr)
        // The state records where each pack came from as an absolute path (`add` without --rules loads them from there).
        let rules = CLI.repository.appendingPathComponent("rules").path
        XCTAssertTrue(fewer.stderr.contains("which these rules do not have (they have checkpoints): give the same packs (--rules \(rules)/agegrade --rules \(rules)/challenges --rules \(rules)/checkpoints --rules \(rules)/explorer "), fewer.stderr)
        XCTAssertTrue(fewer.stdout.isEmpty, fewer.stdout)

        // Another zone is refused; a bad file is skipped with its name (exit 2); no state is an error (exit 1).
        let zone = try CLI.run(["add", "--state", state, late.path, "--tz", "Europe/Paris", "--rules", "rules", "--badges", "badges.json"])
        XCTAssertEqual(zone.status, 1)
        XCTAssertTrue(zone.stderr.contains("not Europe/Paris: add with --tz"), zone.stderr)
        let bad = folder.url.appendingPathComponent("bad.gpx")
        try "<gpx><trk>".write(to: bad, atomically: true, encoding: .utf8)
        let skipped = try CLI.run(["add", "--state", state, bad.path, "--rules", "rules", "--badges", "badges.json"])
        XCTAssertEqual(skipped.status, 2, skipped.stderr)
        XCTAssertTrue(skipped.stderr.contains("skipped ") && skipped.stderr.contains("bad.gpx"), skipped.stderr)
        let none = try CLI.run(["add", "--state", folder.path + "/none", late.path, "--rules", "rules", "--badges", "badges.json"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no saved state here"), none.stderr)
    }

    /// A tampered state folder is refused, naming the file and what is damaged (it crashed on a
    /// negative size, aborted allocating for a huge run count, and hung on a FIFO).
    func testATamperedStateIsRefusedNotACrashOrAHang() throws {
        let folder = try TemporaryFolder()
        let runs = folder.url.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        for name in ["2026-08-01-first-run.gpx", "2026-08-04-canal.gpx"] {
            try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/" + name), to: runs.appendingPathComponent(name))
        }
        let original = folder.path + "/state"
        let rules = ["--rules", "rules/checkpoints", "--badges", "badges.json"]
        XCTAssertEqual(try CLI.run(["evaluate", runs.path, "--state", original, "--tz", "UTC", "--no-cache"] + rules).status, 0)
        let late = CLI.repository.appendingPathComponent("runs/2026-10-18-half.gpx").path
        let tampers: [(String, (String) throws -> Void, String)] = [
            ("negative size", { try Self.sql($0, "UPDATE header SET value = json_set(value, '$.runs_bytes', -1) WHERE key = 'state'") },
             "state.sqlite: field 'runs_bytes': -1 is negative: damaged"),
            ("huge count", { try Self.sql($0, "UPDATE header SET value = json_set(value, '$.run_count', 1000000000000) WHERE key = 'state'") },
             "state.sqlite: field 'run_count': 1000000000000 runs, the database holds 2: damaged"),
            ("last row id", { try Self.sql($0, "UPDATE run SET pos = 9223372036854775807 WHERE pos = 1") },
             "state.sqlite: field 'run_count': 2 runs, the database holds 9.223372036854776e+18: damaged"),
            ("real count", { try Self.sql($0, "UPDATE rule SET next_seq = 1.5 WHERE idx = 0") },
             "state.sqlite: damaged: column 'next_seq' holds 1.5, not an integer"),
            ("real offset", { try Self.sql($0, "UPDATE run SET offset = 1e30 WHERE pos = 0") },
             "state.sqlite: damaged: column 'offset' holds 1e+30, not an integer"),
            ("offset outside", { try Self.sql($0, "UPDATE run SET offset = 999999999, length = 5 WHERE pos = 0") },
             "state.sqlite: run 0 ('2026-08-01-first-run.gpx'): bytes 999999999+5 are outside runs.jsonl's"),
            ("not a database", { try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: $0 + "/state.sqlite")) },
             "state.sqlite: damaged (file is not a database)"),
            ("FIFO", { path in
                try FileManager.default.removeItem(atPath: path + "/runs.jsonl")
                XCTAssertEqual(mkfifo(path + "/runs.jsonl", 0o600), 0)
            }, "runs.jsonl: not a regular file: damaged"),
        ]
        for (name, tamper, message) in tampers {
            let state = folder.path + "/state-" + name.replacingOccurrences(of: " ", with: "-")
            try FileManager.default.copyItem(atPath: original, toPath: state)
            try tamper(state)
            let added = try CLI.run(["add", "--state", state, late] + rules)
            XCTAssertEqual(added.status, 1, "\(name): \(added.stderr)")
            XCTAssertTrue(added.stderr.contains(message), "\(name): \(added.stderr)")
        }
    }

    /// A state database that cannot be read loses no run: the error names the file and says how to
    /// make it again, and `add --rebuild` makes it from runs.jsonl (the damaged file kept aside),
    /// giving what a full evaluation gives.
    func testADamagedStateDatabaseIsRebuiltFromTheSavedRuns() throws {
        let folder = try TemporaryFolder()
        let runs = folder.url.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        let names = ["2026-08-01-first-run.gpx", "2026-08-04-canal.gpx", "2026-08-12-treadmill.json"]
        for name in names {
            try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/" + name), to: runs.appendingPathComponent(name))
        }
        let state = folder.path + "/state"
        let rules = ["--rules", "rules", "--badges", "badges.json"]
        XCTAssertEqual(try CLI.run(["evaluate", runs.path, "--state", state, "--tz", "UTC", "--no-cache"] + rules).status, 0)
        let savedRuns = try Data(contentsOf: URL(fileURLWithPath: state + "/runs.jsonl"))
        // Half the file overwritten: SQLite finds it damaged.
        let database = try Data(contentsOf: URL(fileURLWithPath: state + "/state.sqlite"))
        try (database.prefix(100) + Data(repeating: 0xA5, count: database.count - 100)).write(to: URL(fileURLWithPath: state + "/state.sqlite"))
        let late = runs.appendingPathComponent("2026-11-01-long.json")
        try #"{"start":"2026-11-01T07:00:00Z","distance_m":22000,"duration_s":6000}"#.write(to: late, atomically: true, encoding: .utf8)
        let refused = try CLI.run(["add", "--state", state, late.path] + rules)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains(state + "/state.sqlite: "), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("the runs are kept apart in runs.jsonl: `badgectl add --state DIR --rebuild`"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: state + "/runs.jsonl")), savedRuns)

        let rebuilt = try CLI.run(["add", "--state", state, late.path, "--rebuild", "--format", "json", "--all-awards"] + rules)
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertTrue(rebuilt.stderr.contains("the state was rebuilt from 3 saved runs"), rebuilt.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + "/state.sqlite.damaged"))
        let full = try CLI.run(["evaluate", runs.path, "--format", "json", "--tz", "UTC", "--no-cache"] + rules)
        XCTAssertEqual(identities(try json(rebuilt.stdout)["awards"]), identities(try json(full.stdout)["awards"]))
        XCTAssertEqual(try json(rebuilt.stdout)["run_count"] as? Int, 4)
        // And additions go on from it.
        let next = runs.appendingPathComponent("2026-11-08-next.json")
        try #"{"start":"2026-11-08T07:00:00Z","distance_m":5000,"duration_s":1500}"#.write(to: next, atomically: true, encoding: .utf8)
        let added = try CLI.run(["add", "--state", state, next.path, "--format", "json"] + rules)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(try json(added.stdout)["replayed"] is NSNull, added.stdout)
    }

    /// Runs `sql` on the state database of the folder `state`.
    static func sql(_ state: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: state + "/state.sqlite")
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }

    /// A pack whose rule requires a module through a linked folder (`lib -> .shared`): editing the
    /// module changes the pack's fingerprint, so `add` replays the history and gives what a full
    /// `evaluate` gives. The linked folder was left out of the fingerprint: `add` kept the saved
    /// state and handed only the new run to the edited rule.
    func testEditingAModuleBehindALinkedFolderReplays() throws {
        let folder = try TemporaryFolder()
        let runs = folder.url.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        for name in ["2026-08-01-first-run.gpx", "2026-08-04-canal.gpx", "2026-08-12-treadmill.json"] {
            try FileManager.default.copyItem(at: CLI.repository.appendingPathComponent("runs/" + name), to: runs.appendingPathComponent(name))
        }
        let pack = folder.path + "/packs/linked"
        try folder.write("packs/linked/pack.lua", #"return { name = "linked", version = "1" }"#)
        try folder.write("packs/linked/far.lua", """
            local threshold = require("lib.thresh")
            return { id = "far", badge = "lace-up", repeatable = true,
                     earned = function(run) return run.distance_m >= threshold end }
            """)
        try folder.write("packs/linked/.shared/thresh.lua", "return 1e9")
        try FileManager.default.createSymbolicLink(atPath: pack + "/lib", withDestinationPath: ".shared")
        let rules = ["--rules", pack, "--badges", "badges.json"]
        let state = folder.path + "/state"
        let saved = try CLI.run(["evaluate", runs.path, "--state", state, "--tz", "UTC", "--no-cache"] + rules)
        XCTAssertEqual(saved.status, 0, saved.stderr)

        try folder.write("packs/linked/.shared/thresh.lua", "return 1000")
        let late = runs.appendingPathComponent("2026-11-01-long.json")
        try #"{"start":"2026-11-01T07:00:00Z","distance_m":22000,"duration_s":6000}"#.write(to: late, atomically: true, encoding: .utf8)
        let added = try CLI.run(["add", "--state", state, late.path, "--format", "json", "--all-awards"] + rules)
        XCTAssertEqual(added.status, 0, added.stderr)
        let report = try json(added.stdout)
        XCTAssertEqual(report["replayed"] as? String, "pack 'linked' changed", added.stdout)
        let full = try CLI.run(["evaluate", runs.path, "--format", "json", "--tz", "UTC", "--no-cache"] + rules)
        XCTAssertEqual(full.status, 0, full.stderr)
        let expected = identities(try json(full.stdout)["awards"])
        XCTAssertEqual(expected.count, 4, full.stdout)
        XCTAssertEqual(identities(report["awards"]), expected)
    }

    /// Replaces the first match of `pattern` in the file at `path`.
    static func edit(_ path: String, _ pattern: String, _ replacement: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let range = text.range(of: pattern, options: .regularExpression) else { throw CocoaError(.fileReadCorruptFile) }
        try text.replacingCharacters(in: range, with: replacement).write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// Issue S's messages about the saved state and the zone, through the built binary.
final class StateMessagesEndToEndTests: XCTestCase {
    static let packs = ["--rules", "rules", "--badges", "badges.json"]
    static let first = CLI.repository.appendingPathComponent("runs/2026-08-01-first-run.gpx").path
    static let second = CLI.repository.appendingPathComponent("runs/2026-08-04-canal.gpx").path

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// `--tz UTC` was shown and saved as "GMT" (Foundation's name for it); `Etc/UTC` is accepted
    /// (Foundation knows it only where the zone files are installed) and is the same zone.
    func testUTCIsShownAndSavedAsUTC() throws {
        let folder = try TemporaryFolder()
        let state = folder.path + "/state"
        let saved = try CLI.run(["evaluate", Self.first, "--state", state, "--tz", "UTC", "--no-cache", "--format", "json"] + Self.packs)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertEqual((try json(saved.stdout)["header"] as? [String: Any])?["zone"] as? String, "UTC")
        let header = try DatabaseQueue(path: state + "/state.sqlite").read { try String.fetchOne($0, sql: "SELECT value FROM header WHERE key = 'state'") }
        XCTAssertEqual(try json(header ?? "")["zone"] as? String, "UTC")
        for name in ["Etc/UTC", "utc", "Zulu"] {
            let other = try CLI.run(["evaluate", Self.first, "--tz", name, "--no-cache", "--format", "json"] + Self.packs)
            XCTAssertEqual(other.status, 0, other.stderr)
            XCTAssertEqual((try json(other.stdout)["header"] as? [String: Any])?["zone"] as? String, "UTC", name)
        }
        // add in the state's zone, named either way.
        let added = try CLI.run(["add", "--state", state, Self.second, "--tz", "Etc/UTC", "--format", "json"] + Self.packs)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual((try json(added.stdout)["header"] as? [String: Any])?["zone"] as? String, "UTC")
        // A state saved before this change says "GMT": still the same zone, without --tz and with it.
        try AddCommandTests.sql(state, "UPDATE header SET value = json_set(value, '$.zone', 'GMT') WHERE key = 'state'")
        let late = folder.path + "/late.json"
        try #"{"start":"2026-11-01T07:00:00Z","distance_m":6000,"duration_s":1900}"#.write(toFile: late, atomically: true, encoding: .utf8)
        for tz in [[], ["--tz", "UTC"]] {
            let old = try CLI.run(["add", "--state", state, late] + tz + Self.packs)
            XCTAssertEqual(old.status, 0, old.stderr)
        }
        let paris = try CLI.run(["add", "--state", state, late, "--tz", "Europe/Paris"] + Self.packs)
        XCTAssertEqual(paris.status, 1)
        XCTAssertTrue(paris.stderr.contains("not Europe/Paris: add with --tz UTC"), paris.stderr)
    }

    /// A state that cannot be written said Foundation's `Error Domain=NSCocoaErrorDomain Code=512 ...
    /// File too large`; it says which file and the system's reason.
    func testAFailedStateWriteSaysWhatFailedAndWhere() throws {
        let folder = try TemporaryFolder()
        let state = folder.path + "/state"
        let saved = try CLI.run(["evaluate", Self.first, "--state", state, "--tz", "UTC", "--no-cache"] + Self.packs)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        // A file-size limit below runs.jsonl's size (SIGXFSZ ignored, as a shell with `trap '' XFSZ` does):
        // appending the run fails with EFBIG.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        // --no-cache: add reads through the run-summary cache by default, which the limit would fail too.
        let command = ([CLI.binary.path, "add", "--state", state, Self.second, "--no-cache"] + Self.packs).map { "'\($0)'" }.joined(separator: " ")
        process.arguments = ["-c", "trap '' XFSZ; ulimit -f 2; exec \(command)"]
        process.currentDirectoryURL = CLI.repository
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        XCTAssertEqual(stderr, "badgectl: \(state)/runs.jsonl: cannot save the state: writing this file failed: File too large\n")

        // A folder in the way of the temporary file evaluate --state writes.
        let other = folder.path + "/other"
        try FileManager.default.createDirectory(atPath: other + "/runs.jsonl.tmp", withIntermediateDirectories: true)
        let blocked = try CLI.run(["evaluate", Self.first, "--state", other, "--tz", "UTC", "--no-cache"] + Self.packs)
        XCTAssertEqual(blocked.status, 1, blocked.stderr)
        XCTAssertTrue(blocked.stderr.contains("badgectl: \(other)/runs.jsonl.tmp: cannot save the state: writing this file failed: Is a directory"), blocked.stderr)
        XCTAssertFalse(blocked.stderr.contains("NSCocoaErrorDomain"), blocked.stderr)
    }
}
