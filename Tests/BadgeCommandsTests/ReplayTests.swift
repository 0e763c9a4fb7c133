import RunFixtures
import Foundation
import XCTest

/// L: `badgectl diff`, `--as-of`, `badgectl whatif` and the provenance of awards, end to end.
final class ReplayTests: XCTestCase {
    // MARK: - diff

    /// A small pack: `fast-5k` (earned by the first run of 5 km or more; silver by a later one faster
    /// than SILVER x its speed; gold, when the pack declares it, faster than GOLD x) and `long-run`
    /// (a run of 15 km or more).
    static func clubPack(silver: Double, gold: Double?, long: Bool) -> [String: String] {
        let tiers = gold == nil ? #""earned", "silver""# : #""earned", "silver", "gold""#
        var files: [String: String] = [:]
        files["pack.lua"] = """
            return { name = "club", version = "\(gold == nil ? "1.0.0" : "2.0.0")",
              badges = {
                { id = "fast-5k", name = "Fast Five", tiers = { \(tiers) } },
                { id = "long-run", name = "Long Run", tiers = { "earned" } },
              } }
            """
        files["fast.lua"] = """
            local SILVER, GOLD = \(silver), \(gold.map { "\($0)" } ?? "nil")
            return { id = "fast", badge = "fast-5k",
              init = function() return {} end,
              on_run = function(state, run, award)
                if run.distance_m < 5000 or run.elapsed_s == nil then return end
                local speed = run.distance_m / run.elapsed_s
                if state.speed == nil then
                  state.speed = speed
                  award { run = run, evidence = { speed_m_per_s = speed } }
                  return
                end
                if not state.silver and speed > SILVER * state.speed then
                  state.silver = true
                  award { run = run, tier = "silver", evidence = { ratio = speed / state.speed } }
                end
                if GOLD and not state.gold and speed > GOLD * state.speed then
                  state.gold = true
                  award { run = run, tier = "gold", evidence = { ratio = speed / state.speed } }
                end
              end }
            """
        if long {
            files["long.lua"] = """
                return { id = "long", badge = "long-run",
                  earned = function(run) return run.distance_m >= 15000 end }
                """
        }
        return files
    }

    /// Five runs (m, s): r1 5 km 30:00 (2.778 m/s, earns fast-5k); r2 6 km 34:00 (2.941 m/s, 1.059x:
    /// silver at 1.05); r3 5 km 24:00 (3.472 m/s, 1.25x: silver at 1.20); r4 16 km 1:20:00 (3.333 m/s,
    /// 1.2x, long-run); r5 5 km 22:00 (3.788 m/s, 1.364x: gold at 1.30).
    func writeHistory(_ folder: TemporaryFolder) throws {
        let runs: [(String, Int, Int)] = [("r1", 5000, 1800), ("r2", 6000, 2040), ("r3", 5000, 1440), ("r4", 16000, 4800), ("r5", 5000, 1320)]
        for (index, run) in runs.enumerated() {
            try folder.write("runs/\(run.0).json", #"{ "start": "2025-03-0\#(index + 1)T07:00:00Z", "distance_m": \#(run.1), "duration_s": \#(run.2) }"#)
        }
    }

    func testDiffOfAPackEditedThreeWaysListsTheHandWrittenGainsLossesAndMoves() throws {
        let folder = try TemporaryFolder()
        try writeHistory(folder)
        for (name, text) in Self.clubPack(silver: 1.05, gold: nil, long: true) { try folder.write("current/club/\(name)", text) }
        // Edited three ways: a stricter silver (1.05 -> 1.20), a new tier (gold at 1.30), a removed badge (long-run).
        for (name, text) in Self.clubPack(silver: 1.20, gold: 1.30, long: false) { try folder.write("candidate/club/\(name)", text) }
        let common = ["diff", folder.path + "/runs", "--rules", folder.path + "/current", "--against", folder.path + "/candidate",
                      "--tz", "UTC", "--no-cache"]
        let output = try CLI.run(common + ["--format", "json"])
        XCTAssertEqual(output.status, 3, output.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let counts = try XCTUnwrap(json["counts"] as? [String: Int])
        XCTAssertEqual(counts, ["gained": 1, "lost": 1, "moved": 1, "unchanged": 1])
        let badges = try XCTUnwrap(json["badges"] as? [[String: Any]])
        XCTAssertEqual(badges.map { $0["badge"] as? String }, ["fast-5k", "long-run"])
        func runs(_ badge: [String: Any], _ key: String) -> [String] {
            ((badge[key] as? [[String: Any]]) ?? []).map { "\($0["tier"] ?? "")@\($0["run"] ?? "")" }
        }
        XCTAssertEqual(runs(badges[0], "gained"), ["gold@r5.json"])
        XCTAssertEqual(runs(badges[0], "lost"), [])
        let moved = try XCTUnwrap(badges[0]["moved"] as? [[String: Any]])
        XCTAssertEqual(moved.count, 1)
        XCTAssertEqual(moved.first?["tier"] as? String, "silver")
        XCTAssertEqual((moved.first?["from"] as? [String: Any])?["run"] as? String, "r2.json")
        XCTAssertEqual((moved.first?["to"] as? [String: Any])?["run"] as? String, "r3.json")
        XCTAssertEqual(runs(badges[1], "lost"), ["earned@r4.json"])
        XCTAssertEqual(badges[1]["counts"] as? [String: Int], ["gained": 0, "lost": 1, "moved": 0, "unchanged": 0])
        // Each side's header names its packs and fingerprints.
        let current = try XCTUnwrap((json["current"] as? [String: Any])?["packs"] as? [[String: Any]])
        let candidate = try XCTUnwrap((json["candidate"] as? [String: Any])?["packs"] as? [[String: Any]])
        XCTAssertEqual(current.first?["version"] as? String, "1.0.0")
        XCTAssertEqual(candidate.first?["version"] as? String, "2.0.0")
        XCTAssertNotEqual(current.first?["fingerprint"] as? String, candidate.first?["fingerprint"] as? String)

        let table = try CLI.run(common)
        XCTAssertEqual(table.status, 3)
        XCTAssertTrue(table.stdout.hasPrefix("1 gained, 1 lost, 1 moved, 1 unchanged\n"), table.stdout)
        XCTAssertTrue(table.stdout.contains("moved"), table.stdout)

        // The same packs on both sides: no difference, status 0.
        let same = try CLI.run(["diff", folder.path + "/runs", "--rules", folder.path + "/current", "--against", folder.path + "/current",
                                "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertTrue(same.stdout.contains("0 gained, 0 lost, 0 moved, 3 unchanged"), same.stdout)
    }

    func testDiffWithoutDifferencesButASkippedFileIsPartialAndNeedsAgainst() throws {
        let folder = try TemporaryFolder()
        try writeHistory(folder)
        try folder.write("runs/broken.gpx", "<gpx><trk><trkseg><trkpt lat=\"x\"")
        for (name, text) in Self.clubPack(silver: 1.05, gold: nil, long: true) { try folder.write("current/club/\(name)", text) }
        let output = try CLI.run(["diff", folder.path + "/runs", "--rules", folder.path + "/current", "--against", folder.path + "/current",
                                  "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(output.status, 2, output.stdout + output.stderr)
        XCTAssertTrue(output.stderr.contains("broken.gpx"), output.stderr)
        let missing = try CLI.run(["diff", folder.path + "/runs", "--rules", folder.path + "/current"])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("--against"), missing.stderr)
    }

    /// The same pack edit over many athletes at once, from `badgectl worker`'s input lines.
    func testDiffOfWorkerInputListsTheChangesPerAthleteAndTheBadLines() throws {
        let folder = try TemporaryFolder()
        for (name, text) in Self.clubPack(silver: 1.05, gold: nil, long: true) { try folder.write("current/club/\(name)", text) }
        for (name, text) in Self.clubPack(silver: 1.20, gold: 1.30, long: false) { try folder.write("candidate/club/\(name)", text) }
        let runs: [(String, Int, Int)] = [("r1", 5000, 1800), ("r2", 6000, 2040), ("r3", 5000, 1440), ("r4", 16000, 4800), ("r5", 5000, 1320)]
        var lines = runs.enumerated().map { index, run in
            #"{"athlete": "ana", "id": "\#(run.0)", "summary": {"start": "2025-03-0\#(index + 1)T07:00:00Z", "distance_m": \#(run.1), "duration_s": \#(run.2)}}"#
        }
        // ben: only the run that earns fast-5k, which both versions award alike.
        lines.append(#"{"athlete": "ben", "tz": "Europe/Paris", "summary": {"start": "2025-03-01T07:00:00", "distance_m": 5000, "duration_s": 1800}}"#)
        lines.append("{not json")
        lines.append(#"{"athlete": "cy", "tz": "Mars/Olympus"}"#)
        try folder.write("lines.jsonl", lines.joined(separator: "\n") + "\n")
        let output = try CLI.run(["diff", "--worker-input", folder.path + "/lines.jsonl", "--rules", folder.path + "/current",
                                  "--against", folder.path + "/candidate", "--format", "json"])
        XCTAssertEqual(output.status, 3, output.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["counts"] as? [String: Int], ["gained": 1, "lost": 1, "moved": 1, "unchanged": 2])
        let athletes = try XCTUnwrap(json["athletes"] as? [[String: Any]])
        XCTAssertEqual(athletes.map { $0["athlete"] as? String }, ["ana"])
        XCTAssertEqual(athletes.first?["counts"] as? [String: Int], ["gained": 1, "lost": 1, "moved": 1, "unchanged": 1])
        let errors = try XCTUnwrap(json["errors"] as? [[String: Any]])
        XCTAssertEqual(errors.map { $0["line"] as? Int }, [7, 8])
        XCTAssertEqual(errors.last?["athlete"] as? String, "cy")
        // Read by the worker's own reader (LineReader, WorkerLine): the worker's messages.
        XCTAssertTrue(output.stderr.contains("skipped line 7: invalid JSON at byte 2: "), output.stderr)
        XCTAssertTrue(output.stderr.contains("skipped line 8 (cy): unknown time zone 'Mars/Olympus' in \"tz\""), output.stderr)
        let both = try CLI.run(["diff", folder.path, "--worker-input", "x", "--against", folder.path + "/candidate"])
        XCTAssertEqual(both.status, 64)
    }

    /// A candidate (or current) side that does not load exits 4, for a folder and for `--worker-input`:
    /// a pack repository's CI tells a broken candidate from a changed one (3). Before, each of these exited 3.
    func testDiffOfPacksThatDoNotLoadExitsFour() throws {
        let folder = try TemporaryFolder()
        try writeHistory(folder)
        for (name, text) in Self.clubPack(silver: 1.05, gold: nil, long: true) { try folder.write("current/club/\(name)", text) }
        // A syntax error in a rule file; a pack.lua that does not parse; a pack folder without pack.lua;
        // an empty folder; a path that is not there.
        for (name, text) in Self.clubPack(silver: 1.05, gold: nil, long: true) { try folder.write("syntax/club/\(name)", text) }
        try folder.write("syntax/club/fast.lua", "return { id = \"fast\", badge = \"fast-5k\", earned = function(run) return run. end }")
        try folder.write("bad-pack/club/pack.lua", "return { name = \"club\", version = ")
        try folder.write("bad-pack/club/long.lua", Self.clubPack(silver: 1.05, gold: nil, long: true)["long.lua"] ?? "")
        try folder.write("no-pack-lua/club/long.lua", Self.clubPack(silver: 1.05, gold: nil, long: true)["long.lua"] ?? "")
        try FileManager.default.createDirectory(atPath: folder.path + "/empty", withIntermediateDirectories: true)
        let runs: [(String, Int, Int)] = [("r1", 5000, 1800), ("r4", 16000, 4800)]
        let lines = runs.enumerated().map { index, run in
            #"{"athlete": "ana", "id": "\#(run.0)", "summary": {"start": "2025-03-0\#(index + 1)T07:00:00Z", "distance_m": \#(run.1), "duration_s": \#(run.2)}}"#
        }
        try folder.write("lines.jsonl", lines.joined(separator: "\n") + "\n")
        let current = folder.path + "/current"
        for (candidate, names) in [("syntax", "fast.lua"), ("bad-pack", "pack.lua"), ("no-pack-lua", "pack.lua"), ("empty", "pack.lua"), ("misspelt", "misspelt")] {
            let path = folder.path + "/" + candidate
            for input in [[folder.path + "/runs"], ["--worker-input", folder.path + "/lines.jsonl"]] {
                let output = try CLI.run(["diff"] + input + ["--rules", current, "--against", path, "--tz", "UTC", "--no-cache", "--format", "json"])
                XCTAssertEqual(output.status, 4, "\(candidate) \(input): " + output.stderr)
                XCTAssertTrue(output.stderr.contains("the candidate packs (--against) do not load"), output.stderr)
                XCTAssertTrue(output.stderr.contains(names), "\(candidate): " + output.stderr)
                // The report is still written, with what failed to load on the candidate's side.
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], output.stdout)
                let sides = try XCTUnwrap(json["rule_errors"] as? [String: Any])
                XCTAssertFalse((sides["candidate"] as? [Any] ?? []).isEmpty, candidate)
                XCTAssertTrue((sides["current"] as? [Any] ?? []).isEmpty, candidate)
            }
            // The current side broken: 4 as well, naming --rules.
            let reversed = try CLI.run(["diff", folder.path + "/runs", "--rules", path, "--against", current, "--tz", "UTC", "--no-cache"])
            XCTAssertEqual(reversed.status, 4, candidate + ": " + reversed.stderr)
            XCTAssertTrue(reversed.stderr.contains("the current packs (--rules) do not load"), reversed.stderr)
        }
        // Documented beside 3.
        let help = try CLI.run(["diff", "--help"])
        XCTAssertTrue(help.stdout.contains("Exit status: 4 when the current or the candidate packs do not load"), help.stdout)
        let readme = try String(contentsOf: CLI.repository.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains("`4` when `badgectl diff`'s current (`--rules`) or candidate\n(`--against`) packs do not load"))
    }

    // MARK: - --as-of

    /// For every local date of the sample runs, `evaluate --as-of D` gives exactly what `evaluate`
    /// gives on a copy of the folder holding only the runs up to D.
    func testAsOfEqualsACopyOfTheFolderCutAtEachDate() throws {
        let folder = try TemporaryFolder()
        let sample = CLI.repository.appendingPathComponent("runs")
        let full = try CLI.run(["evaluate", sample.path, "--tz", "UTC", "--no-cache", "--format", "json"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(full.stdout.utf8)) as? [String: Any])
        let runs = try XCTUnwrap(json["runs"] as? [[String: Any]])
        let dated = runs.compactMap { run -> (id: String, date: String)? in
            guard let id = run["id"] as? String, let date = run["local_date"] as? String else { return nil }
            return (id, date)
        }
        XCTAssertEqual(dated.count, runs.count)
        let dates = Array(Set(dated.map(\.date))).sorted()
        XCTAssertGreaterThan(dates.count, 5)
        for (index, date) in dates.enumerated() {
            let copy = folder.url.appendingPathComponent("upto-\(index)/runs")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            // The runs up to D, and the files that are not runs (listed as ignored either way).
            for name in dated.filter({ $0.date <= date }).map(\.id) + ((json["ignored"] as? [String]) ?? []) {
                try FileManager.default.copyItem(at: sample.appendingPathComponent(name), to: copy.appendingPathComponent(name))
            }
            let expected = try CLI.run(["evaluate", copy.path, "--tz", "UTC", "--no-cache", "--format", "json"])
            let replayed = try CLI.run(["evaluate", sample.path, "--tz", "UTC", "--no-cache", "--format", "json", "--as-of", date])
            XCTAssertEqual(replayed.status, expected.status, date)
            XCTAssertEqual(replayed.stdout, expected.stdout, "as of \(date)")
        }
        // explain and report take it too; a date that is not one is a usage error.
        let explain = try CLI.run(["explain", "ten-k", sample.path, "--tz", "UTC", "--no-cache", "--as-of", dates[0]])
        XCTAssertTrue(explain.stdout.contains("Not earned yet."), explain.stdout)
        let report = try CLI.run(["report", sample.path, "--tz", "UTC", "--no-cache", "--as-of", dates[0], "--output", folder.path + "/r.html"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let bad = try CLI.run(["evaluate", sample.path, "--as-of", "2026-02-30"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--as-of: '2026-02-30' is not a date"), bad.stderr)
    }

    // MARK: - whatif

    func testWhatifNamesTheAwardsTheirEvidenceAndTheNextBadge() throws {
        let folder = try TemporaryFolder()
        try folder.write("runs/r1.json", #"{ "start": "2025-03-01T07:00:00Z", "distance_m": 4000, "duration_s": 1500 }"#)
        let output = try CLI.run(["whatif", folder.path + "/runs", "--rules", "rules/checkpoints", "--tz", "UTC", "--no-cache",
                                  "--distance", "5.5km", "--time", "30:00", "--format", "json"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(json["awards"] as? [[String: Any]])
        let earned = awards.filter { $0["tier"] as? String == "earned" }.compactMap { $0["badge"] as? String }
        XCTAssertEqual(earned, ["five-k"])
        let five = try XCTUnwrap(awards.first { $0["badge"] as? String == "five-k" && $0["tier"] as? String == "earned" })
        let evidence = try XCTUnwrap(five["evidence"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(evidence["badge_distance_m"] as? Double), 5000)
        XCTAssertEqual(try XCTUnwrap(evidence["elapsed_s"] as? Double), 1800, accuracy: 0.2)   // 0.01% slower than asked (WhatIf.slowdown)
        XCTAssertEqual(try XCTUnwrap(evidence["checkpoint_elapsed_s"] as? Double), 5000.0 / 5500 * 1800, accuracy: 2)
        // The run starts a day after the last one, at the same time.
        XCTAssertEqual((json["run"] as? [String: Any])?["start"] as? String, "2025-03-02T07:00:00Z")
        let before = try XCTUnwrap((json["next_before"] as? [[String: Any]])?.first?["badge"] as? String)
        let after = try XCTUnwrap((json["next_after"] as? [[String: Any]])?.first?["badge"] as? String)
        XCTAssertEqual(before, "five-k")
        XCTAssertEqual(after, "ten-k")
        // The best tier moves from r1 to it.
        let changes = try XCTUnwrap((json["changes"] as? [String: Any])?["badges"] as? [[String: Any]])
        XCTAssertTrue(changes.contains { ($0["moved"] as? [[String: Any]])?.contains { ($0["to"] as? [String: Any])?["run"] as? String == "what-if" } ?? false })

        let table = try CLI.run(["whatif", folder.path + "/runs", "--rules", "rules/checkpoints", "--tz", "UTC", "--no-cache",
                                 "--distance", "5.5km", "--pace", "5:27", "--date", "2025-04-01T18:30", "--elevation", "120m"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.hasPrefix("What if: 5.50 km in 29:59 (5:27/km) starting 2025-04-01 18:30, 120 m of climb"), table.stdout)
        XCTAssertTrue(table.stdout.contains("Five K"), table.stdout)
        XCTAssertTrue(table.stdout.contains("ten-k") || table.stdout.contains("Ten K"), table.stdout)

        for bad in [["--distance", "far", "--time", "1:00:00"], ["--distance", "5km"], ["--distance", "5km", "--time", "1:75:00"],
                    ["--distance", "5km", "--time", "20:00", "--pace", "4:00"], ["--distance", "5km", "--time", "20:00", "--date", "2025-13-01"]] {
            let output = try CLI.run(["whatif", folder.path + "/runs", "--rules", "rules/checkpoints", "--no-cache"] + bad)
            XCTAssertEqual(output.status, 64, "\(bad): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains("Error: "), output.stderr)
            if bad.count == 2 { XCTAssertTrue(output.stderr.contains("--pace (m:ss per km): how fast the run would be"), output.stderr) }
            if bad.contains("--pace") { XCTAssertTrue(output.stderr.contains("not both"), output.stderr) }
        }
        // Faster than the world record (evaluate would leave the run out): refused, not 25 awards.
        for fast in [["--time", "10:00"], ["--time", "0:00:01"], ["--pace", "1:00"]] {
            let output = try CLI.run(["whatif", folder.path + "/runs", "--rules", "rules/checkpoints", "--no-cache", "--distance", "10km"] + fast)
            XCTAssertEqual(output.status, 64, "\(fast): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains("no faster than the world record over 10.00 km"), output.stderr)
        }
    }

    /// Issue S: whatif makes the run asked (distance and time within 0.1 %) from 100 m to 250 km, at
    /// a pace between the world record and 30:00/km, and refuses anything else with those limits.
    /// Before: 1e-9 km at 5:00 allocated 3.3 GB and aborted; 1 m in 30:00 gave 2.4 m in 3,600 s; 1 km in
    /// 5:00:00 gave 1,003.5 m in 18,020 s; -5km said "Missing value"; --date 0001-01-01 started in year 0000.
    func testWhatifMakesTheRunAskedOrRefusesWithTheLimits() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/runs", withIntermediateDirectories: true)
        let common = ["whatif", folder.path + "/runs", "--rules", "rules/checkpoints", "--tz", "UTC", "--no-cache"]
        let limits = "is out of range: whatif makes runs from 100 m to 250 km at a pace no faster than the world record over "
        let refused: [([String], String)] = [
            (["--distance", "1e-9", "--time", "5:00"], "--distance: '1e-9' " + limits + "the distance and no slower than 30:00/km"),
            (["--distance", "1m", "--time", "30:00"], "--distance: '1m' " + limits),
            (["--distance", "-5km", "--time", "25:00"], "--distance: '-5km' " + limits),
            (["--distance", "250.5km", "--time", "30:00:00"], "--distance: '250.5km' " + limits),
            (["--distance", "1km", "--time", "5:00:00"], "--time: '5:00:00' " + limits
                + "1.00 km (2:12/km; evaluate leaves a faster run out as implausible) and no slower than 30:00/km; this is 300:00/km over 1.00 km"),
            (["--distance", "10km", "--pace", "30:01"], "--pace: '30:01' " + limits),
            (["--distance", "10km", "--time", "0"], "this is no time at all"),
            (["--distance", "5km", "--time", "25:00", "--date", "0001-01-01"], "--date: '0001-01-01' is out of range: whatif's runs start from 1970-01-01 to 2099-12-31"),
            (["--distance", "5km", "--time", "25:00", "--date", "2100-01-01T09:00"], "--date: '2100-01-01T09:00' is out of range"),
        ]
        for (arguments, message) in refused {
            let started = Date()
            let output = try CLI.run(common + arguments)
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "\(arguments)")
            XCTAssertEqual(output.status, 64, "\(arguments): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
        // The corners are made, within 0.1 %: 100 m at the world record's pace, 250 km at 30:00/km.
        for (distance, time, meters, seconds) in [("100m", "0:10.8", 100.0, 10.8), ("250km", "125:00:00", 250_000, 450_000), ("0.1km", "3:00", 100, 180)] {
            let output = try CLI.run(common + ["--distance", distance, "--time", time, "--format", "json", "--date", "1970-01-02"])
            XCTAssertEqual(output.status, 0, "\(distance) in \(time): \(output.stderr)")
            let run = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])?["run"] as? [String: Any])
            XCTAssertEqual(try XCTUnwrap(run["distance_m"] as? Double), meters, accuracy: meters * 1e-3)
            XCTAssertEqual(try XCTUnwrap(run["elapsed_s"] as? Double), seconds, accuracy: seconds * 1e-3)
            XCTAssertEqual(run["start"] as? String, "1970-01-02T09:00:00Z")
        }
        let help = try CLI.run(["whatif", "--help"])
        XCTAssertTrue(help.stdout.contains("from 100 m to 250 km"), help.stdout)
    }

    /// Every run explain names for a shipped badge (the silver and gold paces of distance badges, the
    /// targets the shipped rules' statuses give: effort times, records, best 3 km and hour, lifetime
    /// distance), run as a what-if, earns the tier it names: the hints are rounded to the qualifying side.
    func testWhatIfOfEveryHintExplainNamesEarnsItsTier() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path + "/cache.sqlite"
        let sample = CLI.repository.appendingPathComponent("runs").path
        let evaluated = try CLI.run(["evaluate", sample, "--tz", "UTC", "--cache", cache, "--format", "json"])
        let rows = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(evaluated.stdout.utf8)) as? [String: Any])?["badges"] as? [[String: Any]])
        let ids = rows.compactMap { $0["id"] as? String }
        XCTAssertGreaterThan(ids.count, 30)
        var checked: [String: Int] = [:]
        // As of two dates: early (most badges still to earn) and the whole history (silver and gold paces).
        for asOf in ["2026-08-08", "2099-12-31"] {
            for id in ids {
                let explain = try CLI.run(["explain", id, sample, "--tz", "UTC", "--cache", cache, "--format", "json", "--as-of", asOf])
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(explain.stdout.utf8)) as? [String: Any], explain.stderr)
                for target in (json["targets"] as? [[String: Any]]) ?? [] {
                    let tier = try XCTUnwrap(target["tier"] as? String)
                    let meters = try XCTUnwrap(target["distance_m"] as? Double)
                    var run = ["--distance", String(format: "%.1fm", meters)]
                    if let elapsed = target["elapsed_s"] as? Double {
                        run += ["--time", String(format: "%d:%02d:%04.1f", Int(elapsed) / 3600, Int(elapsed) % 3600 / 60, elapsed.truncatingRemainder(dividingBy: 60))]
                    } else {
                        let pace = (target["pace_s_per_km"] as? Double) ?? 300
                        run += ["--pace", String(format: "%d:%02d", Int(pace) / 60, Int(pace) % 60)]
                    }
                    let whatif = try CLI.run(["whatif", sample, "--tz", "UTC", "--cache", cache, "--as-of", asOf, "--format", "json"] + run)
                    let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(whatif.stdout.utf8)) as? [String: Any], whatif.stderr)
                    let awards = (result["awards"] as? [[String: Any]]) ?? []
                    XCTAssertTrue(awards.contains { $0["badge"] as? String == id && $0["tier"] as? String == tier },
                                  "\(id) \(tier): \(run) as of \(asOf) earns only \(awards.map { "\($0["badge"] ?? "")/\($0["tier"] ?? "")" })")
                    checked[(target["rule"] as? String) ?? "checkpoints (paces)", default: 0] += 1
                }
            }
        }
        // Every rule that names runs was checked.
        XCTAssertEqual(Set(checked.keys), ["checkpoints (paces)", "segments/pace", "segments/records", "habits/records", "lifetime/distance"], "\(checked)")
    }

    // MARK: - provenance

    func testEveryShippedAwardCarriesProvenanceAndEvidence() throws {
        let output = try CLI.run(["evaluate", "runs", "--tz", "UTC", "--no-cache", "--format", "json"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(json["awards"] as? [[String: Any]])
        let packs = try XCTUnwrap((json["header"] as? [String: Any])?["packs"] as? [[String: Any]])
        XCTAssertGreaterThan(awards.count, 30)
        var rules = Set<String>()
        for award in awards {
            let pack = try XCTUnwrap(packs.first { $0["name"] as? String == award["pack"] as? String })
            XCTAssertEqual(award["pack_version"] as? String, pack["version"] as? String)
            XCTAssertEqual(award["pack_fingerprint"] as? String, pack["fingerprint"] as? String)
            let evidence = try XCTUnwrap(award["evidence"] as? [String: Any], "\(award)")
            XCTAssertFalse(evidence.isEmpty, "\(award)")
            rules.insert("\(award["pack"] ?? "")/\(award["rule"] ?? "")")
        }
        XCTAssertTrue(rules.isSuperset(of: ["checkpoints/distance", "segments/pace", "segments/records", "lifetime/runs"]), "\(rules)")
    }
}
