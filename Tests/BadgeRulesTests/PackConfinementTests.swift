import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// A pack reads only its own files (`PackFiles`): `require`, rule files, `pack.lua`, segment files
/// and test files resolve, links included, inside the pack folder. A link leading out is refused by
/// name and never opened; one that stays inside is followed. A refusal costs what any broken file of
/// that place costs (the rule, or the pack for `pack.lua` and segment files), never another pack.
final class PackConfinementTests: XCTestCase {
    static let secret = "sk-live-0123456789abcdef0123456789abcdef"
    /// An app's `.env`, which happens to be valid Lua: required, it sets the pack global `key`.
    static let envFile = "key = \"\(secret)\"\n"
    /// A rule that awards with the `key` a module set as its detail.
    static let leakRule = """
        require("lib.env")
        return { id = "leak", badge = "5k", earned = function(run) return { detail = tostring(key) } end }
        """
    static let plainRule = #"return { id = "plain", badge = "10k", earned = function(run) return run.distance_m >= 10000 end }"#

    func link(_ path: String, to target: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    /// Everything the evaluation says, to check that no byte of an outside file is in it.
    func text(_ result: Evaluation) -> String {
        "\(result.awards.map(\.detail)) \(result.failures) \(result.notes)"
    }

    func testRequiredModuleLinkedOutsideIsRefusedUnread() throws {
        let fixture = try PackFixture()
        try (Self.envFile).write(toFile: fixture.root + "/app.env", atomically: true, encoding: .utf8)
        let folder = try fixture.pack("hostile", files: ["leak.lua": Self.leakRule, "plain.lua": Self.plainRule])
        try link(folder + "/lib/env.lua", to: fixture.root + "/app.env")
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["hostile", "good"]).evaluate(runs: sampleRuns)
        XCTAssertFalse(text(result).contains("sk-live"), text(result))
        XCTAssertEqual(result.failures.count, 1, "\(result.failures)")
        let failure = try XCTUnwrap(result.failures.first)
        XCTAssertEqual(failure.pack, "hostile")
        XCTAssertEqual(failure.rule, "leak")
        XCTAssertTrue(failure.message.contains("require: 'lib.env': 'lib/env.lua' is a link leading outside the pack: refused"), failure.message)
        // The rule that read it fails; the pack's other rule and the other pack keep their awards.
        XCTAssertEqual(Set(result.awards.map { "\($0.pack)/\($0.rule)" }), ["hostile/plain", "good/first-5k"])

        // A link that stays inside the pack is followed (the same file moved into the pack).
        try FileManager.default.removeItem(atPath: folder + "/lib/env.lua")
        try "key = \"inside\"\n".write(toFile: folder + "/config.txt", atomically: true, encoding: .utf8)
        try link(folder + "/lib/env.lua", to: "../config.txt")
        let inside = fixture.engine(["hostile"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(inside.failures, [])
        XCTAssertEqual(Set(inside.awards.filter { $0.rule == "leak" }.map(\.detail)), ["inside"])
    }

    /// `lib -> ../../shared`: the linked folder leads out, so every module in it is refused, named by
    /// the link; `lib -> .shared` (inside, hidden) is followed.
    func testLinkedFolderOutsideIsRefusedByItsName() throws {
        let fixture = try PackFixture()
        let shared = fixture.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        try Self.envFile.write(toFile: shared + "/env.lua", atomically: true, encoding: .utf8)
        let folder = try fixture.pack("hostile", files: ["leak.lua": Self.leakRule])
        try link(folder + "/lib", to: "../../shared")
        let result = fixture.engine(["hostile"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(result.awards, [])
        XCTAssertFalse(text(result).contains("sk-live"), text(result))
        XCTAssertTrue(result.failures.first?.message.contains("'lib' is a link leading outside the pack") == true, "\(result.failures)")

        try FileManager.default.removeItem(atPath: folder + "/lib")
        try FileManager.default.createDirectory(atPath: folder + "/.shared", withIntermediateDirectories: true)
        try "key = \"kept\"\n".write(toFile: folder + "/.shared/env.lua", atomically: true, encoding: .utf8)
        try link(folder + "/lib", to: ".shared")
        let inside = fixture.engine(["hostile"]).evaluate(runs: sampleRuns)
        XCTAssertEqual(inside.failures, [])
        XCTAssertEqual(Set(inside.awards.map(\.detail)), ["kept"])
    }

    /// A rule file linked to a system file is not parsed as Lua: its first line would show in the
    /// failure (`root:x:0:0...: unexpected symbol`).
    func testRuleFileLinkedOutsideIsNotParsed() throws {
        let fixture = try PackFixture()
        try "root:x:0:0:root:/root:/bin/bash\n".write(toFile: fixture.root + "/passwd", atomically: true, encoding: .utf8)
        let folder = try fixture.pack("hostile", files: ["plain.lua": Self.plainRule])
        try link(folder + "/passwd.lua", to: fixture.root + "/passwd")
        try fixture.pack("good", files: goodPack)
        let result = fixture.engine(["hostile", "good"]).evaluate(runs: sampleRuns)
        XCTAssertFalse(text(result).contains("root:"), text(result))
        XCTAssertEqual(result.failures.map(\.rule), ["passwd"])
        XCTAssertTrue(result.failures.first?.file.hasSuffix("rules/hostile/passwd.lua") == true, "\(result.failures)")
        XCTAssertTrue(result.failures.first?.message.contains("'passwd.lua' is a link leading outside the pack") == true, "\(result.failures)")
        XCTAssertEqual(Set(result.awards.map { "\($0.pack)/\($0.rule)" }), ["hostile/plain", "good/first-5k"])
    }

    /// `pack.lua` and segment files leading out fail their pack (as a broken one does), naming the
    /// link; the other packs are evaluated as before.
    func testPackFileAndSegmentsLinkedOutsideFailTheirPack() throws {
        let fixture = try PackFixture()
        let route = #"<gpx><rte><rtept lat="52.0" lon="5.0"/><rtept lat="52.0" lon="5.01"/></rte></gpx>"#
        let elsewhere = fixture.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try route.write(toFile: elsewhere + "/hill.gpx", atomically: true, encoding: .utf8)
        let declaration = #"return { name = "%@", version = "1", measures = { hill = { kind = "segment", file = "segments/hill.gpx" } } }"#
        // segments -> ../elsewhere (a linked folder), segments/hill.gpx -> outside (a file link).
        let folderLink = try fixture.pack("folderlink", packLua: declaration.replacingOccurrences(of: "%@", with: "folderlink"), files: ["plain.lua": Self.plainRule])
        try link(folderLink + "/segments", to: "../../elsewhere")
        let fileLink = try fixture.pack("filelink", packLua: declaration.replacingOccurrences(of: "%@", with: "filelink"), files: ["plain.lua": Self.plainRule])
        try link(fileLink + "/segments/hill.gpx", to: elsewhere + "/hill.gpx")
        // The same segment inside the pack, reached through a link inside it: loads.
        let inside = try fixture.pack("inside", packLua: declaration.replacingOccurrences(of: "%@", with: "inside"), files: ["plain.lua": Self.plainRule, "data/hill.gpx": route])
        try link(inside + "/segments", to: "data")
        // pack.lua itself a link out.
        let packLink = try fixture.pack("packlink", files: ["plain.lua": Self.plainRule])
        try #"return { name = "packlink", version = "1" }"#.write(toFile: fixture.root + "/outside-pack.lua", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: packLink + "/pack.lua")
        try link(packLink + "/pack.lua", to: fixture.root + "/outside-pack.lua")
        try fixture.pack("good", files: goodPack)

        let engine = fixture.engine(["folderlink", "filelink", "inside", "packlink", "good"])
        XCTAssertEqual(engine.packs.map(\.name), ["inside", "good"])
        let failures = engine.loadFailures.map { "\($0.pack): \($0.message)" }
        XCTAssertEqual(failures.count, 3, "\(failures)")
        guard failures.count == 3 else { return }
        XCTAssertTrue(failures[0].hasPrefix("folderlink: measure 'hill': segments/hill.gpx: 'segments' is a link leading outside the pack: refused"), failures[0])
        XCTAssertTrue(failures[1].hasPrefix("filelink: measure 'hill': segments/hill.gpx: 'segments/hill.gpx' is a link leading outside the pack: refused"), failures[1])
        XCTAssertTrue(failures[2].hasPrefix("packlink: 'pack.lua' is a link leading outside the pack: refused"), failures[2])
        let result = engine.evaluate(runs: sampleRuns)
        XCTAssertEqual(Set(result.awards.map { "\($0.pack)/\($0.rule)" }), ["inside/plain", "good/first-5k"])
    }

    /// Test files do not count in the fingerprint, so rules cannot require them.
    func testRulesCannotRequireTests() throws {
        let fixture = try PackFixture()
        for name in ["tests.helper", "helper_test", "lib.helper_test"] {
            try fixture.pack("p", files: ["r.lua": "local h = require(\"\(name)\")\nreturn { id = 'r', badge = '5k', earned = function() return h end }",
                                          "tests/helper.lua": "return true", "helper_test.lua": "return true", "lib/helper_test.lua": "return true"])
            let result = fixture.engine(["p"]).evaluate(runs: sampleRuns)
            XCTAssertEqual(result.awards, [], name)
            XCTAssertTrue(result.failures.first?.message.contains("require: '\(name)' is a test file: rules cannot require tests") == true, "\(result.failures)")
        }
    }
}
