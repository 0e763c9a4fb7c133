import RunFixtures
import Foundation
import XCTest

@testable import BadgeRules

/// A pack's fingerprint changes with every file that decides awards (rules, pack.lua, data such as
/// segment files) and with nothing else (tests, hidden files, where the folder is).
final class PackFingerprintTests: XCTestCase {
    func testFingerprintFollowsTheFilesThatDecideAwards() throws {
        let fixture = try PackFixture()
        let rule = #"return { id = "r", badge = "5k", earned = function(run) return run.distance_m > 5000 end }"#
        let folder = try fixture.pack("p", files: ["r.lua": rule, "segments/loop.gpx": "<gpx/>"])
        let first = try RulePack.load(directory: folder).fingerprint
        XCTAssertTrue(first.hasPrefix("sha256:"), first)
        XCTAssertEqual(first.count, 7 + 64)
        XCTAssertEqual(try PackFingerprint.compute(folder: folder), first, "the same files, the same fingerprint")

        // Tests, a tests/ folder and hidden files are not part of it.
        try fixture.pack("p", files: ["r.lua": rule, "segments/loop.gpx": "<gpx/>", "r_test.lua": "-- a test",
                                      "tests/run.gpx": "<gpx/>", ".DS_Store": "x"])
        XCTAssertEqual(try PackFingerprint.compute(folder: folder), first)

        // The same files in another folder: the same fingerprint (it is of the content, not the place).
        let copy = try fixture.pack("q", files: ["r.lua": rule, "segments/loop.gpx": "<gpx/>"])
        try FileManager.default.removeItem(atPath: copy + "/pack.lua")
        try FileManager.default.copyItem(atPath: folder + "/pack.lua", toPath: copy + "/pack.lua")
        XCTAssertEqual(try PackFingerprint.compute(folder: copy), first)

        // Each decisive file changes it: a rule, pack.lua, a data file, a new file, a renamed file.
        var seen: Set<String> = [first]
        try (rule + " ").write(toFile: folder + "/r.lua", atomically: true, encoding: .utf8)
        XCTAssertTrue(seen.insert(try PackFingerprint.compute(folder: folder)).inserted, "rule edited")
        try "<gpx></gpx>".write(toFile: folder + "/segments/loop.gpx", atomically: true, encoding: .utf8)
        XCTAssertTrue(seen.insert(try PackFingerprint.compute(folder: folder)).inserted, "segment file edited")
        try #"return { name = "p", version = "1.0.1" }"#.write(toFile: folder + "/pack.lua", atomically: true, encoding: .utf8)
        XCTAssertTrue(seen.insert(try PackFingerprint.compute(folder: folder)).inserted, "pack.lua edited")
        try "return {}".write(toFile: folder + "/helpers.lua", atomically: true, encoding: .utf8)
        XCTAssertTrue(seen.insert(try PackFingerprint.compute(folder: folder)).inserted, "file added")
        try FileManager.default.moveItem(atPath: folder + "/helpers.lua", toPath: folder + "/helper.lua")
        XCTAssertTrue(seen.insert(try PackFingerprint.compute(folder: folder)).inserted, "file renamed")
        // Moving bytes from one file's end to the next file's start is a change too (lengths are hashed).
        try "ab".write(toFile: folder + "/x1.lua", atomically: true, encoding: .utf8)
        try "c".write(toFile: folder + "/x2.lua", atomically: true, encoding: .utf8)
        let split1 = try PackFingerprint.compute(folder: folder)
        try "a".write(toFile: folder + "/x1.lua", atomically: true, encoding: .utf8)
        try "bc".write(toFile: folder + "/x2.lua", atomically: true, encoding: .utf8)
        XCTAssertNotEqual(try PackFingerprint.compute(folder: folder), split1)
    }

    /// The hash itself, against a value computed independently (Python's hashlib, same layout):
    /// path, 0, length as 8 bytes little-endian, bytes, per file in path order.
    func testFingerprintOfAKnownFolder() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("k", packLua: "return { name = \"k\", version = \"1\" }", files: ["a.lua": "return 1"])
        // python3 -c 'import hashlib,struct; h=hashlib.sha256()
        // for p,b in [(b"a.lua",b"return 1"),(b"pack.lua",b"return { name = \"k\", version = \"1\" }")]:
        //     h.update(p+b"\0"+struct.pack("<Q",len(b))+b)
        // print(h.hexdigest())'
        XCTAssertEqual(try PackFingerprint.compute(folder: folder),
                       "sha256:" + Self.expectedKnown)
    }

    static let expectedKnown = "396535e0290f00b3eeedde7286127d33a49fe332f8c0774a3fcbeb8c961e6817"

    /// Links: a linked file counts, a link back to the pack's own folder is not entered twice (no
    /// cycle), a FIFO is skipped.
    func testLinksAndSpecialFiles() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("l", files: ["r.lua": "return {}"])
        let plain = try PackFingerprint.compute(folder: folder)
        try FileManager.default.createSymbolicLink(atPath: folder + "/loop", withDestinationPath: folder)
        XCTAssertEqual(mkfifo(folder + "/pipe", 0o600), 0)
        XCTAssertEqual(try PackFingerprint.compute(folder: folder), plain)
        try FileManager.default.createSymbolicLink(atPath: folder + "/linked.lua", withDestinationPath: folder + "/r.lua")
        XCTAssertNotEqual(try PackFingerprint.compute(folder: folder), plain)
    }

    /// A linked folder inside the pack is followed and hashed: with `lib -> .shared` (the folder it
    /// names is hidden, so only the link reaches it), editing the module a rule requires changes the
    /// fingerprint. It was left out: a saved state's fingerprint stayed the same and `add` did not replay.
    func testLinkedFolderInsideIsHashed() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("l", files: ["r.lua": "local t = require('lib.thresh')\nreturn {}", ".shared/thresh.lua": "return 5000"])
        try FileManager.default.createSymbolicLink(atPath: folder + "/lib", withDestinationPath: ".shared")
        XCTAssertEqual(try PackFingerprint.files(in: folder).map(\.relative), ["lib/thresh.lua", "pack.lua", "r.lua"])
        let before = try RulePack.load(directory: folder).fingerprint
        try "return 1000".write(toFile: folder + "/.shared/thresh.lua", atomically: true, encoding: .utf8)
        XCTAssertNotEqual(try RulePack.load(directory: folder).fingerprint, before)
        // Two links to one folder and a link to an ancestor: each folder is listed once.
        try FileManager.default.createSymbolicLink(atPath: folder + "/again", withDestinationPath: ".shared")
        try FileManager.default.createSymbolicLink(atPath: folder + "/.shared/up", withDestinationPath: "..")
        XCTAssertEqual(try PackFingerprint.files(in: folder).map(\.relative), ["again/thresh.lua", "pack.lua", "r.lua"])
    }

    /// A link leading outside the pack is left out (the pack cannot read it: `PackFiles` refuses it),
    /// whether it is a file or a folder, and nothing outside is hashed: changing the outside file
    /// leaves the fingerprint as it was without the links.
    func testLinksLeadingOutsideAreLeftOut() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("o", files: ["r.lua": "return {}"])
        let plain = try PackFingerprint.compute(folder: folder)
        try FileManager.default.createDirectory(atPath: fixture.root + "/shared", withIntermediateDirectories: true)
        try "return 1".write(toFile: fixture.root + "/shared/thresh.lua", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/lib", withDestinationPath: "../../shared")
        try FileManager.default.createSymbolicLink(atPath: folder + "/env.lua", withDestinationPath: fixture.root + "/shared/thresh.lua")
        XCTAssertEqual(try PackFingerprint.compute(folder: folder), plain)
        try "return 2".write(toFile: fixture.root + "/shared/thresh.lua", atomically: true, encoding: .utf8)
        XCTAssertEqual(try PackFingerprint.compute(folder: folder), plain)
    }

    /// The hex digits of the fingerprint, written by hand, are `%02x`'s for every byte value.
    func testHexDigitsAreFormatsForEveryByte() {
        let bytes = (0...255).map { UInt8($0) } + [0xAB, 0x00, 0x7F]
        XCTAssertEqual(PackFingerprint.hex(bytes), bytes.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(PackFingerprint.hex([UInt8]()), "")
    }
}
