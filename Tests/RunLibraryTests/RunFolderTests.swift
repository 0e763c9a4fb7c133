import RunFixtures
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
@testable import RunLibrary
import XCTest

final class RunFolderTests: XCTestCase {
    /// Files are read on every core; the runs and errors must come back in file order, the same as
    /// reading them one by one.
    func testParallelReadKeepsFileOrder() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        try FileManager.default.createDirectory(atPath: folder + "/b", withIntermediateDirectories: true)
        var names: [String] = []
        for index in 0..<24 {
            let name = (index % 3 == 0 ? "b/" : "") + String(format: "run-%02d.gpx", 23 - index)
            var generator = RunGenerator(seed: UInt64(index), distanceMeters: 800 + Double(index) * 37)
            // Start times out of file order, so the order cannot come from the runs themselves.
            generator.startEpochSeconds += Double((index * 7919) % 24) * 86_400
            let bytes = index % 5 == 4 ? Array("<gpx><trk><trkseg><trkpt lat=\"x\"".utf8) : generator.gpxBytes()
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
            names.append(name)
        }
        let zone = TimeZone(identifier: "UTC") ?? .current
        let read = try RunFolder.read(folder, zone: zone)
        var expectedRuns: [RunSummary] = []
        var expectedErrors: [String] = []
        for id in try RunLoader.discover(directory: folder).runs {
            do {
                expectedRuns += try RunLoader.load(path: folder + "/" + id, id: id, analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)
                    .map { RunAnalyzer.localise($0, zone: zone) }
            } catch {
                expectedErrors.append(id)
            }
        }
        XCTAssertEqual(read.runs.count, 20)
        XCTAssertEqual(read.runs, expectedRuns)
        XCTAssertEqual(read.errors.map(\.path), expectedErrors)
        XCTAssertEqual(expectedErrors.count, 4)
    }

    func testProgressCountsEveryFile() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        for index in 0..<5 {
            try Data(RunGenerator(seed: UInt64(index), distanceMeters: 500).gpxBytes())
                .write(to: URL(fileURLWithPath: folder + "/r\(index).gpx"))
        }
        let seen = Seen()
        _ = try RunFolder.read(folder, progress: { done, total in seen.add(done, total) })
        XCTAssertEqual(seen.values.map(\.0).sorted(), [1, 2, 3, 4, 5])
        XCTAssertTrue(seen.values.allSatisfy { $0.1 == 5 })
    }
}

final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [(Int, Int)] = []
    func add(_ done: Int, _ total: Int) { lock.lock(); values.append((done, total)); lock.unlock() }
}
