import Foundation
@testable import RunAnalysis
@testable import RunFiles
import RunFixtures
import XCTest

/// A long run's efforts are searched on two threads (`RunAnalyzer.bestEfforts`, the distances dealt
/// into two groups, the other passes beside one of them) and a large FIT file's CRC is computed
/// beside its decoding. Neither may change a bit of the result: these tests force the two-thread
/// paths on (thresholds at zero) and compare them with the one-thread paths (thresholds out of
/// reach), field by field and bit for bit, on series with stops, gaps, ties and series shorter than
/// some distances, and on whole generated FIT and GPX files through `RunLoader`, the entry the CLI
/// uses.
final class EffortsSideBySideTests: XCTestCase {
    static func series(_ profile: Profile) -> TimedSeries { TimedSeries(profile) }

    /// Every field of two effort lists, bit for bit.
    static func assertSame(_ got: [Effort], _ want: [Effort], _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got.map(\.name), want.map(\.name), context, file: file, line: line)
        XCTAssertEqual(got.count, want.count, context, file: file, line: line)
        for (a, b) in zip(got, want) {
            let bits = { (e: Effort) in
                [e.distanceMeters, e.elapsedSeconds, e.startDistanceMeters, e.startElapsedSeconds, e.paceSecondsPerKilometre].map(\.bitPattern)
            }
            XCTAssertEqual(bits(a), bits(b), "\(context) \(b.name)", file: file, line: line)
        }
    }

    /// The standard distances, some longer than any series here, two equal lengths under other
    /// names, and two of the same name (as age grading asks: every name empty).
    static let wanted: [(name: String, meters: Double)] = Effort.standardDistances + [
        ("200m", 200), ("3km", 3000), ("again400", 400), ("100k", 100_000), ("", 1500), ("", 800),
    ]

    func testTwoThreadsFindTheSameEffortsAsOne() {
        var compared = 0, split = 0
        for shape in EffortSearchTests.Shape.allCases {
            for seed in UInt64(1)...6 {
                let count = shape == .sparse ? 1_500 : 6_000 + Int(seed) * 53
                let series = TimedSeries(EffortSearchTests.series(shape, count: count, seed: seed))
                // nil: one stretch; 120 s: the run's own rule; 30 s: many short stretches, some
                // shorter than most distances.
                for maxStop in [nil, 120, 30] as [Double?] {
                    let one = RunAnalyzer.bestEfforts(in: series, Self.wanted, maxStopSeconds: maxStop, parallelFrom: .max)
                    let two = RunAnalyzer.bestEfforts(in: series, Self.wanted, maxStopSeconds: maxStop, parallelFrom: 0)
                    Self.assertSame(two, one, "\(shape) seed \(seed) stops \(String(describing: maxStop))")
                    compared += one.count
                    let pieces = maxStop.map { RunAnalyzer.stretches(of: series, maxStopSeconds: $0) } ?? [0..<series.count]
                    if RunAnalyzer.effortGroups(in: series, pieces: pieces.filter { $0.count >= 2 }, Self.wanted, minimumPoints: 0, alongside: false).count == 2 {
                        split += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 500, "the series are long enough for most distances")
        XCTAssertEqual(split, EffortSearchTests.Shape.allCases.count * 6 * 3, "every comparison took the two-thread path")
    }

    func testTwoThreadsAgreeOnShortSeriesAndTies() {
        // Series too short for most distances (some for all), whole-metre ties, a standing start.
        for seed in UInt64(1)...30 {
            for count in [2, 3, 5, 40, 300] {
                let series = TimedSeries(EffortSearchTests.series(.integerTies, count: count, seed: seed))
                for maxStop in [nil, 120] as [Double?] {
                    let one = RunAnalyzer.bestEfforts(in: series, Self.wanted, maxStopSeconds: maxStop, parallelFrom: .max)
                    let two = RunAnalyzer.bestEfforts(in: series, Self.wanted, maxStopSeconds: maxStop, parallelFrom: 0)
                    Self.assertSame(two, one, "seed \(seed) count \(count)")
                }
            }
        }
        let empty = TimedSeries(distances: [], elapsed: [])
        XCTAssertEqual(RunAnalyzer.bestEfforts(in: empty, Self.wanted, maxStopSeconds: 120, parallelFrom: 0).count, 0)
    }

    func testTheGroupsShareTheWorkAndKeepEveryDistance() {
        let series = TimedSeries(EffortSearchTests.series(.gpsNoise, count: 50_000, seed: 3))
        let wanted = Effort.standardDistances
        let groups = RunAnalyzer.effortGroups(in: series, pieces: [0..<series.count], wanted, minimumPoints: 0, alongside: false)
        XCTAssertEqual(groups.count, 2)
        XCTAssertEqual(groups.flatMap { $0 }.sorted(), Array(wanted.indices), "each distance in exactly one group")
        XCTAssertEqual(abs(groups[0].count - groups[1].count), 1, "seven distances over 150 km: four and three")
        // The other passes count in the second group: it gets fewer distances.
        let beside = RunAnalyzer.effortGroups(in: series, pieces: [0..<series.count], wanted, minimumPoints: 0, alongside: true)
        XCTAssertLessThan(beside[1].count, beside[0].count)
    }

    func testAlongsideRunsOnceOnEitherPath() {
        let series = TimedSeries(EffortSearchTests.series(.intervals, count: 5_000, seed: 9))
        for minimum in [0, Int.max] {
            var runs = 0
            _ = RunAnalyzer.bestEfforts(in: series, Effort.standardDistances, maxStopSeconds: 120, parallelFrom: minimum) { runs += 1 }
            XCTAssertEqual(runs, 1, "threshold \(minimum)")
        }
    }

    /// A one-hour run recorded every second stays on one thread: its efforts are one group.
    func testAOneHourRunKeepsToOneThread() throws {
        var generator = RunGenerator(seed: 11, distanceMeters: 11_000, paceSecondsPerKilometre: 327)
        generator.pauseCount = 2
        let profile = RunAnalyzer.profile(of: generator.track())
        let series = TimedSeries(profile)
        XCTAssertGreaterThanOrEqual(series.count, 3_500)
        XCTAssertLessThan(series.count, RunAnalyzer.parallelMinimumPoints)
        XCTAssertEqual(RunAnalyzer().parallelMinimumPoints, RunAnalyzer.parallelMinimumPoints, "summarize's default")
        let pieces = RunAnalyzer.stretches(of: series, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds)
        XCTAssertEqual(RunAnalyzer.effortGroups(in: series, pieces: pieces, Effort.standardDistances,
                                               minimumPoints: RunAnalyzer.parallelMinimumPoints, alongside: true).count, 1)
        // And the FIT of it is read with its CRC on the reading thread.
        let fit = FITWriter.encode(track: generator.track())
        XCTAssertLessThan(fit.count, FITReader.crcBesideMinimumBytes)
    }

    // MARK: Whole files, through the loader

    var directory = ""

    override func setUpWithError() throws {
        // The two-thread paths whatever else the machine is running.
        SideBySide.ignoreBusyCores.store(true, ordering: .relaxed)
        directory = NSTemporaryDirectory() + "efforts-side-by-side-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        SideBySide.ignoreBusyCores.store(false, ordering: .relaxed)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Long runs with stops (standing, a new segment, a gap) and a fast stretch; each gives more
    /// than 512 KB of FIT, so the CRC too is computed beside the decoding when read whole.
    static func generators() -> [RunGenerator] {
        var standing = RunGenerator(seed: 21, distanceMeters: 80_000, paceSecondsPerKilometre: 300)
        standing.pauseCount = 4; standing.pauseStyle = .standing; standing.pauseSeconds = 300
        standing.fastSection = .init(startMeters: 30_000, lengthMeters: 6_000, paceSecondsPerKilometre: 240)
        var segments = RunGenerator(seed: 22, distanceMeters: 75_000, paceSecondsPerKilometre: 310)
        segments.pauseCount = 3; segments.pauseStyle = .newSegment; segments.pauseSeconds = 200
        var gaps = RunGenerator(seed: 23, distanceMeters: 160_000, paceSecondsPerKilometre: 320)
        gaps.pauseCount = 5; gaps.pauseStyle = .timeGap; gaps.sampling = .smart(minSeconds: 1, maxSeconds: 3)
        return [standing, segments, gaps]
    }

    func testWholeFilesSummariseTheSameOnTwoThreads() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var one = RunAnalyzer(checkpoints: [.init(badge: "half", name: "Half", distanceMeters: 21_097.5)])
        one.parallelMinimumPoints = .max
        var two = one
        two.parallelMinimumPoints = 0
        for (k, generator) in Self.generators().enumerated() {
            let track = generator.track()
            XCTAssertGreaterThan(track.count, 20_000)
            let fitPath = directory + "/run\(k).fit", gpxPath = directory + "/run\(k).gpx"
            let fit = FITWriter.encode(track: track)
            XCTAssertGreaterThanOrEqual(fit.count, FITReader.crcBesideMinimumBytes, "the CRC is computed beside the decoding")
            try Data(fit).write(to: URL(fileURLWithPath: fitPath))
            try generator.writeGPX(to: gpxPath)
            // One thread throughout: the CRC before the decoding, the efforts in one group.
            let serialFIT = RunLoader.summarize(try FITReader.read(bytes: fit, source: fitPath, checkCRC: true, crcBesideFrom: .max),
                                                id: "run.fit", analyzer: one, zoneOffsetSeconds: 0)
            let serialGPX = try RunLoader.load(path: gpxPath, id: "run.gpx", analyzer: one, zoneOffsetSeconds: 0)
            // As the CLI reads them, both sides on two threads.
            let sideFIT = try RunLoader.load(path: fitPath, id: "run.fit", analyzer: two, zoneOffsetSeconds: 0)
            let sideGPX = try RunLoader.load(path: gpxPath, id: "run.gpx", analyzer: two, zoneOffsetSeconds: 0)
            for (got, want, what) in [(sideFIT, serialFIT, "FIT"), (sideGPX, serialGPX, "GPX")] {
                XCTAssertEqual(got.count, 1, what)
                XCTAssertEqual(try encoder.encode(got), try encoder.encode(want), "\(what) \(k)")
                XCTAssertEqual(got, want, "\(what) \(k)")
                for (a, b) in zip(got, want) { Self.assertSame(a.efforts, b.efforts, "\(what) \(k)") }
                // Stops cut the run with new segments into stretches shorter than a half marathon.
                XCTAssertEqual(want.first?.efforts.count, k == 1 ? 5 : Effort.standardDistances.count, "\(what) \(k): the distances found")
                XCTAssertFalse(want.first?.splitsKilometre.isEmpty ?? true, what)
                XCTAssertEqual(want.first?.checkpoints.count, 1, what)
            }
        }
    }
}
