import CZlib
import Foundation
import XCTest

@testable import RunAnalysis
@testable import RunFiles
@testable import RunFixtures
@testable import SyntheticRuns
@testable import RunLibrary

/// One budget across nesting (issue 47, S2): what archives make of their few bytes is counted across
/// every level and every archive of a read (entries, bytes inflated, messages), bytes held stay
/// charged while held, and what passes a budget is a named skip while the rest is read. Every hostile
/// file is made here, small, and read through `RunFolder.read` (the path `evaluate`, `summarize`,
/// `report`, `add` and the worker read through); budgets are lowered through the read's own
/// parameters so that the files stay small. Outcomes are asserted, never times.
final class ReadBudgetTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: String!
    let utc = TimeZone(identifier: "UTC")!

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = (folder as NSString).appendingPathComponent(name)
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// A short run's GPX (1 km: about 50 KB).
    func gpx(_ seed: UInt64, start: Double = 1_714_545_000) -> [UInt8] {
        var generator = RunGenerator(seed: seed)
        generator.startEpochSeconds = start
        generator.distanceMeters = 1000
        return generator.gpxBytes()
    }

    // MARK: - Zips made by hand (what ZipWriter never writes)

    static func u16(_ v: Int, _ into: inout [UInt8]) { into.append(UInt8(v & 0xFF)); into.append(UInt8((v >> 8) & 0xFF)) }
    static func u32(_ v: Int, _ into: inout [UInt8]) { u16(v & 0xFFFF, &into); u16((v >> 16) & 0xFFFF, &into) }

    /// One local header and its data (stored), then a central directory of `names`, every one pointing
    /// at that one local header: the shape of the 12.9 KB zip of 13 million leaves.
    static func oneHeaderManyNames(_ data: [UInt8], names: [String], good: (String, [UInt8])? = nil) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        let crc = data.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, UInt32($0.count))) }
        func local(_ name: [UInt8], _ bytes: [UInt8], _ crc: Int) {
            u32(0x0403_4B50, &out); u16(20, &out); u16(0x800, &out); u16(0, &out); u16(0, &out); u16(0x21, &out)
            u32(crc, &out); u32(bytes.count, &out); u32(bytes.count, &out); u16(name.count, &out); u16(0, &out)
            out += name
            out += bytes
        }
        func central(_ name: [UInt8], size: Int, crc: Int, offset: Int) {
            u32(0x0201_4B50, &directory); u16(20, &directory); u16(20, &directory); u16(0x800, &directory); u16(0, &directory)
            u16(0, &directory); u16(0x21, &directory); u32(crc, &directory); u32(size, &directory); u32(size, &directory)
            u16(name.count, &directory); u16(0, &directory); u16(0, &directory); u16(0, &directory); u16(0, &directory)
            u32(0, &directory); u32(offset, &directory)
            directory += name
        }
        local(Array((names.first ?? "x").utf8), data, crc)
        for name in names { central(Array(name.utf8), size: data.count, crc: crc, offset: 0) }
        if let good {
            let offset = out.count
            let goodCRC = good.1.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, UInt32($0.count))) }
            local(Array(good.0.utf8), good.1, goodCRC)
            central(Array(good.0.utf8), size: good.1.count, crc: goodCRC, offset: offset)
        }
        let directoryOffset = out.count
        let count = names.count + (good == nil ? 0 : 1)
        out += directory
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out); u16(count, &out); u16(count, &out)
        u32(directory.count, &out); u32(directoryOffset, &out); u16(0, &out)
        return out
    }

    // MARK: - Overlapping entries

    /// Several entries at one local header are damaged entries, refused by name: two levels of 20
    /// names for one inner zip would be 400 leaves of one run file; none is read, the good entry is.
    func testEntriesAtOneLocalHeaderAreDamagedAndTheGoodEntryIsRead() throws {
        let leaf = Self.oneHeaderManyNames(gpx(1), names: (0..<20).map { "run\($0).gpx" })
        let outer = Self.oneHeaderManyNames(leaf, names: (0..<20).map { "level\($0).zip" }, good: ("good.gpx", gpx(2, start: 1_714_645_000)))
        let read = try RunFolder.read(write(outer, "nested.zip"), zone: utc, serial: true)
        XCTAssertEqual(read.runs.map(\.id), ["nested.zip/good.gpx"])
        XCTAssertEqual(read.errors.count, 20, "\(read.errors.prefix(3))")
        XCTAssertTrue(read.errors.allSatisfy { $0.message.contains("its data overlap another entry's") }, "\(read.errors.prefix(3))")
        XCTAssertEqual(Set(read.errors.map(\.path)), Set((0..<20).map { "nested.zip/level\($0).zip" }))
    }

    /// An entry whose data hold another entry's local header and data (a deflated bomb counted twice,
    /// or two hundred times) overlaps it: both are refused, the entry beside them is read.
    func testEntryInsideAnotherEntrysDataIsDamaged() throws {
        let inner = ZipWriter([ZipWriter.Entry("inner.gpx", gpx(1))]).finish()
        // `inner`'s local header and data, then its directory: the first 30 + 9 + data bytes are the entry.
        var zip = ZipWriter([ZipWriter.Entry("wrapper.txt", inner, deflated: false), ZipWriter.Entry("good.gpx", gpx(2, start: 1_714_645_000))]).finish()
        // A third directory record pointing at the inner local header, inside wrapper.txt's data.
        let wrapperHeader = 30 + "wrapper.txt".utf8.count
        var record: [UInt8] = []
        let innerArchive = try ZipArchive(bytes: inner, source: "inner")
        let entry = try XCTUnwrap(innerArchive.entries.first)
        Self.u32(0x0201_4B50, &record); Self.u16(20, &record); Self.u16(20, &record); Self.u16(Int(entry.flags), &record)
        Self.u16(Int(entry.method), &record); Self.u16(0, &record); Self.u16(0x21, &record); Self.u32(Int(entry.crc32), &record)
        Self.u32(entry.compressedSize, &record); Self.u32(entry.size, &record); Self.u16(9, &record); Self.u16(0, &record)
        Self.u16(0, &record); Self.u16(0, &record); Self.u16(0, &record); Self.u32(0, &record); Self.u32(wrapperHeader, &record)
        record += Array("inner.gpx".utf8)
        // Insert the record before the end record and fix the end record's count and size.
        let end = zip.count - 22
        zip.insert(contentsOf: record, at: end)
        let endRecord = zip.count - 22
        zip[endRecord + 8] = 3; zip[endRecord + 10] = 3
        let size = Int(zip[endRecord + 12]) | Int(zip[endRecord + 13]) << 8
        zip[endRecord + 12] = UInt8((size + record.count) & 0xFF); zip[endRecord + 13] = UInt8((size + record.count) >> 8)
        let read = try RunFolder.read(write(zip, "overlap.zip"), zone: utc, serial: true)
        XCTAssertEqual(read.runs.map(\.id), ["overlap.zip/good.gpx"])
        XCTAssertEqual(read.errors.map(\.path), ["overlap.zip/inner.gpx"], "\(read.errors)")
        XCTAssertTrue(read.errors.first?.message.contains("its data overlap another entry's") ?? false, "\(read.errors)")
        // wrapper.txt is not a run file: listed as ignored, never read.
        XCTAssertEqual(read.ignored, ["overlap.zip/wrapper.txt"])
    }

    // MARK: - One budget across nesting

    /// Zips of zips: one entry budget spans every level and every archive of the folder; the entries
    /// past it are one named skip per archive, and the entries before it are read.
    func testEntryBudgetSpansEveryLevelAndEveryArchiveOfAFolder() throws {
        func inner(_ k: Int) -> [UInt8] {
            var entries: [ZipWriter.Entry] = []
            for j in 0..<4 {
                let n = 10 * k + j
                let start = 1_714_545_000 + Double(100_000 * n)
                entries.append(ZipWriter.Entry("run\(j).gpx", gpx(UInt64(n), start: start)))
            }
            return ZipWriter(entries).finish()
        }
        let outer = ZipWriter((0..<3).map { ZipWriter.Entry("part\($0).zip", inner($0), deflated: false) }).finish()
        _ = write(outer, "exports/a.zip")
        _ = write(ZipWriter([ZipWriter.Entry("late.gpx", gpx(99, start: 1_724_545_000))]).finish(), "exports/b.zip")
        let limits = ReadBudget.Limits(entries: 9)
        let read = try RunFolder.read((folder as NSString).appendingPathComponent("exports"), zone: utc, serial: true, limits: limits)
        // a.zip: its 3 entries, then part0's 4 and part1's 2 (9 in all); part1's 2 others, part2's 4 and b.zip's 1 are skipped.
        XCTAssertEqual(read.runs.count, 6, "\(read.runs.map(\.id))")
        let skips = read.errors.filter { $0.message.contains("the budget of 9 archive entries for one command is spent") }
        XCTAssertEqual(skips.map(\.path), ["a.zip/part1.zip", "a.zip/part2.zip", "b.zip"], "\(read.errors)")
        XCTAssertTrue(skips.first?.message.hasPrefix("a.zip/part1.zip: 2 of its 4 entries not read") ?? false, "\(skips)")
        // Without the lowered budget, everything is read.
        let whole = try RunFolder.read((folder as NSString).appendingPathComponent("exports"), zone: utc, serial: true)
        XCTAssertEqual(whole.runs.count, 13)
        XCTAssertEqual(whole.errors, [])
    }

    /// Bytes inflated are counted across every level: entries past the budget are named skips (the
    /// entry and the budget), those before it are read.
    func testInflatedBudgetSpansEveryLevel() throws {
        // Each run file is padded to about 200 KB (a comment of spaces) and deflates to a few KB.
        func padded(_ k: Int) -> [UInt8] {
            var bytes = gpx(UInt64(k), start: 1_714_545_000 + Double(100_000 * k))
            bytes += Array("<!--".utf8) + [UInt8](repeating: 0x20, count: 200_000) + Array("-->".utf8)
            return bytes
        }
        let inner = ZipWriter((1...3).map { ZipWriter.Entry("run\($0).gpx", padded($0)) }).finish()
        let outer = ZipWriter([ZipWriter.Entry("first.gpx", padded(0)), ZipWriter.Entry("inner.zip", inner)]).finish()
        XCTAssertLessThan(outer.count, padded(0).count)
        let path = write(outer, "padded.zip")
        // first.gpx, inner.zip and run1.gpx fit; run2 and run3 do not.
        let limit = padded(0).count + inner.count + padded(1).count + 1000
        let read = try RunFolder.read(path, zone: utc, serial: true, limits: ReadBudget.Limits(inflatedBytes: limit))
        XCTAssertEqual(Set(read.runs.map(\.id)), ["padded.zip/first.gpx", "padded.zip/inner.zip/run1.gpx"])
        XCTAssertEqual(read.errors.map(\.path), ["padded.zip/inner.zip/run2.gpx", "padded.zip/inner.zip/run3.gpx"])
        XCTAssertTrue(read.errors.allSatisfy { $0.message.contains("inflated from archives for one command is spent") }, "\(read.errors)")
        XCTAssertTrue(read.errors.first?.message.hasPrefix("padded.zip/inner.zip: run2.gpx:") ?? false, "\(read.errors)")
        XCTAssertEqual(try RunFolder.read(path, zone: utc, serial: true).runs.count, 4)
    }

    /// gzip data inside an entry counts its inflated bytes too (a `.fit.gz` deflated again in a zip is
    /// a bomb of a bomb): past the budget it is a named skip, the run before it is read.
    func testGzipInsideAnEntryCountsItsInflatedBytes() throws {
        let good = gpx(1)
        let bomb = try Gzip.compress([UInt8](repeating: 0, count: 4 << 20))
        let zip = ZipWriter([ZipWriter.Entry("a/good.gpx", good), ZipWriter.Entry("b/bomb.fit.gz", bomb)]).finish()
        XCTAssertLessThan(zip.count, good.count)
        let read = try RunFolder.read(write(zip, "gz.zip"), zone: utc, serial: true,
                                      limits: ReadBudget.Limits(inflatedBytes: good.count + bomb.count + (1 << 20)))
        XCTAssertEqual(read.runs.map(\.id), ["gz.zip/a/good.gpx"])
        XCTAssertEqual(read.errors.map(\.path), ["gz.zip/b/bomb.fit.gz"])
        XCTAssertTrue(read.errors.first?.message.contains("gzip data not read: the budget of") ?? false, "\(read.errors)")
    }

    /// Messages about entries are counted too: past the budget one note says so, and the runs are all read.
    func testMessageBudgetEndsTheListingWithANote() throws {
        var entries = (0..<50).map { ZipWriter.Entry("notes/note\($0).txt", Array("hello".utf8)) }
        entries.append(ZipWriter.Entry("z/good.gpx", gpx(1)))
        let read = try RunFolder.read(write(ZipWriter(entries).finish(), "chatty.zip"), zone: utc, serial: true,
                                      limits: ReadBudget.Limits(messages: 10))
        XCTAssertEqual(read.runs.map(\.id), ["chatty.zip/z/good.gpx"])
        XCTAssertEqual(read.ignored.count, 10)
        XCTAssertEqual(read.errors.count, 1, "\(read.errors)")
        XCTAssertEqual(read.errors.first?.message,
                       "chatty.zip/notes/note10.txt: further messages about archive entries are not listed: the budget of 10 messages (64 MiB of text) for one command is spent")
    }

    // MARK: - Held bytes stay charged while held

    /// A zip inside a zip is held in memory while its entries are read: its room stays charged, so
    /// a third level that would need as much again is refused by name, and the level's other entry is read.
    func testNestedZipStaysChargedWhileItsEntriesAreRead() throws {
        let padding = [UInt8](repeating: 0x41, count: 2_400_000)
        let level3 = ZipWriter([ZipWriter.Entry("padding.txt", padding, deflated: false), ZipWriter.Entry("deep.gpx", gpx(3), deflated: false)]).finish()
        let level2 = ZipWriter([ZipWriter.Entry("level3.zip", level3, deflated: false),
                                ZipWriter.Entry("good.gpx", gpx(2, start: 1_714_645_000), deflated: false)]).finish()
        let level1 = ZipWriter([ZipWriter.Entry("level2.zip", level2)]).finish()
        XCTAssertLessThan(level1.count, 200_000)
        let budget = MemoryBudget(totalBytes: 4 << 20)
        let read = try RunFolder.read(write(level1, "held.zip"), zone: utc, serial: true, budget: budget)
        XCTAssertEqual(read.runs.map(\.id), ["held.zip/level2.zip/good.gpx"])
        XCTAssertEqual(read.errors.map(\.path), ["held.zip/level2.zip/level3.zip"], "\(read.errors)")
        XCTAssertTrue(read.errors.first?.message.contains("over the budget of 4 MiB") ?? false, "\(read.errors)")
        XCTAssertEqual(budget.usage.reservedBytes, 0, "the room is given back once the inner zip is let go")
        // With room for both levels, all is read.
        let roomy = try RunFolder.read(write(level1, "roomy.zip"), zone: utc, serial: true, budget: MemoryBudget(totalBytes: 16 << 20))
        XCTAssertEqual(roomy.runs.count, 2, "\(roomy.errors)")
    }

    // MARK: - Apple Health

    func healthWorkout(start: Double, minutes: Double, routes: [String]) -> String {
        AppleHealthFixture.workout(.init(start: start, minutes: minutes, kilometres: 5, routeFiles: routes), offset: 0)
    }

    /// A workout naming one route 200 times joins it once; the routes a workout joins are held as a
    /// sum, so distinct routes past the budget are named skips, and the workout is read with the others.
    func testRoutesJoinedCountAsASum() throws {
        let start = 1_758_035_690.0
        var routes: [ZipWriter.Entry] = []
        var generators: [RunGenerator] = []
        for k in 0..<4 {
            var generator = RunGenerator(seed: UInt64(k + 1))
            generator.startEpochSeconds = start + Double(k) * 4000
            generator.distanceMeters = 10_000
            generator.heartRate = false
            generators.append(generator)
            routes.append(ZipWriter.Entry("apple_health_export/workout-routes/r\(k).gpx", generator.gpxBytes()))
        }
        let points = generators[0].track().count
        var xml = AppleHealthFixture.header
        xml += healthWorkout(start: start, minutes: 60, routes: Array(repeating: "r0.gpx", count: 200))
        xml += healthWorkout(start: start + 86_400, minutes: 300, routes: ["r0.gpx", "r1.gpx", "r2.gpx", "r3.gpx"])
        xml += "</HealthData>\n"
        let zip = ZipWriter([ZipWriter.Entry("apple_health_export/export.xml", Array(xml.utf8))] + routes).finish()
        let path = write(zip, "export.zip")
        let big = MemoryBudget(totalBytes: 1 << 30)
        let roomy = try RunFolder.read(path, zone: utc, serial: true, budget: big)
        XCTAssertEqual(roomy.errors, [])
        XCTAssertEqual(roomy.runs.count, 2)
        // One route named 200 times: its points once.
        XCTAssertEqual(roomy.runs.first?.points, points)
        XCTAssertEqual(roomy.runs.last?.points, 4 * points)
        // A budget half a route short of what reading it all took at its peak (joining the fourth route):
        // the fourth is named, the workout is read with the three before it.
        let perRoute = generators[0].track().memoryBytes * 2
        let budget = MemoryBudget(totalBytes: big.usage.peakBytes - perRoute / 2)
        let tight = try RunFolder.read(path, zone: utc, serial: true, budget: budget)
        XCTAssertEqual(tight.runs.count, 2, "\(tight.errors)")
        let skipped = tight.errors.filter { $0.message.contains("is not joined") }
        XCTAssertFalse(skipped.isEmpty, "\(tight.errors)")
        XCTAssertTrue(skipped.allSatisfy { $0.path == "export.zip/apple_health_export/export.xml#2" }, "\(skipped)")
        XCTAssertLessThan(tight.runs.last?.points ?? .max, 4 * points)
        XCTAssertGreaterThan(tight.runs.last?.points ?? 0, 0)
    }

    /// A tag without its `>` (an attribute of megabytes) is a named skip past 1 MiB: the workouts
    /// around it are read, and an export that ends inside it keeps the workouts before it.
    func testOverLongTagIsANamedSkip() throws {
        let start = 1_758_035_690.0
        let long = String(repeating: "x", count: 3 << 20)
        var xml = AppleHealthFixture.header
        xml += healthWorkout(start: start, minutes: 30, routes: [])
        xml += "<Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" startDate=\"\(AppleHealthFixture.date(start + 86_400, offset: 0))\" "
            + "endDate=\"\(AppleHealthFixture.date(start + 90_000, offset: 0))\" sourceName=\"\(long)\">\n</Workout>\n"
        xml += healthWorkout(start: start + 2 * 86_400, minutes: 30, routes: [])
        xml += "</HealthData>\n"
        let read = try RunFolder.read(write(Array(xml.utf8), "long/export.xml"), zone: utc, serial: true)
        XCTAssertEqual(read.runs.map(\.id), ["export.xml#1", "export.xml#2"])
        XCTAssertEqual(read.errors.count, 1, "\(read.errors)")
        XCTAssertTrue(read.errors.first?.message.contains("runs past 1 MiB without its '>' (the longest tag read); skipped up to its end") ?? false,
                      "\(read.errors)")
        // The export ends inside the tag: the workout before it is read.
        var cut = AppleHealthFixture.header + healthWorkout(start: start, minutes: 30, routes: [])
        cut += "<Workout sourceName=\"\(long)"
        let ended = try RunFolder.read(write(Array(cut.utf8), "cut/export.xml"), zone: utc, serial: true)
        XCTAssertEqual(ended.runs.map(\.id), ["export.xml"])
        XCTAssertEqual(ended.errors.count, 1, "\(ended.errors)")
    }

    /// Past the workouts one export may give, the rest are one named skip.
    func testWorkoutsPastTheLimitAreANamedSkip() throws {
        let start = 1_758_035_690.0
        var xml = AppleHealthFixture.header
        for k in 0..<7 { xml += healthWorkout(start: start + Double(k) * 86_400, minutes: 30, routes: []) }
        xml += "</HealthData>\n"
        let zip = ZipWriter([ZipWriter.Entry("apple_health_export/export.xml", Array(xml.utf8))]).finish()
        let read = try RunFolder.read(write(zip, "export.zip"), zone: utc, serial: true, limits: ReadBudget.Limits(workoutsPerExport: 5))
        XCTAssertEqual(read.runs.count, 5)
        XCTAssertEqual(read.errors.map(\.message),
                       ["export.zip: apple_health_export/export.xml: 2 workouts after the first 5 are not read (the limit of workouts read from one export)"])
        XCTAssertEqual(AppleHealthReader.maximumWorkouts, ReadBudget.Limits.standard.workoutsPerExport)
    }

    // MARK: - Trees and buffers at their real cost

    /// A Suunto log of tiny samples costs its parsed tree about 90 times its text: charged at that
    /// cost, it is refused by name under a budget its text fits 40 times over, and the run beside it is read.
    func testDeviceJSONTreeIsChargedAtItsCost() throws {
        var text = "{\"DeviceLog\":{\"Header\":{\"Activity\":\"Running\"},\"Samples\":["
        for k in 0..<3 { text += "{\"TimeISO8601\":\"2024-05-01T06:00:0\(k).000+00:00\",\"HR\":2.5,\"Distance\":\(k * 3)}," }
        text += Array(repeating: "{}", count: 60_000).joined(separator: ",")
        text += "]}}"
        XCTAssertLessThan(text.utf8.count, 200_000)
        let zip = ZipWriter([ZipWriter.Entry("suunto/tiny.json", Array(text.utf8)), ZipWriter.Entry("suunto/good.gpx", gpx(1))]).finish()
        let budget = MemoryBudget(totalBytes: 8 << 20)
        let read = try RunFolder.read(write(zip, "logs.zip"), zone: utc, serial: true, budget: budget)
        XCTAssertEqual(read.runs.map(\.id), ["logs.zip/suunto/good.gpx"])
        XCTAssertEqual(read.errors.map(\.path), ["logs.zip/suunto/tiny.json"])
        XCTAssertTrue(read.errors.first?.message.contains("over the budget of 8 MiB") ?? false, "\(read.errors)")
        // With room for its tree, the log is a run.
        let roomy = try RunFolder.read(write(zip, "roomy.zip"), zone: utc, serial: true, budget: MemoryBudget(totalBytes: 128 << 20))
        XCTAssertEqual(roomy.runs.count, 2, "\(roomy.errors)")
        // The estimate is never under the tree's measured 700 bytes an object.
        XCTAssertGreaterThan(JSONText.treeBytes(Array(text.utf8)), 60_000 * 700)
    }

    /// A streaming reader's buffer grows for a token longer than its chunk only within the budget: a
    /// GPX tag of megabytes is refused by name under a small budget, the other file is read.
    func testChunkedReaderGrowsOnlyWithinTheBudget() throws {
        var long = gpx(1)
        let marker = Array("<trkpt".utf8)
        let at = try XCTUnwrap((0..<(long.count - marker.count)).first { Array(long[$0..<($0 + marker.count)]) == marker })
        long.insert(contentsOf: Array("<desc x=\"".utf8) + [UInt8](repeating: 0x78, count: 6 << 20) + Array("\"/>".utf8), at: at)
        _ = write(long, "runs/long.gpx")
        _ = write(gpx(2, start: 1_714_645_000), "runs/good.gpx")
        let budget = MemoryBudget(totalBytes: 8 << 20)
        let read = try RunFolder.read((folder as NSString).appendingPathComponent("runs"), zone: utc, serial: true, budget: budget)
        XCTAssertEqual(read.runs.map(\.id), ["good.gpx"])
        XCTAssertEqual(read.errors.map(\.path), ["long.gpx"])
        XCTAssertTrue(read.errors.first?.message.contains("over the budget of 8 MiB") ?? false, "\(read.errors)")
        XCTAssertEqual(budget.usage.reservedBytes, 0)
    }
}
