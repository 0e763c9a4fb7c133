import RunFixtures
import Foundation
import SyntheticRuns
import XCTest

/// Taking runs back (issue 51, N, item 1), through the built binary: `remove --state DIR RUN...`, and
/// `add` of a file already in the state whose content changed (trimmed, re-typed as a ride). Whatever
/// the order of adds, removes and changes, the state's awards and next badge are what `evaluate` gives
/// over the files that are left.
final class RemoveEndToEndTests: XCTestCase {
    static let common = ["--tz", "UTC", "--no-cache", "--rules", CLI.repository.path + "/rules", "--badges", CLI.repository.path + "/badges.json"]

    func json(_ text: String, _ context: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], context + ": " + text)
    }

    func identities(_ list: Any?) -> [String] {
        (list as? [[String: Any]] ?? []).map { "\($0["pack"] ?? "")/\($0["rule"] ?? "")/\($0["badge"] ?? "")/\($0["tier"] ?? "")/\($0["run"] ?? "")" }.sorted()
    }

    /// A run of a random history: a JSON summary (most) or a GPX file, running or (re-typed) cycling.
    struct Run {
        var name: String
        var start: Double
        var meters: Double
        var seconds: Double
        var sport = "running"
        var gpx = false

        func bytes(seed: UInt64) -> [UInt8] {
            if gpx {
                var generator = RunGenerator(seed: seed, distanceMeters: meters, paceSecondsPerKilometre: seconds / meters * 1000)
                generator.startEpochSeconds = start
                generator.sampling = .every(5)
                generator.sport = sport
                return generator.gpxBytes()
            }
            let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: start))
            return Array(#"{"start":"\#(iso)","distance_m":\#(Int(meters)),"duration_s":\#(Int(seconds)),"sport":"\#(sport)"}"#.utf8)
        }
    }

    /// The state after `remove` and changed `add`s equals `evaluate` over the files left, for random
    /// sequences (fixed seeds; `BADGECTL_REMOVE_SEEDS=1...20` runs others): after every step, the
    /// awards (pack, rule, badge, tier, run) and the next badge with its distance left.
    func testRemovesAndChangedAddsLeaveWhatEvaluateGives() throws {
        let text = ProcessInfo.processInfo.environment["BADGECTL_REMOVE_SEEDS"] ?? ""
        let bounds = text.components(separatedBy: "...").compactMap { UInt64($0) }
        let seeds: [UInt64] = bounds.count == 2 && bounds[0] <= bounds[1] ? Array(bounds[0]...bounds[1]) : [1, 2]
        for seed in seeds { try check(seed: seed) }
    }

    func check(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let folder = try TemporaryFolder()
        let runs = folder.path + "/runs", state = folder.path + "/state"
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        var pool: [Run] = []
        for index in 0..<14 {
            let meters = 2_000 + random.uniform() * 24_000
            let run = Run(name: String(format: "%02d", index) + (index % 4 == 1 ? ".gpx" : ".json"),
                          start: 1_772_366_400 + Double(index) * 86_400 * 2 + Double(random.below(40_000)),
                          meters: meters, seconds: meters / 1000 * (270 + random.uniform() * 120), gpx: index % 4 == 1)
            pool.append(run)
        }
        func write(_ run: Run) throws {
            try Data(run.bytes(seed: seed &* 1_000_003 &+ UInt64(run.start))).write(to: URL(fileURLWithPath: runs + "/" + run.name))
        }
        // Half the runs at first, in the folder the state is made from.
        var present: [String: Run] = [:]
        for run in pool where random.uniform() < 0.5 { try write(run); present[run.name] = run }
        if present.isEmpty { try write(pool[0]); present[pool[0].name] = pool[0] }
        let started = try CLI.run(["evaluate", runs, "--state", state, "--format", "json"] + Self.common)
        XCTAssertEqual(started.status, 0, started.stderr)

        var log: [String] = []
        for step in 0..<10 {
            let roll = random.uniform()
            var arguments: [String]
            var held = true
            let names = present.keys.sorted()
            if roll < 0.3 || names.count < 2 {
                // A new run, in any order (it may start before the last saved one).
                let absent = pool.filter { present[$0.name] == nil }
                guard !absent.isEmpty else { continue }
                let run = absent[random.below(absent.count)]
                try write(run); present[run.name] = run
                arguments = ["add", "--state", state, runs + "/" + run.name]
                log.append("add \(run.name)")
            } else if roll < 0.55 {
                // Removed, by id or by path.
                let name = names[random.below(names.count)]
                try FileManager.default.removeItem(atPath: runs + "/" + name)
                // A ride was never in the history: nothing to remove (status 1, the state unchanged).
                held = present[name]?.sport == "running"
                present[name] = nil
                arguments = ["remove", "--state", state, random.below(2) == 0 ? name : runs + "/" + name]
                log.append("remove \(name)")
            } else if roll < 0.8 {
                // Trimmed or extended: the same file, another distance and time.
                let name = names[random.below(names.count)]
                var run = try XCTUnwrap(present[name])
                let factor = 0.6 + random.uniform() * 0.8
                run.meters *= factor; run.seconds *= factor
                try write(run); present[name] = run
                arguments = ["add", "--state", state, runs + "/" + name]
                log.append("change \(name) to \(Int(run.meters)) m")
            } else {
                // Re-typed: a ride, or back to a run.
                let name = names[random.below(names.count)]
                var run = try XCTUnwrap(present[name])
                run.sport = run.sport == "running" ? "cycling" : "running"
                try write(run); present[name] = run
                arguments = ["add", "--state", state, runs + "/" + name]
                log.append("re-type \(name) as \(run.sport)")
            }
            let context = "seed \(seed), step \(step): \(log.joined(separator: "; "))"
            let changed = try CLI.run(arguments + ["--format", "json"])
            XCTAssertEqual(changed.status, held ? 0 : 1, context + "\n" + changed.stderr)
            let all = try CLI.run(["add", "--state", state, "--all-awards", "--format", "json"])
            XCTAssertEqual(all.status, 0, context + "\n" + all.stderr)
            let evaluated = try CLI.run(["evaluate", runs, "--format", "json"] + Self.common)
            XCTAssertEqual(evaluated.status, 0, context + "\n" + evaluated.stderr)
            let expected = try json(evaluated.stdout, context), got = try json(all.stdout, context)
            XCTAssertEqual(identities(got["awards"]), identities(expected["awards"]), context)
            let nextGot = got["next"] as? [String: Any], nextExpected = expected["next"] as? [String: Any]
            XCTAssertEqual(nextGot?["badge"] as? String, nextExpected?["badge"] as? String, context)
            XCTAssertEqual((nextGot?["remaining_m"] as? Double) ?? -1, (nextExpected?["remaining_m"] as? Double) ?? -1, accuracy: 1e-6, context)
            if held { XCTAssertEqual(try json(changed.stdout, context)["award_count"] as? Int, (expected["awards"] as? [Any])?.count, context) }
        }
    }

    /// What `remove` says: the awards withdrawn and those given instead; a run the state does not
    /// hold is skipped by name (status 2), none held changes nothing (status 1, the nearest id).
    func testRemoveReportsWhatItWithdrewAndGave() throws {
        let folder = try TemporaryFolder()
        let runs = folder.path + "/runs", state = folder.path + "/state"
        try FileManager.default.copyItem(atPath: CLI.repository.path + "/runs", toPath: runs)
        let common = ["--tz", "UTC", "--no-cache", "--rules", CLI.repository.path + "/rules/checkpoints", "--badges", CLI.repository.path + "/badges.json"]
        XCTAssertEqual(try CLI.run(["evaluate", runs, "--state", state] + common).status, 0)

        let removed = try CLI.run(["remove", "--state", state, "2026-10-03-ten-miles.gpx", "--format", "json"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        let report = try json(removed.stdout, "remove")
        XCTAssertEqual(report["removed"] as? [String], ["2026-10-03-ten-miles.gpx"])
        XCTAssertEqual(report["run_count"] as? Int, 15)
        XCTAssertEqual(identities(report["withdrawn"]), ["checkpoints/distance/ten-miler/best/2026-10-03-ten-miles.gpx",
                                                         "checkpoints/distance/ten-miler/earned/2026-10-03-ten-miles.gpx"])
        // The half marathon is now the first run longer than ten miles.
        XCTAssertEqual(identities(report["added"]), ["checkpoints/distance/ten-miler/best/2026-10-18-half.gpx",
                                                     "checkpoints/distance/ten-miler/earned/2026-10-18-half.gpx"])
        let table = try CLI.run(["remove", "--state", state, runs + "/2026-10-18-half.gpx", "nowhere.gpx"])
        XCTAssertEqual(table.status, 2, table.stdout + table.stderr)
        XCTAssertTrue(table.stdout.hasPrefix("1 run removed, 14 in the history;"), table.stdout)
        XCTAssertTrue(table.stdout.contains("Withdrawn (a run removed, or no longer earned):"), table.stdout)
        XCTAssertTrue(table.stderr.contains("skipped nowhere.gpx: no such run in the state"), table.stderr)

        let none = try CLI.run(["remove", "--state", state, "2026-09-12-fiften.gpx"])
        XCTAssertEqual(none.status, 1, none.stdout + none.stderr)
        XCTAssertTrue(none.stderr.contains("holds no run '2026-09-12-fiften.gpx'; did you mean '2026-09-12-fifteen.gpx'?"), none.stderr)
        XCTAssertEqual(try CLI.run(["add", "--state", state, "--all-awards", "--format", "json"]).status, 0)
    }

    /// `explain --state` and `report --state` name the awards a state took back, when and why, while
    /// the runs do not give them again: after `remove` of the ten-miles run (Ten Miler moves to the
    /// half marathon), the folder without it shows Ten Miler's earned and best on it as taken back;
    /// the folder with it (which gives them again), and the state after the run is added back, show none.
    func testExplainAndTheReportNameWhatTheStateTookBack() throws {
        let folder = try TemporaryFolder()
        let runs = folder.path + "/runs", state = folder.path + "/state", removed = "2026-10-03-ten-miles.gpx"
        try FileManager.default.copyItem(atPath: CLI.repository.path + "/runs", toPath: runs)
        XCTAssertEqual(try CLI.run(["evaluate", runs, "--state", state] + Self.common).status, 0)
        XCTAssertEqual(try CLI.run(["remove", "--state", state, removed]).status, 0)
        try FileManager.default.moveItem(atPath: runs + "/" + removed, toPath: folder.path + "/" + removed)
        let why = "run '\(removed)' removed; given to run '2026-10-18-half.gpx' instead"

        let table = try CLI.run(["explain", "ten-miler", runs, "--state", state, "--wide"] + Self.common)
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("Taken back (by the saved state):"), table.stdout)
        XCTAssertTrue(table.stdout.contains("earned  \(removed)"), table.stdout)
        XCTAssertTrue(table.stdout.contains(why), table.stdout)
        let json = try self.json(try CLI.run(["explain", "ten-miler", runs, "--state", state, "--format", "json"] + Self.common).stdout, "explain")
        let withdrawn = try XCTUnwrap(json["withdrawn"] as? [[String: Any]])
        XCTAssertEqual(withdrawn.map { ($0["award"] as? [String: Any])?["tier"] as? String }, ["earned", "best"])
        XCTAssertEqual(Set(withdrawn.map { ($0["award"] as? [String: Any])?["run"] as? String }), [removed])
        XCTAssertEqual(Set(withdrawn.map { $0["why"] as? String }), [why])
        // Without --state, nothing is named: explain explains the folder.
        XCTAssertEqual((try self.json(try CLI.run(["explain", "ten-miler", runs, "--format", "json"] + Self.common).stdout, "explain")["withdrawn"]
                        as? [Any])?.count, 0)

        let page = folder.path + "/report.html"
        XCTAssertEqual(try CLI.run(["report", runs, "--state", state, "-o", page] + Self.common).status, 0)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("<h2>Taken back</h2>"), html)
        XCTAssertTrue(html.contains("<td>Ten Miler</td><td>earned</td><td>\(removed)</td>"), html)

        // The folder that still holds the run gives its awards again: nothing is named as taken back.
        try FileManager.default.moveItem(atPath: folder.path + "/" + removed, toPath: runs + "/" + removed)
        let again = try self.json(try CLI.run(["explain", "ten-miler", runs, "--state", state, "--format", "json"] + Self.common).stdout, "explain")
        XCTAssertEqual((again["withdrawn"] as? [Any])?.count, 0)
        // Added back to the state: it holds them again, and takes nothing back.
        XCTAssertEqual(try CLI.run(["add", "--state", state, runs + "/" + removed]).status, 0)
        try FileManager.default.moveItem(atPath: runs + "/" + removed, toPath: folder.path + "/" + removed)
        let held = try self.json(try CLI.run(["explain", "ten-miler", runs, "--state", state, "--format", "json"] + Self.common).stdout, "explain")
        XCTAssertEqual((held["withdrawn"] as? [Any])?.count, 0)
        XCTAssertFalse(try CLI.run(["report", runs, "--state", state, "-o", page] + Self.common).stdout.isEmpty)
        XCTAssertFalse(try String(contentsOfFile: page, encoding: .utf8).contains("<h2>Taken back</h2>"))
    }
}
