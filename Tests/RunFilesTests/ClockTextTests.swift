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

/// Issue 47: the formatters of figures and instants are total functions: nothing a file holds
/// (nan, ±inf, ±1e308, -1e300, 2^63) makes them trap.
final class TotalFormattersTests: XCTestCase {
    static let hostile: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, -1e300, 9.3e18, -9.3e18, 1e19]

    func testClockTextAndTimestampsNeverTrap() {
        for value in Self.hostile {
            XCTAssertEqual(ClockText.of(value), ClockText.unknown, "\(value)")
            XCTAssertEqual(Timestamps.iso8601(value).count, 20, "\(value)")
            XCTAssertEqual(Timestamps.date(value).count, 10, "\(value)")
            XCTAssertEqual(Timestamps.localTime(value, offsetSeconds: 3600).count, 19, "\(value)")
        }
        XCTAssertEqual(Timestamps.iso8601(1e19), "9999-12-31T23:59:59Z")
        XCTAssertEqual(Timestamps.iso8601(-1e300), "0000-01-01T00:00:00Z")
        XCTAssertEqual(Timestamps.iso8601(1_772_348_400), "2026-03-01T07:00:00Z")
    }

    /// A track whose every figure is hostile keeps only plausible ones, each change named.
    func testTrackDropImplausible() {
        var track = Track(source: "t")
        track.append(latitude: 52, longitude: 4, elevation: 1e308, time: 1_772_348_400, heartRate: .infinity, cadence: -1, deviceDistance: .nan)
        track.append(latitude: 52, longitude: 4, time: -1e300)
        track.append(latitude: .infinity, longitude: 4, time: 1_772_348_410)
        track.append(latitude: 52.001, longitude: 4, elevation: 3, time: 1_772_348_420, heartRate: 150)
        track.deviceDistanceMeters = 1e308
        track.deviceAverageHeartRate = .nan
        track.deviceElapsedSeconds = 3.6e23
        track.deviceLapCount = Int.max
        track.utcOffsetSeconds = 99 * 3600
        track.laps = [Lap(start: 1e19, elapsedSeconds: .infinity)]
        track.pauses = [Pause(from: -1e300, to: 0)]
        track.recordedFirstTime = -1e300
        track.dropImplausible()
        XCTAssertEqual(track.count, 2)
        XCTAssertEqual(track.times, [1_772_348_400, 1_772_348_420])
        XCTAssertTrue(track.elevations[0].isNaN)
        XCTAssertTrue(track.heartRate(at: 0).isNaN)
        XCTAssertEqual(track.heartRate(at: 1), 150)
        XCTAssertTrue(track.cadence(at: 0).isNaN)
        XCTAssertNil(track.deviceDistanceMeters)
        XCTAssertNil(track.deviceAverageHeartRate)
        XCTAssertNil(track.deviceElapsedSeconds)
        XCTAssertNil(track.deviceLapCount)
        XCTAssertNil(track.utcOffsetSeconds)
        XCTAssertNil(track.laps[0].start)
        XCTAssertNil(track.laps[0].elapsedSeconds)
        XCTAssertTrue(track.pauses.isEmpty)
        XCTAssertNil(track.recordedFirstTime)
        XCTAssertEqual(track.dropped[Track.implausibleTimeReason], 1)
        XCTAssertEqual(track.dropped[Track.implausiblePositionReason], 1)
        XCTAssertEqual(track.dropped["the device's distance 1e+308 m not a plausible figure, left unknown"], 1)
        XCTAssertEqual(track.segmentStarts, [0])
    }
}
