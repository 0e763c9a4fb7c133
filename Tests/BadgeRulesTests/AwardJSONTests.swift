@testable import BadgeRules
import Foundation
import SyntheticRuns
import XCTest

/// `AwardJSON` writes the bytes `StateStore.encoder()` writes for an award (an addition compares the
/// rows' JSON with it), and they read back as the award.
final class AwardJSONTests: XCTestCase {
    func testTheBytesOfJSONEncoderForAnyAward() throws {
        var random = SplitMix64(seed: 51)
        // (Keys whose order differs between their bytes and `String`'s `<`, which compares them
        // normalized: "e\u{301}x" and "éa", "\u{212B}" and "fj".)
        let texts = ["", "earned", "a/b", "quote \" and \\ back", "tab\tnew\nline\u{1}\u{1f}\u{7f}", "é and e\u{301}", "🏃‍♀️ 5 km", "Zed", "_x", "10", "9",
                     "e\u{301}x", "éa", "\u{212B}", "fj", "Å"]
        func text() -> String { texts[random.below(texts.count)] + (random.below(3) == 0 ? String(random.below(1000)) : "") }
        let numbers: [Double] = [0, -0.0, 1, -1, 0.1, 1.5, 21173, 3.398009950248756, 1e15, 1e16, 1e-7, 2.5e-5, 1e300, 5e-324, -12345.678,
                                 9007199254740993, .infinity, -.infinity, .nan]
        func number(finite: Bool) -> Double {
            let value = random.below(3) == 0 ? (random.uniform() - 0.5) * pow(10, Double(random.below(30)) - 10) : numbers[random.below(numbers.count)]
            return finite && !value.isFinite ? 42 : value
        }
        func evidence(_ depth: Int) -> Evidence {
            switch random.below(depth > 2 ? 3 : 5) {
            case 0: return .bool(random.below(2) == 0)
            case 1: return .number(number(finite: true))
            case 2: return .string(text())
            case 3: return .list((0..<random.below(4)).map { _ in evidence(depth + 1) })
            default:
                var fields: [String: Evidence] = [:]
                for _ in 0..<random.below(6) { fields[text()] = evidence(depth + 1) }
                return .record(fields)
            }
        }
        let encoder = StateStore.encoder()
        // Evidence keys in an order their bytes and their normalized forms disagree on.
        let keyed = Award(badge: "b", pack: "p", rule: "r", tier: "earned", run: "x", at: nil, detail: "",
                          evidence: .record(["e\u{301}x": .number(1), "éa": .number(2), "\u{212B}": .bool(true), "fj": .string("s")]))
        XCTAssertEqual(AwardJSON.text(keyed), String(decoding: try encoder.encode(keyed), as: UTF8.self))
        for _ in 0..<2_000 {
            let award = Award(badge: text(), pack: text(), rule: text(), tier: text(), run: text(), at: random.below(4) == 0 ? nil : text(), detail: text(),
                              progress: random.below(3) == 0 ? nil : Progress(current: number(finite: false), target: number(finite: false), unit: text()),
                              packVersion: text(), packFingerprint: random.below(3) == 0 ? nil : text(),
                              evidence: random.below(3) == 0 ? nil : evidence(0))
            let expected = String(decoding: try encoder.encode(award), as: UTF8.self)
            XCTAssertEqual(AwardJSON.text(award), expected)
            // And back: the award (non-finite progress aside, which no award compares equal with).
            if let progress = award.progress, !progress.current.isFinite || !progress.target.isFinite { continue }
            XCTAssertEqual(try StateStore.decoder().decode(Award.self, from: Array(AwardJSON.text(award).utf8), source: "t"), award)
        }
    }
}
