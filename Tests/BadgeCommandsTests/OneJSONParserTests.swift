import BadgePipeline
import Foundation
import RunFiles
import XCTest

@testable import BadgeCommands

/// A summary in a `.json` file (`SummaryReader`) and the same summary in a worker line's `summary`
/// (`WorkerLine`) go through one parser, `JSONText`: what it refuses is refused in both, for the same
/// reason at the same byte of the summary, and what it reads is the same value.
final class OneJSONParserTests: XCTestCase {
    let prefix = #"{"athlete": "ana", "summary": "#

    func workerLine(_ summary: [UInt8]) -> WorkerLine.Reading {
        let line = Array(prefix.utf8) + summary + Array("}".utf8)
        return line.withUnsafeBufferPointer { WorkerLine.read($0, number: 1, zone: { _ in TimeZone(secondsFromGMT: 0) ?? .current }) }
    }

    func testASummaryIsRefusedAlikeInAFileAndInAWorkerLine() throws {
        let summaries: [(String, [UInt8])] = [
            ("a repeated key", Array(#"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700, "distance_m": 52000}"#.utf8)),
            ("a lone surrogate", Array(#"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700, "name": "run \ud800 x"}"#.utf8)),
            ("a number out of range", Array(#"{"start": "2024-05-09T07:00:00Z", "distance_m": 1e999, "duration_s": 1700}"#.utf8)),
            ("invalid UTF-8", Array(#"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700, "name": "caf"#.utf8) + [0xE9]
                + Array(#""}"#.utf8)),
            ("a comma before the end", Array(#"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700,}"#.utf8)),
        ]
        for (what, summary) in summaries {
            XCTAssertThrowsError(try SummaryReader.read(data: Data(summary), source: "s.json", id: "s.json", zoneOffsetSeconds: 0), what) { error in
                guard case .malformed("s.json", 1, let offset?, let reason)? = error as? ActivityError else { return XCTFail("\(what): \(error)") }
                guard case .unnamed(let message) = workerLine(summary) else { return XCTFail("\(what): the line was read") }
                XCTAssertEqual(message, "invalid JSON at byte \(prefix.utf8.count + offset + 1): \(reason)", what)
            }
        }
    }

    func testASummaryReadsAlikeInAFileAndInAWorkerLine() throws {
        let summary = #"{"start": "2024-05-09T07:00:00+02:00", "distance_m": 5200.5, "duration_s": 1700, "name": "caf\u00e9 \ud83c\udfc3"}"#
        guard case .named("ana", .success(let line)) = workerLine(Array(summary.utf8)), case .summary(let fields) = line.source else {
            return XCTFail("the line was not read")
        }
        XCTAssertEqual(JSONValue.object(fields), try JSONText.parse(Array(summary.utf8), source: "s.json"))
        let fromLine = try SummaryReader.read(fields: fields, source: "line 1", id: "s", zoneOffsetSeconds: 0)
        let fromFile = try SummaryReader.read(data: Data(summary.utf8), source: "s.json", id: "s", zoneOffsetSeconds: 0)
        XCTAssertEqual(fromLine, fromFile)
        XCTAssertEqual(fromFile.name, "café \u{1F3C3}")
    }
}
