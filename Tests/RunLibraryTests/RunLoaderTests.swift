import RunFixtures
@testable import RunAnalysis
@testable import RunFiles
@testable import RunLibrary
import XCTest

final class RunLoaderTests: XCTestCase {
    var temporary: TemporaryFolder!
    var root = ""

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        root = temporary.path
        let fm = FileManager.default
        for dir in ["", "/2024", "/2024/may", "/.git", "/.hidden-dir", "/empty"] {
            try fm.createDirectory(atPath: root + dir, withIntermediateDirectories: true)
        }
        let gpx = """
            <?xml version="1.0"?><gpx version="1.1"><trk><name>Loop</name><trkseg>
            <trkpt lat="0" lon="0"><time>2024-05-01T06:30:00Z</time></trkpt>
            <trkpt lat="0" lon="0.0001"><time>2024-05-01T06:30:05Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let json = #"{"start": "2024-05-02T07:00:00+02:00", "distance_m": 5000, "duration_s": 1500}"#
        let files: [(String, String)] = [
            ("/b.gpx", gpx), ("/A.GPX", gpx), ("/2024/may/run.Json", json), ("/2024/z.gpx", gpx),
            ("/notes.txt", "hello"), ("/2024/photo.jpg", ""), ("/.hidden.gpx", gpx), ("/.git/x.gpx", gpx),
            ("/.hidden-dir/y.gpx", gpx), ("/gpx", "no extension"),
        ]
        for (name, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: root + name))
        }
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func testDiscoverRecursesSortsAndSkipsHidden() throws {
        let found = try RunLoader.discover(directory: root)
        let (runs, ignored) = (found.runs, found.ignored)
        XCTAssertEqual(runs, ["2024/may/run.Json", "2024/z.gpx", "A.GPX", "b.gpx"])
        XCTAssertEqual(ignored, ["2024/photo.jpg", "gpx", "notes.txt"])
        // A trailing slash changes nothing.
        let again = try RunLoader.discover(directory: root + "/")
        XCTAssertEqual(again.runs, runs)
    }

    func testDiscoverErrors() {
        XCTAssertThrowsError(try RunLoader.discover(directory: root + "/missing")) { error in
            guard case .unreadable(let path, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, root + "/missing")
            XCTAssertEqual(reason, "no such directory")
        }
        XCTAssertThrowsError(try RunLoader.discover(directory: root + "/notes.txt")) { error in
            guard case .unreadable(_, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(reason, "not a directory")
        }
    }

    func testLoadDispatchesByFormat() throws {
        let gpx = try RunLoader.load(path: root + "/A.GPX", id: "A.GPX", analyzer: RunAnalyzer(), zoneOffsetSeconds: 3600)
        XCTAssertEqual(gpx.count, 1)
        XCTAssertEqual(gpx[0].id, "A.GPX")
        XCTAssertEqual(gpx[0].format, "gpx")
        XCTAssertEqual(gpx[0].name, "Loop")
        XCTAssertEqual(gpx[0].points, 2)
        XCTAssertEqual(gpx[0].elapsedSeconds, 5)
        XCTAssertEqual(gpx[0].distanceMeters, 6_378_137 * Double.pi / 180 * 0.0001, accuracy: 1e-6)
        XCTAssertEqual(gpx[0].localDate, "2024-05-01")

        let json = try RunLoader.load(path: root + "/2024/may/run.Json", id: "2024/may/run.Json", analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)
        XCTAssertEqual(json.map(\.format), ["json"])
        XCTAssertEqual(json[0].utcOffsetSeconds, 7200)
        XCTAssertEqual(json[0].distanceMeters, 5000)

        XCTAssertThrowsError(try RunLoader.load(path: root + "/notes.txt", id: "notes.txt", analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)) { error in
            guard case .notFormat(let path, _, _)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, root + "/notes.txt")
        }
    }

    func testLoadReportsReaderErrors() throws {
        try Data("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\">".utf8).write(to: URL(fileURLWithPath: root + "/broken.gpx"))
        XCTAssertThrowsError(try RunLoader.load(path: root + "/broken.gpx", id: "broken.gpx", analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)) { error in
            guard case .malformed(let path, let line, _, _)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, root + "/broken.gpx")
            XCTAssertEqual(line, 1)
        }
    }
}
