@testable import RunFiles
import XCTest

/// Heart rate in the GPX dialects other than Garmin's TrackPointExtension (issue I item 6).
final class GPXHeartRateDialectTests: XCTestCase {
    static func gpx(_ extensionsBefore: String = "", _ points: [String]) -> [UInt8] {
        Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
          xmlns:st="urn:uuid:D0EB2ED5-49B6-44e3-B13C-CF15BE7DD7DD" xmlns:gpxdata="http://www.cluetrust.com/XML/GPXDATA/1/0">
        \(extensionsBefore)
        <trk><trkseg>
        \(points.joined(separator: "\n"))
        </trkseg></trk></gpx>
        """.utf8)
    }

    static func point(_ second: Int, _ extra: String = "") -> String {
        "<trkpt lat=\"0\" lon=\"\(Double(second) * 0.0001)\"><time>2024-05-01T06:30:\(String(format: "%02d", second))Z</time>\(extra)</trkpt>"
    }

    func testSportTracksHeartRateTrackGivesEachPointTheSampleInForce() throws {
        let samples = """
        <extensions><st:activity><st:heartRateTrack>
          <st:heartRate time="2024-05-01T06:30:00Z" bpm="100"/>
          <st:heartRate time="2024-05-01T06:30:02Z" bpm="120" />
          <st:heartRate bpm="130" time="2024-05-01T06:30:03.5Z"/>
        </st:heartRateTrack></st:activity></extensions>
        """
        let track = try GPXReader.read(bytes: Self.gpx(samples, (0..<5).map { Self.point($0) }), source: "st.gpx")
        // At 0: 100; 1: still 100; 2: 120; 3: 120 (130 comes at 3.5 s); 4: 130.
        XCTAssertEqual(track.heartRates, [100, 100, 120, 120, 130])
        // Streamed in small chunks: the same.
        let chunked = try GPXReader.read(bytes: Self.gpx(samples, (0..<5).map { Self.point($0) }), source: "st.gpx", chunkSize: 64)
        XCTAssertEqual(chunked.heartRates, track.heartRates)
    }

    func testASampleOlderThanAMinuteIsNoReadingAndPointHeartRatesWin() throws {
        let old = "<extensions><st:activity><st:heartRateTrack><st:heartRate time=\"2024-05-01T06:28:00Z\" bpm=\"90\"/></st:heartRateTrack></st:activity></extensions>"
        XCTAssertEqual(try GPXReader.read(bytes: Self.gpx(old, [Self.point(0), Self.point(1)]), source: "old.gpx").heartRates, [])
        // The points' own readings (Cluetrust gpxdata:hr, an un-prefixed hr) are kept over the samples.
        let own = try GPXReader.read(bytes: Self.gpx(old, [
            Self.point(0, "<extensions><gpxdata:hr>140</gpxdata:hr></extensions>"),
            Self.point(1, "<extensions><hr>141</hr></extensions>"),
        ]), source: "own.gpx")
        XCTAssertEqual(own.heartRates, [140, 141])
    }
}
