@testable import RunFiles
import XCTest

/// Expected values are WGS84 geodesic lengths from Vincenty's inverse formula (computed with an
/// independent script, iterated to 1e-14 rad), pasted as literals.
final class GeodesyTests: XCTestCase {
    func testOneDegreeOfLatitudeAtTheEquator() {
        let d = Geodesy.distance(lat1: 0, lon1: 0, lat2: 1, lon2: 0)
        XCTAssertEqual(d, 110_574.389, accuracy: 1.0)
    }

    func testOneDegreeOfLongitudeAtTheEquator() {
        let d = Geodesy.distance(lat1: 0, lon1: 0, lat2: 0, lon2: 1)
        XCTAssertEqual(d, 111_319.491, accuracy: 1.0)
    }

    func testMetreScaleStepsAgreeWithVincenty() {
        // (lat1, lon1, lat2, lon2, Vincenty metres)
        let cases: [(Double, Double, Double, Double, Double)] = [
            (52.37, 4.89, 52.37001, 4.89002, 1.758922),
            (45.0, 7.0, 45.0, 7.00005, 3.942342),
            (-33.86, 151.2, -33.859, 151.2, 110.919851),
            (60.0, 25.0, 60.0001, 25.0001, 12.460469),
            (41.163039, -74.179619, 41.163048, -74.179616, 1.030738),
        ]
        for (lat1, lon1, lat2, lon2, expected) in cases {
            let d = Geodesy.distance(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
            XCTAssertEqual(d, expected, accuracy: max(2e-6, expected * 1e-6), "\(lat1),\(lon1) → \(lat2),\(lon2)")
            let back = Geodesy.distance(lat1: lat2, lon1: lon2, lat2: lat1, lon2: lon1)
            XCTAssertEqual(back, d, accuracy: 1e-9)
        }
    }

    func testStepAcrossTheAntimeridian() {
        let d = Geodesy.distance(lat1: 0, lon1: 179.9999, lat2: 0, lon2: -179.9999)
        XCTAssertEqual(d, 22.263898, accuracy: 1e-5)
    }

    func testSamePointIsZero() {
        XCTAssertEqual(Geodesy.distance(lat1: 51.5, lon1: -0.12, lat2: 51.5, lon2: -0.12), 0)
    }

    func testValidity() {
        XCTAssertTrue(Geodesy.isValid(latitude: -90, longitude: 180))
        XCTAssertFalse(Geodesy.isValid(latitude: 90.000001, longitude: 0))
        XCTAssertFalse(Geodesy.isValid(latitude: 0, longitude: -180.5))
        XCTAssertFalse(Geodesy.isValid(latitude: .nan, longitude: 0))
        XCTAssertFalse(Geodesy.isValid(latitude: 0, longitude: .infinity))
    }
}
