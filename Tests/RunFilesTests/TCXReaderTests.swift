import XCTest

@testable import RunFiles
@testable import RunAnalysis

final class TCXReaderTests: XCTestCase {
    func read(_ xml: String, _ name: String = "t.tcx") throws -> [Track] {
        try TCXReader.read(bytes: Array(xml.utf8), source: name)
    }

    func point(_ time: String, _ lat: Double?, _ lon: Double?, alt: Double = 10, dist: Double? = nil, hr: Int? = nil, extra: String = "") -> String {
        var s = "<Trackpoint><Time>\(time)</Time>"
        if let lat, let lon {
            s += "<Position><LatitudeDegrees>\(lat)</LatitudeDegrees><LongitudeDegrees>\(lon)</LongitudeDegrees></Position>"
        }
        s += "<AltitudeMeters>\(alt)</AltitudeMeters>"
        if let dist { s += "<DistanceMeters>\(dist)</DistanceMeters>" }
        if let hr { s += "<HeartRateBpm><Value>\(hr)</Value></HeartRateBpm>" }
        return s + extra + "</Trackpoint>"
    }

    let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
        """

    /// Two laps; lap 1 holds two <Track>s (a pause between them); a point without position;
    /// lap-level DistanceMeters, Cadence and a lap <Extensions> that must not leak into points.
    var twoLaps: String {
        head + """
            <Activities><Activity Sport="Running"><Id>2024-05-01T06:30:00Z</Id>
            <Lap StartTime="2024-05-01T06:30:00Z"><TotalTimeSeconds>100.5</TotalTimeSeconds><DistanceMeters>250</DistanceMeters>
            <AverageHeartRateBpm><Value>999</Value></AverageHeartRateBpm><Cadence>77</Cadence>
            <Track>
            \(point("2024-05-01T06:30:00Z", 52.0, 4.9, dist: 0, hr: 120, extra: "<Extensions><ns3:TPX><ns3:Speed>3.1</ns3:Speed><ns3:RunCadence>88</ns3:RunCadence></ns3:TPX></Extensions>"))
            \(point("2024-05-01T06:30:10Z", 52.0009, 4.9, dist: 100, hr: 130))
            </Track>
            <Track>
            \(point("2024-05-01T06:31:00Z", nil, nil, dist: 100, hr: 131))
            \(point("2024-05-01T06:31:10Z", 52.0018, 4.9, dist: 200, hr: 132))
            </Track>
            <Extensions><ns3:LX><ns3:AvgSpeed>3</ns3:AvgSpeed></ns3:LX></Extensions>
            </Lap>
            <Lap StartTime="2024-05-01T06:31:10Z"><TotalTimeSeconds>20</TotalTimeSeconds><DistanceMeters>60</DistanceMeters>
            <Track>
            \(point("2024-05-01T06:31:20Z", 52.0027, 4.9, dist: 300, hr: 140))
            </Track></Lap>
            <Creator xsi:type="Device_t"><Name>Forerunner 945</Name></Creator>
            </Activity></Activities></TrainingCenterDatabase>
            """
    }

    func testTwoLapsSegmentsAndDroppedPoint() throws {
        let tracks = try read(twoLaps)
        XCTAssertEqual(tracks.count, 1)
        let t = try XCTUnwrap(tracks.first)
        XCTAssertEqual(t.format, .tcx)
        XCTAssertEqual(t.sport, "Running")
        XCTAssertEqual(t.name, "2024-05-01T06:30:00Z")
        XCTAssertEqual(t.count, 4)
        XCTAssertEqual(t.dropped["no position"], 1)
        XCTAssertTrue(t.hasPositions)
        XCTAssertEqual(t.segmentStarts, [0, 2, 3], "each <Track> is a segment")
        XCTAssertEqual(t.heartRates, [120, 130, 132, 140], "the lap's AverageHeartRateBpm is not a point value")
        XCTAssertEqual(t.cadences[0], 88, "RunCadence from the TPX extension")
        XCTAssertTrue(t.cadences[1].isNaN, "the lap's Cadence is not a point value")
        XCTAssertEqual(t.deviceDistances, [0, 100, 200, 300])
        XCTAssertEqual(t.elevations, [10, 10, 10, 10])
        XCTAssertEqual(t.times[0], 1_714_545_000)
        XCTAssertNil(t.utcOffsetSeconds, "Z is UTC, not the runner's offset")
        XCTAssertEqual(t.laps, [
            Lap(start: 1_714_545_000, timerSeconds: 100.5, distanceMeters: 250, averageHeartRate: 999),
            Lap(start: 1_714_545_070, timerSeconds: 20, distanceMeters: 60),
        ], "the lap's AverageHeartRateBpm is the lap's")
        XCTAssertEqual(t.deviceDistanceMeters, 300, "the last odometer reading, not the lap sum (310)")
        XCTAssertEqual(t.deviceTimerSeconds, 120.5)
        // No distance is counted across the gaps between segments: only the first segment has a step.
        let profile = RunAnalyzer.profile(of: t)
        XCTAssertEqual(profile.totalDistance, 100.1, accuracy: 0.5)
    }

    func testLapDistancesWhenThereIsNoOdometer() throws {
        let xml = head + """
            <Activities><Activity Sport="Biking"><Id>x</Id>
            <Lap StartTime="2024-05-01T06:30:00Z"><TotalTimeSeconds>10</TotalTimeSeconds><DistanceMeters>40.5</DistanceMeters>
            <Track>\(point("2024-05-01T06:30:00+02:00", 1, 1))\(point("2024-05-01T06:30:10+02:00", 1.0001, 1))</Track></Lap>
            <Lap StartTime="2024-05-01T06:30:10Z"><TotalTimeSeconds>10</TotalTimeSeconds><DistanceMeters>2</DistanceMeters></Lap>
            </Activity></Activities></TrainingCenterDatabase>
            """
        let t = try XCTUnwrap(read(xml).first)
        XCTAssertEqual(t.sport, "Biking")
        XCTAssertEqual(t.deviceDistanceMeters, 42.5)
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
        XCTAssertEqual(t.times[0], 1_714_537_800)
        XCTAssertEqual(t.laps.count, 2)
    }

    func testOdometerRestartingPerLapFallsBackToLapSum() throws {
        let xml = head + """
            <Activities><Activity Sport="Running">
            <Lap StartTime="2024-05-01T06:30:00Z"><DistanceMeters>1000</DistanceMeters><Track>
            \(point("2024-05-01T06:30:00Z", 1, 1, dist: 0))\(point("2024-05-01T06:35:00Z", 1.009, 1, dist: 1000))</Track></Lap>
            <Lap StartTime="2024-05-01T06:35:00Z"><DistanceMeters>500</DistanceMeters><Track>
            \(point("2024-05-01T06:35:01Z", 1.009, 1, dist: 2))\(point("2024-05-01T06:38:00Z", 1.0135, 1, dist: 500))</Track></Lap>
            </Activity></Activities></TrainingCenterDatabase>
            """
        XCTAssertEqual(try read(xml).first?.deviceDistanceMeters, 1500)
    }

    func testSeveralActivitiesAndPrefixedNames() throws {
        let xml = """
            <tcx:TrainingCenterDatabase xmlns:tcx="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <tcx:Activities>
            <tcx:Activity Sport='Running'><tcx:Id>a &amp; b</tcx:Id><tcx:Lap StartTime="2024-05-01T06:30:00Z"><tcx:Track>
            \(point("2024-05-01T06:30:00Z", 10, 20).replacingOccurrences(of: "<", with: "<tcx:").replacingOccurrences(of: "<tcx:/", with: "</tcx:"))
            </tcx:Track></tcx:Lap></tcx:Activity>
            <tcx:Activity Sport="Other"><tcx:Id>empty</tcx:Id></tcx:Activity>
            <tcx:Activity Sport="Biking"><tcx:Lap StartTime="2024-05-02T06:30:00Z"><tcx:Track>
            \(point("2024-05-02T06:30:00Z", 11, 21).replacingOccurrences(of: "<", with: "<tcx:").replacingOccurrences(of: "<tcx:/", with: "</tcx:"))
            </tcx:Track></tcx:Lap></tcx:Activity>
            </tcx:Activities></tcx:TrainingCenterDatabase>
            """
        let tracks = try read(xml)
        XCTAssertEqual(tracks.map(\.sport), ["Running", "Biking"], "the activity without points is left out")
        XCTAssertEqual(tracks[0].name, "a & b")
        XCTAssertEqual(tracks[1].latitudes, [11])
    }

    func testIndoorActivityKeepsPointsWithoutPositions() throws {
        var body = ""
        for k in 0..<5 { body += point("2024-05-01T06:30:\(10 + k * 10)Z", nil, nil, dist: Double(k) * 35.5) }
        let xml = head + "<Activities><Activity Sport=\"Running\"><Lap StartTime=\"2024-05-01T06:30:10Z\"><Track>" + body
            + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        let t = try XCTUnwrap(read(xml).first)
        XCTAssertFalse(t.hasPositions)
        XCTAssertEqual(t.count, 5)
        XCTAssertNil(t.dropped["no position"])
        XCTAssertEqual(RunAnalyzer.profile(of: t).totalDistance, 142, accuracy: 1e-9)
    }

    func testBOMLeadingWhitespaceCommentsAndCDATA() throws {
        let xml = "\u{FEFF}   \n  " + twoLaps.replacingOccurrences(of: "<Activities>", with: "<!-- <Activity> in a comment --><Activities><![CDATA[<Trackpoint>]]>")
        let t = try XCTUnwrap(read(xml).first)
        XCTAssertEqual(t.count, 4)
    }

    func testErrorsNameFileAndLine() throws {
        XCTAssertThrowsError(try read("<gpx><trk/></gpx>", "g.tcx")) { error in
            guard case ActivityError.notFormat(let path, let format, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "g.tcx"); XCTAssertEqual(format, "TCX")
            XCTAssertTrue(reason.contains("<gpx>"), reason)
        }
        let badNumber = twoLaps.replacingOccurrences(of: "<AltitudeMeters>10.0</AltitudeMeters>", with: "<AltitudeMeters>ten</AltitudeMeters>")
        XCTAssertThrowsError(try read(badNumber, "n.tcx")) { error in
            guard case ActivityError.malformed(_, let line, _, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 6)
            XCTAssertTrue(reason.contains("'ten'"), reason)
        }
        let badTime = twoLaps.replacingOccurrences(of: "06:31:20Z", with: "yesterday")
        XCTAssertThrowsError(try read(badTime, "tm.tcx")) { error in
            XCTAssertTrue("\(error)".contains("not an ISO 8601 time"), "\(error)")
        }
        let truncated = String(twoLaps.prefix(twoLaps.count / 2))
        XCTAssertThrowsError(try read(truncated, "cut.tcx")) { error in
            XCTAssertTrue("\(error)".contains("cut.tcx"), "\(error)")
            XCTAssertTrue("\(error)".contains("ends inside"), "\(error)")
        }
        XCTAssertThrowsError(try read(head + "<Activities/></TrainingCenterDatabase>", "none.tcx")) { error in
            guard case ActivityError.noUsablePoints = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try read("", "empty.tcx"))
        XCTAssertThrowsError(try TCXReader.read(bytes: [0xFF, 0xFE, 0x3C, 0x00], source: "u16.tcx")) { error in
            XCTAssertTrue("\(error)".contains("UTF-16"), "\(error)")
        }
    }

    func testNumberParser() {
        let cases: [(String, Double?)] = [
            ("41.1630395706743", 41.1630395706743), ("-74.17961918748915", -74.17961918748915), ("0", 0), ("+3", 3),
            ("1e3", 1000), ("2.5E-2", 0.025), (".5", 0.5), ("7.", 7), ("12345678901234567890123", 1.2345678901234567e22),
            ("0.000000000000000000000000012", 1.2e-26), ("", nil), ("-", nil), ("1.2.3", nil), ("1e", nil), ("abc", nil),
        ]
        for (text, expected) in cases {
            let bytes = Array(text.utf8) + [0]
            let value = bytes.withUnsafeBufferPointer { b -> Double? in
                guard let base = b.baseAddress else { return nil }
                return TCXScanner(base, count: b.count - 1, source: "n").number(0, b.count - 1)
            }
            XCTAssertEqual(value, expected, text)
        }
    }

    /// Random corruption must give an error or tracks, never a crash or a hang.
    func testMutatedFilesNeverCrash() {
        let original = Array(twoLaps.utf8)
        let alphabet = Array("<>/=\"' :.-0123456789eE&;!?[]TZ".utf8)
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        func random(_ n: Int) -> Int {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return Int(x % UInt64(n))
        }
        var outcomes = (tracks: 0, errors: 0)
        for round in 0..<3000 {
            var bytes = original
            for _ in 0..<(1 + random(4)) { bytes[random(bytes.count)] = alphabet[random(alphabet.count)] }
            if round % 5 == 0 { bytes = Array(bytes.prefix(random(bytes.count))) }
            do {
                _ = try TCXReader.read(bytes: bytes, source: "fuzz.tcx")
                outcomes.tracks += 1
            } catch let error as ActivityError {
                XCTAssertEqual(error.path, "fuzz.tcx")
                outcomes.errors += 1
            } catch {
                XCTFail("unexpected error type \(error)")
            }
        }
        XCTAssertGreaterThan(outcomes.tracks, 0)
        XCTAssertGreaterThan(outcomes.errors, 0)
    }
}
