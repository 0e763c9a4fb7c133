@testable import RunFiles
import XCTest

/// One classification of a path: its format and whether it is gzip-compressed.
final class RunFormatTests: XCTestCase {
    func testFormatByExtensionIgnoresCase() {
        XCTAssertEqual(RunFormat(path: "a/b/run.gpx")?.rawValue, "gpx")
        XCTAssertEqual(RunFormat(path: "RUN.GPX")?.rawValue, "gpx")
        XCTAssertEqual(RunFormat(path: "x.Gpx")?.rawValue, "gpx")
        XCTAssertEqual(RunFormat(path: "treadmill.JSON")?.rawValue, "json")
        XCTAssertNil(RunFormat(path: "notes.txt")?.rawValue)
        XCTAssertNil(RunFormat(path: "gpx")?.rawValue)
        XCTAssertNil(RunFormat(path: ".gpx/readme")?.rawValue)
        XCTAssertNil(RunFormat(path: "run.gpx.bak")?.rawValue)
    }

    func testGzipSuffixesKeepTheirFormat() {
        XCTAssertEqual(RunFormat.of(path: "a/run.gpx.gz"), RunFormat.Kind(format: .gpx, gzipped: true))
        XCTAssertEqual(RunFormat.of(path: "RUN.FIT.GZ"), RunFormat.Kind(format: .fit, gzipped: true))
        XCTAssertEqual(RunFormat.of(path: "x.tcx"), RunFormat.Kind(format: .tcx, gzipped: false))
        XCTAssertNil(RunFormat.of(path: "notes.json.gz"), "a gzip-compressed JSON summary is not a run file")
        XCTAssertNil(RunFormat.of(path: ".gpx.gz"))
    }
}
