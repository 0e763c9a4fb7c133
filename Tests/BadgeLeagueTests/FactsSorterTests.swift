import BadgeLeague
import Foundation
import XCTest

/// `FactsSorter`, the bounded-memory sort under `badgectl league`: facts in the byte order of their
/// lines whether they stay in memory, spill to sorted runs, or need merging in more than one pass,
/// read from lines (another process's) or made typed (this process's).
final class FactsSorterTests: XCTestCase {
    /// Lines of varied keys (non-ASCII, a key that prefixes another, a tab after the key), in a
    /// scrambled order.
    static let lines: [String] = (0..<2_000).map { index in
        let key = ["seg a", "seg ab", "badge p x earned", "team é", "0", "team z"][index * 7 % 6]
        return key + "\t{\"athlete\":\"a\((index * 7_919) % 2_003)\"}"
    }

    func testFactsComeOutInTheirLinesByteOrderHeldSpilledOrMergedInPasses() throws {
        let expected = Self.lines.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let read = try Self.lines.map { try Fact(line: $0) }
        let typed = try read.map { fact in Fact(try XCTUnwrap(FactsKey(fact.key)), fact.record) }
        for (facts, kind) in [(read, "read"), (typed, "typed")] {
            for (name, buffer, fanIn, spills, passes) in [("in memory", 32 << 20, 64, false, false), ("spilled", 4_096, 64, true, false),
                                                          ("merged in passes", 1_024, 3, true, true)] {
                let sorter = FactsSorter(bufferBytes: buffer, fanIn: fanIn)
                for fact in facts { try sorter.add(fact) }
                XCTAssertEqual(sorter.spilled > 0, spills, kind + ", " + name)
                XCTAssertEqual(sorter.spilled > fanIn, passes, kind + ", " + name)
                var out: [String] = []
                try sorter.finish { out.append($0.line) }
                XCTAssertEqual(out, expected, kind + ", " + name)
            }
        }
    }
}
