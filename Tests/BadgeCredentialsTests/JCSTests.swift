import BadgeCredentials
import Foundation
import XCTest

/// RFC 8785 against the RFC author's published test data, byte for byte, and the number forms of the
/// RFC's own table (section 3.2.2.3 and Appendix B).
final class JCSTests: XCTestCase {
    func testEveryPublishedCaseByteForByte() throws {
        let inputs = try FileManager.default.contentsOfDirectory(atPath: Fixtures.folder.appendingPathComponent("jcs/input").path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(inputs, ["arrays.json", "french.json", "structures.json", "unicode.json", "values.json", "weird.json"])
        for name in inputs {
            let value = try CredentialJSON.parse(try Fixtures.data("jcs/input/" + name))
            let expected = try Fixtures.data("jcs/output/" + name)
            XCTAssertEqual(JCS.canonical(value), expected, "jcs/\(name): \(JCS.canonicalText(value))")
        }
    }

    func testNumbersAsECMAScriptWritesThem() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (1, "1"), (-1, "-1"), (56.0, "56"), (4.5, "4.5"), (0.002, "0.002"), (1e-7, "1e-7"),
            (0.000001, "0.000001"), (1e21, "1e+21"), (1e20, "100000000000000000000"), (1e30, "1e+30"), (1e-27, "1e-27"),
            (333333333.33333329, "333333333.3333333"), (9007199254740992, "9007199254740992"), (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"), (123456789012345680000, "123456789012345680000"),
            (0.1, "0.1"), (1.5e-6, "0.0000015"), (-1.25e-7, "-1.25e-7"), (295147905179352830000, "295147905179352830000"),
        ]
        for (number, text) in cases { XCTAssertEqual(JCS.serialize(number), text, "\(number)") }
    }

    func testKeysSortByUTF16CodeUnitsNotScalars() throws {
        // U+1F602 is D83D DE02 in UTF-16, below U+FB33: by scalars it would sort last.
        let value = try CredentialJSON.parse(#"{"\ud83d\ude02":1,"\ufb33":2}"#)
        XCTAssertEqual(JCS.canonicalText(value), "{\"😂\":1,\"דּ\":2}")
    }

    func testCanonicallyEquivalentKeysStayApart() throws {
        // "Å" precomposed and "A" + combining ring: equal as Swift Strings, different JSON names.
        let value = try CredentialJSON.parse(#"{"\u00c5":1,"A\u030a":2}"#)
        XCTAssertEqual(value.objectMembers?.count, 2)
        XCTAssertEqual(JCS.canonicalText(value), "{\"A\u{30A}\":2,\"\u{C5}\":1}")
    }

    func testStrictReadingNamesTheByte() {
        let bad: [(String, Int)] = [
            (#"{"a":1,"a":2}"#, 7), (#"[1,]"#, 3), (#"{"a":01}"#, 6), (#"[1e400]"#, 1), (#"["\ud800"]"#, 8), ("[\"a\u{01}\"]", 3),
            (#"[1] x"#, 4), (#"{"a" 1}"#, 5),
        ]
        for (text, offset) in bad {
            XCTAssertThrowsError(try CredentialJSON.parse(text), text) { error in
                guard case CredentialError.badJSON(let at, _) = error else { return XCTFail("\(text): \(error)") }
                XCTAssertEqual(at, offset, "\(text): \(error)")
            }
        }
    }

    /// 1,995 doubles (random bit patterns, random magnitudes, powers of ten, the edges) as Python's
    /// `rfc8785` 0.1.4 (PyPI, Trail of Bits) writes them: an implementation badgectl did not write
    /// (Fixtures/jcs-numbers.txt; Fixtures/README.md says how it was made).
    func testNumbersAsAnotherImplementationWritesThem() throws {
        let lines = try Fixtures.text("jcs-numbers.txt").split(separator: "\n")
        XCTAssertEqual(lines.count, 1995)
        var differ: [String] = []
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let bits = UInt64(parts[0], radix: 16) else { return XCTFail("bad line \(line)") }
            let written = JCS.serialize(Double(bitPattern: bits))
            if written != parts[1] { differ.append("\(parts[0]): \(written), rfc8785 \(parts[1])") }
            // And it reads back to the same double.
            XCTAssertEqual(try CredentialJSON.parse(String(parts[1])), .number(Double(bitPattern: bits) == 0 ? 0 : Double(bitPattern: bits)))
        }
        XCTAssertEqual(differ, [], "\(differ.count) differ")
    }
}
