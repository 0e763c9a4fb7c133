import RunFixtures
import XCTest

@testable import BadgeCommands

/// The diff `--golden` prints: the first differing lines, with context, for changes, insertions and removals.
final class GoldenDiffTests: XCTestCase {
    func testChangedLine() {
        let diff = Golden.diff(expected: "a\nb\nc\nd\ne\n", actual: "a\nb\nX\nd\ne\n", path: "f.json")
        XCTAssertEqual(diff, """
            f.json: output differs from the snapshot (- snapshot, + now; --update re-records it)
            @@ line 3 @@
              a
              b
            - c
            + X
              d
              e
            """)
    }

    func testInsertedAndRemovedLines() {
        let inserted = Golden.diff(expected: "a\nb\nc\n", actual: "a\nnew\nb\nc\n", path: "f")
        XCTAssertTrue(inserted.hasSuffix("@@ line 2 @@\n  a\n+ new\n  b\n  c"), inserted)
        let removed = Golden.diff(expected: "a\nold\nb\nc\n", actual: "a\nb\nc\n", path: "f")
        XCTAssertTrue(removed.hasSuffix("@@ line 2 @@\n  a\n- old\n  b\n  c"), removed)
        let truncated = Golden.diff(expected: "a\nb\n", actual: "a\n", path: "f")
        XCTAssertTrue(truncated.contains("- b"), truncated)
    }

    func testWhitespaceOnlyDifferencesInJSONMatch() throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("s.json").path
        try "{\n  \"a\" : [\n\n  ]\n}\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try Golden.check("{\"a\": []}", path: path, update: false), .matched)
        if case .differs = try Golden.check("{\"a\": [1]}", path: path, update: false) {} else { XCTFail("a real difference must not match") }
    }

    func testJUnitEscapesEverythingXMLCannotHoldRaw() {
        XCTAssertEqual(JUnitReport.escape("a<b>&\"c\" 'd'\u{1}\te"), "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;\te")
    }
}
