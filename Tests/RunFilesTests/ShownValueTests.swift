@testable import RunFiles
import XCTest

/// `ShownValue`: an input value quoted in a message is capped, so that a secret or a file's content
/// in a field shows only its start.
final class ShownValueTests: XCTestCase {
    func testQuotedValuesAreCapped() {
        XCTAssertEqual(ShownValue.quoted("Mars/Olympus"), "'Mars/Olympus'")
        let secret = "sk-live-" + String(repeating: "a", count: 60)
        XCTAssertEqual(ShownValue.quoted(secret), "'" + secret.prefix(40) + "…'")
        XCTAssertEqual(ShownValue.quoted(String(repeating: "x", count: 40)), "'" + String(repeating: "x", count: 40) + "'")
        XCTAssertEqual(ShownValue.quoted("a\nb"), "'a\\nb'")
        // One character of many combining marks is cut too.
        XCTAssertEqual(ShownValue.quoted("e" + String(repeating: "\u{301}", count: 100)).unicodeScalars.count, 1 + 39 + 2 + 1)
    }
}
