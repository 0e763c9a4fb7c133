@testable import BadgeRules
import RunFixtures
import RunFiles
import XCTest

/// Hostile uses of the iterators that `pairs`/`ipairs` hand to rules (found by review of the light
/// records: each used to read host memory as the wrong type, or crash the host), Lua's own messages
/// about records, `ipairs` on ordinary values, and records kept past their run.
final class SandboxProbeTests: XCTestCase {
    func evaluate(_ source: String, runs: [RunSummary] = [makeRun("a.gpx", day: 0, distance: 6_000)]) throws -> Evaluation {
        let fixture = try PackFixture()
        try fixture.pack("probe", files: ["probe.lua": source])
        return fixture.engine(["probe"]).evaluate(runs: runs)
    }

    func notes(_ evaluation: Evaluation) -> [String] { evaluation.notes.map(\.message) }

    /// `pairs(record)` returns the C iterator light_next. light_kind() reads the first int of whatever
    /// lua_touserdata gives, so a FULL userdata (run.elevation: slot tag SLOT_FLOAT = 1 =
    /// BCLUA_KIND_CHECKPOINT) is read as a checkpoint record: type confusion over host memory.
    /// With `run` or `ctx` (zero-byte blocks) the same call reads 4 bytes past the block
    /// (AddressSanitizer: heap-buffer-overflow in light_kind, see testArrayIteratorOnARun).
    func testRecordIteratorRefusesAFullUserdata() throws {
        let result = try evaluate("""
            return { id = "confuse", on_run = function(state, run, award, ctx)
              local it = pairs(run.splits_km[1])
              local ok, key, value = pcall(it, run.elevation, nil)
              ctx.note(tostring(ok) .. " " .. tostring(key) .. " " .. tostring(value))
            end }
            """)
        XCTAssertEqual(result.failures, [])
        let note = notes(result).first ?? ""
        XCTAssertTrue(note.hasPrefix("false "), "the split iterator read run.elevation as a record: \(note)")
    }

    /// Same hole through `ipairs(array)`'s iterator (light_array_next) applied to the run proxy.
    /// Without a sanitizer it "works" (the garbage int after the zero-byte block is no kind); under
    /// `swift build -Xswiftc -sanitize=address -Xcc -fsanitize=address` the process aborts with a
    /// heap-buffer-overflow READ of size 4 in light_kind (then in shim.c, now records.c). Here we only check the outcome.
    func testArrayIteratorOnARun() throws {
        let result = try evaluate("""
            return { id = "confuse", on_run = function(state, run, award, ctx)
              local it = ipairs(run.splits_km)
              local ok, message = pcall(it, run, 0)
              ctx.note(tostring(ok) .. " " .. tostring(message))
              ok, message = pcall(it, ctx, 0)
              ctx.note(tostring(ok) .. " " .. tostring(message))
            end }
            """)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(notes(result).count, 2)
        for note in notes(result) { XCTAssertTrue(note.hasPrefix("false "), note) }
    }

    /// The base library's messages call a record a record (`__name` of the one metatable every light
    /// userdata shares, so the kind itself is named only in the host's messages, as in the last test);
    /// Lua's operators look `__name` up for tables and full userdata only, so they say "userdata".
    func testLuaMessagesNameARecord() throws {
        let result = try evaluate("""
            return { id = "messages", on_run = function(state, run, award, ctx)
              ctx.note(select(2, pcall(function() return run.splits_km[1] + 1 end)))
              ctx.note(select(2, pcall(next, run.splits_km)))
            end }
            """)
        XCTAssertEqual(result.failures, [])
        let all = notes(result)
        XCTAssertEqual(all.count, 2)
        XCTAssertTrue(all.first?.contains("arithmetic on a userdata value") ?? false, all.first ?? "")
        XCTAssertTrue(all.last?.contains("got record") ?? false, all.last ?? "")
    }

    /// `pairs(ctx.catalogue)` returns the array proxies' iterator; called with a number or a run it
    /// used to dereference the number as a pointer and kill the host (SIGSEGV). Now a number is a Lua
    /// error; another proxy (a run) is walked as the table it holds and yields nothing.
    func testCatalogueIteratorOnANumberDoesNotCrashTheHost() throws {
        let result = try evaluate("""
            return { id = "crash", on_run = function(state, run, award, ctx)
              local f = pairs(ctx.catalogue)
              ctx.note(tostring(pcall(f, 12345, 0)))
              ctx.note(tostring(pcall(f, run, 0)))
              ctx.note(tostring(pcall(f, ctx.catalogue, math.maxinteger)))
            end }
            """)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(notes(result), ["false", "true", "true"])
    }

    /// Held up: the ipairs replacement gives Lua's behaviour on anything that is not a light array.
    func testIpairsOnOrdinaryValuesIsLuas() throws {
        let result = try evaluate("""
            local function collect(t)
              local out = {}
              for i, v in ipairs(t) do out[#out + 1] = i .. "=" .. tostring(v) end
              return table.concat(out, " ")
            end
            return { id = "ipairs", on_run = function(state, run, award, ctx)
              ctx.note(collect(setmetatable({}, { __index = function(t, i) if i <= 3 then return i * 10 end end })))
              ctx.note(collect(setmetatable({ 1 }, { __index = { nil, 2, 3 } })))
              ctx.note(collect({ 1, 2, nil, 4 }))
              ctx.note("[" .. collect("abc") .. "]")
              ctx.note(collect(setmetatable({}, { __index = function(t, i) return run.splits_km[i] and run.splits_km[i].index end })))
              ctx.note(tostring(pcall(function() for _ in ipairs(nil) do end end)))
              ctx.note(select(2, pcall(function() for _ in ipairs(run.splits_km[1]) do end end)))
            end }
            """)
        XCTAssertEqual(result.failures, [])
        XCTAssertEqual(notes(result), ["1=10 2=20 3=30", "1=1 2=2 3=3", "1=1 2=2", "[]", "1=1 2=2 3=3 4=4 5=5 6=6", "false",
                                       "no field [number] in split (field names are strings)"])
    }

    /// Held up: records kept in pack globals, closures and fold state stay readable until the end of
    /// the evaluation (the arena lives as long as the Lua state), and a record passed where a run is
    /// expected is refused with its kind. Run under AddressSanitizer for the memory side.
    func testKeptRecordsAndRecordAsRun() throws {
        let runs = [makeRun("a.gpx", day: 0, distance: 6_000), makeRun("b.gpx", day: 1, distance: 12_000)]
        let result = try evaluate("""
            KEPT = {}
            local closures = {}
            return { id = "keep", badge = "5k",
              init = function(ctx) return { n = 0 } end,
              on_run = function(state, run, award, ctx)
                for _, s in ipairs(run.splits_km) do KEPT[#KEPT + 1] = s end
                for _, e in ipairs(run.efforts) do closures[#closures + 1] = function() return e.elapsed_s end end
                KEPT[#KEPT + 1] = run.checkpoints; KEPT[#KEPT + 1] = run.dropped[1]
                state.n = state.n + 1
                if run.index == 1 then
                  ctx.note(select(2, pcall(award, { badge = "5k", tier = "earned", run = run.splits_km[1] })))
                end
                return state
              end,
              finish = function(state, award, ctx)
                local fields = 0
                for _, r in ipairs(KEPT) do for _ in pairs(r) do fields = fields + 1 end end
                local sum = 0
                for _, f in ipairs(closures) do sum = sum + f() end
                ctx.note(#KEPT .. " " .. fields .. " " .. sum)
              end }
            """, runs: runs)
        XCTAssertEqual(result.failures, [])
        // 6 + 12 splits (6 fields each), 2 checkpoint arrays (1 entry each), 2 dropped entries (2 fields).
        XCTAssertEqual(notes(result).last, "22 114 2800.0")
        XCTAssertTrue(notes(result).first?.contains("must be a run or a run id, got split") ?? false, notes(result).first ?? "")
    }
}
