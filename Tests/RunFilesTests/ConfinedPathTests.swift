import RunFixtures
@testable import RunFiles
import Foundation
import XCTest

/// `ConfinedPath`: resolving as the kernel does, refusing what leads out of the folder (and by which
/// link) without looking outside.
final class ConfinedPathTests: XCTestCase {
    var temporary: TemporaryFolder!
    var base = ""
    var root: String { base + "/root" }

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        base = temporary.path
        try FileManager.default.createDirectory(atPath: root + "/sub/deeper", withIntermediateDirectories: true)
        try "x".write(toFile: root + "/sub/file.txt", atomically: true, encoding: .utf8)
        try "outside".write(toFile: base + "/outside.txt", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { temporary = nil }

    func link(_ relative: String, _ target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/" + relative, withDestinationPath: target)
    }

    func testPathsInsideResolveToTheirRealPath() throws {
        let real = try XCTUnwrap(realpath(root, nil).map { pointer -> String in defer { free(pointer) }; return String(cString: pointer) })
        try link("up", "sub/deeper/..")  // `..` after a link is taken from the link's target, as the kernel does
        try link("absolute", root + "/sub/file.txt")
        try link("chain", "absolute")
        XCTAssertEqual(ConfinedPath.resolve("sub/file.txt", in: root), .inside(real + "/sub/file.txt"))
        XCTAssertEqual(ConfinedPath.resolve("./sub//deeper/../file.txt", in: root), .inside(real + "/sub/file.txt"))
        XCTAssertEqual(ConfinedPath.resolve("up/file.txt", in: root), .inside(real + "/sub/file.txt"))
        XCTAssertEqual(ConfinedPath.resolve("chain", in: root), .inside(real + "/sub/file.txt"))
        XCTAssertEqual(ConfinedPath.resolve(root + "/sub/file.txt", in: root), .inside(real + "/sub/file.txt"))
        XCTAssertEqual(ConfinedPath.resolve("nope/x", in: root), .inside(real + "/nope/x"), "missing: kept as text")
        XCTAssertEqual(ConfinedPath.resolve("nope/../sub/file.txt", in: root), .inside(real + "/nope/../sub/file.txt"),
                       "past a missing folder nothing is resolved: the open fails there as the kernel's would")
    }

    func testPathsLeadingOutAreRefusedByTheirLink() throws {
        try link("out", "../outside.txt")
        try link("sub/away", base)
        try link("sub/chain", "../out")
        try link("loop1", "loop2")
        try link("loop2", "loop1")
        try link("dangling", base + "/no-such-file")
        XCTAssertEqual(ConfinedPath.resolve("../outside.txt", in: root), .outside(link: nil))
        XCTAssertEqual(ConfinedPath.resolve(base + "/outside.txt", in: root), .outside(link: nil))
        XCTAssertEqual(ConfinedPath.resolve(root + "/../outside.txt", in: root), .outside(link: nil))
        XCTAssertEqual(ConfinedPath.resolve("nope/../../outside.txt", in: root), .outside(link: nil))
        XCTAssertEqual(ConfinedPath.resolve("out", in: root), .outside(link: "out"))
        XCTAssertEqual(ConfinedPath.resolve("sub/away/outside.txt", in: root), .outside(link: "sub/away"))
        XCTAssertEqual(ConfinedPath.resolve("sub/chain", in: root), .outside(link: "out"), "the link that leads out, not the first one")
        XCTAssertEqual(ConfinedPath.resolve("dangling", in: root), .outside(link: "dangling"), "refused alike whether the target exists")
        XCTAssertEqual(ConfinedPath.resolve("loop1", in: root), .tooManyLinks(link: "loop1"))
    }

    func testStandardizedAbsoluteTakesOutDotsAndSlashesByTheTextAlone() {
        let here = FileManager.default.currentDirectoryPath
        let parent = (here as NSString).deletingLastPathComponent
        let expected = [
            "/a//b/./c/../d.json": "/a/b/d.json", "/a/b/.hidden/x.json": "/a/b/.hidden/x.json",
            "badges.json": here + "/badges.json", "./badges.json": here + "/badges.json",
            // Foundation's `URL.standardized` gives "/badges.json" here (the catalogue was recorded so).
            "rules/../badges.json": here + "/badges.json",
            "a/./b//c.json": here + "/a/b/c.json", "/../x.json": "/x.json", "/a/b/../../../c.json": "/c.json",
            "..": parent, "/": "/", "a/b/": here + "/a/b", "/a/..b/c": "/a/..b/c", "/a/b..c/./d": "/a/b..c/d",
        ]
        for (path, absolute) in expected {
            XCTAssertEqual(ConfinedPath.standardizedAbsolute(path), absolute, path)
        }
    }
}
