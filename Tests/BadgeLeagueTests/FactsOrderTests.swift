import BadgeLeague
import Foundation
import XCTest

/// `Fact.precedes`, the typed order of facts inside one process: the byte order of the lines they
/// would be (`FactsSorter.precedes`), for names JSON escapes (quotes, backslashes, control
/// characters), names one of which prefixes another (`a` and `a b`: the space sorts before the
/// closing quote), non-ASCII names, markers, one athlete's two facts in a group, and keys one of
/// which prefixes another.
final class FactsOrderTests: XCTestCase {
    static let names = ["a", "a b", "a!", "ab", "a\"", "a\\", "a\u{1}", "a\t", "a\n", "a\u{1F}", "a\u{7F}", "aé", "ae\u{301}", "a😀",
                        "A", "", " ", "a/", "b", "a#"]

    static var keys: [FactsKey] {
        [.global, .segment("p.loop"), .segment("p.loop2"), .segment("p.lo op"), .badge(["p", "b", "gold"]), .badge(["p", "b", "gold x"]),
         .team("t"), .team("t\u{1}"), .team("té")]
    }

    /// Facts of every key: each name's, some with more fields, markers, and a name twice with other numbers.
    static var facts: [Fact] {
        var out: [Fact] = []
        for key in keys {
            out.append(Fact(key, FactRecord()))
            out.append(Fact(key, FactRecord(athletes: 3, latestEnd: 1_700_000_000)))
            for (index, name) in names.enumerated() {
                out.append(Fact(key, FactRecord(athlete: name, athletes: index % 2, latestEnd: 1_700_000_000 + Double(index) * 0.5)))
                out.append(Fact(key, FactRecord(athlete: name, sex: index % 3 == 0 ? "F" : nil, team: "t")))
            }
        }
        return out
    }

    func testTheTypedOrderIsTheLinesByteOrder() throws {
        let facts = Self.facts
        var disagreements: [String] = []
        for a in facts {
            for b in facts where Fact.precedes(a, b) != FactsSorter.precedes(a.line, b.line) {
                disagreements.append("\(a.line.debugDescription) vs \(b.line.debugDescription)")
            }
        }
        XCTAssertEqual(disagreements.count, 0, disagreements.prefix(5).joined(separator: "\n"))
        let lines = facts.map(\.line)
        XCTAssertEqual(facts.sorted(by: Fact.precedes).map(\.line), lines.sorted(by: FactsSorter.precedes))
    }

    /// Facts read from lines keep their place by the line's own bytes (another process's JSON may
    /// differ from this one's in spacing or key order).
    func testAReadFactKeepsItsLinesPlace() throws {
        let lines = ["0\t{\"athlete\": \"b\"}", "0\t{\"athlete\":\"a\"}", "0\t{ \"athlete\":\"c\"}", "seg x\t{}", "seg x\t{\"athlete\":\"a\"}"]
        let facts = try lines.map { try Fact(line: $0) }
        XCTAssertEqual(facts.sorted(by: Fact.precedes).map(\.line), lines.sorted(by: FactsSorter.precedes))
    }
}
