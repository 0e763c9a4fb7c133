import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// Not a timed test: prints how long packs take over 10,000 runs when BADGECTL_BENCHMARK=1
/// (`BADGECTL_BENCHMARK=1 swift test -c release --filter BenchmarkTests`). Checks only the results.
final class BenchmarkTests: XCTestCase {
    func testTenThousandRuns() throws {
        guard ProcessInfo.processInfo.environment["BADGECTL_BENCHMARK"] == "1" else {
            throw XCTSkip("set BADGECTL_BENCHMARK=1 to run the benchmark")
        }
        let fixture = try PackFixture()
        try fixture.pack("distance", files: [
            "five.lua": "return { id = 'five', badge = '5k', earned = function(run) return run.distance_m >= 5000 end }",
            "ten.lua": "return { id = 'ten', badge = '10k', repeatable = true, earned = function(run) return run.distance_m >= 10000 end }",
            "fast.lua": """
            return { id = 'fast5', badge = '5k', earned = function(run)
              local e = run.fastest["5km"]
              return e ~= nil and e.elapsed_s < 1300
            end, progress = function(run)
              local e = run.fastest["5km"]
              if e then return { current = 1300, target = e.elapsed_s, unit = "s" } end
            end }
            """,
        ])
        try fixture.pack("history", files: [
            "lifetime.lua": """
            return { id = 'lifetime', badge = 'lifetime-20k',
              init = function() return { total_m = 0 } end,
              on_run = function(state, run, award)
                state.total_m = state.total_m + run.distance_m
                if state.total_m >= 20000 then award { run = run } end
              end,
              status = function(state) return { next = { badge = 'marathon', remaining_m = 1 } } end }
            """,
            "weekly.lua": """
            return { id = 'weekly', badge = 'early-bird', repeatable = true,
              init = function() return { weeks = {} } end,
              on_run = function(state, run, award)
                local y, w = badgectl.iso_week(run.local_date)
                local key = y * 100 + w
                state.weeks[key] = (state.weeks[key] or 0) + 1
                if state.weeks[key] == 3 then award { run = run, detail = y .. "-W" .. w } end
              end }
            """,
            "splits.lua": """
            return { id = 'even-splits', badge = '10k', repeatable = true,
              on_run = function(state, run, award)
                local slowest, fastest = 0, math.huge
                for _, s in ipairs(run.splits_km) do
                  if not s.partial then
                    if s.pace_s_per_km > slowest then slowest = s.pace_s_per_km end
                    if s.pace_s_per_km < fastest then fastest = s.pace_s_per_km end
                  end
                end
                for _, c in ipairs(run.checkpoints) do if c.badge == 'nope' then award { run = run } end end
              end }
            """,
        ])
        var runs: [RunSummary] = []
        for i in 0..<10_000 {
            runs.append(makeRun("run-\(i).gpx", day: i / 2, distance: Double(3_000 + (i * 7_919) % 18_000)))
        }
        let engine = fixture.engine(["distance", "history"], limits: .default)
        let clock = ContinuousClock()
        var result = Evaluation()
        let cpuStart = processCPUNanoseconds()
        let elapsed = clock.measure { result = engine.evaluate(runs: runs) }
        let cpu = Double(processCPUNanoseconds() - cpuStart) / 1e9
        print("benchmark: 2 packs, 6 rules, 10,000 runs: \(elapsed) wall, \(cpu) s CPU")
        XCTAssertEqual(result.failures, [])
        XCTAssertGreaterThan(result.awards.count, 1000)
    }
}

/// Process CPU time in nanoseconds.
func processCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
