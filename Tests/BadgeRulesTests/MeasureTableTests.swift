import RunFixtures
import Foundation
import RunAnalysis
import RunFiles
import XCTest

/// The guide's table of measure kinds (docs/rules.md, "| kind | parameters | fields (units) |") says
/// what the declarations (`MeasureKind.all`: the kinds packs may declare, their parameters and the
/// fields of their values, which `summarize`, `explain` and the Lua side use) say: one row per kind,
/// every parameter an author gives named in its row, every field named in its row. (The order of the
/// fields is not checked: the guide groups a segment's `efforts` with what they hold.)
final class MeasureTableTests: XCTestCase {
    static let guide = Repository.root.appendingPathComponent("docs/rules.md")

    /// The names written in `code` spans of a table cell, in order (`zone = n` names `zone` and `n`).
    static func spans(_ cell: Substring) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.flatMap { span in
            span.element.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
        }
    }

    /// The rows of the table: kind, its parameters cell's spans, its fields cell's spans.
    static func rows(_ text: String) -> [(kind: String, parameters: [String], fields: [String])] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| kind | parameters | fields (units) |") }) else { return [] }
        var rows: [(String, [String], [String])] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            guard cells.count >= 3 else { continue }
            let cell = Array(cells)
            rows.append((spans(cell[0]).first ?? "", spans(cell[1]), spans(cell[2])))
        }
        return rows
    }

    /// The names of `wanted` that `spans` do not name (other spans allowed: units, values, nested fields).
    static func missing(_ wanted: [String], in spans: [String]) -> [String] {
        wanted.filter { !spans.contains($0) }
    }

    func testTheGuidesTableIsTheDeclarations() throws {
        let rows = Self.rows(try String(contentsOf: Self.guide, encoding: .utf8))
        XCTAssertEqual(rows.map(\.kind), MeasureKind.all.map(\.name), "one row per kind, in the declarations' order")
        for kind in MeasureKind.all {
            guard let row = rows.first(where: { $0.kind == kind.name }) else { continue }
            // Parameters badgectl sets itself (a segment file's SHA-256) are not the author's to give.
            let given = kind.parameters.filter { !$0.doc.hasPrefix("set by badgectl") }.map(\.name)
            XCTAssertEqual(Self.missing(given, in: row.parameters), [], "\(kind.name): parameters not in the guide's row")
            XCTAssertEqual(Self.missing(kind.fields, in: row.fields), [], "\(kind.name): fields not in the guide's row")
        }
    }

    /// The check itself: a field renamed or missing in the table is caught.
    func testADisagreementIsCaught() {
        let table = """
            | kind | parameters | fields (units) | `nil` when |
            |---|---|---|---|
            | `stops` | `min_s` | `count` (integer), `longest_s` | never |
            """
        let rows = Self.rows(table)
        XCTAssertEqual(rows.map(\.kind), ["stops"])
        XCTAssertEqual(Self.missing(MeasureKind.stops.fields, in: rows[0].fields), ["total_s"])
        XCTAssertEqual(Self.missing(MeasureKind.stops.parameters.map(\.name), in: rows[0].parameters), [])
    }
}
