import Foundation
@testable import RunFiles
import XCTest

/// `Trimming` trims exactly what Foundation's `CharacterSet.whitespaces` and `.whitespacesAndNewlines` do.
final class TrimmingTests: XCTestCase {
    func testTheSetsAreFoundationsOverEveryScalar() {
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if Trimming.isSpace(scalar) != CharacterSet.whitespaces.contains(scalar) {
                XCTFail("whitespaces: U+\(String(value, radix: 16, uppercase: true))")
            }
            if Trimming.isSpaceOrNewline(scalar) != CharacterSet.whitespacesAndNewlines.contains(scalar) {
                XCTFail("whitespacesAndNewlines: U+\(String(value, radix: 16, uppercase: true))")
            }
        }
    }

    func testTrimmingIsFoundations() {
        let texts = ["", " ", "\t", "a", " a ", "\ta\t", "\u{00A0}5000\u{2003}", "\n5000\n", " \n ", "a b", "\u{3000}x\u{202F}",
                     "\u{200B}x", "x\u{205F}", "é ", " 😀 ", "\r\n", "\u{2028}run\u{0085}", " Morning Run\n  ", "a\u{0301} "]
        for text in texts {
            XCTAssertEqual(Trimming.spaces(text), text.trimmingCharacters(in: .whitespaces), text.debugDescription)
            XCTAssertEqual(Trimming.spacesAndNewlines(text), text.trimmingCharacters(in: .whitespacesAndNewlines), text.debugDescription)
        }
    }
}
