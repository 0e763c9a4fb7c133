import Foundation
import XCTest

@testable import BadgeRules

/// A segment drawn as a GPX route: its points are read in one pass over the bytes (a search that
/// restarted over the rest of the text at each match took minutes on a 15 MiB route), numbers only
/// in decimal (Swift's `Double` also takes hex, which a run file's reader refuses).
final class RoutePointsTests: XCTestCase {
    func read(_ text: String) throws -> [(Double, Double)]? {
        try PackManifest.routePoints(Array(text.utf8), path: "s.gpx") { RulesError.pack(file: "s.gpx", line: nil, reason: $0) }
    }

    func testRoutePointsInEverySpellingAndNothingElse() throws {
        let text = """
            <gpx><rte><desc>xrtept lat="9" lon="9" and rtept without a tag</desc>
            <rtept lat="52.1" lon="4.5"></rtept>
            <gpx:rtept lon = '4.6' lat = '52.2'/>
            <rtept\tlat="-1e-3" lon="+4.7"><ele>3</ele></rtept></rte></gpx>
            """
        let points = try XCTUnwrap(try read(text))
        XCTAssertEqual(points.map(\.0), [52.1, 52.2, -0.001])
        XCTAssertEqual(points.map(\.1), [4.5, 4.6, 4.7])
        XCTAssertNil(try read("<gpx><trk><trkpt lat=\"1\" lon=\"2\"/></trk></gpx>"))
        XCTAssertNil(try read(""))
    }

    func testAPointWithoutADecimalLatitudeAndLongitudeIsAnError() {
        for bad in [#"<rtept lat="0x34" lon="4"/>"#, #"<rtept lat="nan" lon="4"/>"#, #"<rtept lat="52"/>"#, #"<rtept lat="" lon="4"/>"#] {
            XCTAssertThrowsError(try read("<rte>" + bad + "</rte>"), bad) { error in
                XCTAssertTrue("\(error)".contains("route point 1 has no readable lat and lon attributes"), "\(error)")
            }
        }
    }
}
