import Foundation
import RunFiles
import XCTest

/// `Timestamps`' byte-by-byte formatting gives what Foundation gives at every instant from 1590 to 9999
/// (Foundation turns Julian before 1582; ours stays proleptic Gregorian, as it always has).
final class TimestampsFormatTests: XCTestCase {
    func testFormatsMatchFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var seed: UInt64 = 42
        var epochs: [Double] = [0, -1, -0.5, 86_399.999, 951_782_400, 253_402_300_799, -12_000_000_000]
        for _ in 0..<2000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            epochs.append(Double(Int64(bitPattern: seed >> 1) % 265_000_000_000) - 12_000_000_000 + Double(seed % 1000) / 1000)
        }
        for epoch in epochs {
            let expected = formatter.string(from: Date(timeIntervalSince1970: epoch.rounded(.down)))
            XCTAssertEqual(Timestamps.iso8601(epoch), expected + "Z", "\(epoch)")
            XCTAssertEqual(Timestamps.localTime(epoch - 3600, offsetSeconds: 3600), expected, "\(epoch)")
            XCTAssertEqual(Timestamps.date(epoch), String(expected.prefix(10)), "\(epoch)")
        }
    }
}
