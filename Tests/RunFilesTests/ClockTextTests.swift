import Foundation
import RunFiles
import XCTest

/// `ClockText`, the one clock of every output, against the four formatters it replaced (the
/// league's, what-if's and eligibility's `%d:%02d` ones, the report's), over the values a runner
/// meets: under a minute, minutes, hours, and the rounding at half a second.
final class ClockTextTests: XCTestCase {
    /// The formula the league and eligibility texts used before (`String(format:)`).
    private func formatted(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    func testAgreesWithTheFormattersItReplaced() {
        var seconds = 0.0
        while seconds < 40_000 {
            XCTAssertEqual(ClockText.of(seconds), formatted(seconds), "\(seconds) s")
            seconds += 0.25 + seconds / 50
        }
        for value in [0.49, 0.5, 59.5, 3599.4, 3599.5, 86_399.5] {
            XCTAssertEqual(ClockText.of(value), formatted(value), "\(value) s")
        }
    }

    func testWatchTexts() {
        XCTAssertEqual(ClockText.of(59.6), "1:00")
        XCTAssertEqual(ClockText.of(2545), "42:25")
        XCTAssertEqual(ClockText.of(3723), "1:02:03")
        XCTAssertEqual(ClockText.clock(whole: 4500, hours: false), "75:00")
        XCTAssertEqual(ClockText.clock(whole: 4500), "1:15:00")
    }

    /// The league's instants were written by `ISO8601DateFormatter` in UTC; `Timestamps.iso8601`
    /// writes the same text without Foundation's formatter.
    func testLeagueInstantsMatchFoundationsFormatter() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var epoch = 0.0
        while epoch < 4_102_444_800 {
            XCTAssertEqual(Timestamps.iso8601(epoch), formatter.string(from: Date(timeIntervalSince1970: epoch.rounded(.down))))
            epoch += 9_876_543.21
        }
    }
}
