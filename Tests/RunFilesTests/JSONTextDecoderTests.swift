import Foundation
import RunFiles
import XCTest

/// `JSONTextDecoder`: any `Decodable` read through `JSONText`'s parser, giving what `JSONDecoder`
/// gives, and errors that name the path and the byte.
final class JSONTextDecoderTests: XCTestCase {
    struct Run: Codable, Equatable {
        var id: String
        var distanceMeters: Double
        var laps: Int?
        var tags: [String]
        var indoor: Bool?
        var counts: [String: Int64]
        var nested: [[UInt8]]

        enum CodingKeys: String, CodingKey {
            case id, laps, tags, indoor, counts, nested
            case distanceMeters = "distance_m"
        }
    }

    struct Log: Codable, Equatable {
        var runs: [Run]
        var note: String?
    }

    func failure<T: Decodable>(_ type: T.Type, _ text: String) -> ActivityError? {
        do {
            _ = try JSONTextDecoder().decode(type, from: Array(text.utf8), source: "log.json")
            return nil
        } catch {
            return error as? ActivityError
        }
    }

    func testValuesAreThoseOfJSONDecoder() throws {
        let samples = [
            #"{"runs": [{"id": "a", "distance_m": 5000, "tags": [], "counts": {}, "nested": []}]}"#,
            #"{"note": null, "runs": [{"id": "b\u00e9", "distance_m": 1.5e3, "laps": 3, "tags": ["x", "\ud83c\udfc3"], "indoor": true,"#
                + #" "counts": {"big": 9223372036854775807, "low": -9223372036854775808, "z": 0}, "nested": [[0, 255], []]}], "extra": [1, {"a": 2}]}"#,
            #"  {"runs": []}  "#,
        ]
        for sample in samples {
            let expected = try JSONDecoder().decode(Log.self, from: Data(sample.utf8))
            XCTAssertEqual(try JSONTextDecoder().decode(Log.self, from: Array(sample.utf8), source: "s"), expected, sample)
            XCTAssertEqual(try JSONTextDecoder().decode(Log.self, from: Data(sample.utf8), source: "s"), expected, sample)
            let value = try JSONText.parse(Array(sample.utf8), source: "s")
            if !sample.contains("9223372036854775807") {  // a JSONValue holds Doubles: past 2^53 digits are lost
                XCTAssertEqual(try JSONTextDecoder().decode(Log.self, from: value, source: "s"), expected, sample)
            }
        }
        // Top-level values of every kind, optionals and dates as JSONDecoder reads them.
        XCTAssertEqual(try JSONTextDecoder().decode([Int?].self, from: Array("[1, null, -3]".utf8), source: "s"), [1, nil, -3])
        XCTAssertEqual(try JSONTextDecoder().decode(String.self, from: Array(#""x""#.utf8), source: "s"), "x")
        XCTAssertEqual(try JSONTextDecoder().decode(Date.self, from: Array("86400".utf8), source: "s"), Date(timeIntervalSinceReferenceDate: 86_400))
        XCTAssertEqual(try JSONTextDecoder().decode(URL.self, from: Array(#""https://example.org/a""#.utf8), source: "s"),
                       URL(string: "https://example.org/a"))
        XCTAssertEqual(try JSONTextDecoder().decode(Int.self, from: Array("1e3".utf8), source: "s"), 1000)
    }

    /// A wrong type, a missing key, a number that is no integer: the path to the value and its byte.
    func testErrorsNameThePathAndTheByte() {
        let cases: [(String, Int?, String)] = [
            (#"{"runs": [{"id": "a", "distance_m": 1, "tags": [], "counts": {}, "nested": []}, {"id": "b", "distance_m": "5 km", "tags": [], "counts": {}, "nested": []}]}"#,
             106, #"at .runs[1].distance_m: expected a number, found a string"#),
            (#"{"runs": [{"id": "a", "distance_m": 1, "counts": {}, "nested": []}]}"#, 10, "at .runs[0]: missing 'tags'"),
            (#"{"runs": [{"id": "a", "distance_m": 1, "laps": 2.5, "tags": [], "counts": {}, "nested": []}]}"#, 47,
             "at .runs[0].laps: expected a whole number that fits in Int, found 2.5"),
            (#"{"runs": [{"id": "a", "distance_m": 1, "tags": [], "counts": {}, "nested": [[256]]}]}"#, 77,
             "at .runs[0].nested[0][0]: expected a whole number that fits in UInt8, found 256"),
            (#"{"runs": [{"id": null, "distance_m": 1, "tags": [], "counts": {}, "nested": []}]}"#, 17,
             "at .runs[0].id: expected a string, found null"),
            (#"{"runs": {}}"#, 9, "at .runs: expected an array, found an object"),
            (#"[]"#, 0, "at the top level: expected an object, found an array"),
        ]
        for (text, offset, reason) in cases {
            XCTAssertEqual(failure(Log.self, text), .malformed(path: "log.json", line: nil, offset: offset, reason: reason), text)
        }
        // Decoding a value made in memory: the path, no byte.
        XCTAssertThrowsError(try JSONTextDecoder().decode(Log.self, from: .object(["runs": .string("x")]), source: "t.run")) { error in
            XCTAssertEqual(error as? ActivityError, .malformed(path: "t.run", line: nil, offset: nil, reason: "at .runs: expected an array, found a string"))
        }
    }

    /// The text is `JSONText`'s: what it refuses is refused here with its message.
    func testTheParsersRefusals() {
        XCTAssertEqual(failure(Log.self, #"{"runs": [], "runs": []}"#),
                       .malformed(path: "log.json", line: nil, offset: 13, reason: "duplicate key 'runs' in an object"))
        XCTAssertEqual(failure(Log.self, #"{"runs": [], "note": "\udc00"}"#)?.reason,
                       #"a string holds \udc00, half of a UTF-16 surrogate pair without its other half; "#
                        + "JSON text must be valid Unicode (write the character itself, or both halves)")
        XCTAssertEqual(failure(Log.self, #"{"runs": []} x"#), .malformed(path: "log.json", line: nil, offset: 13, reason: "text after the JSON value"))
        XCTAssertEqual(failure([Int].self, String(repeating: "[", count: 70) + String(repeating: "]", count: 70))?.reason,
                       "nested deeper than 64 levels")
    }

    /// A repeated key is refused wherever it is, in objects of any size (the reader compares the
    /// first keys one by one and hashes them past 16), at the repeat's byte; distinct keys pass.
    func testARepeatedKeyIsRefusedAtAnyPositionAndSize() throws {
        for size in [1, 2, 3, 15, 16, 17, 18, 40] {
            let keys = (0..<size).map { "k\($0)" }
            let distinct = "{" + keys.map { "\"\($0)\": 1" }.joined(separator: ", ") + "}"
            XCTAssertEqual(try JSONTextDecoder().decode([String: Int].self, from: Array(distinct.utf8), source: "log.json").count, size)
            for original in 0..<size {
                for at in (original + 1)...size {
                    var written = keys
                    written.insert(keys[original], at: at)
                    let prefix = "{" + written[..<at].map { "\"\($0)\": 1, " }.joined()
                    let text = prefix + written[at...].map { "\"\($0)\": 1" }.joined(separator: ", ") + "}"
                    XCTAssertEqual(failure([String: Int].self, text),
                                   .malformed(path: "log.json", line: nil, offset: prefix.utf8.count, reason: "duplicate key '\(keys[original])' in an object"),
                                   "\(size) keys, key \(original) again at \(at)")
                }
            }
        }
    }

    /// The state files' non-finite numbers: "inf", "-inf" and "nan" as strings, when asked.
    func testNonConformingFloatsFromStrings() throws {
        var decoder = JSONTextDecoder()
        XCTAssertThrowsError(try decoder.decode([Double].self, from: Array(#"["inf"]"#.utf8), source: "s")) { error in
            XCTAssertEqual(error as? ActivityError, .malformed(path: "s", line: nil, offset: 1, reason: "at [0]: expected a number, found a string"))
        }
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let values = try decoder.decode([Double].self, from: Array(#"["inf", "-inf", "nan", 2.5]"#.utf8), source: "s")
        XCTAssertEqual(values[0], .infinity)
        XCTAssertEqual(values[1], -.infinity)
        XCTAssertTrue(values[2].isNaN)
        XCTAssertEqual(values[3], 2.5)
        XCTAssertEqual(try decoder.decode([Float].self, from: Array(#"["-inf"]"#.utf8), source: "s"), [-.infinity])
        XCTAssertThrowsError(try decoder.decode([Double].self, from: Array(#"["Infinity"]"#.utf8), source: "s"))
    }

    /// A dictionary of many keys is read by its table, in any order, whole.
    /// A type of 24 keys (past the 16 that are looked up one by one): required and optional fields
    /// (missing, null or present) read as JSONDecoder reads them, whatever order the keys are written
    /// in (sorted, as badgectl writes, reversed, shuffled).
    struct Wide: Codable, Equatable {
        var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, b0, b1: Int
        var c0: String?, c1: Double?, c2: Int?, c3: Bool?, c4: [Int]?, c5: String?
        var d0: Double?, d1: Int?, d2: Bool?, d3: String?, d4: [String: Int]?, d5: Int?
    }

    func testWideObjectsInAnyKeyOrder() throws {
        var generator = SystemRandomNumberGenerator()
        let required = ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b0", "b1"]
        let optional: [(String, String)] = [("c0", #""x""#), ("c1", "1.5"), ("c2", "7"), ("c3", "true"), ("c4", "[1, 2]"), ("c5", #""y""#),
                                            ("d0", "-2.25"), ("d1", "0"), ("d2", "false"), ("d3", #""""#), ("d4", #"{"k": 1}"#), ("d5", "-9")]
        for round in 0..<200 {
            var members = required.enumerated().map { (index, key) in (key, "\(index * round)") }
            for (key, value) in optional {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: continue  // missing
                case 1: members.append((key, "null"))
                default: members.append((key, value))
                }
            }
            switch round % 3 {
            case 0: members.sort { $0.0 < $1.0 }
            case 1: members.sort { $0.0 > $1.0 }
            default: members.shuffle(using: &generator)
            }
            let text = "{" + members.map { #""\#($0.0)": \#($0.1)"# }.joined(separator: ", ") + "}"
            XCTAssertEqual(try JSONTextDecoder().decode(Wide.self, from: Array(text.utf8), source: "s"), try JSONDecoder().decode(Wide.self, from: Data(text.utf8)), text)
        }
        // A required key missing from a sorted wide object is still missing.
        let sorted = "{" + required.dropLast().map { #""\#($0)": 1"# }.joined(separator: ", ") + #", "c0": "x", "c1": 2, "d0": 1, "d1": 2, "d2": true, "d3": "z"}"#
        XCTAssertThrowsError(try JSONTextDecoder().decode(Wide.self, from: Array(sorted.utf8), source: "s")) { error in
            XCTAssertEqual((error as? ActivityError)?.reason, "at the top level: missing 'b1'")
        }
    }

    func testLargeObjects() throws {
        let keys = (0..<500).map { "k\($0)" }
        let text = "{" + keys.reversed().map { #""\#($0)": \#($0.dropFirst())"# }.joined(separator: ", ") + "}"
        let decoded = try JSONTextDecoder().decode([String: Int].self, from: Array(text.utf8), source: "s")
        XCTAssertEqual(decoded, try JSONDecoder().decode([String: Int].self, from: Data(text.utf8)))
        XCTAssertEqual(decoded.count, 500)
    }
}
