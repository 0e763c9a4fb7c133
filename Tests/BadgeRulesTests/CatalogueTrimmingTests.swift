@testable import BadgeRules
import Foundation
import XCTest

/// The catalogue's own trimming agrees with Foundation's `.whitespaces` (space separators and tab; not newlines).
final class CatalogueTrimmingTests: XCTestCase {
    func testTrimmingSpacesIsFoundationsWhitespaceTrimming() {
        let texts = ["", " ", "\t", "a", " a ", "\ta\t", "\u{00A0}5000\u{2003}", "\n5000\n", " \n ", "a b", "\u{3000}x\u{202F}",
                     "\u{200B}x", "x\u{205F}", "é ", " 😀 ", "\r\n"]
        for text in texts {
            XCTAssertEqual(String(Catalogue.trimmingSpaces(text)), text.trimmingCharacters(in: .whitespaces), text.debugDescription)
        }
    }

    func testIsSpaceIsFoundationsWhitespaceSet() {
        for value in 0...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if Catalogue.isSpace(scalar) != CharacterSet.whitespaces.contains(scalar) {
                XCTFail("U+\(String(value, radix: 16, uppercase: true))")
            }
        }
    }
}
