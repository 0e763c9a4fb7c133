import RunFiles
import RunFixtures
import Foundation
import XCTest

@testable import BadgeCommands

/// Issue #26: one voice. The command line's formatter (`Format`) and the rules' helpers
/// (`badgectl.format_distance`, `format_pace`, `format_duration`, which write award details) give the
/// same text for the same figure (one implementation, `FigureText`, negative figures included); the
/// table helpers fit a width.
final class OneVoiceTests: XCTestCase {
    func testTheRulesHelpersWriteFiguresAsTheCommandLineDoes() throws {
        let folder = try TemporaryFolder()
        try folder.write("packs/voice/pack.lua", #"return { name = "voice", version = "1", badges = { { id = "any", name = "Any" } } }"#)
        try folder.write("packs/voice/any.lua", """
            return { id = "any", badge = "any", repeatable = true, earned = function(run)
              return { detail = badgectl.format_distance(run.distance_m) .. "|" .. badgectl.format_duration(run.elapsed_s)
                .. "|" .. badgectl.format_pace(run.elapsed_s / run.distance_m * 1000)
                .. "|" .. badgectl.format_tier_pace(run.elapsed_s / run.distance_m * 1000)
                .. "|" .. badgectl.format_duration(-run.elapsed_s) .. "|" .. badgectl.format_distance(-run.distance_m) }
            end }
            """)
        try folder.write("badges.json", "[]")
        let runs: [(Double, Double)] = [(999.6, 400), (999.4, 399.6), (5210, 1805.5), (12_345.678, 4321.2), (42_195, 14_400.4), (400, 4500)]
        for (index, run) in runs.enumerated() {
            try folder.write("runs/r\(index).json", #"{ "start": "2024-05-0\#(index + 1)T07:00:00Z", "distance_m": \#(run.0), "duration_s": \#(run.1) }"#)
        }
        let output = try CLI.run(["evaluate", folder.path + "/runs", "--rules", folder.path + "/packs/voice", "--badges", folder.path + "/badges.json",
                                  "--tz", "UTC", "--no-cache", "--format", "json", "--sport", "all"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let awards = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])?["awards"] as? [[String: Any]])
        XCTAssertEqual(awards.count, runs.count, output.stdout)
        for (award, run) in zip(awards, runs) {
            let expected = Format.distance(run.0) + "|" + Format.duration(run.1) + "|" + Format.pace(run.1 / run.0 * 1000)
                + "|" + Format.tierPaceText(run.1 / run.0 * 1000) + "|" + Format.duration(-run.1) + "|" + Format.distance(-run.0)
            XCTAssertEqual(award["detail"] as? String, expected, "\(run)")
        }
    }

    func testNegativeAndAbsurdFiguresReadAsTextNotAsATrap() {
        XCTAssertEqual(Format.duration(-65), "-1:05")
        XCTAssertEqual(Format.duration(-0.4), "0:00")
        XCTAssertEqual(Format.distance(-1204), "-1.20 km")
        XCTAssertEqual(Format.distance(-950), "-950 m")
        for absurd in [Double.nan, .infinity, -.infinity, 1e300] {
            XCTAssertEqual(Format.duration(absurd), ClockText.unknown)
            XCTAssertEqual(Format.distance(absurd), ClockText.unknown)
            XCTAssertEqual(Format.paceText(absurd), ClockText.unknown)
            XCTAssertEqual(Format.tierPaceText(absurd), ClockText.unknown)
        }
    }

    func testCountsAndTierPaces() {
        XCTAssertEqual(Format.count(1, "run"), "1 run")
        XCTAssertEqual(Format.count(0, "award"), "0 awards")
        XCTAssertEqual(Format.count(25, "award"), "25 awards")
        // The rule wants a pace strictly below 664.6 s/km: 11:04 (664 s) is below it, so "or faster" is true.
        XCTAssertEqual(Format.tierPaceText(664.6), "11:04/km or faster")
        // Exactly 11:05: a run at 11:05 does not beat it; 11:04 does.
        XCTAssertEqual(Format.tierPaceText(665), "11:04/km or faster")
        // 11:05.05: 11:05 beats it by 0.05 s, less than the 0.1 s a what-if run may lose.
        XCTAssertEqual(Format.tierPaceText(665.05), "11:04/km or faster")
        XCTAssertEqual(Format.tierPaceText(665.2), "11:05/km or faster")
    }

    func testTablesWrapTheLastColumnAndDropColumnsToFit() {
        var table = TextTable("BADGE", "RUN", "PACK", "DETAIL")
        table.droppable = ["PACK", "RUN"]
        table.add("Ten K", "2026-08-20-first-10k.fit", "checkpoints", "10.48 km at 6:02/km, passed 10.00 km at 1:00:20")
        let wide = table.render(width: nil)
        XCTAssertTrue(wide.contains("2026-08-20-first-10k.fit  checkpoints  10.48 km"), wide)
        let narrow = table.render(width: 40)
        for line in narrow.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 40, narrow) }
        XCTAssertFalse(narrow.contains("checkpoints"), narrow)
        XCTAssertEqual(narrow.split(separator: "\n").map(String.init), [
            "BADGE  DETAIL",
            "-----  ---------------------------------",
            "Ten K  10.48 km at 6:02/km, passed",
            "       10.00 km at 1:00:20",
        ])
        XCTAssertEqual(TextTable.wrap("a bb ccc", width: 4), ["a bb", "ccc"])
        // A number stays with its unit: "10.00 km" is never split over two lines.
        XCTAssertEqual(TextTable.wrap("passed 10.00 km at 1:00:20", width: 14), ["passed", "10.00 km at", "1:00:20"])
        XCTAssertEqual(TextTable.wrap("abcdefghij", width: 4), ["abcd", "efgh", "ij"])
    }
    /// A position is written as `String(format: "%.5f, %.5f")` wrote it, byte for byte (ties, negative
    /// zero, the poles and the antimeridian, values past the fifth decimal), without Foundation's formatter.
    func testPositionsAreWrittenAsPrintfWritesThem() {
        var values: [Double] = [0, -0.0, 1e-6, -1e-6, 0.000005, -0.000005, 0.0000049999, 52.370155, 52.370165,
                                4.895205, -33.868819, 151.209295, 90, -90, 180, -180, 179.999995, 12.3456789e3]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Double(Int64(bitPattern: state) % 18_000_000_000) / 1e8)
        }
        for (latitude, longitude) in zip(values, values.reversed()) {
            XCTAssertEqual(Format.position(latitude: latitude, longitude: longitude), String(format: "%.5f, %.5f", latitude, longitude))
        }
    }

    /// `Format.join` and `Format.padded` (what `summarize` prints with, for start-up's sake) give what
    /// the standard library's `joined(separator:)` and Foundation's `padding(toLength:)` give.
    func testJoiningAndPaddingAsTheStandardLibraryDoes() {
        var random = SystemRandomNumberGenerator()
        let words = ["", " ", "a", "5:19", "lap 12", "héllo", "🏃", "x\ny", "  device  "]
        for count in 0...6 {
            for _ in 0..<40 {
                let parts = (0..<count).map { _ in words.randomElement(using: &random)! }
                for separator in ["", " ", "  ", ", ", "\n", "\n\n", "   "] {
                    XCTAssertEqual(Format.join(parts, separator), parts.joined(separator: separator), "\(parts) by \(separator.debugDescription)")
                }
            }
        }
        for text in ["", "  lap 1", "  lap 12345", "  lap 1234567", "é"] {
            XCTAssertEqual(Format.padded(text, to: 13), text.padding(toLength: 13, withPad: " ", startingAt: 0), text)
        }
        // Longer than the width: kept whole (padding(toLength:) would cut it).
        XCTAssertEqual(Format.padded("  lap 12345678", to: 13), "  lap 12345678")
    }
}

