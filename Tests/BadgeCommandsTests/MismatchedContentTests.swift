import RunFixtures
import BadgeCommands
import Foundation
import RunFiles
import SyntheticRuns
import XCTest

/// Files whose content does not match their name (issue S item 1): text, garbage, a zip, a FIT, a
/// GPX, a JSON summary, gzip that is truncated, header-only, trailed by junk or holding text, and an
/// empty file, each under every run suffix and its `.gz` form. Through the entrance the commands
/// take and through the binary itself (alone, in a folder, and under glibc's malloc checker): each
/// is skipped with a message naming it, never a signal, and the good runs beside them are kept.
final class MismatchedContentTests: XCTestCase {
    static let suffixes = RunFormat.suffixes.map(\.suffix)

    /// The contents, by name: made here from the generator (no file outside the repository).
    static func contents() throws -> [(name: String, bytes: [UInt8])] {
        let generator = RunGenerator(seed: 7, distanceMeters: 1200)
        let gpx = generator.gpxBytes()
        let gzipped = try Gzip.compress(gpx)
        var garbage = SplitMix64(seed: 99)
        return [
            ("text", Array("just some notes about my runs\n".utf8)),
            ("garbage", (0..<3000).map { _ in UInt8(truncatingIfNeeded: garbage.next()) }),
            ("empty", []),
            ("zip", Self.storedZip(name: "a.gpx", content: Array("<gpx></gpx>".utf8))),
            ("fit", FITWriter.encode(track: generator.track())),
            ("gpx", gpx),
            ("json", Array(generator.summaryJSON().utf8)),
            ("gzip-truncated", Array(gzipped[0..<(gzipped.count / 2)])),
            ("gzip-header-only", Array(gzipped[0..<10])),
            ("gzip-magic-only", [0x1F, 0x8B]),
            ("gzip-trailing-junk", gzipped + Array("junkjunk".utf8)),
            ("gzip-of-text", try Gzip.compress(Array("hello world".utf8))),
        ]
    }

    /// A zip archive holding one stored (uncompressed) entry: what `zip -0` writes.
    static func storedZip(name: String, content: [UInt8]) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        let crc = 0  // readers of this test never check it
        let nameBytes = Array(name.utf8)
        let local = [0x50, 0x4B, 0x03, 0x04] + le16(10) + le16(0) + le16(0) + le16(0) + le16(0) + le32(crc)
            + le32(content.count) + le32(content.count) + le16(nameBytes.count) + le16(0) + nameBytes + content
        let central = [0x50, 0x4B, 0x01, 0x02] + le16(20) + le16(10) + le16(0) + le16(0) + le16(0) + le16(0) + le32(crc)
            + le32(content.count) + le32(content.count) + le16(nameBytes.count) + le16(0) + le16(0) + le16(0) + le16(0)
            + le32(0) + le32(0) + nameBytes
        let end = [0x50, 0x4B, 0x05, 0x06] + le16(0) + le16(0) + le16(1) + le16(1) + le32(central.count) + le32(local.count) + le16(0)
        return local + central + end
    }

    /// Whether `content` under `suffix` is a run the reader should take (the file is what its name says).
    static func isGood(_ content: String, _ suffix: String) -> Bool {
        switch (content, suffix) {
        case ("gpx", ".gpx"), ("fit", ".fit"), ("fit", ".fit.gz"), ("json", ".json"): return true
        default: return false
        }
    }

    /// Every pair through `Entrances.runFile` (what `summarize` and `evaluate` call): a run or an
    /// error naming the file, in-process (so a double free here aborts the whole suite, as it did).
    func testEveryPairThroughTheEntrance() throws {
        for (content, bytes) in try Self.contents() {
            for suffix in Self.suffixes {
                let name = "\(content)\(suffix)"
                let outcome = Entrances.runFile(bytes, named: name)
                if Self.isGood(content, suffix) {
                    XCTAssertEqual(outcome.count, 1, "\(name): \(outcome.errors)")
                } else {
                    XCTAssertEqual(outcome.count, 0, name)
                    XCTAssertEqual(outcome.errors.count, 1, name)
                    XCTAssertTrue(outcome.errors.first?.contains(name) ?? false, "\(name): \(outcome.errors)")
                }
            }
        }
    }

    /// `evaluate` of a folder holding the sample runs, every pair of this file, and the hostile
    /// entries of issue H (a FIFO, a link to /dev/zero, links to the folder and its parent, a name
    /// that is not UTF-8), plainly and under glibc's malloc checker (which aborts on a double free
    /// or a corrupted heap; ASan checks the same test under scripts/sanitize): exit 2, every good run
    /// read (as many as in the folder without the bad entries), every bad file named on stderr.
    func testEvaluateFolderOfMismatchedAndHostileEntries() throws {
        let folder = try TemporaryFolder()
        let runs = folder.path + "/runs"
        try FileManager.default.copyItem(atPath: CLI.repository.appendingPathComponent("runs").path, toPath: runs)
        let clean = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: CLI.repository.appendingPathComponent("runs").path, toPath: clean.path + "/runs")
        var bad: [String] = []
        for top in [runs, clean.path + "/runs"] { try FileManager.default.createDirectory(atPath: top + "/mismatched", withIntermediateDirectories: true) }
        for (content, bytes) in try Self.contents() {
            for suffix in Self.suffixes {
                let name = "\(content)\(suffix)"
                _ = FileManager.default.createFile(atPath: runs + "/mismatched/" + name, contents: Data(bytes))
                if Self.isGood(content, suffix) {
                    _ = FileManager.default.createFile(atPath: clean.path + "/runs/mismatched/" + name, contents: Data(bytes))
                } else {
                    bad.append(name)
                }
            }
        }
        XCTAssertEqual(mkfifo(runs + "/zz.gpx", 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: runs + "/x.fit", withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(atPath: runs + "/self", withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: runs + "/up", withDestinationPath: "..")
        try HostileFolderEndToEndTests.makeEntry(in: runs, name: Array("bad-".utf8) + [0xFF] + Array(".gpx".utf8),
                                                 copyOf: CLI.repository.appendingPathComponent("runs/2026-08-04-canal.gpx").path)
        let arguments = ["--no-cache", "--keep-duplicates", "--format", "json"]
        let plain = try HostileFolderEndToEndTests.badgectl(["evaluate", clean.path + "/runs"] + arguments, timeout: 120)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let good = ((try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])?["runs"] as? [Any])?.count ?? -1
        XCTAssertEqual(good, 16 + 4)
        var environments: [[String: String]] = [[:]]
        let checker = "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"
        // Under ASan (scripts/sanitize) the binary is checked by ASan itself, and glibc's checker
        // cannot be preloaded in front of ASan's runtime.
        if FileManager.default.fileExists(atPath: checker), ProcessInfo.processInfo.environment["BADGECTL_ASAN"] == nil {
            environments.append(["LD_PRELOAD": checker, "MALLOC_CHECK_": "3"])
        }
        for environment in environments {
            let out = try HostileFolderEndToEndTests.badgectl(["evaluate", runs] + arguments, environment: environment, timeout: 120)
            XCTAssertEqual(out.status, 2, "\(environment): \(out.stderr.suffix(2000))")
            let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
            XCTAssertEqual((json?["runs"] as? [Any])?.count, good, "\(environment)")
            for name in bad { XCTAssertTrue(out.stderr.contains("mismatched/" + name), "\(environment): \(name) not named") }
            XCTAssertTrue(out.stderr.contains("bad-"), "\(environment): the name that is not UTF-8")
            let ignored = json?["ignored_reasons"] as? [String: String] ?? [:]
            for entry in ["zz.gpx", "x.fit", "self", "up"] { XCTAssertNotNil(ignored[entry], "\(environment): \(entry)") }
        }
    }

    /// `summarize FILE` on each gzip-suffixed pair alone (the path of the double free): exit 2 and
    /// the file named, never a signal.
    func testSummarizeEachGzipNamedFileAlone() throws {
        let folder = try TemporaryFolder()
        for (content, bytes) in try Self.contents() {
            for suffix in Self.suffixes where suffix.hasSuffix(".gz") && !Self.isGood(content, suffix) {
                let path = folder.url.appendingPathComponent("\(content)\(suffix)").path
                _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
                let out = try HostileFolderEndToEndTests.badgectl(["summarize", path], timeout: 30)
                XCTAssertEqual(out.status, 2, "\(content)\(suffix): \(out.stderr.prefix(500))")
                XCTAssertTrue(out.stderr.contains("\(content)\(suffix)"), out.stderr)
            }
        }
    }
}
