import BadgePipeline
import XCTest

/// The worker's set of finished athletes (docs/worker.md, "Grouping"): exact, so a new athlete is
/// never refused, however its name's hash collides.
final class FinishedAthletesTests: XCTestCase {
    private static func names(_ range: Range<Int>) -> [String] { range.map { "athlete-\($0)" } }

    func testFindsEveryInsertedNameAndNoOther() {
        let finished = FinishedAthletes()
        for name in Self.names(0..<20_000) { finished.insert(name) }
        XCTAssertEqual(finished.count, 20_000)
        XCTAssertTrue(Self.names(0..<20_000).allSatisfy(finished.contains))
        XCTAssertFalse(Self.names(20_000..<40_000).contains(where: finished.contains))
        finished.insert("athlete-7")
        XCTAssertEqual(finished.count, 20_000)
    }

    /// Every name has the same hash: names are told apart by their bytes, never by the hash alone.
    func testCollidingHashesNeverRefuseANewName() {
        let finished = FinishedAthletes(hash: { _ in 0x5EED })
        for name in Self.names(0..<300) { finished.insert(name) }
        XCTAssertTrue(Self.names(0..<300).allSatisfy(finished.contains))
        XCTAssertFalse(Self.names(300..<600).contains(where: finished.contains))
        // Names that share a hash's low bits (the slot) but not its top bits.
        let lowBits = FinishedAthletes(hash: { Int(bitPattern: UInt(truncatingIfNeeded: $0.utf8.count) << 40) | 3 })
        lowBits.insert("ab")
        XCTAssertTrue(lowBits.contains("ab"))
        XCTAssertFalse(lowBits.contains("abc"))
        XCTAssertFalse(lowBits.contains("ba"))
    }

    /// Long names (a length over 127 takes two bytes), the empty name, and other scripts.
    func testNamesOfAnyLength() {
        let finished = FinishedAthletes()
        let long = String(repeating: "é", count: 5_000)
        for name in ["", "x", long, "Zoë", "北京"] { finished.insert(name) }
        for name in ["", "x", long, "Zoë", "北京"] { XCTAssertTrue(finished.contains(name), name) }
        XCTAssertFalse(finished.contains(long + "e"))
        XCTAssertFalse(finished.contains("Zoe"))
    }

    /// Names filling several 2 MiB blocks (one of them almost a block alone, one longer than a block)
    /// while the table grows.
    func testNamesOverManyBlocks() {
        let finished = FinishedAthletes()
        let names = (0..<3_000).map { String(repeating: "n", count: 1_000) + "\($0)" } + [String(repeating: "x", count: 2_000_000), String(repeating: "y", count: 3_000_000), "after"]
        for name in names { finished.insert(name) }
        XCTAssertEqual(finished.count, 3_003)
        XCTAssertTrue(names.allSatisfy(finished.contains))
        XCTAssertFalse(finished.contains(String(repeating: "n", count: 1_000) + "3000"))
        XCTAssertFalse(finished.contains(String(repeating: "x", count: 1_999_999)))
    }

    /// The worker tells athletes apart as `String` does: the same characters in other bytes are the
    /// same athlete.
    func testCanonicallyEquivalentNamesAreOneAthlete() {
        let finished = FinishedAthletes()
        finished.insert("Zo\u{EB}")
        XCTAssertTrue(finished.contains("Zoe\u{308}"))
    }
}
