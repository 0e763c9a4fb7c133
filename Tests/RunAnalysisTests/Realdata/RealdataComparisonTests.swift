import Foundation
import XCTest

@testable import RunFiles
@testable import RunAnalysis

/// Reads a folder of real TCX/FIT files and prints our figures beside reference values.
///
/// Skipped unless `REALDATA_DIR` names a folder with a `reference.json` of the shape the project's
/// realdata set uses (files → format / peer / own). `scripts/check-realdata` runs it (and
/// `scripts/test` runs that whenever `../shared/realdata` is present).
///
/// It prints one line per file and fails when a distance differs from the gpxpy-formula
/// reference by more than 0.5 % or the elapsed time by more than 1 s.
final class RealdataComparisonTests: XCTestCase {
    struct Row {
        var file: String
        var points = 0
        var dropped = 0
        var distance = Double.nan
        var reference = Double.nan
        var geodesic: Double?
        var device: Double?
        var elapsed: Double?
        var timer: Double?
        var deviceTimer: Double?
        var laps = 0
        var pauses = 0
        var referenceElapsed: Double?
        var note = ""
    }

    func testCompareWithReference() throws {
        guard let dir = ProcessInfo.processInfo.environment["REALDATA_DIR"], !dir.isEmpty else {
            throw XCTSkip("set REALDATA_DIR to a realdata folder with reference.json to run this comparison")
        }
        let referenceURL = URL(fileURLWithPath: dir).appendingPathComponent("reference.json")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: referenceURL)) as? [String: Any]
        let files = try XCTUnwrap(json?["files"] as? [String: Any])
        var rows: [Row] = []
        var distanceByActivity: [String: [(String, Double)]] = [:]
        for name in files.keys.sorted() {
            guard let entry = files[name] as? [String: Any], let format = entry["format"] as? String,
                format == "tcx" || format == "fit"
            else { continue }
            let path = dir + "/" + name
            var row = Row(file: name)
            let tracks: [Track]
            do {
                tracks = format == "fit" ? try FITReader.read(path: path) : try TCXReader.read(path: path)
            } catch {
                row.note = "error: \(error)"
                rows.append(row)
                continue
            }
            guard let track = tracks.first else { continue }
            let profile = RunAnalyzer.profile(of: track)
            let times = RunAnalyzer.times(of: profile, pauses: track.pauses)
            row.points = track.count
            row.dropped = track.dropped.values.reduce(0, +)
            row.distance = profile.totalDistance
            row.device = track.deviceDistanceMeters
            row.elapsed = times.elapsed
            row.timer = times.timer
            row.deviceTimer = track.deviceTimerSeconds
            row.laps = track.laps.count
            row.pauses = track.pauses.count
            // TCX references sit per activity; FIT ones directly under `own`.
            var own = entry["own"] as? [String: Any]
            if let activities = own?["activities"] as? [[String: Any]], let first = activities.first { own = first }
            if let efforts = own?["efforts"] as? [String: Any], let gpxpy = efforts["gpxpy_2d"] as? [String: Any] {
                row.reference = gpxpy["distance_m"] as? Double ?? .nan
                row.referenceElapsed = gpxpy["elapsed_s"] as? Double
            }
            let peer = entry["peer"] as? [String: Any]
            row.geodesic = (own?["geographiclib_wgs84_geodesic_length_m"] ?? peer?["geographiclib_wgs84_geodesic_length_m"]) as? Double
            if let fd = peer?["fitdecode"] as? [String: Any],
                let sessions = fd["sessions"] as? [[String: Any]], let s = sessions.first,
                let e = s["total_elapsed_time"] as? Double
            {
                row.note = "session elapsed \(e)"
            }
            if tracks.count > 1 { row.note += " tracks=\(tracks.count)" }
            rows.append(row)
            let stem = String(name.prefix { $0 != "." })
            distanceByActivity[stem, default: []].append((format, row.distance))
        }
        func f(_ v: Double?) -> String {
            guard let v, v.isFinite else { return "-" }
            return String(format: "%.1f", v)
        }
        print("file | points | dropped | distance_m | gpxpy_2d_m | diff_% | geodesic_m | device_m | elapsed_s | ref_elapsed_s | timer_s | device_timer_s | laps | pauses | note")
        for r in rows {
            let diff = (r.distance - r.reference) / r.reference * 100
            print("\(r.file) | \(r.points) | \(r.dropped) | \(f(r.distance)) | \(f(r.reference)) | \(diff.isFinite ? String(format: "%+.3f", diff) : "-") | \(f(r.geodesic)) | \(f(r.device)) | \(f(r.elapsed)) | \(f(r.referenceElapsed)) | \(f(r.timer)) | \(f(r.deviceTimer)) | \(r.laps) | \(r.pauses) | \(r.note)")
            if diff.isFinite { XCTAssertLessThan(abs(diff), 0.5, r.file) }
            if let e = r.elapsed, let re = r.referenceElapsed { XCTAssertLessThanOrEqual(abs(e - re), 1, r.file) }
        }
        for (stem, list) in distanceByActivity.sorted(by: { $0.key < $1.key }) where list.count > 1 {
            let ds = list.map(\.1)
            let spread = ((ds.max() ?? 0) - (ds.min() ?? 0)) / (ds.max() ?? 1) * 100
            print("same activity \(stem): " + list.map { "\($0.0) \(f($0.1))" }.joined(separator: ", ") + String(format: " (spread %.3f %%)", spread))
            XCTAssertLessThan(spread, 0.5, stem)
        }
    }
}
