import Foundation
import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// Issue 27 end to end, through the built binary: an Apple Health export as its zip, its folder and a
/// zip holding that zip gives the same runs and awards under any --tz; `add` takes a zip; a bad entry
/// is a named skip (exit 2) while the rest is read.
final class ArchivesEndToEndTests: XCTestCase {
    /// An export of two runs (one with a route file) and a walk, heart rate inside the first run.
    static func export() -> (xml: [UInt8], route: [UInt8]) {
        var generator = RunGenerator(seed: 11, distanceMeters: 5200)
        generator.heartRate = false
        let start = generator.startEpochSeconds
        let track = generator.track()
        let minutes = ((track.times.last ?? start) - start) / 60
        var xml = AppleHealthFixture.header
        for k in 0..<20 { xml += AppleHealthFixture.heartRate(start + Double(k) * 60, bpm: 140 + k, offset: 3600) }
        xml += AppleHealthFixture.workout(.init(start: start, minutes: minutes, kilometres: 5.25, zone: "Asia/Tokyo", routeFiles: ["route_1.gpx"]),
                                          offset: 3600)
        xml += AppleHealthFixture.workout(.init(type: "HKWorkoutActivityTypeWalking", start: start + 86_400, minutes: 40, kilometres: 3.5),
                                          offset: 3600)
        xml += AppleHealthFixture.workout(.init(start: start + 2 * 86_400, minutes: 31, kilometres: 6.0), offset: 3600)
        xml += "</HealthData>\n"
        return (Array(xml.utf8), generator.gpxBytes())
    }

    func evaluate(_ path: String, tz: String) throws -> [String: Any] {
        let output = try CLI.run(["evaluate", path, "--format", "json", "--tz", tz, "--no-cache"])
        XCTAssertEqual(output.status, 0, output.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    }

    func testZipFolderAndZipInAZipGiveTheSameRunsAndAwardsUnderAnyZone() throws {
        let folder = try TemporaryFolder()
        let (xml, route) = Self.export()
        let exportZip = ZipWriter([ZipWriter.Entry("apple_health_export/export.xml", xml),
                                   ZipWriter.Entry("apple_health_export/workout-routes/route_1.gpx", route)]).finish()
        try Data(exportZip).write(to: folder.url.appendingPathComponent("export.zip"))
        try Data(ZipWriter([ZipWriter.Entry("downloads/export.zip", exportZip, deflated: false)]).finish())
            .write(to: folder.url.appendingPathComponent("account.zip"))
        let unpacked = folder.url.appendingPathComponent("apple_health_export")
        try FileManager.default.createDirectory(at: unpacked.appendingPathComponent("workout-routes"), withIntermediateDirectories: true)
        try Data(xml).write(to: unpacked.appendingPathComponent("export.xml"))
        try Data(route).write(to: unpacked.appendingPathComponent("workout-routes/route_1.gpx"))

        var seen: [[String]] = []
        for tz in ["UTC", "America/New_York"] {
            for source in ["export.zip", "account.zip", "apple_health_export"] {
                let report = try evaluate(folder.url.appendingPathComponent(source).path, tz: tz)
                let runs = try XCTUnwrap(report["runs"] as? [[String: Any]])
                let sports = runs.map { $0["sport"] as? String ?? "" }
                XCTAssertEqual(sports.sorted(), ["running", "running", "walking"], source)
                let first = try XCTUnwrap(runs.first { ($0["id"] as? String)?.hasSuffix("export.xml#1") ?? false })
                XCTAssertEqual(first["device_distance_m"] as? Double, 5250, source)
                XCTAssertEqual(first["format"] as? String, "apple_health")
                XCTAssertEqual(first["zone_source"] as? String, "file")
                XCTAssertEqual(first["utc_offset_s"] as? Int, 32_400, "HKTimeZone Asia/Tokyo, whatever --tz \(tz) says")
                let ignored = try XCTUnwrap(report["ignored"] as? [String])
                XCTAssertTrue(ignored.contains { $0.hasSuffix("workout-routes/route_1.gpx") }, "\(ignored)")
                let awards = try XCTUnwrap(report["awards"] as? [[String: Any]])
                seen.append(awards.map { "\($0["badge"] ?? "")@\(($0["run"] as? String)?.components(separatedBy: "export.xml").last ?? "")" }.sorted())
            }
        }
        XCTAssertFalse(seen[0].isEmpty)
        XCTAssertTrue(seen.allSatisfy { $0 == seen[0] }, "\(seen)")
    }

    func testABadEntryIsANamedSkipAndAddTakesAZip() throws {
        let folder = try TemporaryFolder()
        var generator = RunGenerator(seed: 3)
        generator.startEpochSeconds += 86_400
        let zip = ZipWriter([ZipWriter.Entry("runs/a.gpx", RunGenerator(seed: 2).gpxBytes()),
                             ZipWriter.Entry("../evil.gpx", generator.gpxBytes())]).finish()
        let path = folder.url.appendingPathComponent("runs.zip").path
        try Data(zip).write(to: URL(fileURLWithPath: path))
        let output = try CLI.run(["evaluate", path, "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(output.status, 2, "a skipped entry makes the exit status say so")
        XCTAssertTrue(output.stderr.contains("runs.zip: ../evil.gpx: not read: a '..' in the name, outside the archive"), output.stderr)

        let state = folder.url.appendingPathComponent("state").path
        let empty = folder.url.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let first = try CLI.run(["evaluate", empty.path, "--tz", "UTC", "--state", state, "--no-cache"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let good = folder.url.appendingPathComponent("good.zip").path
        try Data(ZipWriter([ZipWriter.Entry("a.gpx", RunGenerator(seed: 2).gpxBytes())]).finish()).write(to: URL(fileURLWithPath: good))
        let added = try CLI.run(["add", "--state", state, good, "--format", "json", "--no-cache"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("good.zip/a.gpx"), added.stdout)
    }
}
