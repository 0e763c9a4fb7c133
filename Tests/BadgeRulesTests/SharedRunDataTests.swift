@testable import BadgeRules
import RunFixtures
import RunFiles
import XCTest

/// A run's arrays and records (splits, checkpoints, efforts, fastest, dropped) are built once per
/// evaluation and shared by every rule of every pack: no rule may change what another sees, and each
/// run's values must stay its own from one run to the next.
final class SharedRunDataTests: XCTestCase {
    /// Three runs whose arrays differ in length and values (efforts and checkpoints only from 5 km).
    func distinctRuns() -> [RunSummary] {
        var runs = [makeRun("a.gpx", day: 0, distance: 3_000), makeRun("b.gpx", day: 1, distance: 6_500),
                    makeRun("c.gpx", day: 2, distance: 12_000)]
        for (i, distance) in [(1, 6_500.0), (2, 12_000.0)] {
            runs[i].efforts = [Effort(name: "1km", distanceMeters: 1000, elapsedSeconds: 250 + Double(i), startDistanceMeters: 0, startElapsedSeconds: 0),
                               Effort(name: "5km", distanceMeters: 5000, elapsedSeconds: 1400 + Double(i) * 10, startDistanceMeters: 100, startElapsedSeconds: 30)]
            runs[i].checkpoints = [Checkpoint(badge: "5k", name: "5K", distanceMeters: 5000, latitude: nil, longitude: nil, elapsedSeconds: 1500 + Double(i))]
            if distance >= 10_000 {
                runs[i].checkpoints.append(Checkpoint(badge: "10k", name: "10K", distanceMeters: 10_000, latitude: 51.5, longitude: -0.1, elapsedSeconds: 3100))
            }
            runs[i].dropped = [Dropped(reason: "no time", count: i), Dropped(reason: "jump", count: 10 * i)]
        }
        return runs
    }

    /// What a reader notes for `run`: every shared array, read with ipairs, # and indexing.
    func signature(_ run: RunSummary) -> String {
        func number(_ value: Double) -> String { String(format: "%.3f", value) }
        var parts: [String] = [run.id]
        parts.append("splits " + run.splitsKilometre.map { "\($0.index)/\(number($0.distanceMeters))/\(number($0.cumulativeSeconds))/\($0.partial)" }.joined(separator: ","))
        parts.append("checkpoints " + run.checkpoints.map { "\($0.badge)/\($0.name)/\(number($0.distanceMeters))/\($0.latitude.map(number) ?? "nil")/\($0.elapsedSeconds.map(number) ?? "nil")" }.joined(separator: ","))
        parts.append("efforts " + run.efforts.map { "\($0.name)/\(number($0.elapsedSeconds))/\(number($0.startDistanceMeters))" }.joined(separator: ","))
        parts.append("fastest5 " + (run.efforts.first { $0.name == "5km" }.map { number($0.elapsedSeconds) } ?? "nil"))
        parts.append("dropped " + run.dropped.map { "\($0.reason)/\($0.count)" }.joined(separator: ","))
        return parts.joined(separator: " | ")
    }

    static let readerSource = """
        local function f(x) return x == nil and "nil" or ("%.3f"):format(x) end
        local function signature(run)
          local parts = { run.id }
          local splits = {}
          for i, s in ipairs(run.splits_km) do
            assert(run.splits_km[i] == s and i == s.index)
            splits[#splits + 1] = ("%d/%s/%s/%s"):format(s.index, f(s.distance_m), f(s.cumulative_s), tostring(s.partial))
          end
          assert(#splits == #run.splits_km and run.splits_km[#splits + 1] == nil)
          parts[#parts + 1] = "splits " .. table.concat(splits, ",")
          local checkpoints = {}
          for _, c in ipairs(run.checkpoints) do
            checkpoints[#checkpoints + 1] = ("%s/%s/%s/%s/%s"):format(c.badge, c.name, f(c.distance_m), f(c.lat), f(c.elapsed_s))
          end
          parts[#parts + 1] = "checkpoints " .. table.concat(checkpoints, ",")
          local efforts = {}
          for _, e in ipairs(run.efforts) do
            efforts[#efforts + 1] = ("%s/%s/%s"):format(e.name, f(e.elapsed_s), f(e.start_distance_m))
          end
          parts[#parts + 1] = "efforts " .. table.concat(efforts, ",")
          parts[#parts + 1] = "fastest5 " .. f(run.fastest["5km"] and run.fastest["5km"].elapsed_s)
          local dropped = {}
          for _, d in ipairs(run.dropped) do dropped[#dropped + 1] = d.reason .. "/" .. d.count end
          parts[#parts + 1] = "dropped " .. table.concat(dropped, ",")
          return table.concat(parts, " | ")
        end
        """

    func readerRule(id: String) -> String {
        Self.readerSource + """

            return { id = "\(id)", on_run = function(state, run, award, ctx) ctx.note(signature(run)) end }
            """
    }

    func testNoRuleCanChangeWhatAnotherRuleSees() throws {
        let fixture = try PackFixture()
        // The vandal runs first (packs in the order given, files in name order), tries every write it
        // can think of on each run, and notes the errors it got for the first run.
        try fixture.pack("a", files: ["vandal.lua": """
            local attempts = {
              function(run) run.splits_km[1] = false end,
              function(run) run.splits_km.extra = 1 end,
              function(run) run.splits_km[1].distance_m = 0 end,
              function(run) run.splits_km[1].partial = true end,
              function(run) run.checkpoints[1].badge = "10k" end,
              function(run) run.checkpoints[1] = nil end,
              function(run) run.efforts[1].elapsed_s = 1 end,
              function(run) run.fastest["5km"] = nil end,
              function(run) run.fastest["5km"].elapsed_s = 1 end,
              function(run) run.dropped[1].count = 0 end,
              function(run) run.splits_km = {} end,
              function(run) rawset(run.splits_km, 1, false) end,
              function(run) rawset(run.splits_km[1], "distance_m", 0) end,
              function(run) setmetatable(run.splits_km, {}) end,
              function(run) setmetatable(run.efforts[1], {}) end,
              function(run) local mt = getmetatable(run.splits_km[1]); mt.__index = {} end,
              function(run) local mt = getmetatable(run); mt.__index = {} end,
              function(run) local data = run.__index; data.distance_m = 0 end,
              function(run) local data = run.splits_km.__index; data[1] = false end,
            }
            return {
              id = "vandal",
              on_run = function(state, run, award, ctx)
                for i, attempt in ipairs(attempts) do
                  local ok, message = pcall(attempt, run)
                  if run.index == 2 then ctx.note(i .. " " .. tostring(ok) .. " " .. tostring(message)) end
                end
              end,
            }
            """, "z_reader.lua": readerRule(id: "same-pack-reader")])
        try fixture.pack("b", files: ["reader.lua": readerRule(id: "other-pack-reader")])
        let runs = distinctRuns()
        let result = fixture.engine(["a", "b"]).evaluate(runs: runs)
        XCTAssertEqual(result.failures, [])
        let vandal = result.notes.filter { $0.rule == "vandal" }.map(\.message)
        XCTAssertEqual(vandal.count, 19)
        for note in vandal { XCTAssertTrue(note.contains(" false "), "a write went through: \(note)") }
        func note(_ i: Int) -> String { vandal.first { $0.hasPrefix("\(i) ") } ?? "" }
        XCTAssertTrue(note(1).hasSuffix("splits_km is read-only (copy what you need into your own table)"), note(1))
        XCTAssertTrue(note(2).hasSuffix("splits_km is read-only (copy what you need into your own table)"), note(2))
        XCTAssertTrue(note(3).hasSuffix("split is read-only (copy what you need into your own table)"), note(3))
        XCTAssertTrue(note(4).hasSuffix("split is read-only (copy what you need into your own table)"), note(4))
        XCTAssertTrue(note(5).hasSuffix("checkpoint is read-only (copy what you need into your own table)"), note(5))
        XCTAssertTrue(note(6).hasSuffix("checkpoints is read-only (copy what you need into your own table)"), note(6))
        XCTAssertTrue(note(7).hasSuffix("effort is read-only (copy what you need into your own table)"), note(7))
        XCTAssertTrue(note(8).hasSuffix("fastest is read-only (copy what you need into your own table)"), note(8))
        XCTAssertTrue(note(9).hasSuffix("effort is read-only (copy what you need into your own table)"), note(9))
        XCTAssertTrue(note(10).hasSuffix("dropped entry is read-only (copy what you need into your own table)"), note(10))
        XCTAssertTrue(note(11).hasSuffix("run is read-only (copy what you need into your own table)"), note(11))
        for i in [12, 13, 14, 15] { XCTAssertTrue(note(i).contains("table expected"), note(i)) }
        for i in [16, 17] { XCTAssertTrue(note(i).contains("attempt to index a string value"), note(i)) }
        XCTAssertTrue(note(18).contains("no field '__index' in run"), note(18))
        XCTAssertTrue(note(19).contains("no field '__index' in splits_km (an array: index it with 1..#splits_km)"), note(19))
        // Both readers, in the vandal's pack and in another, see every run exactly as summarised.
        let expected = runs.sorted { $0.startEpochSeconds ?? 0 < $1.startEpochSeconds ?? 0 }.map(signature)
        XCTAssertEqual(result.notes.filter { $0.rule == "same-pack-reader" }.map(\.message), expected)
        XCTAssertEqual(result.notes.filter { $0.rule == "other-pack-reader" }.map(\.message), expected)
    }

    func testSharedFieldsFollowTheirRunAndKeptRecordsStayValid() throws {
        let fixture = try PackFixture()
        // The keeper holds on to the first run's arrays and records across the whole fold, and reads
        // the arrays of each run after another rule (the reader) built them: nothing goes stale.
        try fixture.pack("a", files: ["reader.lua": readerRule(id: "reader")])
        try fixture.pack("b", files: ["keeper.lua": Self.readerSource + """

            return {
              id = "keeper",
              init = function() return {} end,
              on_run = function(state, run, award, ctx)
                assert(run.splits_km == run.splits_km and run.fastest == run.fastest, "the same run's arrays are one object")
                if state.first == nil then
                  state.first, state.splits, state.split = run, run.splits_km, run.splits_km[1]
                  state.first_signature = signature(run)
                else
                  assert(state.splits ~= run.splits_km, "another run's splits")
                  assert(state.first.splits_km == state.splits, "the first run keeps its splits")
                  assert(signature(state.first) == state.first_signature, "the first run's fields changed")
                  assert(state.split.distance_m == 1000.0 and state.split.index == 1)
                end
                ctx.note(signature(run))
              end,
              finish = function(state, award, ctx) ctx.note("first again: " .. signature(state.first)) end,
            }
            """])
        let runs = distinctRuns()
        let result = fixture.engine(["a", "b"]).evaluate(runs: runs)
        XCTAssertEqual(result.failures, [])
        let expected = runs.sorted { $0.startEpochSeconds ?? 0 < $1.startEpochSeconds ?? 0 }.map(signature)
        XCTAssertEqual(result.notes.filter { $0.rule == "reader" }.map(\.message), expected)
        XCTAssertEqual(result.notes.filter { $0.rule == "keeper" }.map(\.message), expected + ["first again: " + expected[0]])
        // A second evaluation by the same engine starts from fresh runs: different values, same answers.
        var changed = runs
        changed[2].splitsKilometre[0].cumulativeSeconds = 999
        changed[2].efforts[1].elapsedSeconds = 1234
        let again = fixture.engine(["a", "b"]).evaluate(runs: changed)
        XCTAssertEqual(again.notes.filter { $0.rule == "reader" }.map(\.message),
                       changed.sorted { $0.startEpochSeconds ?? 0 < $1.startEpochSeconds ?? 0 }.map(signature))
    }

    func testRecordsAndArraysBehaveAsDocumented() throws {
        let fixture = try PackFixture()
        try fixture.pack("p", files: ["t.lua": """
            local function err(f, ...) local ok, m = pcall(f, ...); assert(not ok); return (m:gsub("^[^:]*:%d+: ", "")) end
            return { id = "doc", badge = "5k",
              earned = function(run)
                if run.index ~= 2 then return false end
                local s, c, e, d = run.splits_km[1], run.checkpoints[1], run.efforts[2], run.dropped[2]
                local keys = {}
                for k, v in pairs(c) do keys[#keys + 1] = k .. "=" .. tostring(v) end
                local indexes = {}
                for i, split in pairs(run.splits_km) do indexes[#indexes + 1] = i .. ":" .. split.index end
                local got = {
                  type(run.splits_km), type(s), tostring(run.splits_km), tostring(s), tostring(c), tostring(e),
                  tostring(d), tostring(run.efforts), tostring(run.dropped), #run.efforts, #run.checkpoints,
                  tostring(run.splits_km[0]), tostring(run.splits_km[1.0] == s), tostring(run.splits_km[1.5]),
                  table.concat(keys, ","), table.concat(indexes, ","), math.type(s.index), math.type(d.count),
                  tostring(run.efforts[2] == run.fastest["5km"]), tostring(run.fastest["marathon"]),
                  err(function() return s.pase_s_per_km end), err(function() return c.elapsed end),
                  err(function() return e.time end), err(function() return d.reasons end),
                  err(function() return s[1] end), err(function() return run.splits_km.first end),
                  err(function() return run.splits_km[true] end), err(function() return #s end),
                }
                return { detail = table.concat(got, " ; ") }
              end }
            """])
        let result = fixture.engine(["p"]).evaluate(runs: distinctRuns())
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(result.awards.first?.detail, [
            "userdata", "userdata", "splits_km (7 entries)", "split", "checkpoint", "effort", "dropped entry",
            "efforts (2 entries)", "dropped (2 entries)", "2", "1", "nil", "true", "nil",
            "badge=5k,name=5K,distance_m=5000.0,elapsed_s=1501.0", "1:1,2:2,3:3,4:4,5:5,6:6,7:7", "integer", "integer",
            "true", "nil",
            "no field 'pase_s_per_km' in split; did you mean 'pace_s_per_km'?",
            "no field 'elapsed' in checkpoint; did you mean 'elapsed_s'?",
            "no field 'time' in effort",
            "no field 'reasons' in dropped entry; did you mean 'reason'?",
            "no field [number] in split (field names are strings)",
            "no field 'first' in splits_km (an array: index it with 1..#splits_km)",
            "splits_km is an array: index it with 1..#splits_km",
            "attempt to get length of a split value",
        ].joined(separator: " ; "))
    }
}
