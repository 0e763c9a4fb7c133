@testable import RunFiles
import Foundation
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

    /// `lastComponent(of:)` stands in for `NSString.lastPathComponent` (which is ten times dearer):
    /// the same text for every kind of path the walk, archives and arguments give.
    func testLastComponentIsFoundationsLastPathComponent() {
        let paths = ["", "/", "//", "///", "////", "a", "a/", "a//", "/a", "//a//", "a/b", "a//b", "a/b/", "/a/b/c.gpx",
                     "runs/2024/Run.GPX.gz", ".gpx", "dir/.hidden", "é/ü.fit", "a/b c/d e.tcx", "x/🏃‍♀️.json",
                     "apple_health_export/export.xml", "zips/a.zip/", "./a", "../b/", "a/./b", "a\\b.gpx"]
        for path in paths {
            XCTAssertEqual(String(RunFormat.lastComponent(of: path)), (path as NSString).lastPathComponent, "path \"\(path)\"")
        }
    }
}
