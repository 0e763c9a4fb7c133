@testable import RunFiles
import XCTest

/// Epoch values computed with Python's calendar.timegm and pasted as literals.
final class TimestampsTests: XCTestCase {
    func testUTC() throws {
        let t = try XCTUnwrap(Timestamps.parse("2024-05-01T06:30:00Z"))
        XCTAssertEqual(t.epoch, 1_714_545_000)
        XCTAssertEqual(t.offsetSeconds, 0)
    }

    func testPositiveOffset() throws {
        let t = try XCTUnwrap(Timestamps.parse("2024-05-01T08:30:00+02:00"))
        XCTAssertEqual(t.epoch, 1_714_545_000)
        XCTAssertEqual(t.offsetSeconds, 7200)
    }

    func testNegativeHalfHourOffset() throws {
        // 1999-12-31T18:30:00Z written in a −05:30 zone.
        let t = try XCTUnwrap(Timestamps.parse("1999-12-31T13:00:00-05:30"))
        XCTAssertEqual(t.epoch, 946_665_000)
        XCTAssertEqual(t.offsetSeconds, -19_800)
    }

    func testFractionsOfASecond() throws {
        let t = try XCTUnwrap(Timestamps.parse("2024-02-29T23:59:59.250Z"))
        XCTAssertEqual(t.epoch, 1_709_251_199.25, accuracy: 1e-9)
        let u = try XCTUnwrap(Timestamps.parse("2021-01-07T21:51:59.179Z"))
        XCTAssertEqual(u.epoch.truncatingRemainder(dividingBy: 1), 0.179, accuracy: 1e-6)
    }

    /// A fraction of zeros alone is skipped without arithmetic; zeros followed by other digits
    /// are summed digit by digit as before (0·0.1 + 0·0.01 + … + 1·0.0001, bit for bit).
    func testFractionsOfZeros() throws {
        let whole = 1_714_545_000.0
        for text in ["2024-05-01T06:30:00.0Z", "2024-05-01T06:30:00.000Z", "2024-05-01T06:30:00,000000000Z",
                     "2024-05-01T06:30:00.000", "2024-05-01T06:30:00.00 ", "2024-05-01T06:30:00.000+00:00"] {
            let t = try XCTUnwrap(Timestamps.parse(text), text)
            XCTAssertEqual(t.epoch.bitPattern, whole.bitPattern, text)
        }
        var fraction = 0.0, scale = 0.1
        for digit in [0.0, 0, 0, 1, 5] {
            fraction += digit * scale
            scale *= 0.1
        }
        let t = try XCTUnwrap(Timestamps.parse("2024-05-01T06:30:00.00015Z"))
        XCTAssertEqual(t.epoch.bitPattern, (whole + fraction).bitPattern)
        for text in ["2024-05-01T06:30:00.00x", "2024-05-01T06:30:00.000Z0", "2024-05-01T06:30:00.0.0Z"] {
            XCTAssertNil(Timestamps.parse(text), text)
        }
    }

    func testNoOffsetIsUTCWithoutOffset() throws {
        let t = try XCTUnwrap(Timestamps.parse("2024-05-01T06:30:00"))
        XCTAssertEqual(t.epoch, 1_714_545_000)
        XCTAssertNil(t.offsetSeconds)
    }

    func testInvalidForms() {
        for text in [
            "", "garbage", "2024-05-01", "2024-05-01T06:30Z", "2024-13-01T06:30:00Z", "2024-05-32T06:30:00Z",
            "2024-05-01T25:30:00Z", "2024-05-01T06:61:00Z", "2024-05-01X06:30:00Z", "2024-05-01T06:30:00.Z",
            "2024-05-01T06:30:00+2", "2024-05-01T06:30:00Z trailing", "24-05-01T06:30:00Z",
        ] {
            XCTAssertNil(Timestamps.parse(text), "'\(text)' should not parse")
        }
    }

    func testByteParserHonoursCount() throws {
        let bytes = Array("2024-05-01T06:30:00Zjunk".utf8)
        let t = bytes.withUnsafeBufferPointer { buf in buf.baseAddress.flatMap { Timestamps.parse($0, count: 20) } }
        XCTAssertEqual(t?.epoch, 1_714_545_000)
    }

    /// A reader's day cache must give exactly what a fresh parse gives, whatever came before.
    func testDayCacheMatchesAFreshParse() {
        let texts = [
            "2024-05-01T06:30:00.000Z", "2024-05-01T06:30:01.000Z", "  2024-05-01T23:59:59.5+02:00 ",
            "2024-05-02T00:00:00Z", "2024-05-01T06:30:02Z", "2024-05-01", "2024-05-01X06:30:00Z",
            "2024-05-01T25:00:00Z", "2024-13-01T06:30:00Z", "2024-05-01T06:30:03-05:30", "2024-05-0", "x",
            "2023-05-01T06:30:00Z", "2024-05-01t06:30:04z",
        ]
        var cache = Timestamps.DayCache()
        for _ in 0..<2 {
            for text in texts {
                let bytes = Array(text.utf8)
                let cached = bytes.withUnsafeBufferPointer { Timestamps.parse($0.baseAddress!, count: $0.count, cache: &cache) }
                let fresh = Timestamps.parse(text)
                XCTAssertEqual(cached?.epoch.bitPattern, fresh?.epoch.bitPattern, text)
                XCTAssertEqual(cached?.offsetSeconds, fresh?.offsetSeconds, text)
                XCTAssertEqual(cached == nil, fresh == nil, text)
            }
        }
    }

    func testFormattingAndCivilDates() {
        XCTAssertEqual(Timestamps.iso8601(1_714_545_000.9), "2024-05-01T06:30:00Z")
        XCTAssertEqual(Timestamps.date(1_714_545_000, offsetSeconds: -7 * 3600), "2024-04-30")
        XCTAssertEqual(Timestamps.date(1_714_545_000, offsetSeconds: 0), "2024-05-01")
        XCTAssertEqual(Timestamps.daysFromCivil(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(Timestamps.daysFromCivil(year: 2000, month: 3, day: 1), 11_017)
        let (y, m, d) = Timestamps.civilFromDays(19_782)
        XCTAssertEqual([y, m, d], [2024, 2, 29])
    }
}
