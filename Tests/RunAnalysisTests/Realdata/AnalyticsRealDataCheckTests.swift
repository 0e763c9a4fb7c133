import Foundation
import XCTest

@testable import RunFiles
@testable import RunAnalysis

/// An accuracy check against reference figures for real recordings. It needs files a user's clone
/// does not have, so it is skipped unless both variables are set; `scripts/check-realdata` sets
/// them (extracting the CSVs with gpxpy and fitdecode) whenever the real-data set is present.
///
/// - `BADGECTL_ANALYTICS_CSV_DIR`: a folder of `<file>.csv` files, one point per line,
///   `segment,lat,lon,ele,epoch_s,hr,cad` (empty fields for absent values), extracted from
///   `<file>` (`run.gpx` → `run.gpx.csv`) by any script.
/// - `BADGECTL_ANALYTICS_REFERENCE`: a `reference.json` whose `files["<file>"].own.efforts`
///   holds `haversine_mean` / `gpxpy_2d` → `fastest` → `1km`/`5km`/`10km`/`21.0975km` →
///   `seconds` and `splits_1km.full`, and `own.heart_rate.avg`/`max`.
///
/// Efforts and splits are computed on the reference's own distance bases (a haversine on the
/// mean radius, and gpxpy's equirectangular step) and must agree within 1%; the table is printed.
final class AnalyticsRealDataCheckTests: XCTestCase {
    func testEffortsSplitsAndHeartRateAgreeWithReference() throws {
        let env = ProcessInfo.processInfo.environment
        guard let dir = env["BADGECTL_ANALYTICS_CSV_DIR"], let referencePath = env["BADGECTL_ANALYTICS_REFERENCE"] else {
            throw XCTSkip("set BADGECTL_ANALYTICS_CSV_DIR and BADGECTL_ANALYTICS_REFERENCE to run this check")
        }
        let referenceData = try Data(contentsOf: URL(fileURLWithPath: referencePath))
        let reference = try XCTUnwrap(try JSONSerialization.jsonObject(with: referenceData) as? [String: Any])
        let files = try XCTUnwrap(reference["files"] as? [String: Any])
        let csvs = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
        XCTAssertFalse(csvs.isEmpty, "no CSV in \(dir)")
        let bases: [(name: String, step: (Double, Double, Double, Double) -> Double)] = [
            ("haversine_mean", { Geodesy.haversine(lat1: $0, lon1: $1, lat2: $2, lon2: $3) }),
            ("gpxpy_2d", Self.gpxpyDistance),
        ]
        let effortKeys = ["1km": "1km", "5km": "5km", "10km": "10km", "half": "21.0975km"]
        var table = "file | basis | effort | ours s | reference s | diff %\n"
        var compared = 0
        for csv in csvs {
            let stem = String(csv.dropLast(4))
            guard let entry = files[stem] as? [String: Any], let own = entry["own"] as? [String: Any] else { continue }
            let track = try Self.readCSV(dir + "/" + csv)
            for basis in bases {
                guard let ref = (own["efforts"] as? [String: Any])?[basis.name] as? [String: Any],
                    let fastest = ref["fastest"] as? [String: Any]
                else { continue }
                let profile = RunAnalyzer.profile(of: track, stepDistance: basis.step)
                // The reference searches every window, stops included.
                let efforts = RunAnalyzer.efforts(of: profile, maxStopSeconds: nil)
                for (ours, theirs) in effortKeys.sorted(by: { $0.key < $1.key }) {
                    let expected = (fastest[theirs] as? [String: Any])?["seconds"] as? Double
                    let expectedStart = (fastest[theirs] as? [String: Any])?["start_distance_m"] as? Double
                    let effort = efforts.first { $0.name == ours }
                    let got = effort?.elapsedSeconds
                    guard let expected, let got else {
                        XCTAssertEqual(expected == nil, got == nil, "\(stem) \(basis.name) \(ours): ours \(String(describing: got)), reference \(String(describing: expected))")
                        continue
                    }
                    let diff = (got - expected) / expected * 100
                    table += "\(stem) | \(basis.name) | \(ours) | \(fmt(got, 4)) | \(fmt(expected, 4)) | \(fmt(diff, 5))\n"
                    XCTAssertLessThan(abs(diff), 1, "\(stem) \(basis.name) \(ours)")
                    if let expectedStart, let start = effort?.startDistanceMeters {
                        table += "\(stem) | \(basis.name) | \(ours) start m | \(fmt(start, 3)) | \(fmt(expectedStart, 3)) |\n"
                        XCTAssertEqual(start, expectedStart, accuracy: 1, "\(stem) \(basis.name) \(ours) start")
                    }
                    compared += 1
                }
                if let full = (ref["splits_1km"] as? [String: Any])?["full"] as? [Double] {
                    let splits = RunAnalyzer.splits(of: profile, unitMeters: 1000).filter { !$0.partial }
                    XCTAssertEqual(splits.count, full.count, "\(stem) \(basis.name) split count")
                    for (s, e) in zip(splits, full) {
                        XCTAssertEqual(s.elapsedSeconds, e, accuracy: max(0.01 * e, 0.01), "\(stem) \(basis.name) split \(s.index)")
                    }
                }
            }
            if let geodesic = (entry["peer"] as? [String: Any])?["geographiclib_wgs84_geodesic_length_m"] as? Double, geodesic > 0 {
                // Our own basis (WGS84 tangent plane) against the exact geodesic, for the record.
                let ours = RunAnalyzer.profile(of: track).totalDistance
                table += "\(stem) | Geodesy | distance m | \(fmt(ours, 3)) | geodesic \(fmt(geodesic, 3)) | \(fmt((ours - geodesic) / geodesic * 100, 4))\n"
            }
            if let hr = own["heart_rate"] as? [String: Any], let avg = hr["avg"] as? Double, let max = hr["max"] as? Double {
                let profile = RunAnalyzer.profile(of: track)
                let stats = try XCTUnwrap(RunAnalyzer.sensorStats(track.heartRates, profile: profile, ignoreNonPositive: true))
                // The reference averages per sample; ours weighs by time (docs/rules.md, "Averages
                // over time"). The sample set is checked per sample; the time-weighted figure is
                // printed beside it (docs/accuracy.md compares it with the device's own).
                var sum = 0.0, count = 0.0
                for k in 0..<profile.count {
                    let x = track.heartRate(at: profile.pointIndex(k))
                    if x.isFinite, x > 0 { sum += x; count += 1 }
                }
                let perSample = sum / count
                table += "\(stem) | heart rate | avg per sample/max | \(fmt(perSample))/\(fmt(stats.maximum)) | \(fmt(avg))/\(fmt(max)) |\n"
                table += "\(stem) | heart rate | avg by time | \(fmt(stats.average)) | |\n"
                // Within 0.5%: the reference also counts samples of records without a position,
                // which a reader leaves out (FIT), so the sample sets can differ by a few.
                XCTAssertEqual(perSample, avg, accuracy: avg * 0.005, stem)
                XCTAssertEqual(stats.maximum, max, stem)
            }
            if let gpxpy = (entry["peer"] as? [String: Any])?["gpxpy"] as? [String: Any],
                let up = gpxpy["uphill_m"] as? Double, let down = gpxpy["downhill_m"] as? Double,
                let elevation = RunAnalyzer.elevation(of: track, profile: RunAnalyzer.profile(of: track))
            {
                table += "\(stem) | elevation | gain/loss | \(fmt(elevation.gainMeters))/\(fmt(elevation.lossMeters)) | gpxpy \(fmt(up))/\(fmt(down)) |\n"
            }
        }
        print(table)
        XCTAssertGreaterThan(compared, 0, "no effort compared")
    }

    private func fmt(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }

    /// gpxpy 1.6's 2D step: equirectangular with the cosine of the second latitude and one
    /// degree = 2π·6378137/360 m under 0.2°, haversine on 6378137 m beyond.
    static func gpxpyDistance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let oneDegree = 2 * Double.pi * 6_378_137 / 360
        if abs(lat1 - lat2) < 0.2, abs(lon1 - lon2) < 0.2 {
            let coef = cos(lat2 * Double.pi / 180)
            let x = lat1 - lat2, y = (lon1 - lon2) * coef
            return (x * x + y * y).squareRoot() * oneDegree
        }
        return Geodesy.haversine(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2, radius: 6_378_137)
    }

    /// `segment,lat,lon,ele,epoch_s,hr,cad` lines into a Track; positions out of range are left
    /// out as a reader would.
    static func readCSV(_ path: String) throws -> Track {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var track = Track(source: path)
        var segment: String?
        for (number, line) in text.split(separator: "\n").enumerated() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7, let lat = Double(f[1]), let lon = Double(f[2]) else {
                throw ActivityError.malformed(path: path, line: number + 1, offset: nil, reason: "expected segment,lat,lon,ele,time,hr,cad")
            }
            guard Geodesy.isValid(latitude: lat, longitude: lon) else { track.drop("latitude out of range"); continue }
            if segment != f[0] { track.startSegment(); segment = f[0] }
            track.append(
                latitude: lat, longitude: lon, elevation: Double(f[3]) ?? .nan, time: Double(f[4]) ?? .nan,
                heartRate: Double(f[5]) ?? .nan, cadence: Double(f[6]) ?? .nan)
        }
        return track
    }
}
