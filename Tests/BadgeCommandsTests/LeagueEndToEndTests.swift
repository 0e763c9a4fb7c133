import RunFixtures
import Foundation
import RunFiles
import SyntheticRuns
import XCTest

/// `badgectl league` through the built binary on a population whose answers are known by
/// construction (LeaguePopulation: everyone laps the park loop at an even pace, without GPS noise).
final class LeagueEndToEndTests: XCTestCase {
    static let day0 = Timestamps.daysFromCivil(year: 2026, month: 3, day: 1)

    /// ana and cai run the same pace with the same seed (equal efforts: ana's is earlier); ben has the
    /// most efforts in the last 90 days; eve has more, but long before; dee laps twice per run.
    static let population = LeaguePopulation(athletes: [
        .init(name: "ana", paceSecondsPerKilometre: 300, runs: 2, laps: 1, firstDay: day0, team: "red", sex: "F", birthDate: "1990-05-01", seed: 1),
        .init(name: "ben", paceSecondsPerKilometre: 320, runs: 12, laps: 1, firstDay: day0, team: "red", sex: "M", birthDate: "1980-01-01", seed: 2),
        .init(name: "cai", paceSecondsPerKilometre: 300, runs: 1, laps: 1, firstDay: day0 + 5, team: "blue", sex: "M", birthDate: "2000-02-02", seed: 1),
        .init(name: "dee", paceSecondsPerKilometre: 340, runs: 3, laps: 2, firstDay: day0, team: "blue", sex: "F", birthDate: "1970-07-07", seed: 3),
        .init(name: "eve", paceSecondsPerKilometre: 360, runs: 13, laps: 1, firstDay: day0 - 200, seed: 4),
    ])

    /// The segment's length (rules/places/segments/park-loop.gpx).
    static let segmentMeters = 889.0

    private func league(_ extra: [String], rules: String = "rules/places", input: String? = nil) throws -> (CLI.Output, [[String: Any]], TemporaryFolder) {
        let folder = try TemporaryFolder()
        let lines = try Self.population.write(to: folder.path)
        let result = try CLI.run(["league", "--root", folder.path, "--rules", rules, "--no-cache", "--tz", "UTC"] + extra,
                                 stdin: input ?? lines.joined(separator: "\n") + "\n")
        let objects = extra.contains("table") ? [] : try result.stdout.split(separator: "\n").map { line -> [String: Any] in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        return (result, objects, folder)
    }

    private func select(_ lines: [[String: Any]], _ kind: String, category: String? = nil) -> [[String: Any]] {
        lines.filter { $0["kind"] as? String == kind && $0["category"] as? String == category }
    }

    func testCrownLeaderboardLegendClubAndRarityAreTheConstructedAnswers() throws {
        let (result, lines, _) = try league(["--min-athletes", "5", "--club", "distance=20000", "--club", "runs=10", "--club-days", "28", "--by", "sex", "age"])
        XCTAssertEqual(result.status, 0, result.stderr)

        // The leaderboard: by pace; ana and cai are equal, ana's effort earlier; eve's old efforts count.
        let ranks = select(lines, "rank")
        XCTAssertEqual(ranks.map { $0["athlete"] as? String }, ["ana", "cai", "ben", "dee", "eve"])
        XCTAssertEqual(ranks.map { $0["rank"] as? Int }, [1, 2, 3, 4, 5])
        XCTAssertEqual(ranks.first?["elapsed_s"] as? Double, ranks[1]["elapsed_s"] as? Double, "equal efforts by construction")
        let paces: [String: Double] = ["ana": 300, "cai": 300, "ben": 320, "dee": 340, "eve": 360]
        for line in ranks {
            let name = try XCTUnwrap(line["athlete"] as? String)
            let elapsed = try XCTUnwrap(line["elapsed_s"] as? Double)
            XCTAssertEqual(elapsed, Self.segmentMeters / 1000 * (paces[name] ?? 0), accuracy: 3, name)
            XCTAssertEqual(line["segment"] as? String, "places.park")
            XCTAssertEqual(line["athletes"] as? Int, 5)
        }
        XCTAssertTrue((ranks.first?["at"] as? String ?? "").hasPrefix("2026-03-01T06:3"), "ana's first run, not her second")
        let crowns = select(lines, "crown")
        XCTAssertEqual(crowns.map { $0["athlete"] as? String }, ["ana"])

        // Per sex: F ana, dee; M cai, ben (eve gave none).
        XCTAssertEqual(select(lines, "rank", category: "sex:F").map { $0["athlete"] as? String }, ["ana", "dee"])
        XCTAssertEqual(select(lines, "rank", category: "sex:M").map { $0["athlete"] as? String }, ["cai", "ben"])
        XCTAssertEqual(select(lines, "crown", category: "sex:M").map { $0["athlete"] as? String }, ["cai"])

        // Local Legend: ben's 12 efforts in the 90 days to the end of his last run (the latest); eve's 13 are 200 days old.
        let legends = select(lines, "legend")
        XCTAssertEqual(legends.map { $0["athlete"] as? String }, ["ben"])
        XCTAssertEqual(legends.first?["efforts"] as? Int, 12)
        XCTAssertTrue((legends.first?["to"] as? String ?? "").hasPrefix("2026-03-12T06:"), "the end of ben's last run")

        // Clubs: red ran 14 laps (ana 2, ben 12), blue 7 (cai 1, dee 3 × 2), against 20 km.
        // Age groups at the end of ben's last run (2026-03-12): ana 35, ben 46, cai 26, dee 55.
        XCTAssertEqual(lines.filter { $0["kind"] as? String == "crown" }.compactMap { $0["category"] as? String }.filter { $0.hasPrefix("age:") },
                       ["age:25-34", "age:35-44", "age:45-54", "age:55-64"])
        XCTAssertEqual(select(lines, "crown", category: "age:45-54").map { $0["athlete"] as? String }, ["ben"])

        let allClubs = select(lines, "club")
        XCTAssertEqual(allClubs.map { $0["team"] as? String }, ["blue", "blue", "red", "red"])
        // Runs: blue 1 + 3, red 2 + 12, against 10.
        let runs = allClubs.filter { $0["measure"] as? String == "runs" }
        XCTAssertEqual(runs.map { $0["total"] as? Double }, [4, 14])
        XCTAssertEqual(runs.map { $0["achieved"] as? Bool }, [false, true])
        let clubs = allClubs.filter { $0["measure"] as? String == "distance" }
        let blue = try XCTUnwrap(clubs.first), red = try XCTUnwrap(clubs.last)
        XCTAssertEqual(try XCTUnwrap(blue["total"] as? Double), 7 * LeaguePopulation.lapMeters, accuracy: 7 * LeaguePopulation.lapMeters * 0.02)
        XCTAssertEqual(try XCTUnwrap(red["total"] as? Double), 14 * LeaguePopulation.lapMeters, accuracy: 14 * LeaguePopulation.lapMeters * 0.02)
        XCTAssertEqual(blue["achieved"] as? Bool, false)
        XCTAssertEqual(red["achieved"] as? Bool, true)
        XCTAssertEqual(red["members"] as? Int, 2)

        // Rarity over the 5 athletes: everyone has the segment and the fountain; ben and eve ten
        // efforts within 90 days; nobody ran 5% faster than a first effort.
        let rarity = Dictionary(uniqueKeysWithValues: select(lines, "rarity").map {
            (($0["badge"] as? String ?? "") + "/" + ($0["tier"] as? String ?? ""), $0["holders"] as? Int ?? -1)
        })
        XCTAssertEqual(rarity, ["park-corner-record/earned": 5, "park-corner-record/silver": 0, "park-corner-record/gold": 0,
                                "park-corner-regular/earned": 2, "fountain/earned": 5])
        XCTAssertEqual(select(lines, "rarity").first { $0["badge"] as? String == "park-corner-regular" }?["share"] as? Double, 0.4)

        // Ids: one per line, all different.
        let ids = lines.compactMap { $0["id"] as? String }
        XCTAssertEqual(ids.count, lines.count)
        XCTAssertEqual(Set(ids).count, ids.count)
    }

    func testOutputIsDeterministicAndRarityNeedsEnoughAthletes() throws {
        let (first, lines, _) = try league([])
        let (second, _, _) = try league([])
        XCTAssertEqual(first.stdout, second.stdout)
        XCTAssertTrue(select(lines, "rarity").isEmpty, "5 athletes are fewer than the default 10")
        XCTAssertFalse(select(lines, "crown").isEmpty)
    }

    func testLegendWindowEndsAtAsOf() throws {
        // As of 2026-03-04, ben and ana have run on days 1-4 and 1-2: ben 4 efforts; dee 3 runs × 2 laps = 6.
        let (result, lines, _) = try league(["--as-of", "2026-03-04"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(select(lines, "legend").map { $0["athlete"] as? String }, ["dee"])
        XCTAssertEqual(select(lines, "legend").first?["efforts"] as? Int, 6)
        // cai's only run is later: not on the board.
        XCTAssertFalse(select(lines, "rank").contains { $0["athlete"] as? String == "cai" })
    }

    func testABadLineIsSkippedByNumberAndTheRestCounts() throws {
        let folder = try TemporaryFolder()
        var lines = try Self.population.write(to: folder.path)
        lines[2] = lines[2].replacingOccurrences(of: "\"team\":\"red\"", with: "\"team\":5")
        lines.insert("{not json", at: 4)
        let result = try CLI.run(["league", "--root", folder.path, "--rules", "rules/places", "--no-cache", "--tz", "UTC"],
                                 stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("line 3: \"team\" must be a non-empty string; skipped"), result.stderr)
        XCTAssertTrue(result.stderr.contains("line 5"), result.stderr)
        XCTAssertTrue(result.stdout.contains(#""kind":"crown""#), result.stdout)
    }

    func testTableFormat() throws {
        let (result, _, _) = try league(["--format", "table"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = result.stdout.split(separator: "\n")
        XCTAssertTrue(rows.first?.hasPrefix("KIND") ?? false, result.stdout)
        XCTAssertTrue(rows.contains { $0.hasPrefix("crown") && $0.contains("places.park") && $0.contains("ana") && $0.contains("#1/5") }, result.stdout)
        XCTAssertTrue(rows.contains { $0.hasPrefix("legend") && $0.contains("ben") && $0.contains("12 efforts") }, result.stdout)
    }

    /// The places pack's league.lua through `badgectl league`: its crown and legend are the built-in
    /// answers (ana, ben); red's 14 laps (about 35 km) are short of its 100 km club goal.
    func testThePlacesPackHookAwardsCrownAndLegend() throws {
        let (result, lines, _) = try league([])
        XCTAssertEqual(result.status, 0, result.stderr)
        let pack = lines.filter { $0["pack"] as? String == "places" && $0["detail"] != nil }
        XCTAssertEqual(pack.map { $0["kind"] as? String }, ["park-crown", "park-legend"])
        XCTAssertEqual(pack.map { $0["athlete"] as? String }, ["ana", "ben"])
        XCTAssertEqual(pack.map { $0["segment"] as? String }, ["places.park", "places.park"])
        XCTAssertEqual(pack.last?["detail"] as? String, "12 efforts in 90 days")
    }

    /// A hook that loops forever is stopped by the rules' instruction budget: the failure is named,
    /// status 2, and every other line is still written.
    func testAHookThatRunsAwayIsStoppedByTheBudget() throws {
        let packs = try TemporaryFolder()
        let source = CLI.repository.appendingPathComponent("rules/places").path
        try FileManager.default.copyItem(atPath: source, toPath: packs.path + "/places")
        try packs.write("places/league.lua", """
            return {
              segment = function(group) while true do end end,
              team = function(group) return { { kind = "team-seen", athlete = group.members[1], detail = group.team } } end,
            }
            """)
        try? FileManager.default.removeItem(atPath: packs.path + "/places/league_test.lua")
        let (result, lines, _) = try league([], rules: packs.path + "/places")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("league.lua segment(): "), result.stderr)
        XCTAssertTrue(result.stderr.contains("instruction budget exhausted"), result.stderr)
        XCTAssertEqual(select(lines, "crown").map { $0["athlete"] as? String }, ["ana"])
        XCTAssertEqual(lines.filter { $0["kind"] as? String == "team-seen" }.map { $0["team"] as? String }, ["blue", "red"])
    }

    /// A hook returning 200,000 awards that share one table (a few bytes each to Lua, a host string
    /// each to badgectl) is capped as a rule's awards are: more than max(1000, 20 per athlete of the
    /// group) is a named failure of that call, none of its awards is written, and the other calls'
    /// awards are (issue 47, S2).
    func testAHookReturningTooManyAwardsIsCappedByName() throws {
        let packs = try TemporaryFolder()
        let source = CLI.repository.appendingPathComponent("rules/places").path
        try FileManager.default.copyItem(atPath: source, toPath: packs.path + "/places")
        try packs.write("places/league.lua", """
            return {
              segment = function(group)
                local award = { kind = "flood", athlete = group.athletes[1].athlete, detail = "again" }
                local awards = {}
                for i = 1, 200000 do awards[i] = award end
                return awards
              end,
              team = function(group)
                local awards = {}
                for i = 1, 1000 do awards[i] = { kind = "team-seen", athlete = group.members[1], detail = group.team } end
                return awards
              end,
            }
            """)
        try? FileManager.default.removeItem(atPath: packs.path + "/places/league_test.lua")
        let (result, lines, _) = try league([], rules: packs.path + "/places")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("league.lua segment() returned 200000 awards, more than the 1000 one call may give"), result.stderr)
        XCTAssertEqual(lines.filter { $0["kind"] as? String == "flood" }.count, 0)
        // At the cap (1000 for a small group), a call's awards are all written.
        XCTAssertEqual(lines.filter { $0["kind"] as? String == "team-seen" }.count, 2000)
        XCTAssertEqual(select(lines, "crown").map { $0["athlete"] as? String }, ["ana"])
    }

    /// docs/rules.md's worked example ("Badges across athletes"): its league.lua and its test, in a
    /// pack beside the places pack's pack.lua, pass `badgectl test`.
    func testGuideLeagueExamplePasses() throws {
        let guide = try String(contentsOf: CLI.repository.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        let section = try XCTUnwrap(guide.range(of: "## Badges across athletes"))
        var blocks: [String] = []
        var rest = guide[section.upperBound...]
        while blocks.count < 2, let open = rest.range(of: "```lua\n"), let close = rest[open.upperBound...].range(of: "```") {
            blocks.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        XCTAssertEqual(blocks.count, 2)
        let folder = try TemporaryFolder()
        let pack = try String(contentsOf: CLI.repository.appendingPathComponent("rules/places/pack.lua"), encoding: .utf8)
        try folder.write("rules/places/pack.lua", pack)
        let segment = try String(contentsOf: CLI.repository.appendingPathComponent("rules/places/segments/park-loop.gpx"), encoding: .utf8)
        try folder.write("rules/places/segments/park-loop.gpx", segment)
        try folder.write("rules/places/league.lua", blocks[0])
        try folder.write("rules/places/league_test.lua", blocks[1])
        let output = try CLI.run(["test", "rules/places"], in: folder.url)
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertTrue(output.stdout.contains("1 passed, 0 failed"), output.stdout)
    }

    /// The map and reduce steps apart: the facts of 1, 2 or 5 shards (athletes split between them),
    /// in map order, shuffled or sorted, reduced in memory or through temporary files (a 1 KiB sort
    /// buffer), give exactly the single-process lines; an athlete's facts given twice are named
    /// and counted once.
    func testFactsOfShardsReduceToTheSameLines() throws {
        let folder = try TemporaryFolder()
        let lines = try Self.population.write(to: folder.path)
        let options = ["--rules", "rules/places", "--no-cache", "--tz", "UTC", "--by", "sex", "team", "--club", "distance=20000",
                       "--min-athletes", "5"]
        let whole = try CLI.run(["league", "--root", folder.path] + options, stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(whole.status, 0, whole.stderr)
        func facts(_ shards: [[String]]) throws -> String {
            var out = ""
            for names in shards {
                let shard = lines.filter { line in names.contains { line.contains("\"athlete\":\"\($0)\"") } }
                let map = try CLI.run(["league", "--facts", "--root", folder.path] + options, stdin: shard.joined(separator: "\n") + "\n")
                XCTAssertEqual(map.status, 0, map.stderr)
                out += map.stdout
            }
            return out
        }
        let one = try facts([["ana", "ben", "cai", "dee", "eve"]])
        let two = try facts([["ana", "dee", "eve"], ["ben", "cai"]])
        let five = try facts([["eve"], ["dee"], ["cai"], ["ben"], ["ana"]])
        // One global line per athlete, whatever the shards.
        for text in [one, two, five] {
            XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("0\t") }.count, 5)
        }
        // Shuffled: every step-th line in turn (a step prime to the count), so a group's lines do not stay together.
        let factLines = two.split(separator: "\n").map(String.init)
        let step = [7, 11, 13].first { factLines.count % $0 != 0 } ?? 1
        let shuffled = (0..<factLines.count).map { factLines[$0 * step % factLines.count] }.joined(separator: "\n") + "\n"
        let sorted = factLines.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: "\n") + "\n"
        XCTAssertNotEqual(shuffled, sorted)
        for (name, input, buffer) in [("one shard", one, "32768"), ("two shards", two, "32768"), ("five shards", five, "1"),
                                      ("shuffled", shuffled, "32768"), ("shuffled, spilled", shuffled, "1"), ("sorted", sorted, "1")] {
            let reduce = try CLI.run(["league", "--from-facts", "--sort-buffer-kib", buffer] + options, stdin: input)
            XCTAssertEqual(reduce.status, 0, name + ": " + reduce.stderr)
            XCTAssertEqual(reduce.stdout, whole.stdout, name)
        }
        XCTAssertTrue(whole.stdout.contains(#""kind":"park-legend""#))
        // The single-machine command itself, its sort spilled to temporary files: the same lines.
        let spilled = try CLI.run(["league", "--root", folder.path, "--sort-buffer-kib", "1"] + options,
                                  stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(spilled.stdout, whole.stdout)

        // ana's shard given twice: her facts count once, named on stderr, exit 2.
        let twice = try CLI.run(["league", "--from-facts"] + options, stdin: two + facts([["ana"]]))
        XCTAssertEqual(twice.status, 2)
        XCTAssertTrue(twice.stderr.contains("athlete 'ana''s facts were given twice"), twice.stderr)
        XCTAssertEqual(twice.stdout, whole.stdout)
        let bad = try CLI.run(["league", "--from-facts"] + options, stdin: two + "{\"type\":\"facts\"}\n")
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("line \(factLines.count + 1): not a facts line"), bad.stderr)
        XCTAssertEqual(bad.stdout, whole.stdout)
    }

    /// `report --league --league-athlete`: the runner's crowns, ranks and legend status, and each badge's
    /// rarity on the wall, from the league's lines over the generated population.
    func testReportShowsTheRunnersStandingsAndEachBadgesRarity() throws {
        let (result, _, folder) = try league(["--min-athletes", "5", "--by", "sex"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let leaguePath = folder.path + "/league.jsonl"
        try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: leaguePath))
        func page(_ athlete: String, league: String) throws -> (CLI.Output, String) {
            let html = folder.path + "/\(athlete).html"
            let output = try CLI.run(["report", folder.path + "/" + athlete, "-o", html, "--rules", "rules/places", "--no-cache", "--tz", "UTC",
                                      "--league", league, "--league-athlete", athlete])
            return (output, (try? String(contentsOfFile: html, encoding: .utf8)) ?? "")
        }
        let (anaRun, ana) = try page("ana", league: leaguePath)
        XCTAssertEqual(anaRun.status, 0, anaRun.stderr)
        // ana: the overall crown and the sex:F crown (ranks 1 of 5 and 1 of 2), not the Local Legend (ben is).
        XCTAssertTrue(ana.contains("<li class=\"standing\" data-kind=\"crown\">Crown on <strong>places.park</strong>: fastest of 5"), ana)
        XCTAssertTrue(ana.contains("<li class=\"standing\" data-kind=\"crown\">Crown on <strong>places.park</strong> (sex:F): fastest of 2"))
        XCTAssertTrue(ana.contains("#1 of 5 on <strong>places.park</strong>"))
        XCTAssertTrue(ana.contains("2 crowns, not a Local Legend"))
        XCTAssertFalse(ana.contains("data-kind=\"legend\""))
        // Rarity over the 5 athletes: everyone holds the fountain, 2 of 5 park-corner-regular, nobody the record's gold.
        XCTAssertTrue(ana.contains("<p class=\"rarity\" data-rarity-tier=\"earned\" title=\"5 of 5\">Held by 100% of athletes</p>"))
        XCTAssertTrue(ana.contains("title=\"2 of 5\">Held by 40% of athletes</p>"))
        XCTAssertTrue(ana.contains("data-rarity-tier=\"gold\" title=\"0 of 5\">Gold: held by 0% of athletes</p>"))

        let (benRun, ben) = try page("ben", league: leaguePath)
        XCTAssertEqual(benRun.status, 0, benRun.stderr)
        XCTAssertTrue(ben.contains("data-kind=\"legend\">Local Legend of <strong>places.park</strong>: 12 efforts from 2025-12-12 to 2026-03-12"), ben)
        XCTAssertTrue(ben.contains("#3 of 5 on <strong>places.park</strong>"))
        XCTAssertTrue(ben.contains("0 crowns, Local Legend of 1 segment"))

        // Fewer athletes than --min-athletes: no rarity lines, so no rarity on the wall.
        let (few, _, _) = try league([])
        let fewPath = folder.path + "/few.jsonl"
        try Data(few.stdout.utf8).write(to: URL(fileURLWithPath: fewPath))
        let (_, hidden) = try page("ana", league: fewPath)
        XCTAssertTrue(hidden.contains("data-kind=\"crown\""))
        XCTAssertFalse(hidden.contains("class=\"rarity\""))

        // A line that is not the league's: the file and line named, the run fails.
        try Data((result.stdout + "not json\n").utf8).write(to: URL(fileURLWithPath: fewPath))
        let (bad, _) = try page("ana", league: fewPath)
        XCTAssertEqual(bad.status, 1)
        let badLine = result.stdout.split(separator: "\n").count + 1
        XCTAssertTrue(bad.stderr.contains(fewPath + ":\(badLine): not a JSON object"), bad.stderr)
        let alone = try CLI.run(["report", folder.path + "/ana", "-o", folder.path + "/x.html", "--league", leaguePath])
        XCTAssertEqual(alone.status, 64, alone.stderr)
    }
}
