import RunFixtures
@testable import RunAnalysis
@testable import RunFiles
import RunLibrary
import SyntheticRuns
import XCTest

/// `run.gps`, `run.indoor`, `run.manual` and `run.device` where files say so: FIT sub_sport and file_id,
/// TCX Creator, GPX creator, a JSON summary's own fields and sport words such as "treadmill".
final class RunOriginTests: XCTestCase {
    func summary(_ bytes: [UInt8], _ name: String) throws -> RunSummary {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.url
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let runs = try RunLoader.load(path: path, id: name, analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)
        return try XCTUnwrap(runs.first)
    }

    func testFITSubSportAndMaker() throws {
        var track = RunGenerator(seed: 1, distanceMeters: 1000, paceSecondsPerKilometre: 300).track()
        let outdoor = try summary(FITWriter.encode(track: track), "out.fit")
        XCTAssertEqual(outdoor.gps, true)
        XCTAssertNil(outdoor.indoor, "the file says nothing")
        XCTAssertEqual(outdoor.device, "Development", "FITWriter's file_id manufacturer, 255")
        track.indoor = true
        let indoor = try summary(FITWriter.encode(track: track), "in.fit")
        XCTAssertEqual(indoor.indoor, true, "sub_sport 1, treadmill")
        XCTAssertEqual(indoor.manual, false)
    }

    func testTCXCreatorAndGPXCreator() throws {
        let tcx = """
            <?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Id>2024-05-01T07:00:00Z</Id>
            <Lap StartTime="2024-05-01T07:00:00Z"><Track>
            <Trackpoint><Time>2024-05-01T07:00:00Z</Time><DistanceMeters>0</DistanceMeters></Trackpoint>
            <Trackpoint><Time>2024-05-01T07:05:00Z</Time><DistanceMeters>1000</DistanceMeters></Trackpoint>
            </Track></Lap>
            <Creator xsi:type="Device_t" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><Name>Forerunner 945</Name><UnitId>1</UnitId></Creator>
            </Activity></Activities></TrainingCenterDatabase>
            """
        let treadmill = try summary(Array(tcx.utf8), "t.tcx")
        XCTAssertEqual(treadmill.device, "Forerunner 945")
        XCTAssertEqual(treadmill.gps, false, "no positions")
        var generator = RunGenerator(seed: 2, distanceMeters: 1000, paceSecondsPerKilometre: 300)
        generator.sport = "treadmill"
        let gpx = try summary(generator.gpxBytes(), "g.gpx")
        XCTAssertEqual(gpx.device, "badgectl RunGenerator")
        XCTAssertEqual(gpx.indoor, true, "the sport word says so")
        XCTAssertEqual(gpx.gps, true)
    }

    func testAJSONSummarySaysItself() throws {
        let manual = try summary(Array(#"{ "start": "2024-05-01T07:00:00Z", "distance_m": 5000, "duration_s": 1500, "manual": true, "indoor": false, "device": "Treadmill 3000" }"#.utf8), "m.json")
        XCTAssertEqual(manual.manual, true)
        XCTAssertEqual(manual.indoor, false)
        XCTAssertEqual(manual.device, "Treadmill 3000")
        XCTAssertEqual(manual.gps, false)
        let plain = try summary(Array(#"{ "start": "2024-05-01T07:00:00Z", "distance_m": 5000, "duration_s": 1500, "sport": "Treadmill" }"#.utf8), "p.json")
        XCTAssertEqual(plain.manual, false)
        XCTAssertEqual(plain.indoor, true)
        XCTAssertThrowsError(try summary(Array(#"{ "start": "2024-05-01T07:00:00Z", "distance_m": 5000, "duration_s": 1500, "manual": "yes" }"#.utf8), "b.json")) { error in
            XCTAssertTrue("\(error)".contains("manual") && "\(error)".contains("must be true or false"), "\(error)")
        }
    }
}
