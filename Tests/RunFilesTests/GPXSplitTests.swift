import RunFixtures
@testable import RunFiles
@testable import SyntheticRuns
import CThreadShims
import XCTest

/// What the split-read tests share: a file read by two threads (`GPXSplit`) must give exactly what
/// the sequential scan gives, the same track bit for bit or the same error word for word, wherever
/// the split falls. Read through `GPXReader.read(path:)`, the entry the run loader calls, with the
/// split forced. No tests of its own.
class GPXSplitComparing: XCTestCase {
    var temporary: TemporaryFolder!
    var directory = ""

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        directory = temporary.path
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    /// Everything a track holds, doubles by their bits; or the error's text.
    static func describe(_ read: () throws -> Track) -> String {
        do {
            let t = try read()
            let columns = [t.latitudes, t.longitudes, t.elevations, t.times, t.heartRates, t.cadences, t.deviceDistances]
                .map { $0.map { String($0.bitPattern, radix: 16) }.joined(separator: ",") }
            let optionals = [t.deviceDistanceMeters, t.deviceElapsedSeconds, t.deviceTimerSeconds, t.recordedFirstTime, t.recordedLastTime]
                .map { $0.map { String($0.bitPattern, radix: 16) } ?? "nil" }
            return "\(columns) segments \(t.segmentStarts) dropped \(t.dropped.sorted { $0.key < $1.key }) offset \(String(describing: t.utcOffsetSeconds)) "
                + "name \(String(describing: t.name)) sport \(String(describing: t.sport)) device \(String(describing: t.device)) "
                + "\(optionals) \(t.format) \(t.hasPositions) \(String(describing: t.indoor)) laps \(t.laps) pauses \(t.pauses) source \(t.source)"
        } catch {
            return "error: \(error)"
        }
    }

    /// Counts of a comparison: documents and splits tried, splits whose fragment was taken, mismatches.
    struct Tally {
        var reads = 0, taken = 0, mismatches = 0
    }

    /// Reads `bytes` (written to a file) sequentially, then split at each of `splits` with each chunk
    /// size, and compares. Reports the first mismatches unless `expectingMismatches`.
    func compare(_ bytes: [UInt8], splits: [Int], chunkSizes: [Int] = [GPXReader.defaultChunkSize, 61],
                 fault: GPXSplitFault = .none, what: String, tally: inout Tally, expectingMismatches: Bool = false) throws {
        let path = directory + "/run.gpx"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let sequential = Self.describe { try GPXReader.read(path: path, split: .never) }
        for chunk in chunkSizes {
            for split in splits {
                let statistics = GPXSplitStatistics()
                let parallel = Self.describe {
                    try GPXReader.read(path: path, chunkSize: chunk, split: .at(split), fault: fault, statistics: statistics)
                }
                tally.reads += 1
                if statistics.fragmentPoints > 0 { tally.taken += 1 }
                if parallel != sequential {
                    tally.mismatches += 1
                    if !expectingMismatches, tally.mismatches <= 5 {
                        XCTFail("\(what), split at \(split), chunk \(chunk):\nsplit      \(parallel)\nsequential \(sequential)")
                    }
                }
            }
        }
    }

    /// Offsets to split at: every 1/37th of the file, and every byte around the first `points`
    /// point starts (`<trkpt` or a prefixed one).
    static func splits(_ bytes: [UInt8], every: Int = 37, points: Int = 40) -> [Int] {
        var result = Set((1..<every).map { bytes.count * $0 / every })
        let marker = Array("trkpt".utf8)
        var found = 0
        var k = 1
        while k + marker.count < bytes.count, found < points {
            if bytes[k] == marker[0], Array(bytes[k..<k + marker.count]) == marker, let lt = bytes[..<k].lastIndex(of: UInt8(ascii: "<")),
               k - lt < 16, bytes[lt + 1] != UInt8(ascii: "/") {
                for d in -2...2 where lt + d > 0 && lt + d < bytes.count { result.insert(lt + d) }
                found += 1
            }
            k += 1
        }
        return result.sorted()
    }

}

/// Split reads of generated runs, hand-made documents and GPXSkeletonTests' mutations.
final class GPXSplitTests: GPXSplitComparing {
    /// Generated runs, both GPX styles, with pauses of every kind, split at 40 places each.
    func generatedRuns() -> [(String, [UInt8])] {
        var runs: [(String, [UInt8])] = []
        let pauses: [RunGenerator.PauseStyle] = [.timeGap, .newSegment, .standing]
        for (index, style) in [RunGenerator.GPXStyle.garminConnect, .compact].enumerated() {
            for (p, pause) in pauses.enumerated() {
                var generator = RunGenerator(seed: UInt64(100 + 10 * index + p), distanceMeters: 1500)
                generator.style = style
                generator.pauseCount = 2
                generator.pauseStyle = pause
                generator.heartRate = p != 1
                generator.cadence = p != 2
                generator.utcOffsetSeconds = p == 0 ? 7200 : nil
                runs.append(("\(style) \(pause)", generator.gpxBytes()))
            }
        }
        return runs
    }

    /// Points of the usual shape in every variation that matters to the merge: OpenTracks pause
    /// markers (they start segments, also as the fragment's first point), points without position,
    /// with heart rate only in the second half, offsets that differ between the halves, two segments.
    static func handMade() -> [(String, [UInt8])] {
        let usual = (0..<12).map { GPXSkeletonTests.usual($0) }
        func marker(_ latitude: Int) -> String { "      <trkpt lat=\"\(latitude)\" lon=\"4.89\">\n        <ele>3</ele>\n      </trkpt>\n" }
        let plain = (0..<12).map { "      <trkpt lat=\"52.\($0)\" lon=\"4.\($0)\">\n        <time>2024-05-01T06:30:\($0 + 10)Z</time>\n      </trkpt>\n" }
        let offsets = (0..<12).map { GPXSkeletonTests.usual($0, offset: $0 < 3 ? "Z" : $0 < 6 ? "+02:00" : "+03:00") }
        return [
            ("usual", GPXSkeletonTests.document(usual)),
            ("pause markers", GPXSkeletonTests.document(Array(usual[0..<4]) + [marker(100), marker(200)] + Array(usual[4..<8]) + [marker(100)] + usual[8...])),
            ("heart rate late", GPXSkeletonTests.document(Array(plain[0..<6]) + Array(usual[6...]))),
            ("heart rate early", GPXSkeletonTests.document(Array(usual[0..<6]) + Array(plain[6...]))),
            ("offsets", GPXSkeletonTests.document(offsets)),
            ("no position", GPXSkeletonTests.document(Array(usual[0..<5]) + ["      <trkpt lat=\"x\" lon=\"4\">\n      </trkpt>\n"] + Array(usual[5...]))),
            ("two segments", GPXSkeletonTests.document(Array(usual[0..<6]) + ["    </trkseg><trkseg>\n"] + Array(usual[6...]))),
            ("points outside a segment", Array(("<gpx><trk><name>r</name>\n" + plain.joined() + "</trk></gpx>\n").utf8)),
            ("a segment, then points outside one", Array(("<gpx><trk><trkseg>\n" + plain[0..<6].joined() + "</trkseg>\n" + plain[6...].joined() + "</trk></gpx>\n").utf8)),
            ("a later track names the run", Array(("<gpx><trk><trkseg>\n" + plain.joined() + "</trkseg></trk><trk><name>later</name><type>running</type></trk></gpx>\n").utf8)),
            ("a point in a comment", GPXSkeletonTests.document(Array(usual[0..<6]) + ["<!--\n" + usual[6] + "-->\n"] + Array(usual[7...]))),
            ("cut off", Array(GPXSkeletonTests.document(usual).dropLast(40))),
            // Every point dropped: the error counts the fragment's points too ("all 12 track points").
            ("no point has a position", GPXSkeletonTests.document((0..<12).map { _ in "      <trkpt lat=\"x\" lon=\"4\">\n      </trkpt>\n" })),
            ("only pause markers", GPXSkeletonTests.document((0..<12).map { marker($0 % 2 == 0 ? 100 : 200) })),
        ]
    }

    func testSplitReadsEqualTheSequentialScan() throws {
        var tally = Tally()
        for (what, bytes) in generatedRuns() {
            try compare(bytes, splits: (1..<40).map { bytes.count * $0 / 40 }, what: what, tally: &tally)
        }
        for (what, bytes) in Self.handMade() {
            try compare(bytes, splits: Self.splits(bytes), what: what, tally: &tally)
        }
        XCTAssertEqual(tally.mismatches, 0)
        // Most splits must have been taken, or this compared the sequential scan with itself.
        XCTAssertGreaterThan(tally.taken, tally.reads / 3, "\(tally)")
    }

    /// GPXSkeletonTests' mutations: the fourth of five usual points with every byte of its body
    /// replaced (by three of GPXSkeletonTests' bytes, in turn), deleted or doubled, split at the start of the third point (the mutated point inside
    /// the fragment, after a skeleton was learnt), of the fourth for every other byte (the mutated
    /// point first), and at the changed byte (the fragment, if any, starts after it).
    func testMutatedPointsReadTheSameSplit() throws {
        let points = (0..<5).map { GPXSkeletonTests.usual($0) }
        let target = Array(points[3].utf8)
        let bodyStart = target.firstIndex(of: UInt8(ascii: ">"))! + 1
        let replacements = GPXSkeletonTests.markupBytes
        var tally = Tally()
        for k in bodyStart..<target.count {
            // Three of the replacements at each byte, in turn (each read starts a thread: all of them
            // at every byte would take minutes on a busy machine).
            let chosen = (0..<3).map { replacements[(3 * k + $0) % replacements.count] }
            for edited in GPXSkeletonTests.edits(of: target, at: k, replacingWith: chosen) {
                var all = points
                all[3] = String(decoding: edited, as: UTF8.self)
                let bytes = GPXSkeletonTests.document(all)
                let head = GPXSkeletonTests.document([]).count - "    </trkseg></trk>\n</gpx>\n".utf8.count
                let third = head + points[0].utf8.count + points[1].utf8.count
                let fourth = third + points[2].utf8.count
                try compare(bytes, splits: k % 2 == 0 ? [third, fourth, fourth + k] : [third, fourth + k], chunkSizes: [GPXReader.defaultChunkSize],
                            what: "byte \(k) of the fourth point: \(String(decoding: edited, as: UTF8.self))", tally: &tally)
            }
        }
        XCTAssertGreaterThan(tally.reads, 3_000)
        XCTAssertEqual(tally.mismatches, 0)
        XCTAssertGreaterThan(tally.taken, tally.reads / 3, "\(tally)")
    }

    /// A wrong merge is caught: taking the fragment whatever state the scan is in (points outside a
    /// segment are then counted), or letting its timestamp offset replace the first one's.
    func testAWrongMergeIsCaught() throws {
        for fault in [GPXSplitFault.anyState, .fragmentOffsetWins] {
            var tally = Tally()
            for (what, bytes) in Self.handMade() {
                try compare(bytes, splits: Self.splits(bytes, every: 7), fault: fault, what: what, tally: &tally, expectingMismatches: true)
            }
            XCTAssertGreaterThan(tally.mismatches, 0, "\(fault)")
        }
    }

    /// The second thread's rest shared (`GPXSplit.sharing`): the first thread, arrived at the split,
    /// reads the points from a second offset on itself, taken when its scan arrives at their first
    /// point. Both offsets swept (around point starts and through the file): the same track or error.
    func compareSharing(_ bytes: [UInt8], what: String, fault: GPXSplitFault = .none, tally: inout Tally, restTaken: inout Int,
                        expectingMismatches: Bool = false) throws {
        let path = directory + "/run.gpx"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let sequential = Self.describe { try GPXReader.read(path: path, split: .never) }
        let offsets = Self.splits(bytes, every: 9, points: 10)
        for (index, split) in offsets.enumerated() where index % 5 == 0 {
            for (other, rest) in offsets.enumerated() where rest > split && (other + index) % 3 == 0 {
                for chunk in other % 4 == 0 ? [GPXReader.defaultChunkSize, 61] : [GPXReader.defaultChunkSize] {
                    let statistics = GPXSplitStatistics()
                    let shared = Self.describe {
                        try GPXReader.read(path: path, chunkSize: chunk, split: .sharing(at: split, rest: rest), fault: fault, statistics: statistics)
                    }
                    tally.reads += 1
                    if statistics.fragmentPoints > 0 { tally.taken += 1 }
                    if statistics.restPoints > 0 { restTaken += 1 }
                    if shared != sequential {
                        tally.mismatches += 1
                        if !expectingMismatches, tally.mismatches <= 5 {
                            XCTFail("\(what), split at \(split), rest from \(rest), chunk \(chunk):\nshared     \(shared)\nsequential \(sequential)")
                        }
                    }
                }
            }
        }
    }

    func testSharedRestsReadAsTheSequentialScan() throws {
        var tally = Tally(), restTaken = 0
        for (what, bytes) in generatedRuns() + Self.handMade() {
            try compareSharing(bytes, what: what, tally: &tally, restTaken: &restTaken)
        }
        XCTAssertEqual(tally.mismatches, 0)
        XCTAssertGreaterThan(tally.reads, 1_000)
        // Most rests must have been taken, or this compared the one-fragment read with itself.
        XCTAssertGreaterThan(restTaken, tally.reads / 4, "\(tally), rests taken \(restTaken)")
    }

    /// Taking the rest whatever state the scan is in at its first point is caught too.
    func testAWrongMergeOfTheRestIsCaught() throws {
        var tally = Tally(), restTaken = 0
        for (what, bytes) in Self.handMade() {
            try compareSharing(bytes, what: what, fault: .restInAnyState, tally: &tally, restTaken: &restTaken, expectingMismatches: true)
        }
        XCTAssertGreaterThan(tally.mismatches, 0)
    }

    /// Big files split by themselves (`GPXSplit.automatic`, its threshold lowered to 1 MiB): a
    /// marathon (about 6 MB) reads as the sequential scan does, its fragment taken; a file below the
    /// threshold is not split.
    func testBigFilesSplitByThemselves() throws {
        var generator = RunGenerator(seed: 7, distanceMeters: 42_195)
        generator.pauseCount = 3
        let bytes = generator.gpxBytes()
        XCTAssertGreaterThan(bytes.count, 1 << 20)
        let path = directory + "/big.gpx"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let statistics = GPXSplitStatistics()
        let split = Self.describe { try GPXReader.read(path: path, split: .automaticAbove(1 << 20), statistics: statistics) }
        XCTAssertGreaterThan(statistics.fragmentPoints, 1000)
        // The second thread started on a CPU other than the reading thread's, where there is one.
        var allowed = badge_cpus()
        if badge_cpus_of_caller(&allowed) == 0, badge_cpus_count(&allowed) >= 2 {
            XCTAssertGreaterThanOrEqual(statistics.avoidedCPU, 0, "the second thread is asked to start elsewhere")
            XCTAssertGreaterThanOrEqual(statistics.startCPU, 0)
            XCTAssertNotEqual(statistics.startCPU, statistics.avoidedCPU, "it starts on another CPU")
            XCTAssertTrue(statistics.widened, "then it may run on every CPU the reading thread may")
        }
        XCTAssertEqual(split, Self.describe { try GPXReader.read(path: path, split: .never) })
        XCTAssertEqual(split, Self.describe { try GPXReader.read(path: path) })
        XCTAssertFalse(split.hasPrefix("error"))
        let below = GPXSplitStatistics()
        _ = try GPXReader.read(path: path, split: .automaticAbove(bytes.count + 1), statistics: below)
        XCTAssertEqual(below.fragmentPoints, 0)
    }

    /// Under a memory budget too small for the whole run, the split read fails where and as the
    /// sequential scan does: the fragment is taken only when the merged columns fit.
    func testATightMemoryBudgetFailsAsTheSequentialScan() throws {
        let bytes = RunGenerator(seed: 11, distanceMeters: 42_195).gpxBytes()
        let path = directory + "/tight.gpx"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let needs = try GPXReader.read(path: path, split: .never).memoryBytes * 2
        let budget = MemoryBudget(totalBytes: needs * 3 / 4)
        let sequential = Self.describe { try budget.reading(path) { try GPXReader.read(path: path, split: .never) } }
        XCTAssertTrue(sequential.hasPrefix("error"), sequential)
        let statistics = GPXSplitStatistics()
        let split = Self.describe {
            try budget.reading(path) { try GPXReader.read(path: path, split: .automaticAbove(1 << 20), statistics: statistics) }
        }
        XCTAssertEqual(split, sequential)
        XCTAssertEqual(statistics.fragmentPoints, 0, "the fragment does not fit: not taken")
    }
}

final class GPXSplitRealDataTests: GPXSplitComparing {
    func testRealFilesReadTheSameSplit() throws {
        guard let dir = ProcessInfo.processInfo.environment["REALDATA_DIR"], !dir.isEmpty else {
            throw XCTSkip("set REALDATA_DIR to the realdata folder to run this check")
        }
        let files = (FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".gpx") }.sorted()
        XCTAssertFalse(files.isEmpty, "no .gpx file under \(dir)")
        var tally = Tally()
        for name in files {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent(name)))
            let before = tally
            try compare(bytes, splits: Self.splits(bytes, every: 40), chunkSizes: [GPXReader.defaultChunkSize], what: name, tally: &tally)
            print("| \(name) | \(bytes.count) bytes | \(tally.reads - before.reads) splits | \(tally.taken - before.taken) taken | \(tally.mismatches - before.mismatches) differ |")
        }
        XCTAssertEqual(tally.mismatches, 0)
        XCTAssertGreaterThan(tally.taken, 0)
    }
}
