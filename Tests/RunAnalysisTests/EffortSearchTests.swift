@testable import RunAnalysis
@testable import RunFiles
import SyntheticRuns
import XCTest

/// The fastest-effort search interleaves all distances, skips windows by a lower bound and moves
/// its pointers several points at a time. None of that may change a result: these tests compare it,
/// field by field and bit for bit, with the plain two-pointer search it replaced (kept here as the
/// reference), on seeded random series with ties, standing still, gaps and sparse recording.
final class EffortSearchTests: XCTestCase {
    /// The search as it was: one distance, one window family after the other, every window computed.
    static func reference(distances d: [Double], elapsed t: [Double], name: String, meters: Double) -> Effort? {
        let n = d.count
        let tolerance = RunAnalyzer.distanceTolerance
        guard n >= 2, meters > 0, d[n - 1] - d[0] + tolerance >= meters else { return nil }
        var best = Double.infinity, bestStartDistance = 0.0, bestStartTime = 0.0
        var j = 1
        for i in 0..<(n - 1) {
            let target = d[i] + meters
            if j <= i { j = i + 1 }
            while j < n, d[j] < target - tolerance { j += 1 }
            let end: Double
            if j == n {
                guard target - d[n - 1] <= tolerance else { break }
                end = t[n - 1]
                j = n - 1
            } else {
                let a = j - 1
                end = t[a] + (t[j] - t[a]) * min(1, max(0, (target - d[a]) / (d[j] - d[a])))
            }
            let time = end - t[i]
            if time < best { best = time; bestStartDistance = d[i]; bestStartTime = t[i] }
        }
        var i = 0
        for k in 1..<n {
            let target = d[k] - meters
            if target < d[0] - tolerance { continue }
            let startDistance: Double, start: Double
            if target <= d[0] {
                startDistance = d[0]
                while i + 1 < k, d[i + 1] <= d[0] + tolerance { i += 1 }
                start = t[i]
            } else {
                while i + 1 < k, d[i + 1] <= target + tolerance { i += 1 }
                let b = i + 1
                startDistance = target
                start = t[i] + (t[b] - t[i]) * min(1, max(0, (target - d[i]) / (d[b] - d[i])))
            }
            let time = t[k] - start
            if time < best { best = time; bestStartDistance = startDistance; bestStartTime = start }
        }
        guard best.isFinite else { return nil }
        return Effort(name: name, distanceMeters: meters, elapsedSeconds: best,
                      startDistanceMeters: bestStartDistance, startElapsedSeconds: bestStartTime)
    }

    enum Shape: CaseIterable { case gpsNoise, integerTies, stopsAndGaps, sparse, intervals }

    /// A cumulative distance / elapsed series of `count` points in the given shape.
    static func series(_ shape: Shape, count: Int, seed: UInt64) -> Profile {
        var random = SplitMix64(seed: seed)
        var d = 0.0, t = 0.0
        var profile = Profile()
        for k in 0..<count {
            if k > 0 {
                switch shape {
                case .gpsNoise:
                    d += 3 + (random.uniform() - 0.5) * 2.5
                    t += 1
                case .integerTies:
                    // Whole metres and seconds: many windows of exactly equal time.
                    d += Double(Int(random.uniform() * 3) + 2)
                    t += 1
                case .stopsAndGaps:
                    let r = random.uniform()
                    if r < 0.1 { d += 0 } else if r < 0.12 { d += 400 * random.uniform() } else { d += 2 + 2 * random.uniform() }
                    t += r > 0.97 ? 60 + 600 * random.uniform() : 1
                case .sparse:
                    d += 5 + 40 * random.uniform()
                    t += 5 + 10 * random.uniform()
                case .intervals:
                    let fast = (k / 120) % 2 == 0
                    d += fast ? 4.5 + random.uniform() : 2.5 + random.uniform() * 0.5
                    t += 1
                }
            }
            profile.distances.append(d)
            profile.elapsed.append(t)
        }
        profile.segmentStarts = [0]
        profile.startEpoch = 1_700_000_000
        return profile
    }

    static func assertSame(_ got: Effort?, _ want: Effort?, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got?.name, want?.name, context, file: file, line: line)
        XCTAssertEqual(got?.elapsedSeconds.bitPattern, want?.elapsedSeconds.bitPattern, "\(context): time \(String(describing: got?.elapsedSeconds)) vs \(String(describing: want?.elapsedSeconds))", file: file, line: line)
        XCTAssertEqual(got?.startDistanceMeters.bitPattern, want?.startDistanceMeters.bitPattern, "\(context): start distance", file: file, line: line)
        XCTAssertEqual(got?.startElapsedSeconds.bitPattern, want?.startElapsedSeconds.bitPattern, "\(context): start time", file: file, line: line)
    }

    func testEveryStandardDistanceMatchesThePlainSearchBitForBit() {
        var compared = 0
        for shape in Shape.allCases {
            for seed in UInt64(1)...12 {
                let count = shape == .sparse ? 900 : 4_000 + Int(seed) * 37
                let profile = Self.series(shape, count: count, seed: seed)
                // The plain search: any stop may be spanned (the stop rule has tests of its own).
                let efforts = RunAnalyzer.efforts(of: profile, maxStopSeconds: nil)
                var expected: [Effort] = []
                for (name, meters) in Effort.standardDistances {
                    if let e = Self.reference(distances: profile.distances, elapsed: profile.elapsed, name: name, meters: meters) {
                        expected.append(e)
                    }
                }
                XCTAssertEqual(efforts.map(\.name), expected.map(\.name), "\(shape) seed \(seed)")
                for (got, want) in zip(efforts, expected) {
                    Self.assertSame(got, want, "\(shape) seed \(seed) \(want.name)")
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 150, "the series are long enough for most distances")
    }

    func testOddDistancesAndShortSeriesMatchThePlainSearch() {
        // Lengths near the whole run (the end-of-run tolerance), tiny ones, and very short series.
        for seed in UInt64(1)...40 {
            for count in [2, 3, 4, 5, 9, 17, 60] {
                let profile = Self.series(.integerTies, count: count, seed: seed)
                let span = profile.distances[count - 1] - profile.distances[0]
                for meters in [1, 2, 3, 7.5, span / 2, span - 1e-7, span, span + 1e-7, span + 1] where meters > 0 {
                    let got = RunAnalyzer.fastestEffort(in: profile, name: "x", meters: meters)
                    let want = Self.reference(distances: profile.distances, elapsed: profile.elapsed, name: "x", meters: meters)
                    Self.assertSame(got, want, "seed \(seed) count \(count) meters \(meters)")
                }
            }
        }
    }

    func testPointsWithoutTimeAreLeftOutAsBefore() {
        var profile = Self.series(.gpsNoise, count: 3_000, seed: 7)
        for k in stride(from: 5, to: 3_000, by: 97) { profile.elapsed[k] = .nan }
        let timed = zip(profile.distances, profile.elapsed).filter { $0.1.isFinite }
        let want = Self.reference(distances: timed.map(\.0), elapsed: timed.map(\.1), name: "1km", meters: 1000)
        Self.assertSame(RunAnalyzer.fastestEffort(in: profile, name: "1km", meters: 1000), want, "NaN times")
    }
}

/// Long runs share the effort search between two threads (every other distance on the second):
/// the result must be the one thread's, bit for bit and in the same order, with and without stops,
/// for any number of distances and names that repeat.
final class EffortSearchThreadsTests: XCTestCase {
    func testTwoThreadsFindWhatOneFinds() {
        let lists: [[(name: String, meters: Double)]] = [
            Effort.standardDistances,
            [("a", 400), ("b", 1000)],
            [("", 1000), ("", 400), ("", 3000)],
            [("x", 800), ("y", 5_000_000), ("z", 200), ("w", 0)],
        ]
        var compared = 0
        for shape in EffortSearchTests.Shape.allCases {
            for seed in UInt64(1)...6 {
                let profile = EffortSearchTests.series(shape, count: shape == .sparse ? 900 : 3_000 + Int(seed) * 53, seed: seed)
                let series = TimedSeries(profile)
                for wanted in lists {
                    for maxStop in [nil, RunAnalyzer.effortMaxStopSeconds, 30] as [Double?] {
                        let one = RunAnalyzer.bestEfforts(in: series, wanted, maxStopSeconds: maxStop, parallelAbove: .max)
                        let two = RunAnalyzer.bestEfforts(in: series, wanted, maxStopSeconds: maxStop, parallelAbove: 0)
                        let context = "\(shape) seed \(seed) \(wanted.map(\.meters)) stop \(String(describing: maxStop))"
                        XCTAssertEqual(two.map(\.distanceMeters), one.map(\.distanceMeters), context)
                        for (got, want) in zip(two, one) {
                            EffortSearchTests.assertSame(got, want, context)
                            compared += 1
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 500, "most searches find efforts")
    }

    func testALongRunTakesTheTwoThreadPath() {
        // The production threshold: a run of that many points is searched on two threads, with the result of one.
        let profile = EffortSearchTests.series(.gpsNoise, count: RunAnalyzer.parallelEffortPoints, seed: 3)
        let series = TimedSeries(profile)
        let two = RunAnalyzer.bestEfforts(in: series, Effort.standardDistances, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds)
        let one = RunAnalyzer.bestEfforts(in: series, Effort.standardDistances, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds,
                                          parallelAbove: .max)
        XCTAssertEqual(two.map(\.name), ["400m", "1km", "1mi", "5km", "10km", "half", "marathon"])
        for (got, want) in zip(two, one) { EffortSearchTests.assertSame(got, want, "50,000 points") }
    }
}

/// The summary's own search (`bestEfforts(…alongside:)`): most distances on a second thread while
/// this one makes the rest of the summary. The same efforts, and the work alongside run exactly once.
final class EffortSearchAlongsideTests: XCTestCase {
    func testTheSearchBesideOtherWorkFindsWhatOneThreadFinds() {
        for shape in EffortSearchTests.Shape.allCases {
            for seed in UInt64(1)...4 {
                let series = TimedSeries(EffortSearchTests.series(shape, count: shape == .sparse ? 900 : 3_000 + Int(seed) * 71, seed: seed))
                for wanted in [Effort.standardDistances, [("a", 1000)], [("a", 400), ("b", 800), ("c", 1200)]] {
                    let one = RunAnalyzer.bestEfforts(in: series, wanted, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds, parallelAbove: .max)
                    for threshold in [0, Int.max] {
                        var ran = 0
                        let got = RunAnalyzer.bestEfforts(in: series, wanted, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds,
                                                          parallelAbove: threshold, alongside: { ran += 1 })
                        XCTAssertEqual(ran, 1, "the work alongside runs once")
                        XCTAssertEqual(got.map(\.distanceMeters), one.map(\.distanceMeters), "\(shape) seed \(seed)")
                        for (g, w) in zip(got, one) { EffortSearchTests.assertSame(g, w, "\(shape) seed \(seed) threshold \(threshold)") }
                    }
                }
            }
        }
    }

    func testALongRunsSummaryHasTheOneThreadEfforts() {
        // 60,000 points: the summary searches on two threads; its efforts are the one-thread search's.
        var generator = RunGenerator(seed: 5, distanceMeters: 60_000 * 3)
        generator.pauseCount = 2
        let track = generator.track()
        XCTAssertGreaterThanOrEqual(track.count, RunAnalyzer.parallelEffortPoints)
        let summary = RunAnalyzer().summarize(track, id: "long")
        var cleaned = track
        RunAnalyzer.removeClockJumps(from: &cleaned)
        var profile = RunAnalyzer.profile(of: cleaned)
        RunAnalyzer.untimeIfPartlyTimed(&profile)
        let one = RunAnalyzer.bestEfforts(in: TimedSeries(profile), Effort.standardDistances, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds,
                                          parallelAbove: .max)
        XCTAssertEqual(summary.efforts.map(\.name), one.map(\.name))
        for (g, w) in zip(summary.efforts, one) { EffortSearchTests.assertSame(g, w, "summary") }
        XCTAssertGreaterThan(summary.efforts.count, 4)
    }
}
