import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

final class RuleEngineTests: XCTestCase {
    func testPredicateAwardsFirstRunInStartOrder() throws {
        let fixture = try PackFixture()
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["good"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.runOrder, ["r1.gpx", "r2.gpx", "r3.gpx", "r4.gpx"])
        XCTAssertEqual(result.awards.map(\.decision), [
            Award(badge: "5k", pack: "good", rule: "first-5k", tier: "earned", run: "r2.gpx", at: "2024-03-05T06:00:00Z", detail: ""),
        ])
        XCTAssertEqual(result.awards.first?.packVersion, "1.0.0")
        XCTAssertEqual(result.awards.first?.packFingerprint, fixture.engine(["good"]).packs.first?.fingerprint)
    }

    func testRepeatablePredicateWithTableResult() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["ten.lua": """
            return {
              id = "tens", badge = "10k", repeatable = true,
              earned = function(run)
                if run.distance_m < 5000 then return nil end
                if run.distance_m < 10000 then return false end
                return { detail = badgectl.format_distance(run.distance_m), tier = "gold",
                         progress = { current = run.distance_m, target = 10000, unit = "m" } }
              end,
            }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns + [makeRun("r5.gpx", day: 9, distance: 10_500)])
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map(\.run), ["r3.gpx", "r5.gpx"])
        XCTAssertEqual(result.awards.first?.detail, "12.00 km")
        XCTAssertEqual(result.awards.first?.tier, "gold")
        XCTAssertEqual(result.awards.first?.progress, Progress(current: 12_000, target: 10_000, unit: "m"))
    }

    func testProgressGivesWhyNotYet() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["m.lua": """
            return {
              id = "marathon", badge = "marathon", title = "Run a marathon",
              earned = function(run) return run.distance_m >= 42195 end,
              progress = function(run) return { current = run.distance_m, target = 42195, unit = "m" } end,
            }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards, [])
        XCTAssertEqual(result.statuses, [BadgeStatus(pack: "p", rule: "marathon", badge: "marathon",
                                                     progress: Progress(current: 12_000, target: 42_195, unit: "m"), hint: "Run a marathon")])
    }

    func testFoldAwardsOnceWithFinishStatusAndNext() throws {
        let fixture = try PackFixture()
        try fixture.pack("life", packLua: """
            return { name = "life", version = "2.0.0",
                     badges = { { id = "weekly-3", name = "Three in a week", information = "3 runs in one ISO week" } } }
            """, files: ["lifetime.lua": """
            return {
              id = "lifetime", badge = "lifetime-20k",
              init = function(ctx) return { total_m = 0, runs = 0, weeks = {} } end,
              on_run = function(state, run, award, ctx)
                state.total_m = state.total_m + run.distance_m
                state.runs = state.runs + 1
                if state.total_m >= 20000 then
                  -- called on every later run too: only the first counts
                  award { run = run, detail = "20 km reached" }
                end
                local year, week = badgectl.iso_week(run.local_date)
                local key = year .. "-W" .. week
                state.weeks[key] = (state.weeks[key] or 0) + 1
                if state.weeks[key] == 3 then award { badge = "weekly-3", run = run.id, tier = "silver" } end
              end,
              finish = function(state, award, ctx)
                ctx.note("runs seen: " .. state.runs)
              end,
              status = function(state, ctx)
                return {
                  badges = { { badge = "marathon", progress = { current = state.total_m, target = 42195, unit = "m" },
                               silver_pace_s_per_km = 300, gold_pace_s_per_km = 270, hint = "keep going" } },
                  next = { badge = "marathon", remaining_m = 42195 - state.total_m },
                }
              end,
            }
            """])
        let result = fixture.engine(["life"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map { "\($0.badge)/\($0.tier)@\($0.run)" },
                       ["lifetime-20k/earned@r3.gpx", "weekly-3/silver@r3.gpx"])
        XCTAssertEqual(result.notes, [RuleNote(pack: "life", rule: "lifetime", message: "runs seen: 4")])
        XCTAssertEqual(result.statuses.first?.silverPaceSecondsPerKilometre, 300)
        XCTAssertEqual(result.statuses.first?.progress?.current, 28_000)
        XCTAssertEqual(result.next, NextBadge(pack: "life", rule: "lifetime", badge: "marathon", remainingMeters: 14_195))
    }

    func testRepeatableFoldAwardsEveryRun() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["r.lua": """
            return { id = "each", badge = "5k", repeatable = true,
              on_run = function(state, run, award)
                if run.distance_m >= 5000 then award { run = run } ; award { run = run } end
              end }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map(\.run), ["r2.gpx", "r3.gpx", "r4.gpx"])
    }

    func testDeterministicEvaluation() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["d.lua": """
            return { id = "det", badge = "5k", repeatable = true,
              init = function() return { seen = {} } end,
              on_run = function(state, run) state.seen[run.id] = run.distance_m end,
              finish = function(state, award)
                local order = {}
                for id, distance in pairs(state.seen) do
                  order[#order + 1] = id
                  award { run = id, detail = table.concat(order, ",") }
                end
              end }
            """])
        try fixture.pack("good", files: goodPack)
        let engine = fixture.engine(["p", "good"])
        let first = engine.evaluate(runs: sampleRuns)
        let second = engine.evaluate(runs: sampleRuns.reversed())
        XCTAssertEqual(first.failures, [])
        XCTAssertEqual(first, second)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        XCTAssertEqual(try encoder.encode(first), try encoder.encode(second))
        XCTAssertEqual(first.awards.last?.detail, "r1.gpx,r2.gpx,r3.gpx,r4.gpx")
    }

    func testGlobalsAreNotSharedBetweenPacks() throws {
        let fixture = try PackFixture()
        try fixture.pack("a", files: ["set.lua": """
            shared_secret = 42
            string.upper = function() return "hijacked" end
            return { id = "set", badge = "5k", earned = function() return false end }
            """])
        try fixture.pack("b", files: ["get.lua": """
            return { id = "get", badge = "5k",
              earned = function(run)
                if shared_secret ~= nil then error("saw pack a's global") end
                if string.upper("x") ~= "X" or ("x"):upper() ~= "X" then error("saw pack a's string table") end
                return true
              end }
            """])
        let result = fixture.engine(["a", "b"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map(\.pack), ["b"])
    }

    func testUnknownFieldSuggestsTheRightName() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["typo.lua": """
            return { id = "typo", badge = "5k",
              earned = function(run)
                return run.distance > 5000
              end }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures.count, 1)
        let failure = try XCTUnwrap(result.failures.first)
        XCTAssertEqual(failure.message, "no field 'distance' in run; did you mean 'distance_m'?")
        XCTAssertEqual(failure.line, 3)
        XCTAssertTrue(failure.file.hasSuffix("rules/p/typo.lua"), failure.file)
        XCTAssertTrue(failure.description.hasSuffix("rules/p/typo.lua:3: pack 'p' rule 'typo': no field 'distance' in run; did you mean 'distance_m'?"), failure.description)
        XCTAssertNotNil(failure.traceback)
    }

    func testNilFieldsReadAsNilAndNestedSuggestions() throws {
        let fixture = try PackFixture()
        var run = makeRun("bare.json", day: nil, distance: 5500)
        run.elevation = nil
        try fixture.pack("p", files: ["n.lua": """
            return { id = "nil-ok", badge = "5k",
              earned = function(run)
                assert(run.start == nil and run.local_date == nil and run.elevation == nil and run.heart_rate == nil)
                assert(run.fastest["marathon"] == nil)
                assert(run.fastest["5km"].elapsed_s == 1400)
                return run.splits_km[1].pase_s_per_km
              end }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: [run])
        XCTAssertEqual(result.failures.first?.message, "no field 'pase_s_per_km' in split; did you mean 'pace_s_per_km'?")
        XCTAssertEqual(result.failures.first?.line, 6)
    }

    func testRunTablesAreReadOnly() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["w.lua": """
            return { id = "writer", badge = "5k",
              earned = function(run)
                run.distance_m = 1e9
              end }
            """, "raw.lua": """
            return { id = "raw", badge = "5k",
              earned = function(run) rawset(run, "distance_m", 1e9) end }
            """])
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["p", "good"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures.map(\.rule), ["raw", "writer"])
        XCTAssertEqual(result.failures.last?.message, "run is read-only (copy what you need into your own table)")
        XCTAssertEqual(result.awards.map(\.run), ["r2.gpx"])
    }

    func testRunOrderTiesByIdAndUndatedLast() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["o.lua": """
            return { id = "order", badge = "5k", repeatable = true,
              on_run = function(state, run, award, ctx)
                ctx.note(run.index .. ":" .. run.id)
              end }
            """])
        let runs = [makeRun("b.gpx", day: 1, distance: 1000), makeRun("undated.json", day: nil, distance: 1000),
                    makeRun("a.gpx", day: 1, distance: 1000), makeRun("z.gpx", day: 0, distance: 1000)]
        let result = fixture.engine(["p"]).evaluate(runs: runs)
        XCTAssertEqual(result.notes.map(\.message), ["1:z.gpx", "2:a.gpx", "3:b.gpx", "4:undated.json"])
    }

    func testIntegersAndFloatsAsDocumented() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["t.lua": """
            return { id = "types", badge = "5k",
              earned = function(run, ctx)
                local s = run.splits_km[1]
                local got = table.concat({ math.type(run.points), math.type(run.index), math.type(run.distance_m),
                  math.type(run.elapsed_s), math.type(run.utc_offset_s), math.type(s.index), math.type(s.elapsed_s),
                  math.type(run.dropped[1].count), math.type(ctx.catalogue[1].distance_m), tostring(s.partial),
                  type(run.splits_km), #run.splits_km, ctx.catalogue[1].id, ctx.catalogue[#ctx.catalogue].id,
                  ctx.pack.name, ctx.pack.version, ctx.rule.id }, " ")
                return { detail = got }
              end }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: [makeRun("x", day: 0, distance: 5200)])
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.first?.detail,
                       "integer integer float float integer integer float integer float false userdata 6 5k lifetime-20k p 1.0.0 types")
    }

    func testHelpersAndDeterministicPairs() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["h.lua": """
            return { id = "helpers", badge = "5k",
              earned = function(run)
                local y, w = badgectl.iso_week("2021-01-03")
                local y2, w2 = badgectl.iso_week("2024-12-30")
                local py, pm, pd = badgectl.date_parts("2024-02-29")
                local keys = {}
                for k in pairs({ zeta = 1, alpha = 2, [3] = "c", [1] = "a", mid = 3, [2.5] = "b" }) do keys[#keys + 1] = tostring(k) end
                local fields = {}
                for k in pairs(run.elevation) do fields[#fields + 1] = k end
                return { detail = table.concat({ y, w, y2, w2, badgectl.days_between("2024-02-28", "2024-03-01"),
                  py, pm, pd, badgectl.format_pace(298.4), badgectl.format_distance(5234.5), badgectl.format_distance(950.2),
                  badgectl.add_days("2024-12-31", 1), badgectl.weekday("2024-03-04"), table.concat(keys, ","),
                  table.concat(fields, ","), tostring(math.random), tostring(string.dump) }, " ") }
              end }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: [makeRun("x", day: 0, distance: 5200)])
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.first?.detail,
                       "2020 53 2025 1 2 2024 2 29 4:58 5.23 km 950 m 2025-01-01 1 1,2.5,3,alpha,mid,zeta gain_m,loss_m,min_m,max_m nil nil")
    }

    func testRequireLoadsPackModulesOnceAndPrintGoesToNotes() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: [
            "lib/util.lua": "loads = (loads or 0) + 1\nreturn { double = function(x) return 2 * x end }",
            "a.lua": "local util = require('lib.util')\nreturn { id = 'a', badge = '5k', earned = function(run) print('a', run.index, util.double(1.5)) return true end }",
            "b.lua": "local util = require('lib.util')\nreturn { id = 'b', badge = '10k', earned = function() return loads == 1 end }",
        ])
        let result = fixture.engine(["p"]).evaluate(runs: [makeRun("x", day: 0, distance: 5200)])
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map(\.rule), ["a", "b"])
        XCTAssertEqual(result.notes, [RuleNote(pack: "p", rule: "a", message: "a\t1\t3.0")])
    }

    func testPackDeclarationIsValidated() throws {
        let fixture = try PackFixture()
        try fixture.pack("noname", packLua: "return { version = '1' }")
        try fixture.pack("badbadge", packLua: "return { name = 'bb', version = '1', badges = { { name = 'x' } } }")
        try fixture.pack("good", files: goodPack)
        let engine = fixture.engine(["noname", "badbadge", "good"])
        XCTAssertEqual(engine.loadFailures.map(\.message), ["missing required field 'name'", "badges[1]: missing required field 'id'"])
        XCTAssertThrowsError(try RulePack.load(directory: fixture.root + "/rules/noname")) { error in
            XCTAssertEqual("\(error)", fixture.root + "/rules/noname/pack.lua: missing required field 'name'")
        }
        let result = engine.evaluate(runs: sampleRuns)
        XCTAssertEqual(result.awards.count, 1)
        XCTAssertEqual(result.failures.count, 2)
    }

    func testPackLoadListsRuleFilesSorted() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", packLua: """
            return { name = "checkpoints", version = "1.0.0", description = "d",
              badges = { { id = "cp-1", name = "One", information = "i", image = "one.png" } },
              themes = { moon = { { id = "moon-1", name = "Moon one" } } } }
            """, files: ["b.lua": "", "a.lua": "", "a_test.lua": "", "lib/x.lua": ""])
        let pack = try RulePack.load(directory: fixture.root + "/rules/p/")
        XCTAssertEqual(pack.name, "checkpoints")
        XCTAssertEqual(pack.directory, fixture.root + "/rules/p")
        XCTAssertEqual(pack.ruleFiles, [fixture.root + "/rules/p/a.lua", fixture.root + "/rules/p/b.lua"])
        XCTAssertEqual(pack.testFiles, [fixture.root + "/rules/p/a_test.lua"])
        XCTAssertEqual(pack.badges, [CatalogueBadge(id: "cp-1", name: "One", information: "i", image: "one.png")])
        XCTAssertEqual(pack.themes["moon"]?.map(\.id), ["moon-1"])
    }

    func testRelativeChunkNamesReadAsGiven() throws {
        let fixture = try PackFixture()
        try fixture.pack("checkpoints", files: ["boom.lua": "return { id = 'boom', badge = '5k',\n earned = function() error('boom') end }"])
        let saved = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(fixture.root))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(saved) }
        let result = RuleEngine(packDirectories: ["rules/checkpoints"], catalogue: testCatalogue).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures.map(\.description), ["rules/checkpoints/boom.lua:2: pack 'checkpoints' rule 'boom': boom"])
    }

    func testFoldWithNumberStateAwardsInFinishAndNoRuns() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["n.lua": """
            return { id = "count", badge = "5k",
              init = function() return 0 end,
              on_run = function(n, run) return n + 1 end,
              finish = function(n, award, ctx)
                ctx.note("count " .. n)
                if n >= 4 then award { run = "r4.gpx", tier = "best", detail = n .. " runs" } end
              end }
            """])
        let engine = fixture.engine(["p"])
        let result = engine.evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map(\.decision), [Award(badge: "5k", pack: "p", rule: "count", tier: "best", run: "r4.gpx",
                                             at: "2024-03-07T06:00:00Z", detail: "4 runs")])
        let empty = engine.evaluate(runs: [])
        XCTAssertEqual(empty.failures, [])
        XCTAssertEqual(empty.awards, [])
        XCTAssertEqual(empty.notes.map(\.message), ["count 0"])
    }

    func testEvaluationJSONShape() throws {
        let fixture = try PackFixture()
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["good"]).evaluate(runs: sampleRuns)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(result), as: UTF8.self)
        XCTAssertTrue(json.contains(#"{"at":"2024-03-05T06:00:00Z","badge":"5k","detail":"","evidence":null,"pack":"good","pack_fingerprint":"sha256:"#), json)
        XCTAssertTrue(json.contains(#""pack_version":"1.0.0","progress":null,"rule":"first-5k","run":"r2.gpx","tier":"earned"}"#), json)
        XCTAssertTrue(json.contains(#""next":null"#), json)
        XCTAssertEqual(try JSONDecoder().decode(Evaluation.self, from: Data(json.utf8)), result)
    }

    func testByteOrderMarkIsSkipped() throws {
        let fixture = try PackFixture()
        try fixture.pack("good")
        try fixture.writeBytes([0xEF, 0xBB, 0xBF] + Array("return { id = 'bom', badge = '5k', earned = function() return true end }".utf8), to: "good/bom.lua")
        let result = fixture.engine(["good"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.map(\.rule), ["bom"])
    }
}
