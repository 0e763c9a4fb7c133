import Foundation
import RunAnalysis
import RunFiles
import XCTest

/// `JSONText`, the worker's line parser: the values JSONDecoder gives, and errors that say where.
final class JSONTextTests: XCTestCase {
    func parse(_ text: String) throws -> JSONValue { try JSONText.parse(Array(text.utf8), source: "line 1") }

    func offset(_ text: String) -> Int? {
        do {
            _ = try parse(text)
            return nil
        } catch ActivityError.malformed(_, _, let offset, _) {
            return offset
        } catch {
            return -1
        }
    }

    func testValuesAreThoseOfJSONDecoder() throws {
        let samples = [
            #"{"a": [1, -2.5, 3e2, 0, -0.0, 1E-3, 123456789012345678901234567890], "b": {"c": null, "d": true, "e": false}}"#,
            #"{"s": "caf\u00e9 \ud83c\udfc3 \"q\" \\ \/ \n\t", "t": "héllo 🏃", "u": ""}"#,
            #"  [ ]  "#, #"{}"#, #"0.1"#, #""x""#, #"[[[[1]]]]"#,
        ]
        for sample in samples {
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(sample.utf8))
            XCTAssertEqual(try parse(sample), expected, sample)
        }
    }

    func testErrorsSayWhere() {
        XCTAssertEqual(offset(#"{"a": 1 "b": 2}"#), 8)
        XCTAssertEqual(offset(#"{"a": tru}"#), 6)
        XCTAssertEqual(offset(#"{"a": "\ud800"}"#), 7)  // a lone surrogate
        XCTAssertEqual(offset(#"{"a": 1} x"#), 9)
        XCTAssertEqual(offset(#"{"a": 01}"#), 7)  // a leading zero: text after the value 0
        XCTAssertEqual(offset(#"{"a": 1e999}"#), 6)
        XCTAssertEqual(offset("{\"a\": \"\u{1}\"}"), 7)
        XCTAssertEqual(offset(#"{"a": "x"#), 8)
        XCTAssertEqual(offset(#"{"a": -}"#), 7)
        // A repeated key, at any depth, at the byte of its second spelling (last-one-wins gave one
        // athlete's run to another in the worker).
        XCTAssertEqual(offset(#"{"athlete": "ana", "athlete": "zed"}"#), 19)
        XCTAssertEqual(offset(#"{"s": {"start": 1, "start": 2}}"#), 19)
        XCTAssertNil(offset(#"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#))
        XCTAssertNotNil(offset(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)))
        XCTAssertNil(offset(String(repeating: "[", count: 60) + String(repeating: "]", count: 60)))
    }

    func testInvalidUTF8IsRefused() {
        XCTAssertThrowsError(try JSONText.parse([0x22, 0xC3, 0x28, 0x22], source: "line 1"))
        XCTAssertThrowsError(try JSONText.parse([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], source: "line 1"))
    }
}

final class JSONStringTests: XCTestCase {
    /// The one escaper writes every ASCII and a few other characters as JSONEncoder does (slashes
    /// unescaped), and what it writes reads back through JSONText.
    func testEscapesAsJSONEncoderAndReadsBack() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var samples = (0..<0x80).map { String(Unicode.Scalar(UInt8($0))) }
        samples += ["é", "\u{2028}", "😀", "a\"b\\c\u{1B}d", ""]
        for text in samples {
            let written = JSONString.quoted(text)
            XCTAssertEqual(written, String(decoding: try encoder.encode(text), as: UTF8.self), "U+\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            XCTAssertEqual(try JSONText.parse(Array(written.utf8), source: "s"), .string(text))
        }
    }
}

extension JSONStringTests {
    /// Long strings go through the eight-bytes-at-a-time scan: every ASCII character, and a few
    /// others, at every position of a word and across a word's edge, is written as JSONEncoder
    /// writes it.
    func testEveryCharacterAtEveryPlaceOfALongString() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let specials = (0..<0x80).map { String(Unicode.Scalar(UInt8($0))) } + ["é", "😀", "\u{7F}"]
        for special in specials {
            for before in 0..<18 {
                let text = String(repeating: "k", count: before) + special + String(repeating: "m", count: 17 - before % 9)
                let written = JSONString.quoted(text)
                XCTAssertEqual(written, String(decoding: try encoder.encode(text), as: UTF8.self), "\(before) + U+\(special.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
    }
}

final class AthleteProfileJSONTests: XCTestCase {
    /// The athlete profile is read by JSONText: a repeated key is refused where JSONSerialization kept
    /// the last one, and broken JSON says at which byte.
    func testRepeatedKeysAndBrokenJSONSayWhere() {
        XCTAssertThrowsError(try Athlete.parse(Data(#"{"max_hr": 190, "max_hr": 150}"#.utf8), source: "me.json")) { error in
            XCTAssertEqual("\(error)", #"me.json (byte 16): duplicate key 'max_hr' in an object"#)
        }
        XCTAssertThrowsError(try Athlete.parse(Data(#"{"max_hr": 190,}"#.utf8), source: "me.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("me.json (byte 15): "), "\(error)")
        }
        XCTAssertThrowsError(try Athlete.parse(Data(#"[190]"#.utf8), source: "me.json")) { error in
            XCTAssertTrue("\(error)".hasPrefix("me.json: not a athlete profile file: expected a JSON object"), "\(error)")
        }
        XCTAssertEqual(try Athlete.parse(Data(#"{"max_hr": 190, "sex": "f"}"#.utf8), source: "me.json").sex, "f")
    }
}
