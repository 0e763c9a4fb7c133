import RunFixtures
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
@testable import RunLibrary
import XCTest

/// A folder of generated runs beside one hostile entry (a named pipe, a link to a device, links
/// that loop, the same file twice): the walk never blocks or loops, and gives the same runs as the
/// folder without the entry.
final class HostileFolderTests: XCTestCase {
    var temporary: TemporaryFolder!
    var parent = ""
    var folder = ""
    let zone = TimeZone(identifier: "UTC") ?? .current

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        parent = temporary.path
        folder = parent + "/runs"
        try FileManager.default.createDirectory(atPath: folder + "/b", withIntermediateDirectories: true)
        for index in 0..<3 {
            var generator = RunGenerator(seed: UInt64(index), distanceMeters: 1200 + Double(index) * 400)
            generator.startEpochSeconds += Double(index) * 86_400
            try Data(generator.gpxBytes()).write(to: URL(fileURLWithPath: folder + (index == 2 ? "/b" : "") + "/r\(index).gpx"))
        }
        var generator = RunGenerator(seed: 7, distanceMeters: 2000)
        generator.startEpochSeconds += 5 * 86_400
        try Data(FITWriter.encode(track: generator.track())).write(to: URL(fileURLWithPath: folder + "/b/watch.fit"))
        try #"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700}"#
            .write(toFile: folder + "/treadmill.json", atomically: true, encoding: .utf8)
        try "notes".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    /// Reads the folder (on every core, as `evaluate` does) and checks it against the plain folder.
    func readBeside(_ hostile: String, add: () throws -> Void) throws -> RunFolder {
        let plain = try RunFolder.read(folder, zone: zone)
        XCTAssertEqual(plain.runs.count, 5)
        XCTAssertEqual(plain.errors, [])
        try add()
        let started = Date()
        let read = try RunFolder.read(folder, zone: zone)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, hostile)
        XCTAssertEqual(read.runs, plain.runs, hostile)
        XCTAssertEqual(read.errors, [], hostile)
        return read
    }

    func testNamedPipeIsIgnoredNeverOpened() throws {
        let read = try readBeside("zz.gpx") { XCTAssertEqual(mkfifo(folder + "/zz.gpx", 0o644), 0) }
        XCTAssertEqual(read.ignored, ["notes.txt", "zz.gpx"])
        XCTAssertEqual(read.ignoredReasons, ["zz.gpx": "a named pipe (FIFO), not a regular file"])
        // Named directly, it is not opened either.
        let alone = try RunFolder.read(folder + "/zz.gpx", zone: zone)
        XCTAssertEqual(alone.runs, [])
        XCTAssertEqual(alone.ignoredReasons[folder + "/zz.gpx"], "a named pipe (FIFO), not a regular file")
        // Nor by the cache's hash (a pipe swapped in after the walk), nor by a reader: refused without blocking.
        XCTAssertNil(RunCache.hash(path: folder + "/zz.gpx"))
        XCTAssertThrowsError(try RunLoader.load(path: folder + "/zz.gpx", id: "zz.gpx", analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)) { error in
            XCTAssertEqual("\(error)", "\(folder)/zz.gpx: cannot read: not a regular file")
        }
    }

    func testLinkToADeviceIsIgnored() throws {
        let read = try readBeside("x.fit -> /dev/zero") {
            try FileManager.default.createSymbolicLink(atPath: folder + "/x.fit", withDestinationPath: "/dev/zero")
        }
        XCTAssertEqual(read.ignored, ["notes.txt", "x.fit"])
        XCTAssertEqual(read.ignoredReasons, ["x.fit": "a character device, not a regular file"])
    }

    func testLinkToItselfIsReadOnce() throws {
        let read = try readBeside("self -> .") {
            try FileManager.default.createSymbolicLink(atPath: folder + "/self", withDestinationPath: ".")
            try FileManager.default.createSymbolicLink(atPath: folder + "/b/back", withDestinationPath: "..")
        }
        XCTAssertEqual(read.ignored, ["b/back", "notes.txt", "self"])
        XCTAssertEqual(read.ignoredReasons, ["b/back": "the same folder as ., read once", "self": "the same folder as ., read once"])
    }

    func testLinkToTheParentIsNotFollowed() throws {
        try "<gpx>not read</gpx>".write(toFile: parent + "/outside.gpx", atomically: true, encoding: .utf8)
        let read = try readBeside("up -> ..") {
            try FileManager.default.createSymbolicLink(atPath: folder + "/up", withDestinationPath: "..")
        }
        XCTAssertEqual(read.ignored, ["notes.txt", "up"])
        XCTAssertTrue(read.ignoredReasons["up"]?.contains("holds the folder read") == true, "\(read.ignoredReasons)")
    }

    func testLinkedFolderIsFollowedOnce() throws {
        try FileManager.default.createSymbolicLink(atPath: folder + "/c", withDestinationPath: "b")
        let read = try RunFolder.read(folder, zone: zone)
        XCTAssertEqual(read.runs.count, 5)
        XCTAssertEqual(Set(read.runs.map(\.id)), ["r0.gpx", "r1.gpx", "b/r2.gpx", "treadmill.json", "b/watch.fit"])
        XCTAssertEqual(read.ignoredReasons, ["c": "the same folder as b, read once"])
        // A link to a folder outside is followed like a folder.
        try FileManager.default.removeItem(atPath: folder + "/c")
        try FileManager.default.moveItem(atPath: folder + "/b", toPath: parent + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: folder + "/b", withDestinationPath: parent + "/elsewhere")
        XCTAssertEqual(Set(try RunFolder.read(folder, zone: zone).runs.map(\.id)), ["r0.gpx", "r1.gpx", "b/r2.gpx", "treadmill.json", "b/watch.fit"])
    }

    func testFileLinkedTwiceIsOneRun() throws {
        let read = try readBeside("zlink.gpx -> r1.gpx") {
            try FileManager.default.createSymbolicLink(atPath: folder + "/zlink.gpx", withDestinationPath: "r1.gpx")
        }
        XCTAssertEqual(read.duplicates, [RunDuplicate(id: "zlink.gpx", sameAs: "r1.gpx", reason: .sameFile)])
        // The first path in byte order is kept, link or not: "b/r0-again.gpx" < "r0.gpx".
        try FileManager.default.createSymbolicLink(atPath: folder + "/b/r0-again.gpx", withDestinationPath: "../r0.gpx")
        let again = try RunFolder.read(folder, zone: zone)
        XCTAssertEqual(again.runs.count, 5)
        XCTAssertEqual(again.runs.filter { $0.id.contains("r0") }.map(\.id), ["b/r0-again.gpx"])
        XCTAssertEqual(again.duplicates, [
            RunDuplicate(id: "r0.gpx", sameAs: "b/r0-again.gpx", reason: .sameFile),
            RunDuplicate(id: "zlink.gpx", sameAs: "r1.gpx", reason: .sameFile),
        ])
    }

    func testHardLinkIsOneRunUnderTheFirstPath() throws {
        XCTAssertEqual(link(folder + "/r1.gpx", folder + "/r1-copy.gpx"), 0)
        let read = try RunFolder.read(folder, zone: zone)
        XCTAssertEqual(read.runs.count, 5)
        XCTAssertEqual(read.runs.filter { $0.id.hasPrefix("r1") }.map(\.id), ["r1-copy.gpx"])
        XCTAssertEqual(read.duplicates, [RunDuplicate(id: "r1.gpx", sameAs: "r1-copy.gpx", reason: .sameFile)])
    }

    /// A JSON summary is a few hundred bytes: one over 1 MiB is refused before it is decoded.
    func testHugeJSONSummaryIsRefused() throws {
        let big = folder + "/big.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        XCTAssertEqual(truncate(big, off_t(SummaryReader.maximumBytes) + 1), 0)
        let read = try RunFolder.read(folder, zone: zone)
        XCTAssertEqual(read.runs.count, 5)
        XCTAssertEqual(read.errors.first?.message,
                       "\(big): too large: the file is \(SummaryReader.maximumBytes + 1) bytes; files over \(SummaryReader.maximumBytes) bytes are refused")
    }

    /// A file past the size cap is an error naming it, found from its size without reading it
    /// (the file is sparse: a gigabyte that costs no disk).
    func testFilePastTheSizeCapIsAnError() throws {
        let big = folder + "/big.gpx"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        XCTAssertEqual(truncate(big, off_t(FileBytes.maximumBytes) + 1), 0)
        let started = Date()
        let read = try RunFolder.read(folder, zone: zone)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(read.runs.count, 5)
        XCTAssertEqual(read.errors.map(\.path), ["big.gpx"])
        XCTAssertEqual(read.errors.first?.message, "\(big): too large: the file is \(FileBytes.maximumBytes + 1) bytes; files over \(FileBytes.maximumBytes) bytes are refused")
    }
}
