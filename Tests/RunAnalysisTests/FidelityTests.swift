@testable import RunAnalysis
@testable import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// Issue I: clock jumps, partly timed tracks, time-weighted sensor averages, efforts across stops
/// and the device's own totals, on files written by the fixture writers and read back.
final class FidelityTests: XCTestCase {
    typealias F = AnalyticsFixtures
    static let twentyDays = 20 * 86_400.0

    /// A 10.5 km run at 1 s, its clock jumping `jump` seconds between the records at `index`
    /// and `index + 1` (later records moved by it).
    static func jumped(_ jump: Double, at index: Int = 1500) -> (run: Track, clean: Track) {
        var generator = RunGenerator(seed: 7, distanceMeters: 10_500, paceSecondsPerKilometre: 330)
        generator.pauseCount = 0
        let clean = generator.track()
        var run = clean
        for i in (index + 1)..<run.count { run.times[i] += jump }
        return (run, clean)
    }

    func summary(_ track: Track) -> RunSummary { RunAnalyzer().summarize(track, id: "x") }

    // MARK: 1. Clock jumps

    func testAForwardJumpInAGPXKeepsTheRealDuration() throws {
        let (run, clean) = Self.jumped(Self.twentyDays)
        // Through the GPX and TCX writers and readers: no device elapsed total, the GPS decides.
        var generator = RunGenerator(seed: 7, distanceMeters: 10_500, paceSecondsPerKilometre: 330)
        generator.pauseCount = 0
        let tcx = try XCTUnwrap(TCXReader.read(bytes: TCXWriter.encode(track: run), source: "jump.tcx").first)
        let want = summary(clean)
        for track in [run, tcx] {
            let got = summary(track)
            XCTAssertEqual(try XCTUnwrap(got.elapsedSeconds), try XCTUnwrap(want.elapsedSeconds), accuracy: 2, track.source)
            XCTAssertLessThan(try XCTUnwrap(got.timerSeconds), 4000, track.source)
            XCTAssertEqual(got.distanceMeters, want.distanceMeters, accuracy: 1)
            XCTAssertTrue(got.dropped.contains(Dropped(reason: "clock_jump", count: 1)), "\(got.dropped)")
            let tenK = try XCTUnwrap(got.efforts.first { $0.name == "10km" })
            XCTAssertLessThan(tenK.elapsedSeconds, 3500)
            XCTAssertLessThan(got.splitsKilometre.map(\.elapsedSeconds).max() ?? 0, 400)
        }
    }

    func testAJumpInAFITIsToldByTheSessionsElapsedTotal() throws {
        // Only 10 minutes: too short for the GPS rule, but the device's own elapsed total did not count it.
        var (run, clean) = Self.jumped(600)
        run.deviceElapsedSeconds = try XCTUnwrap(clean.times.last) - clean.times[0]
        let fit = try XCTUnwrap(FITReader.read(bytes: FITWriter.encode(track: run), source: "jump.fit").first)
        let got = summary(fit)
        XCTAssertEqual(try XCTUnwrap(got.elapsedSeconds), try XCTUnwrap(run.deviceElapsedSeconds), accuracy: 2)
        XCTAssertTrue(got.dropped.contains(Dropped(reason: "clock_jump", count: 1)), "\(got.dropped)")
        // The same file whose session counted the 10 minutes: a pause, kept.
        run.deviceElapsedSeconds = nil
        let paused = try XCTUnwrap(FITReader.read(bytes: FITWriter.encode(track: run), source: "pause.fit").first)
        XCTAssertEqual(try XCTUnwrap(summary(paused).elapsedSeconds), try XCTUnwrap(summary(clean).elapsedSeconds) + 600, accuracy: 2)
        XCTAssertFalse(summary(paused).dropped.contains { $0.reason == "clock_jump" })
    }

    func testAJumpBackKeepsTheRestOfTheRun() throws {
        let (run, clean) = Self.jumped(-Self.twentyDays)
        let got = summary(run), want = summary(clean)
        XCTAssertEqual(got.points, want.points)
        XCTAssertEqual(try XCTUnwrap(got.elapsedSeconds), try XCTUnwrap(want.elapsedSeconds), accuracy: 2)
        XCTAssertEqual(got.dropped.filter { $0.reason == "clock_jump" }.map(\.count), [1])
    }

    func testALongStopOrAGapWithMovementIsNotAJump() throws {
        // Standing before a two-hour gap (a café), then on: a pause.
        var t: [Double] = [0, 3, 6, 9, 12, 7212, 7215, 7218]
        let d: [Double] = [0, 10, 20, 20, 20, 20, 30, 40]
        XCTAssertEqual(summary(F.equator(d, times: t)).elapsedSeconds, 7218)
        // Running right up to it and after it, but 5 km across the gap: the watch was off, the runner moved.
        t = [0, 3, 6, 9, 12, 7212, 7215, 7218]
        let moved: [Double] = [0, 10, 20, 30, 40, 5040, 5050, 5060]
        XCTAssertEqual(summary(F.equator(moved, times: t)).elapsedSeconds, 7218)
        // Running right up to it and after it, one stride across: the clock jumped.
        let stride: [Double] = [0, 10, 20, 30, 40, 50, 60, 70]
        let got = summary(F.equator(stride, times: t))
        XCTAssertEqual(got.elapsedSeconds, 21)
        XCTAssertEqual(got.dropped, [Dropped(reason: "clock_jump", count: 1)])
    }

    func testManyJumpsAndAJumpAcrossAnUntimedPointAreAllFound() throws {
        // 3 m/s at 1 s, the clock jumping 2 h forward every 50 records (199 jumps): each is taken
        // out in the one pass, and the run lasts its 9999 s.
        let d = (0..<10_000).map { Double($0) * 3 }
        let t = (0..<10_000).map { Double($0) + Double($0 / 50) * 7200 }
        let got = summary(F.equator(d, times: t))
        XCTAssertEqual(got.elapsedSeconds, 9999)
        XCTAssertEqual(got.dropped, [Dropped(reason: "clock_jump", count: 199)])
        // A record without a time between the two sides of the jump.
        let across = summary(F.equator([0, 3, 6, 9, 12, 15, 18], times: [0, 1, 2, .nan, 86_403, 86_404, 86_405]))
        XCTAssertEqual(across.elapsedSeconds, 5)
        XCTAssertEqual(across.dropped, [Dropped(reason: "clock_jump", count: 1)])
    }

    // MARK: 4. Partial timestamps

    func testATrackTimedOnAFewPointsIsUntimed() throws {
        let d = stride(from: 0.0, through: 4580, by: 10).map { $0 }
        var times = [Double](repeating: .nan, count: d.count)
        for k in 0..<5 { times[k] = Double(k) * 14 }
        let got = summary(F.equator(d, times: times))
        XCTAssertEqual(got.distanceMeters, 4580, accuracy: 1e-6)
        XCTAssertNil(got.elapsedSeconds)
        XCTAssertNil(got.speedMetersPerSecond)
        XCTAssertEqual(got.splitsKilometre, [])
        XCTAssertEqual(got.efforts, [])
        XCTAssertNotNil(got.start, "the first point is timed: the start is known")
        XCTAssertEqual(got.dropped, [Dropped(reason: "partial timestamps", count: 5)])
        // Times missing on a few points inside the track, and on the last 10 m: still timed.
        for k in 5..<d.count where k % 7 != 0 && k != d.count - 1 { times[k] = Double(k) * 1.4 }
        XCTAssertNotNil(summary(F.equator(d, times: times)).elapsedSeconds)
    }

    // MARK: 5. Time-weighted averages

    func testSensorAveragesWeighTheTimeEachReadingCovers() throws {
        // Smart recording: three readings a second apart, then one 10 s later.
        var track = F.equator([0, 3, 6, 36], times: [0, 1, 2, 12], heartRates: [100, 100, 100, 160])
        var stats = RunAnalyzer.sensorStats(track.heartRates, profile: RunAnalyzer.profile(of: track), ignoreNonPositive: true)
        // Weights 0.5, 1, 5.5 for 100 and 5 for 160: 1500 / 12 (per sample it would be 115).
        XCTAssertEqual(try XCTUnwrap(stats?.average), 125, accuracy: 1e-9)
        // A five-minute gap in the channel counts 30 s on either side, not 150: 100 weighs
        // 0.5 + 1 + 30.5, 200 weighs 30.5 + 0.5.
        track = F.equator([0, 3, 6, 9, 12, 15], times: [0, 1, 2, 302, 303, 304], heartRates: [100, 100, 100, .nan, 200, 200])
        stats = RunAnalyzer.sensorStats(track.heartRates, profile: RunAnalyzer.profile(of: track), ignoreNonPositive: true)
        XCTAssertEqual(try XCTUnwrap(stats?.average), (100 * 32 + 200 * 31) / 63.0, accuracy: 1e-9)
        XCTAssertEqual(stats?.maximum, 200)
    }

    // MARK: 8. Efforts across stops

    /// `count` intervals of `metres` at 3:00/km, with `rest` seconds standing between them (1 s points).
    static func intervals(_ count: Int, metres: Double, rest: Double) -> Track {
        var d: [Double] = [0], t: [Double] = [0]
        for k in 0..<count {
            if k > 0 { for _ in 0..<Int(rest) { d.append(d[d.count - 1]); t.append(t[t.count - 1] + 1) } }
            for _ in 0..<Int(metres / 5) { d.append(d[d.count - 1] + 5); t.append(t[t.count - 1] + 0.9) }
        }
        return F.equator(d, times: t)
    }

    func testAnEffortDoesNotSpanALongStop() throws {
        // Five 1 km intervals with 3-minute standing rests: 1 km efforts, no 5 km one.
        let rests = summary(Self.intervals(5, metres: 1000, rest: 180))
        XCTAssertEqual(rests.efforts.map(\.name), ["400m", "1km"])
        XCTAssertEqual(try XCTUnwrap(rests.efforts.first { $0.name == "1km" }).elapsedSeconds, 180, accuracy: 1e-6)
        // The same with 1-minute stops (traffic lights): the 5 km effort spans them and is slower by them.
        let lights = summary(Self.intervals(5, metres: 1000, rest: 60))
        XCTAssertEqual(try XCTUnwrap(lights.efforts.first { $0.name == "5km" }).elapsedSeconds, 900 + 4 * 60, accuracy: 1e-6)
        // Without the limit (nil), the old definition: any window.
        let profile = RunAnalyzer.profile(of: Self.intervals(5, metres: 1000, rest: 180))
        XCTAssertEqual(try XCTUnwrap(RunAnalyzer.efforts(of: profile, maxStopSeconds: nil).first { $0.name == "5km" }).elapsedSeconds,
                       900 + 4 * 180, accuracy: 1e-6)
        XCTAssertNil(RunAnalyzer.fastestEffort(in: profile, name: "5km", meters: 5000, maxStopSeconds: RunAnalyzer.effortMaxStopSeconds))
    }

    // MARK: 3. The device's own totals

    func testTheDevicesTimerAndElapsedAreKeptBesideOurs() throws {
        var (run, _) = Self.jumped(0)
        run.deviceElapsedSeconds = 3500
        run.deviceTimerSeconds = 3460
        let fit = try XCTUnwrap(FITReader.read(bytes: FITWriter.encode(track: run), source: "x.fit").first)
        let got = summary(fit)
        XCTAssertEqual(got.deviceTimerSeconds, 3460)
        XCTAssertEqual(got.deviceElapsedSeconds, 3500)
        XCTAssertNotEqual(got.timerSeconds, 3460)
        let tcx = try XCTUnwrap(TCXReader.read(bytes: TCXWriter.encode(track: fit), source: "x.tcx").first)
        XCTAssertEqual(summary(tcx).deviceTimerSeconds, 3460)
        XCTAssertNil(summary(tcx).deviceElapsedSeconds)
    }
}
