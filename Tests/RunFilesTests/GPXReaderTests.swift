import RunFixtures
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
import XCTest

/// GPX documents are built in code. Distances are hand-computed: on the equator a step of
/// 0.0001° of longitude is a·π/180·0.0001 = 11.131949 m (WGS84 a = 6,378,137 m).
final class GPXReaderTests: XCTestCase {
    static let equatorStep = 6_378_137 * Double.pi / 180 * 0.0001

    func read(_ text: String, chunkSize: Int? = nil) throws -> Track {
        try GPXReader.read(bytes: Array(text.utf8), source: "test.gpx", chunkSize: chunkSize)
    }

    /// A GPX 1.1 document around `body` (the content of <gpx>).
    func gpx11(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
             xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
        \(body)
        </gpx>
        """
    }

    func point(lon: Double, second: Int, extra: String = "") -> String {
        "<trkpt lat=\"0\" lon=\"\(lon)\"><time>2024-05-01T06:30:\(second < 10 ? "0" : "")\(second)Z</time>\(extra)</trkpt>"
    }

    // MARK: - Documents

    func testGPX11WithElevationTimeAndExtensions() throws {
        let track = try read(gpx11("""
            <metadata><name>Metadata name</name></metadata>
            <trk>
              <name>Evening run</name>
              <type>running</type>
              <trkseg>
                <trkpt lat="52.3702" lon="4.8952">
                  <ele>1.5</ele>
                  <time>2024-05-01T06:30:00Z</time>
                  <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>120</gpxtpx:hr><gpxtpx:cad>84</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions>
                </trkpt>
                <trkpt lon="4.8953" lat="52.3703"><ele>-2</ele><time>2024-05-01T06:30:05.5Z</time></trkpt>
              </trkseg>
            </trk>
            """))
        XCTAssertEqual(track.format, .gpx)
        XCTAssertEqual(track.count, 2)
        XCTAssertEqual(track.name, "Evening run")
        XCTAssertEqual(track.sport, "running")
        XCTAssertEqual(track.latitudes, [52.3702, 52.3703])
        XCTAssertEqual(track.longitudes, [4.8952, 4.8953])
        XCTAssertEqual(track.elevations, [1.5, -2])
        XCTAssertEqual(track.times, [1_714_545_000, 1_714_545_005.5])
        XCTAssertEqual(track.heartRates[0], 120)
        XCTAssertTrue(track.heartRates[1].isNaN)
        XCTAssertEqual(track.cadences[0], 84)
        XCTAssertEqual(track.segmentStarts, [0])
        XCTAssertNil(track.utcOffsetSeconds, "Z says UTC, not the runner's zone")
        XCTAssertTrue(track.dropped.isEmpty)
    }

    func testGPX10SingleQuotesAndNameFallback() throws {
        let track = try read("""
            <?xml version='1.0'?>
            <gpx version='1.0' creator='GPSBabel' xmlns='http://www.topografix.com/GPX/1/0'>
            <name>Old file</name>
            <trk><trkseg>
            <trkpt lon='14.5' lat='45.75'><ele>500</ele><time>2010-08-05T16:22:52Z</time></trkpt>
            <trkpt lon='14.5001' lat='45.75'/>
            </trkseg></trk>
            </gpx>
            """)
        XCTAssertEqual(track.count, 2)
        XCTAssertEqual(track.name, "Old file")
        XCTAssertNil(track.sport)
        XCTAssertEqual(track.latitudes, [45.75, 45.75])
        XCTAssertEqual(track.longitudes, [14.5, 14.5001])
        XCTAssertTrue(track.times[1].isNaN)
    }

    func testSeveralTracksAndSegmentsAddNoDistanceAcrossGaps() throws {
        // Two segments 0.01° (1.1 km) apart, each of two 0.0001° steps.
        let track = try read(gpx11("""
            <trk><name>First</name><trkseg>
            \(point(lon: 0, second: 0))\(point(lon: 0.0001, second: 5))\(point(lon: 0.0002, second: 10))
            </trkseg></trk>
            <trk><name>Second</name><type>9</type><trkseg>
            \(point(lon: 0.0102, second: 20))\(point(lon: 0.0103, second: 25))\(point(lon: 0.0104, second: 30))
            </trkseg></trk>
            """))
        XCTAssertEqual(track.count, 6)
        XCTAssertEqual(track.segmentStarts, [0, 3])
        XCTAssertEqual(track.name, "First")
        XCTAssertEqual(track.sport, "9", "the first track's type")
        let summary = RunAnalyzer().summarize(track, id: "x")
        XCTAssertEqual(summary.distanceMeters, 4 * Self.equatorStep, accuracy: 1e-4)
        XCTAssertEqual(summary.elapsedSeconds, 30)
        XCTAssertEqual(summary.timerSeconds, 20, "the 10 s between segments is not timer time")
    }

    func testExtensionsUnderAnyPrefixEvenUndeclared() throws {
        let track = try read(gpx11("""
            <trk><trkseg>
            \(point(lon: 0, second: 0, extra: "<extensions><ns3:TrackPointExtension><ns3:hr>101</ns3:hr><ns3:cad>81</ns3:cad></ns3:TrackPointExtension></extensions>"))
            \(point(lon: 0.0001, second: 1, extra: "<extensions><hr>102</hr><cad>82</cad></extensions>"))
            \(point(lon: 0.0002, second: 2, extra: "<extensions><never:declared><never:hr>103</never:hr></never:declared><gpxdata:cadence>83</gpxdata:cadence></extensions>"))
            \(point(lon: 0.0003, second: 3, extra: "<extensions><heartrate>104</heartrate></extensions>"))
            </trkseg></trk>
            """))
        XCTAssertEqual(track.heartRates, [101, 102, 103, 104])
        XCTAssertEqual(Array(track.cadences.prefix(3)), [81, 82, 83])
        XCTAssertTrue(track.cadences[3].isNaN)
    }

    func testPrefixesOfEveryLengthAndColonsInNames() throws {
        // The name scanner works eight bytes at a time: put the colon at every position.
        var points = ""
        for length in 1...20 {
            let prefix = String(repeating: "p", count: length)
            points += point(lon: Double(length) * 0.0001, second: length, extra: "<extensions><\(prefix):hr>\(100 + length)</\(prefix):hr><a:\(prefix):cad>\(length)</a:\(prefix):cad><hr:x>1</hr:x></extensions>")
            points += "\n"
        }
        let track = try read(gpx11("<trk><trkseg>\n\(points)</trkseg></trk>"))
        XCTAssertEqual(track.heartRates, (1...20).map { Double(100 + $0) })
        // <a:ppp:cad>: the local name follows the last colon; <hr:x> is an "x", not a heart rate.
        XCTAssertEqual(track.cadences, (1...20).map { Double($0) })
        let chunked = try read(gpx11("<trk><trkseg>\n\(points)</trkseg></trk>"), chunkSize: 5)
        XCTAssertEqual(chunked.heartRates, track.heartRates)
        XCTAssertEqual(chunked.cadences, track.cadences)
    }

    func testByteOrderMarkAndLeadingWhitespace() throws {
        let text = "\u{FEFF}  \n\t" + gpx11("<trk><trkseg>\(point(lon: 1, second: 0))</trkseg></trk>")
        XCTAssertEqual(Array(text.utf8.prefix(3)), [0xEF, 0xBB, 0xBF])
        let track = try read(text)
        XCTAssertEqual(track.longitudes, [1])
    }

    func testDoctypeEntitiesAreNeverExpanded() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [
              <!ENTITY boom "EXPANDED">
              <!ENTITY lol "&boom;&boom;&boom;">
              <!-- a comment with a > inside -->
              <!ATTLIST gpx note CDATA "x > y">
            ]>
            <gpx version="1.1"><!-- comment --><?pi data?>
            <trk><name>Run &boom; &lol; &amp; co &#65;&#x42;</name><trkseg>\(point(lon: 0, second: 0))</trkseg></trk>
            </gpx>
            """
        let track = try read(text)
        XCTAssertEqual(track.name, "Run &boom; &lol; & co AB")
        XCTAssertEqual(track.count, 1)
    }

    func testCDATANamesAndComments() throws {
        let track = try read(gpx11("""
            <trk><name><![CDATA[Bread & <butter>]]></name><type><!-- c -->trail<!-- c -->_running</type><trkseg>
            <trkpt lat="1" lon="2"><ele><!-- x -->12.5</ele></trkpt>
            </trkseg></trk>
            """))
        XCTAssertEqual(track.name, "Bread & <butter>")
        XCTAssertEqual(track.sport, "trail_running")
        XCTAssertEqual(track.elevations, [12.5])
    }

    func testRoutesAndWaypointsAreNotTrackPoints() throws {
        let track = try read(gpx11("""
            <wpt lat="5" lon="5"><name>Start</name></wpt>
            <rte><rtept lat="6" lon="6"/><rtept lat="7" lon="7"/></rte>
            <trk><trkseg>\(point(lon: 0, second: 0))</trkseg></trk>
            """))
        XCTAssertEqual(track.count, 1)
        XCTAssertEqual(track.latitudes, [0])

        XCTAssertThrowsError(try read(gpx11("<wpt lat=\"5\" lon=\"5\"/><rte><rtept lat=\"6\" lon=\"6\"/></rte>"))) { error in
            guard case .noUsablePoints(let path, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "test.gpx")
            XCTAssertTrue(reason.contains("1 route point(s) and 1 waypoint(s)"), reason)
        }
    }

    func testUTCOffsetOfTheFirstTimestamp() throws {
        let track = try read(gpx11("""
            <trk><trkseg>
            <trkpt lat="0" lon="0"><time>2024-05-01T08:30:00+02:00</time></trkpt>
            <trkpt lat="0" lon="0.0001"><time>2024-05-01T06:30:10Z</time></trkpt>
            </trkseg></trk>
            """))
        XCTAssertEqual(track.utcOffsetSeconds, 7200)
        XCTAssertEqual(track.times, [1_714_545_000, 1_714_545_010])
    }

    func testFileWithoutTimesHasNoElapsedTime() throws {
        let track = try read(gpx11("<trk><trkseg><trkpt lat=\"0\" lon=\"0\"/><trkpt lat=\"0\" lon=\"0.0001\"/></trkseg></trk>"))
        let summary = RunAnalyzer().summarize(track, id: "x")
        XCTAssertNil(summary.elapsedSeconds)
        XCTAssertNil(summary.start)
        XCTAssertEqual(summary.distanceMeters, Self.equatorStep, accuracy: 1e-6)
    }

    func testLeafAndNonLeafElementShapes() throws {
        let track = try read(gpx11("""
            <trk><name>Tom &amp; <b>Jerry</b></name><trkseg>
            <trkpt lat="1" lon="1"></trkpt>
            <trkpt lat="2" lon="2"><ele >5</ele ><time>2024-05-01T06:30:00Z</time
            ><extensions><x:hr>150<!-- bpm --></x:hr><x:cad><![CDATA[90]]></x:cad></extensions></trkpt>
            <trkpt lat="3" lon="3"><ele>6<unexpected/></ele></trkpt>
            </trkseg></trk>
            """))
        XCTAssertEqual(track.name, "Tom & Jerry")
        XCTAssertEqual(track.latitudes, [1, 2, 3])
        XCTAssertEqual(track.elevations[1], 5)
        XCTAssertEqual(track.elevations[2], 6)
        XCTAssertEqual(track.times[1], 1_714_545_000)
        XCTAssertEqual(track.heartRates[1], 150)
        XCTAssertEqual(track.cadences[1], 90)
    }

    // MARK: - Dropped points

    func testDroppedPointsAreCountedByReason() throws {
        let track = try read(gpx11("""
            <trk><trkseg>
            <trkpt lat="0" lon="0"><time>2024-05-01T06:30:00Z</time></trkpt>
            <trkpt lon="1"/>
            <trkpt lat="" lon="1"/>
            <trkpt lat="abc" lon="1"/>
            <trkpt lat="NaN" lon="1"/>
            <trkpt lat="1" lon="1,5"/>
            <trkpt lat="95" lon="1"/>
            <trkpt lat="-90.5" lon="1"/>
            <trkpt lat="1" lon="181"/>
            <trkpt lat="0" lon="0.0001"><time>2024-05-01T06:30:05Z</time></trkpt>
            </trkseg></trk>
            """))
        XCTAssertEqual(track.count, 2)
        XCTAssertEqual(track.dropped, [
            "no position": 1, "unparseable latitude": 3, "unparseable longitude": 1,
            "latitude out of range": 2, "longitude out of range": 1,
        ])
        XCTAssertEqual(track.segmentStarts, [0], "ordinary bad points do not split the segment")
        let summary = RunAnalyzer().summarize(track, id: "x")
        XCTAssertEqual(summary.dropped.map(\.count).reduce(0, +), 8)
    }

    func testOpenTracksPauseMarkersEndTheSegment() throws {
        let track = try read(gpx11("""
            <trk><trkseg>
            \(point(lon: 0, second: 0))\(point(lon: 0.0001, second: 5))
            <trkpt lat="100" lon="0"><time>2024-05-01T06:30:06Z</time></trkpt>
            <trkpt lat="200" lon="0"><time>2024-05-01T06:30:40Z</time></trkpt>
            \(point(lon: 0.0050, second: 41))\(point(lon: 0.0051, second: 46))
            </trkseg></trk>
            """))
        XCTAssertEqual(track.count, 4)
        XCTAssertEqual(track.segmentStarts, [0, 2])
        XCTAssertEqual(track.dropped, ["pause marker (latitude 100 or 200)": 2])
        let summary = RunAnalyzer().summarize(track, id: "x")
        XCTAssertEqual(summary.distanceMeters, 2 * Self.equatorStep, accuracy: 1e-4, "nothing counted across the pause")
        XCTAssertEqual(summary.timerSeconds, 10)
    }

    func testAllPointsDroppedIsNoUsablePoints() {
        XCTAssertThrowsError(try read(gpx11("<trk><trkseg><trkpt lat=\"91\" lon=\"0\"/><trkpt lon=\"0\"/></trkseg></trk>"))) { error in
            guard case .noUsablePoints(_, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("all 2 track point(s) were dropped"), reason)
            XCTAssertTrue(reason.contains("1 latitude out of range"), reason)
            XCTAssertTrue(reason.contains("1 no position"), reason)
        }
    }

    // MARK: - Errors

    func testTruncatedFileNamesTheLine() throws {
        let text = gpx11("<trk><trkseg>\n\(point(lon: 0, second: 0))\n<trkpt lat=\"0\" lon=\"0.0001\">\n<ele>12</ele>\n</trkseg></trk>")
        let cut = String(text[..<(try XCTUnwrap(text.range(of: "<ele>12</ele>\n"))).upperBound])  // ends after line 7
        XCTAssertThrowsError(try read(cut)) { error in
            guard case .malformed(let path, let line, _, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "test.gpx")
            XCTAssertEqual(line, 8, "the end of the file, after the newline of line 7")
            XCTAssertTrue(reason.contains("<trkpt> is closed"), reason)
            XCTAssertTrue(reason.contains("opened at line 6"), reason)
        }
        // Cut inside a tag.
        let inTag = String(text[..<(try XCTUnwrap(text.range(of: "lon=\"0.00"))).upperBound])
        XCTAssertThrowsError(try read(inTag)) { error in
            guard case .malformed(_, let line, _, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 6)
            XCTAssertTrue(reason.contains("inside"), reason)
        }
    }

    func testMismatchedEndTagIsMalformed() {
        let text = gpx11("<trk><trkseg>\n<trkpt lat=\"0\" lon=\"0\">\n<ele>1</time>\n</trkpt></trkseg></trk>")
        XCTAssertThrowsError(try read(text)) { error in
            guard case .malformed(_, let line, _, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 6)
            XCTAssertTrue(reason.contains("</time> does not match <ele>"), reason)
            XCTAssertTrue((error as? ActivityError)?.description.contains("test.gpx:6") ?? false)
        }
    }

    func testNotGPX() {
        let tcx = "<?xml version=\"1.0\"?>\n<TrainingCenterDatabase><Activities/></TrainingCenterDatabase>"
        for (text, expected) in [
            (tcx, "root element is <TrainingCenterDatabase>"),
            ("{\"start\": 1}", "text before the root element"),
            ("", "no root element"),
            ("   \n", "no root element"),
        ] {
            XCTAssertThrowsError(try read(text)) { error in
                guard case .notFormat(let path, let format, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
                XCTAssertEqual(path, "test.gpx")
                XCTAssertEqual(format, "gpx")
                XCTAssertTrue(reason.contains(expected), reason)
            }
        }
    }

    func testUnreadableFile() {
        XCTAssertThrowsError(try GPXReader.read(path: "/nonexistent/dir/run.gpx")) { error in
            guard case .unreadable(let path, _)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/nonexistent/dir/run.gpx")
        }
    }

    // MARK: - Track point fast path

    /// A Garmin Connect-style point (the shape the scanner reads in one go) and variants whose
    /// shape breaks somewhere in the middle, so the general path must take over from the start tag.
    /// Read whole (fast path where the shape holds) and in chunks of every small size (boundaries
    /// inside each point send it down the general path), the values must be the same.
    func testTrackPointFastPathAndItsBreaks() throws {
        func garmin(_ lat: String, _ body: String) -> String {
            "      <trkpt lat=\"\(lat)\" lon=\"4.89521157927811145782470703125\">\n\(body)      </trkpt>\n"
        }
        let extensions = """
                    <extensions>
                      <gpxtpx:TrackPointExtension>
                        <gpxtpx:atemp>21.0</gpxtpx:atemp>
                        <gpxtpx:hr>94</gpxtpx:hr>
                        <gpxtpx:cad>83</gpxtpx:cad>
                      </gpxtpx:TrackPointExtension>
                    </extensions>

            """
        let points = [
            // 0: the usual shape, with an explicit offset on the file's first timestamp.
            garmin("52.37016328610479831695556640625", "        <ele>45.5625</ele>\n        <time>2024-05-01T08:30:00.000+02:00</time>\n" + extensions),
            // 1: a comment after <hr>: broken halfway.
            garmin("1", "<ele>1.5</ele><time>2024-05-01T06:30:01Z</time><extensions><x:hr>95</x:hr><!-- c --><x:cad>84</x:cad></extensions>"),
            // 2: an attribute on <ele>, after the time.
            garmin("2", "<time>2024-05-01T06:30:02Z</time><ele unit=\"m\">7</ele><extensions><hr>96</hr></extensions>"),
            // 3: an <ele> below <extensions> is not the point's; Cluetrust names; empty <ele>.
            garmin("3", "<ele>8</ele><ele></ele><extensions><ele>999</ele><heartrate>97</heartrate><cadence>85</cadence></extensions>"),
            // 4: an unparseable time then a good one; an unparseable heart rate.
            garmin("4", "<time>yesterday</time><time>2024-05-01T06:30:04Z</time><extensions><hr>fast</hr><cad> 86 </cad></extensions>"),
            // 5: text inside an ignored element (the general path ignores it).
            garmin("5", "<extensions>note<hr>98</hr></extensions><time>2024-05-01T06:30:05Z</time>"),
            // 6: a space before the end tag's '>' (of a child, then of the point itself).
            "<trkpt lat=\"6\" lon=\"6\"><ele>9</ele ><extensions><hr>99</hr></extensions></trkpt >\n",
            // 7: nesting deeper than the fast path keeps.
            garmin("7", "<a><b><c><d><e><f><g><h><i><hr>100</hr></i></h></g></f></e></d></c></b></a><cad>87</cad>"),
            // 8: CDATA in a value; a <name> inside the point.
            garmin("8", "<name>n</name><ele><![CDATA[10]]></ele><time>2024-05-01T06:30:08Z</time>"),
            // 9: self-closing children and a child with children under <ele>.
            garmin("9", "<ele/><extensions/><time>2024-05-01T06:30:09Z</time><hr>101<x/></hr>"),
            // 10: the usual shape again, after all that.
            garmin("10", "        <ele>11</ele>\n        <time>2024-05-01T06:30:10.000Z</time>\n" + extensions),
            // 11: indentation of every length, tabs, CRLF line ends.
            garmin("11", "\n" + (0...20).map { "\n" + String(repeating: " ", count: $0) + "<x>\($0)</x>" }.joined()
                + "\n\t\t<ele>12</ele>\r\n        <hr>102</hr>\n                 \t <cad>88</cad>\n"),
            // 12, 13: the usual shape twice (the second repeats the first's names), 14: the
            // same shape with names that extend the usual ones (<timex>, <gpxtpx:hrm>: ignored)
            // or are cut short (<gpxtpx:ca>), 15: the usual shape again.
            garmin("12", "        <ele>13</ele>\n        <time>2024-05-01T06:30:12.000Z</time>\n" + extensions),
            garmin("13", "        <ele>14</ele>\n        <time>2024-05-01T06:30:13.000Z</time>\n" + extensions),
            garmin("14", "        <ele>15</ele>\n        <timex>2024-05-01T06:30:14.000Z</timex>\n"
                + extensions.replacingOccurrences(of: "gpxtpx:hr>", with: "gpxtpx:hrm>").replacingOccurrences(of: "gpxtpx:cad>", with: "gpxtpx:ca>")),
            garmin("15", "        <ele>16</ele>\n        <time>2024-05-01T06:30:15.000Z</time>\n" + extensions),
        ]
        let text = gpx11("<trk><trkseg>\n" + points.joined() + "</trkseg></trk>")
        let whole = try read(text)
        let nan = Double.nan
        XCTAssertEqual(whole.latitudes[0], 52.370163286104798, accuracy: 1e-13)
        XCTAssertEqual(whole.latitudes.dropFirst(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
        XCTAssertEqual(whole.elevations.map(\.bitPattern), [45.5625, 1.5, 7, 8, nan, nan, 9, nan, 10, nan, 11, 12, 13, 14, 15, 16].map(\.bitPattern))
        let t0 = 1_714_545_000.0
        XCTAssertEqual(whole.times.map(\.bitPattern), [t0, t0 + 1, t0 + 2, nan, t0 + 4, t0 + 5, nan, nan, t0 + 8, t0 + 9, t0 + 10, nan, t0 + 12, t0 + 13, nan, t0 + 15].map(\.bitPattern))
        XCTAssertEqual(whole.heartRates.map(\.bitPattern), [94, 95, 96, 97, nan, 98, 99, 100, nan, 101, 94, 102, 94, 94, nan, 94].map(\.bitPattern))
        XCTAssertEqual(whole.cadences.map(\.bitPattern), [83, 84, nan, 85, 86, nan, nan, 87, nan, nan, 83, 88, 83, 83, nan, 83].map(\.bitPattern))
        XCTAssertEqual(whole.utcOffsetSeconds, 7200)
        for chunk in Array(1...40) + [64, 100, 150, 200, 300, 500] {
            let t = try read(text, chunkSize: chunk)
            XCTAssertEqual(t.latitudes, whole.latitudes, "chunk \(chunk)")
            XCTAssertEqual(t.longitudes, whole.longitudes, "chunk \(chunk)")
            XCTAssertEqual(t.elevations.map(\.bitPattern), whole.elevations.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.times.map(\.bitPattern), whole.times.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.heartRates.map(\.bitPattern), whole.heartRates.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.cadences.map(\.bitPattern), whole.cadences.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.utcOffsetSeconds, whole.utcOffsetSeconds, "chunk \(chunk)")
            XCTAssertEqual(t.segmentStarts, whole.segmentStarts, "chunk \(chunk)")
        }
    }

    /// Generated runs in both GPX styles, with pauses of every kind: read whole (the fast path
    /// takes nearly every point) and in 64-byte chunks (no point fits a window: the general path
    /// reads them all), every column must be bit for bit the same.
    func testFastAndGeneralPathsAgreeOnGeneratedRuns() throws {
        let cases: [(RunGenerator.GPXStyle, RunGenerator.PauseStyle)] = [(.garminConnect, .newSegment), (.compact, .timeGap), (.garminConnect, .standing)]
        for (index, (style, pauses)) in cases.enumerated() {
            var generator = RunGenerator(seed: UInt64(11 + index), distanceMeters: 2000)
            generator.style = style
            generator.pauseCount = 2
            generator.pauseStyle = pauses
            let bytes = generator.gpxBytes()
            let fast = try GPXReader.read(bytes: bytes, source: "run.gpx")
            let general = try GPXReader.read(bytes: bytes, source: "run.gpx", chunkSize: 64)
            XCTAssertGreaterThan(fast.count, 100)
            XCTAssertEqual(fast.latitudes.map(\.bitPattern), general.latitudes.map(\.bitPattern))
            XCTAssertEqual(fast.longitudes.map(\.bitPattern), general.longitudes.map(\.bitPattern))
            XCTAssertEqual(fast.elevations.map(\.bitPattern), general.elevations.map(\.bitPattern))
            XCTAssertEqual(fast.times.map(\.bitPattern), general.times.map(\.bitPattern))
            XCTAssertEqual(fast.heartRates.map(\.bitPattern), general.heartRates.map(\.bitPattern))
            XCTAssertEqual(fast.cadences.map(\.bitPattern), general.cadences.map(\.bitPattern))
            XCTAssertEqual(fast.segmentStarts, general.segmentStarts)
            XCTAssertEqual(fast.dropped, general.dropped)
            XCTAssertEqual(fast.utcOffsetSeconds, general.utcOffsetSeconds)
            XCTAssertEqual(fast.name, general.name)
            XCTAssertEqual(fast.sport, general.sport)
        }
    }

    /// After eight points in a row of another shape the fast path is tried only now and then;
    /// when the usual shape comes back it takes over again. Either way the values are the same.
    func testFastPathBacksOffAndComesBack() throws {
        func point(_ k: Int, broken: Bool) -> String {
            let second = String(format: "%02d", k % 60), minute = String(format: "%02d", k / 60)
            let comment = broken ? "<!-- c -->" : ""
            return "<trkpt lat=\"1.\(k)\" lon=\"2\">\n <ele>\(k)</ele>\n <time>2024-05-01T07:\(minute):\(second)Z</time>\n"
                + " <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>\(100 + k % 50)</gpxtpx:hr>\(comment)<gpxtpx:cad>\(k % 90)</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions>\n</trkpt>\n"
        }
        let body = (0..<300).map { point($0, broken: (0..<150).contains($0)) }.joined()
        let text = gpx11("<trk><trkseg>\n" + body + "</trkseg></trk>")
        let whole = try read(text)
        let general = try read(text, chunkSize: 64)
        XCTAssertEqual(whole.count, 300)
        XCTAssertEqual(whole.elevations, (0..<300).map(Double.init))
        XCTAssertEqual(whole.heartRates, (0..<300).map { Double(100 + $0 % 50) })
        XCTAssertEqual(whole.cadences, (0..<300).map { Double($0 % 90) })
        XCTAssertEqual(whole.times, (0..<300).map { 1_714_546_800 + Double($0) })
        XCTAssertEqual(whole.latitudes.map(\.bitPattern), general.latitudes.map(\.bitPattern))
        XCTAssertEqual(whole.times.map(\.bitPattern), general.times.map(\.bitPattern))
    }

    /// From one point read on the fast path the scanner goes straight on to the next when it is a
    /// sibling with the same name and the usual attributes; anything else between or in the points
    /// (text, a comment, a pause marker, other names and attributes, a self-closing point, a point
    /// the fast path gives back, a new segment) stops that and the general path decides, with the
    /// same values. Read whole and in chunks of many sizes.
    func testPointToPointContinuationAndItsStops() throws {
        func point(_ lat: String, _ lon: String = "4.5", name: String = "trkpt", attributes: String? = nil, ele: Int, hr: Int) -> String {
            "<\(name) \(attributes ?? "lat=\"\(lat)\" lon=\"\(lon)\"")>\n  <ele>\(ele)</ele>\n  <extensions><gpxtpx:hr>\(hr)</gpxtpx:hr></extensions>\n</\(name)>\n"
        }
        let body = [
            point("1", ele: 1, hr: 101), point("2", ele: 2, hr: 102), point("3", ele: 3, hr: 103),
            "text between points\n",
            point("4", ele: 4, hr: 104),
            "<!-- a comment -->\n",
            point("5", ele: 5, hr: 105),
            point("6", attributes: "lon=\"4.5\" lat=\"6\"", ele: 6, hr: 106),  // either order continues
            point("7", attributes: "lat=\"7\" lon=\"4.5\" extra=\"x\"", ele: 7, hr: 107),
            point("8", attributes: "lat='8' lon='4.5'", ele: 8, hr: 108),
            point("9", ele: 9, hr: 109),
            "<trkpt lat=\"10\" lon=\"4.5\"/>\n",
            point("11", ele: 11, hr: 111),
            point("95", ele: 12, hr: 112),  // latitude out of range: dropped
            point("abc", ele: 13, hr: 113),  // unparseable: dropped
            point("100", ele: 14, hr: 114),  // pause marker: a new segment
            point("15", ele: 15, hr: 115),
            "<trkpt lat=\"16\" lon=\"4.5\"><ele>16</ele><!-- c --><extensions><gpxtpx:hr>116</gpxtpx:hr></extensions></trkpt>\n",
            point("17", ele: 17, hr: 117),
            "<trkpt lat=\"18\" lon=\"4.5\">\n  <ele>18</ele>\n</trkpt >\n",  // the fast path gives it back
            point("19", ele: 19, hr: 119),
            point("20", name: "trkptx", ele: 20, hr: 120),  // not a track point
            point("21", attributes: "lat=\"21\"", ele: 21, hr: 121),  // no position: dropped
            point("22", ele: 22, hr: 122),
            "</trkseg><trkseg>\n",
            point("23", ele: 23, hr: 123), point("24", ele: 24, hr: 124),
        ].joined()
        let text = gpx11("<trk><trkseg>\n" + body + "</trkseg></trk>")
        let whole = try read(text)
        let kept: [Double] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 16, 17, 18, 19, 22, 23, 24]
        XCTAssertEqual(whole.latitudes, kept)
        XCTAssertEqual(whole.elevations.map(\.bitPattern), kept.map { $0 == 10 ? Double.nan : $0 }.map(\.bitPattern))
        XCTAssertEqual(whole.heartRates.map(\.bitPattern), kept.map { $0 == 10 || $0 == 18 ? Double.nan : 100 + $0 }.map(\.bitPattern))
        XCTAssertEqual(whole.segmentStarts, [0, 11, 17])
        XCTAssertEqual(whole.dropped, ["latitude out of range": 1, "unparseable latitude": 1, "pause marker (latitude 100 or 200)": 1, "no position": 1])
        for chunk in Array(1...24) + [40, 64, 100, 150, 200, 300, 500] {
            let t = try read(text, chunkSize: chunk)
            XCTAssertEqual(t.latitudes, whole.latitudes, "chunk \(chunk)")
            XCTAssertEqual(t.elevations.map(\.bitPattern), whole.elevations.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.heartRates.map(\.bitPattern), whole.heartRates.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.segmentStarts, whole.segmentStarts, "chunk \(chunk)")
            XCTAssertEqual(t.dropped, whole.dropped, "chunk \(chunk)")
        }
        // Every point dropped, most of them on the continuation, some given back to the general
        // path after their start tag was read (a comment inside): each still counts once.
        let dropped = (0..<20).map { k in
            let p = point(k % 2 == 0 ? "91" : "x", ele: k, hr: 100)
            return k % 3 == 1 ? p.replacingOccurrences(of: "</ele>", with: "</ele><!-- c -->") : p
        }.joined()
        XCTAssertThrowsError(try read(gpx11("<trk><trkseg>\n" + dropped + "</trkseg></trk>"))) { error in
            guard case .noUsablePoints(_, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("all 20 track point(s) were dropped"), reason)
            XCTAssertTrue(reason.contains("10 latitude out of range"), reason)
            XCTAssertTrue(reason.contains("10 unparseable latitude"), reason)
        }
    }

    /// The point's usual attributes (` lat="…" lon="…">`) are read on a fast path; every other
    /// form goes the general way, with the same values.
    func testTrackPointAttributeForms() throws {
        let forms = [
            #"<trkpt lat="1" lon="2">"#, #"<trkpt lon="2" lat="1">"#, #"<trkpt lat="1" lon="2" >"#,
            #"<trkpt  lat="1" lon="2">"#, #"<trkpt lat = "1" lon="2">"#, #"<trkpt lat="1" lon="2" ele="3">"#,
            #"<trkpt x:lat="1" lon="2">"#, #"<trkpt lat="1" lon='2'>"#, #"<trkpt lat="9" lat="1" lon="2">"#,
            "<trkpt\tlat=\"1\"\nlon=\"2\">", #"<trkpt lat="1" lon="2" lat="1">"#, #"<trkpt lat="" lon="2">"#,
            #"<trkpt lat="1">"#, #"<trkpt lat="1" lon="2"/>"#,
        ]
        let body = forms.map { $0.hasSuffix("/>") ? $0 : $0 + "<ele>5</ele></trkpt>" }.joined(separator: "\n")
        let text = gpx11("<trk><trkseg>\n" + body + "\n</trkseg></trk>")
        let whole = try read(text)
        XCTAssertEqual(whole.latitudes, Array(repeating: 1, count: 12))
        XCTAssertEqual(whole.longitudes, Array(repeating: 2, count: 12))
        XCTAssertEqual(Array(whole.elevations.prefix(11)), Array(repeating: 5, count: 11))
        XCTAssertTrue(whole.elevations[11].isNaN)
        XCTAssertEqual(whole.dropped, ["unparseable latitude": 1, "no position": 1])
        for chunk in [1, 2, 3, 5, 8, 13, 21, 34] {
            let t = try read(text, chunkSize: chunk)
            XCTAssertEqual(t.latitudes, whole.latitudes, "chunk \(chunk)")
            XCTAssertEqual(t.longitudes, whole.longitudes, "chunk \(chunk)")
            XCTAssertEqual(t.elevations.map(\.bitPattern), whole.elevations.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.dropped, whole.dropped, "chunk \(chunk)")
        }
    }

    /// Errors inside a point in the usual shape are the general path's, with its line numbers.
    func testTrackPointFastPathErrorsKeepTheirLines() {
        let cases = [
            ("<trkpt lat=\"0\" lon=\"0\">\n<ele>1</ele>\n<extensions><hr>1</cad></extensions>\n</trkpt>", 7, "</cad> does not match <hr>"),
            ("<trkpt lat=\"0\" lon=\"0\">\n<ele>1</ele>\n<extensions>\n</extension>\n</trkpt>", 8, "</extension> does not match <extensions>"),
            ("<trkpt lat=\"0\" lon=\"0\">\n<ele>1</ele>\n</trkp>", 7, "</trkp> does not match <trkpt>"),
        ]
        for (point, line, expected) in cases {
            let text = gpx11("<trk><trkseg>\n" + point + "</trkseg></trk>")
            XCTAssertThrowsError(try read(text)) { error in
                guard case .malformed(_, let l, _, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
                XCTAssertEqual(l, line, reason)
                XCTAssertTrue(reason.contains(expected), reason)
            }
        }
    }

    // MARK: - Chunk boundaries

    /// Every split of the input must give the same track as reading it whole.
    func testChunkBoundariesFallAnywhere() throws {
        let text = "\u{FEFF}" + """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [ <!ENTITY e "x"> ]>
            <gpx version="1.1" xmlns:gpxtpx="g">
            <metadata><name>Meta &amp; name</name></metadata>
            <!-- a comment -->
            <trk><name><![CDATA[Chunky <run>]]></name><type>running</type>
            <trkseg>
            <trkpt lat="52.123456789" lon='-4.987654321'><ele>10.25</ele><time>2024-05-01T08:30:00.125+02:00</time>
            <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>130</gpxtpx:hr><gpxtpx:cad>85</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="52.123466789" lon="-4.987644321"><ele>11</ele><time>2024-05-01T08:30:01+02:00</time></trkpt>
            <trkpt lat="100" lon="0"/>
            </trkseg>
            <trkseg><trkpt lat="52.2" lon="-4.9"   /></trkseg>
            </trk>
            </gpx>
            trailing junk is ignored
            """
        let whole = try read(text)
        XCTAssertEqual(whole.count, 3)
        XCTAssertEqual(whole.segmentStarts, [0, 2])
        XCTAssertEqual(whole.name, "Chunky <run>")
        XCTAssertEqual(whole.utcOffsetSeconds, 7200)
        XCTAssertEqual(whole.times[0], 1_714_545_000.125, accuracy: 1e-9)
        for chunk in 1...24 {
            let t = try read(text, chunkSize: chunk)
            XCTAssertEqual(t.latitudes, whole.latitudes, "chunk \(chunk)")
            XCTAssertEqual(t.longitudes, whole.longitudes, "chunk \(chunk)")
            XCTAssertEqual(t.elevations.map(\.bitPattern), whole.elevations.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.times.map(\.bitPattern), whole.times.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.heartRates.map(\.bitPattern), whole.heartRates.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.cadences.map(\.bitPattern), whole.cadences.map(\.bitPattern), "chunk \(chunk)")
            XCTAssertEqual(t.segmentStarts, whole.segmentStarts, "chunk \(chunk)")
            XCTAssertEqual(t.name, whole.name, "chunk \(chunk)")
            XCTAssertEqual(t.sport, whole.sport, "chunk \(chunk)")
            XCTAssertEqual(t.utcOffsetSeconds, whole.utcOffsetSeconds, "chunk \(chunk)")
            XCTAssertEqual(t.dropped, whole.dropped, "chunk \(chunk)")
        }
    }

    func testChunkedFileReadingMatchesAndErrorsKeepLines() throws {
        var generator = RunGenerator(seed: 7, distanceMeters: 300)
        generator.pauseCount = 1
        generator.pauseStyle = .newSegment
        let bytes = generator.gpxBytes()
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let path = temporary.path + "/run.gpx"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let whole = try GPXReader.read(bytes: bytes, source: path)
        for chunk in [1, 7, 64, 4096] {
            let t = try GPXReader.read(path: path, chunkSize: chunk)
            XCTAssertEqual(t.latitudes, whole.latitudes)
            XCTAssertEqual(t.times, whole.times)
            XCTAssertEqual(t.heartRates, whole.heartRates)
            XCTAssertEqual(t.segmentStarts, whole.segmentStarts)
        }
        // Truncate the file: the line reported is the last line, counted from the file.
        let cut = Array(bytes.prefix(bytes.count / 2))
        try Data(cut).write(to: URL(fileURLWithPath: path))
        let lines = 1 + cut.filter { $0 == 0x0A }.count
        XCTAssertThrowsError(try GPXReader.read(path: path, chunkSize: 100)) { error in
            guard case .malformed(_, let line, let offset, _)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(line, lines)
            // The offset is where the cut-off token starts, on the last line.
            XCTAssertLessThanOrEqual(offset ?? -1, cut.count)
            XCTAssertGreaterThan(offset ?? -1, cut.count - 200)
        }
    }

    // MARK: - Numbers

    func testDecimalParserAgainstSwift() {
        var rng = SplitMix64(seed: 12345)
        func check(_ text: String) {
            let expected = Double(text.trimmingCharacters(in: .whitespaces))
            let got = Array(text.utf8).withUnsafeBufferPointer { buf in
                buf.baseAddress.flatMap { XMLBytes.parseDouble($0, count: buf.count) }
            }
            guard let expected, let got else { return XCTAssertEqual(got, expected, text) }
            let digits = text.filter(\.isNumber).drop { $0 == "0" }.count
            if digits <= 15 {
                XCTAssertEqual(got, expected, text)  // correctly rounded
            } else {
                XCTAssertLessThanOrEqual(abs(got - expected), expected.ulp, text)
            }
        }
        for _ in 0..<20_000 {
            let lat = rng.uniform() * 180 - 90
            let lon = rng.uniform() * 360 - 180
            for decimals in [5, 6, 7, 9, 12, 15, 17] {
                check(RunGenerator.fixed(lat, decimals))
                check(RunGenerator.fixed(lon, decimals))
            }
            check(String(lat))
            check(RunGenerator.exactSemicircleDecimal(lon))
            check(RunGenerator.exactFloatDecimal(Float(rng.uniform() * 5000 - 100)))
        }
        for text in ["0", "-0", "+1", "1.", ".5", "1e3", "1.5E-3", "  42  ", "007.50", "1e-30", "4.9e-324", "123456789012345678901234567890",
            // Words of eight fraction digits: all zeros, leading zeros, cut at the 19th digit.
            "0.00000000", "0.000000001", "0.0000000012345678", "0.12345678", "0.0123456789012345678901",
            "12.34567890123456789", "1234567890.123456789012345", "-0.000012345678901234567890123",
            "52.37016328610479831695556640625", "4.89521157927811145782470703125"] {
            check(text)
        }
        for text in ["", " ", "-", ".", "e5", "1e", "NaN", "inf", "1,5", "1.2.3", "12a", "--1", "1e999"] {
            let got = Array(text.utf8).withUnsafeBufferPointer { buf in
                buf.baseAddress.flatMap { XMLBytes.parseDouble($0, count: buf.count) }
            }
            XCTAssertNil(got, "'\(text)'")
        }
    }
}
