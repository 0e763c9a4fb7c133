import Foundation
import XCTest

@testable import RunAnalysis
@testable import RunFiles
@testable import RunFixtures
@testable import SyntheticRuns
@testable import RunLibrary

/// Zips read as folders and Apple Health exports (issue 27), through `RunFolder.read`: the path
/// `evaluate`, `summarize`, `report`, `add`, the worker and BadgeKit read folders and files through.
final class ArchiveTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: String!
    let utc = TimeZone(identifier: "UTC")!

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = (folder as NSString).appendingPathComponent(name)
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    func generated(_ seed: UInt64, start: Double = 1_714_545_000, heartRate: Bool = true) -> RunGenerator {
        var generator = RunGenerator(seed: seed)
        generator.startEpochSeconds = start
        generator.heartRate = heartRate
        return generator
    }

    // MARK: - Zip

    func testZipIsReadAsItsFolder() throws {
        let gpx = generated(1).gpxBytes()
        let fit = FITWriter.encode(track: generated(2, start: 1_714_645_000).track())
        let inner = ZipWriter([ZipWriter.Entry("UploadedFiles_0/run.fit", fit)]).finish()
        let zip = ZipWriter([
            ZipWriter.Entry("activities/a.gpx", gpx),
            ZipWriter.Entry("activities/b.gpx.gz", try Gzip.compress(generated(3, start: 1_714_745_000).gpxBytes()), deflated: false),
            ZipWriter.Entry("DI_CONNECT/UploadedFiles_0.zip", inner, deflated: false),
            ZipWriter.Entry("readme.txt", Array("hello".utf8)),
        ]).finish()
        let path = write(zip, "export.zip")
        let read = try RunFolder.read(path, zone: utc, serial: true)
        XCTAssertEqual(read.errors, [])
        XCTAssertEqual(Set(read.runs.map(\.id)), [
            "export.zip/activities/a.gpx", "export.zip/activities/b.gpx.gz", "export.zip/DI_CONNECT/UploadedFiles_0.zip/UploadedFiles_0/run.fit",
        ])
        XCTAssertEqual(read.ignored, ["export.zip/readme.txt"])
        // The same runs as the files themselves give.
        let plain = try RunFolder.read(write(gpx, "plain/a.gpx"), zone: utc, serial: true)
        let fromZip = try XCTUnwrap(read.runs.first { $0.id == "export.zip/activities/a.gpx" })
        XCTAssertEqual(fromZip.distanceMeters, plain.runs[0].distanceMeters)
        XCTAssertEqual(fromZip.elapsedSeconds, plain.runs[0].elapsedSeconds)

        // A zip inside a folder is read too, with the folder's run files.
        _ = write(generated(4, start: 1_714_845_000).gpxBytes(), "plain/b.gpx")
        _ = write(zip, "plain/sub/export.zip")
        let both = try RunFolder.read((folder as NSString).appendingPathComponent("plain"), zone: utc, serial: true)
        XCTAssertEqual(both.runs.count, 5)
        XCTAssertTrue(both.runs.contains { $0.id == "sub/export.zip/DI_CONNECT/UploadedFiles_0.zip/UploadedFiles_0/run.fit" })
    }

    func testBadEntriesAreNamedSkipsAndTheOthersAreRead() throws {
        let gpx = generated(1).gpxBytes()
        let zip = ZipWriter([
            ZipWriter.Entry("ok.gpx", gpx),
            ZipWriter.Entry("../evil.gpx", gpx),
            ZipWriter.Entry("/etc/abs.gpx", gpx),
            ZipWriter.Entry("locked.gpx", gpx, encrypted: true),
            ZipWriter.Entry("crc.gpx", gpx, wrongCRC: true),
            ZipWriter.Entry("bomb.gpx", gpx, declaredSize: 100),
            ZipWriter.Entry("huge.fit", [1, 2, 3], deflated: false, declaredSize: Int(UInt32.max - 1)),
            ZipWriter.Entry("liar.gpx", gpx, declaredSize: 500_000_000),
        ]).finish()
        // 500 MB declared over a few kilobytes: found out before the 500 MB are held (a 64 MiB budget suffices).
        let budget = MemoryBudget(totalBytes: 64 << 20)
        let read = RunArchive.read(zip: write(zip, "bad.zip"), id: "bad.zip", analyzer: RunAnalyzer(), zone: utc, serial: true, budget: budget)
        XCTAssertEqual(read.runs.map(\.id), ["bad.zip/ok.gpx"])
        let messages = read.errors.map(\.message).joined(separator: "\n")
        XCTAssertTrue(messages.contains("bad.zip: ../evil.gpx: not read: a '..' in the name, outside the archive"), messages)
        XCTAssertTrue(messages.contains("bad.zip: /etc/abs.gpx: not read: an absolute name"), messages)
        XCTAssertTrue(messages.contains("bad.zip: locked.gpx: cannot read: encrypted"), messages)
        XCTAssertTrue(messages.contains("bad.zip: crc.gpx: damaged zip entry: its CRC-32"), messages)
        XCTAssertTrue(messages.contains("bad.zip: bomb.gpx: damaged zip entry: it inflates past the 100 bytes it declares"), messages)
        XCTAssertTrue(messages.contains("bad.zip: huge.fit: cannot read: declares 4294967294 bytes inflated"), messages)
        XCTAssertTrue(messages.contains("bad.zip: liar.gpx: damaged zip entry: \(gpx.count) bytes inflated, 500000000 declared"), messages)
        XCTAssertEqual(read.errors.count, 7)
        XCTAssertEqual(budget.usage.reservedBytes, 0)
    }

    func testDamagedArchiveIsOneNamedError() throws {
        var zip = ZipWriter([ZipWriter.Entry("ok.gpx", generated(1).gpxBytes())]).finish()
        zip.removeLast(10)
        let read = try RunFolder.read(write(zip, "cut.zip"), zone: utc, serial: true)
        XCTAssertEqual(read.runs.count, 0)
        XCTAssertEqual(read.errors.count, 1)
        XCTAssertTrue(read.errors[0].message.hasPrefix("cut.zip: not a zip file: no end of central directory record"), read.errors[0].message)
        let random = try RunFolder.read(write((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }, "noise.zip"), zone: utc, serial: true)
        XCTAssertEqual(random.errors.count, 1)
    }

    func testZipBombIsCappedByTheBudget() throws {
        // 64 MiB of zeros deflate to about 64 KiB; a budget of 16 MiB refuses it with the entry named.
        let zeros = [UInt8](repeating: 0, count: 64 << 20)
        let zip = ZipWriter([ZipWriter.Entry("zeros.fit", zeros)]).finish()
        XCTAssertLessThan(zip.count, 1 << 20)
        let budget = MemoryBudget(totalBytes: 16 << 20)
        let read = RunArchive.read(zip: write(zip, "bomb.zip"), id: "bomb.zip", analyzer: RunAnalyzer(), zone: utc, serial: true, budget: budget)
        XCTAssertEqual(read.runs.count, 0)
        XCTAssertEqual(read.errors.map(\.message).first?.hasPrefix("bomb.zip: zeros.fit: too large: reading it needs more than"), true,
                       "\(read.errors)")
        XCTAssertEqual(budget.usage.reservedBytes, 0)
    }

    func testStravaExportZipTakesItsCSVNamesAndSports() throws {
        let csv = "Activity ID,Activity Date,Activity Name,Activity Type,Filename\n1,\"Mar 11, 2019, 5:40:43 PM\",Evening Walk,Walk,activities/1.gpx\n"
        let zip = ZipWriter([
            ZipWriter.Entry("activities.csv", Array(csv.utf8)), ZipWriter.Entry("activities/1.gpx", generated(1).gpxBytes()),
        ]).finish()
        let read = try RunFolder.read(write(zip, "strava.zip"), zone: utc, serial: true)
        XCTAssertEqual(read.runs.map(\.name), ["Evening Walk"])
        XCTAssertEqual(read.runs.map(\.sport), ["walking"])
    }

    // MARK: - Apple Health

    /// An export of a run with two route files (in reverse order in the export), a walk with a
    /// route, a treadmill run without one, heart-rate records before the workouts, steps.
    func healthExport() -> (xml: [UInt8], routes: [(String, [UInt8])]) {
        let start = 1_758_035_690.0  // 2025-09-16T15:14:50Z
        let first = generated(1, start: start, heartRate: false)
        let firstTrack = first.track()
        let secondStart = (firstTrack.times.last ?? start) + 1
        var second = generated(2, start: secondStart, heartRate: false)
        second.distanceMeters = 2000
        let secondEnd = second.track().times.last ?? secondStart
        let walk = generated(3, start: start + 86_400, heartRate: false)
        let offset = 3600
        var xml = AppleHealthFixture.header
        for k in 0..<40 { xml += AppleHealthFixture.heartRate(start + Double(k) * 30, bpm: 120 + k, offset: offset) }
        for k in 0..<5 { xml += AppleHealthFixture.steps(start - 3600 + Double(k) * 60, count: 80, offset: offset) }
        xml += AppleHealthFixture.workout(.init(start: start, minutes: (secondEnd - start) / 60, kilometres: 7.05, zone: "Europe/Paris",
                                                routeFiles: ["route_b.gpx", "route_a.gpx"]), offset: offset)
        xml += AppleHealthFixture.workout(.init(type: "HKWorkoutActivityTypeWalking", start: start + 86_400, minutes: 50, kilometres: 4.9,
                                                routeFiles: ["route_walk.gpx"]), offset: offset)
        xml += AppleHealthFixture.workout(.init(start: start + 2 * 86_400, minutes: 30, kilometres: 5.5), offset: offset)
        xml += "</HealthData>\n"
        return (Array(xml.utf8), [("route_a.gpx", first.gpxBytes()), ("route_b.gpx", second.gpxBytes()), ("route_walk.gpx", walk.gpxBytes())])
    }

    func checkHealthRuns(_ runs: [RunSummary], prefix: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(runs.map(\.id), ["\(prefix)#1", "\(prefix)#2", "\(prefix)#3"], file: file, line: line)
        XCTAssertEqual(runs.map(\.sport), ["running", "walking", "running"], file: file, line: line)
        XCTAssertEqual(runs.map(\.deviceDistanceMeters), [7050, 4900, 5500], file: file, line: line)
        guard runs.count == 3 else { return }
        // Both route files joined, in time order: 5 km + 2 km of points.
        XCTAssertEqual(runs[0].distanceMeters, 7000, accuracy: 150, file: file, line: line)
        XCTAssertEqual(runs[0].start, "2025-09-16T15:14:50Z", file: file, line: line)
        // HKTimeZone (Paris, +02:00 in September) is the zone the run was in; the walk has only the dates' +01:00.
        XCTAssertEqual(runs[0].localStart, "2025-09-16T17:14:50", file: file, line: line)
        XCTAssertEqual(runs[0].utcOffsetSeconds, 7200, file: file, line: line)
        XCTAssertEqual(runs[1].utcOffsetSeconds, 3600, file: file, line: line)
        XCTAssertEqual(runs.map(\.zoneSource), ["file", "file", "file"], file: file, line: line)
        XCTAssertEqual(runs[1].localStart, "2025-09-17T16:14:50", file: file, line: line)
        // Heart rate from the records inside the run's time.
        XCTAssertNotNil(runs[0].heartRate, file: file, line: line)
        XCTAssertEqual(runs[0].heartRate?.maximum ?? 0, 159, accuracy: 0.5, file: file, line: line)
        XCTAssertNil(runs[1].heartRate, file: file, line: line)
        // The treadmill run: totals only.
        XCTAssertEqual(runs[2].deviceTimerSeconds ?? 0, 1800, accuracy: 0.01, file: file, line: line)
    }

    func testHealthExportFolderZipAndFileGiveTheSameRuns() throws {
        let (xml, routes) = healthExport()
        _ = write(xml, "apple_health_export/export.xml")
        for (name, bytes) in routes { _ = write(bytes, "apple_health_export/workout-routes/\(name)") }
        let fromFolder = try RunFolder.read((folder as NSString).appendingPathComponent("apple_health_export"), zone: utc, serial: true)
        XCTAssertEqual(fromFolder.errors, [])
        checkHealthRuns(fromFolder.runs, prefix: "export.xml")
        XCTAssertEqual(fromFolder.ignored.count, 3, "the route files are the workouts', not runs")
        XCTAssertTrue(fromFolder.ignoredReasons["workout-routes/route_a.gpx"]?.contains("Apple Health export") ?? false)

        let archive = ZipWriter([ZipWriter.Entry("apple_health_export/export.xml", xml)]
                                + routes.map { ZipWriter.Entry("apple_health_export/workout-routes/\($0.0)", $0.1) }).finish()
        let fromZip = try RunFolder.read(write(archive, "export.zip"), zone: utc, serial: true)
        XCTAssertEqual(fromZip.errors, [])
        checkHealthRuns(fromZip.runs, prefix: "export.zip/apple_health_export/export.xml")
        for (a, b) in zip(fromFolder.runs, fromZip.runs) {
            XCTAssertEqual(a.distanceMeters, b.distanceMeters)
            XCTAssertEqual(a.localStart, b.localStart)
        }
        // Another --tz changes nothing: every workout's zone is in the file.
        let tokyo = try RunFolder.read(write(archive, "again/export.zip"), zone: TimeZone(identifier: "Asia/Tokyo")!, serial: true)
        XCTAssertEqual(tokyo.runs.map(\.localStart), fromZip.runs.map(\.localStart))
        // Given as a file (add, the worker): the same.
        let asFile = RunFolder.read(files: [(path: (folder as NSString).appendingPathComponent("export.zip"), id: "export.zip")], zone: utc, serial: true)
        XCTAssertEqual(asFile.runs.map(\.id), fromZip.runs.map(\.id))
    }

    func testHealthExportMissingRouteAndBrokenXMLAreNamed() throws {
        var (xml, _) = healthExport()
        let bad = write(xml, "lonely/export.xml")
        let read = try RunFolder.read(bad, zone: utc, serial: true)
        // The routes are missing: each is an error naming the export, its line and the workout, and
        // every workout is read all the same (the run and the walk with their totals only).
        XCTAssertEqual(read.runs.map(\.id), ["export.xml#1", "export.xml#2", "export.xml#3"])
        XCTAssertEqual(read.runs.map(\.deviceDistanceMeters), [7050, 4900, 5500])
        XCTAssertEqual(read.errors.count, 3, "\(read.errors)")
        XCTAssertTrue(read.errors.first?.message.contains("export.xml:") ?? false, "\(read.errors)")
        XCTAssertTrue(read.errors.first?.message.contains(
            "the workout's route file /workout-routes/route_b.gpx is not in the export; the workout (export.xml#1) is read without it") ?? false,
                      "\(read.errors)")
        xml.removeLast(30)
        let cut = try RunFolder.read(write(xml, "cut/export.xml"), zone: utc, serial: true)
        XCTAssertTrue(cut.errors.first?.message.contains("ends inside") ?? false, "\(cut.errors)")
        let notHealth = try RunFolder.read(write(Array("<gpx></gpx>".utf8), "other/export.xml"), zone: utc, serial: true)
        XCTAssertTrue(notHealth.errors.first?.message.contains("export.xml: not an Apple Health export: no <HealthData> element") ?? false,
                      "\(notHealth.errors)")
    }

    func testAppleSportsNormalise() {
        XCTAssertEqual(Sport.normalise("HKWorkoutActivityTypeRunning"), "running")
        XCTAssertEqual(Sport.normalise("HKWorkoutActivityTypeWalking"), "walking")
        XCTAssertEqual(Sport.normalise("HKWorkoutActivityTypeHiking"), "hiking")
        XCTAssertEqual(Sport.normalise("HKWorkoutActivityTypeCycling"), "cycling")
        XCTAssertEqual(Sport.normalise("HKWorkoutActivityTypeSwimming"), "swimming")
        XCTAssertEqual(Sport.normalise("HKWorkoutActivityTypeTraditionalStrengthTraining"), "traditional_strength_training")
    }
}
