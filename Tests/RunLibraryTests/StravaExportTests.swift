import RunFixtures
import Foundation
import RunAnalysis
import XCTest

@testable import RunFiles
@testable import RunLibrary
@testable import SyntheticRuns

final class StravaExportTests: XCTestCase {
    /// The shape of a real export's header: `Elapsed Time` and `Distance` appear twice (user units
    /// first, then seconds/metres), quoted dates with commas, a description with quotes and a line break.
    let csv = """
        Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Max Heart Rate,Relative Effort,Commute,Activity Private Note,Activity Gear,Filename,Athlete Weight,Bike Weight,Elapsed Time,Moving Time,Distance,Max Speed,Average Speed,Elevation Gain\r
        1234567890,"Mar 11, 2019, 5:40:43 PM",Morning Run,Run,"Easy, with ""strides""\r
        and a second line",2400,8.02,171.0,35.0,false,,Pegasus 35,activities/1234567890.gpx.gz,70.0,,2400.0,2310.0,8020.5,4.9,3.47,41.0\r
        2345678901,"Mar 12, 2019, 12:00:05 AM",Commute,Ride,,1800,10.5,,,true,,,activities/2345678901.fit.gz,,,1800.0,1700.0,10500.2,,,\r
        3456789012,"Apr 1, 2019, 12:15:00 PM",Treadmill,Run,,1200,3.0,,,false,,,,,,1200.0,1200.0,3000.0,,,\r
        \r
        4567890123,"2 Apr 2019, 07:05:09","Name, with comma",Trail Run,,3600,9.9,,,false,,,activities/4567890123.tcx.gz,,,3600.0,3500.0,9900.0,,,\r

        """

    func testRowsByFirstColumnOccurrence() throws {
        let rows = try StravaExport.read(csv: Array(csv.utf8), source: "x/activities.csv", directory: "x")
        XCTAssertEqual(rows.map(\.id), ["1234567890", "2345678901", "3456789012", "4567890123"])
        XCTAssertEqual(rows.map(\.type), ["Run", "Ride", "Run", "Trail Run"])
        XCTAssertEqual(rows.map(\.sport), ["running", "cycling", "running", "running"])
        XCTAssertEqual(rows[0].name, "Morning Run")
        XCTAssertEqual(rows[3].name, "Name, with comma")
        XCTAssertEqual(rows[0].filename, "activities/1234567890.gpx.gz")
        XCTAssertEqual(rows[0].path, "x/activities/1234567890.gpx.gz")
        XCTAssertNil(rows[2].filename, "a manual entry has no file")
        XCTAssertEqual(rows[0].elapsedSeconds, 2400, "the first Elapsed Time column")
        XCTAssertEqual(rows[0].date, "Mar 11, 2019, 5:40:43 PM")
        XCTAssertEqual(rows[0].startEpochSeconds, 1_552_326_043)  // 2019-03-11T17:40:43Z
        XCTAssertEqual(rows[1].startEpochSeconds, 1_552_348_805)  // 2019-03-12T00:00:05Z
        XCTAssertEqual(rows[2].startEpochSeconds, 1_554_120_900)  // 2019-04-01T12:15:00Z
        XCTAssertEqual(rows[3].startEpochSeconds, 1_554_188_709)  // 2019-04-02T07:05:09Z
        XCTAssertEqual(rows.map(\.line), [2, 4, 5, 7])
    }

    func testCSVQuotingAndErrors() throws {
        let rows = try CSV.parse(Array("\u{FEFF}a,\"b,\"\"c\"\"\n\"\nlast,\"\",".utf8), source: "q.csv")
        XCTAssertEqual(rows, [CSV.Row(fields: ["a", "b,\"c\"\n"], line: 1), CSV.Row(fields: ["last", "", ""], line: 3)])
        XCTAssertThrowsError(try CSV.parse(Array("a,b\nc,\"never closed\n".utf8), source: "u.csv")) { error in
            guard case ActivityError.malformed(let path, let line, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "u.csv"); XCTAssertEqual(line, 2)
        }
        XCTAssertThrowsError(try StravaExport.read(csv: Array("Activity ID,Activity Date\n1,2\n".utf8), source: "h.csv", directory: ".")) { error in
            XCTAssertTrue("\(error)".contains("no 'Activity Name' column"), "\(error)")
        }
        let short = "Activity ID,Activity Date,Activity Name,Activity Type,Filename\n1,x,y\n"
        XCTAssertThrowsError(try StravaExport.read(csv: Array(short.utf8), source: "s.csv", directory: ".")) { error in
            XCTAssertTrue("\(error)".contains("s.csv:2"), "\(error)")
        }
        let escape = "Activity ID,Activity Date,Activity Name,Activity Type,Filename\n1,x,y,Run,../../etc/passwd\n"
        XCTAssertThrowsError(try StravaExport.read(csv: Array(escape.utf8), source: "e.csv", directory: ".")) { error in
            XCTAssertTrue("\(error)".contains("outside the export folder"), "\(error)")
        }
    }

    func testExportFolderOnDisk() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let dir = temporary.url
        let fm = FileManager.default
        XCTAssertFalse(StravaExport.isExport(directory: dir.path))
        try Data(csv.utf8).write(to: dir.appendingPathComponent("activities.csv"))
        XCTAssertFalse(StravaExport.isExport(directory: dir.path), "no activities/ folder yet")
        try fm.createDirectory(at: dir.appendingPathComponent("activities"), withIntermediateDirectories: true)
        XCTAssertTrue(StravaExport.isExport(directory: dir.path))
        // A file named in the CSV, gzip'd FIT as Strava stores it, read through its path.
        var track = Track(source: "gen")
        for k in 0..<20 { track.append(latitude: 45 + Double(k) * 1e-4, longitude: 7, time: 1_552_348_805 + Double(k)) }
        let rows = try StravaExport.read(directory: dir.path)
        let ride = try XCTUnwrap(rows.first { $0.id == "2345678901" })
        let path = try XCTUnwrap(ride.path)
        try Data(Gzip.compress(FITWriter.encode(track: track, sport: 2))).write(to: URL(fileURLWithPath: path))
        let read = try XCTUnwrap(FITReader.read(path: path).first)
        XCTAssertEqual(read.count, 20)
        XCTAssertEqual(Sport.normalise(read.sport), ride.sport)
    }
}
