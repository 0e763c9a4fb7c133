import RunFixtures
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
@testable import RunLibrary
import XCTest

/// The memory budget holds for the whole process: files read in parallel share it, a file that
/// needs room others hold is read again alone, and a file too big for it is an error naming it.
final class MemoryBudgetTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder = ""
    let zone = TimeZone(identifier: "UTC") ?? .current

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    /// Three gzip'd GPX runs of the same size (a small copy of the bomb folder) and a JSON summary.
    func writeBombs() throws {
        for index in 0..<3 {
            var generator = RunGenerator(seed: UInt64(index), distanceMeters: 15_000)
            generator.startEpochSeconds += Double(index) * 86_400
            try Data(Gzip.compress(generator.gpxBytes())).write(to: URL(fileURLWithPath: folder + "/bomb-\(index).gpx.gz"))
        }
        try #"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700}"#
            .write(toFile: folder + "/treadmill.json", atomically: true, encoding: .utf8)
    }

    /// What one bomb needs: its peak reservation read alone in a roomy budget.
    func oneFileNeeds() throws -> Int {
        let roomy = MemoryBudget(totalBytes: 1 << 30)
        _ = try RunLoader.load(path: folder + "/bomb-0.gpx.gz", id: "bomb-0.gpx.gz", analyzer: RunAnalyzer(), zoneOffsetSeconds: 0, budget: roomy)
        XCTAssertEqual(roomy.usage.reservedBytes, 0)
        return roomy.usage.peakBytes
    }

    func testFilesInParallelShareTheBudget() throws {
        try writeBombs()
        let needs = try oneFileNeeds()
        XCTAssertGreaterThan(needs, 500_000)
        let expected = try RunFolder.read(folder, zone: zone, serial: true, budget: MemoryBudget(totalBytes: 1 << 30))
        XCTAssertEqual(expected.runs.count, 4)
        // Room for one bomb and a half: two read together cannot both fit.
        let tight = MemoryBudget(totalBytes: needs * 3 / 2)
        let read = try RunFolder.read(folder, zone: zone, budget: tight)
        XCTAssertEqual(read.errors, [])
        XCTAssertEqual(read.runs, expected.runs)
        XCTAssertEqual(tight.usage.reservedBytes, 0)
        XCTAssertLessThanOrEqual(tight.usage.peakBytes, tight.totalBytes)
    }

    func testFileTooBigForTheBudgetIsAnErrorNamingIt() throws {
        try writeBombs()
        let needs = try oneFileNeeds()
        let small = MemoryBudget(totalBytes: needs / 2)
        let read = try RunFolder.read(folder, zone: zone, budget: small)
        XCTAssertEqual(read.runs.map(\.id), ["treadmill.json"])
        XCTAssertEqual(read.errors.map(\.path), ["bomb-0.gpx.gz", "bomb-1.gpx.gz", "bomb-2.gpx.gz"])
        for error in read.errors {
            XCTAssertTrue(error.message.hasPrefix(folder + "/" + error.path + ": too large: reading it needs more than"), error.message)
            XCTAssertTrue(error.message.contains("over the budget of"), error.message)
        }
        XCTAssertEqual(small.usage.reservedBytes, 0)
    }

    /// Many threads growing their share step by step: none deadlocks, those that meet a full budget
    /// are read again alone, all finish, and the budget is never exceeded.
    func testGrowingReadingsNeverDeadlock() {
        let unit = 1 << 20
        let budget = MemoryBudget(totalBytes: 25 * unit)
        let results = Results()
        let group = DispatchGroup()
        for index in 0..<12 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let steps = try budget.reading("file-\(index)", initialBytes: unit) { () -> Int in
                        guard let reservation = MemoryBudget.current else { return -1 }
                        for step in 1...10 {
                            try reservation.hold(step * 2 * unit, as: .points)
                            usleep(200)
                        }
                        return reservation.bytes
                    }
                    results.add(steps)
                } catch {
                    results.add(-2)
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(results.values, Array(repeating: 21 * unit, count: 12))
        XCTAssertEqual(budget.usage.reservedBytes, 0)
        XCTAssertLessThanOrEqual(budget.usage.peakBytes, budget.totalBytes)
        // More than the whole budget, even alone: an error naming the file, nothing left held.
        XCTAssertThrowsError(try budget.reading("huge.gpx") { try MemoryBudget.current?.hold(26 * unit, as: .inflated) }) { error in
            XCTAssertTrue("\(error)".hasPrefix("huge.gpx: too large: reading it needs more than 26 MiB"), "\(error)")
        }
        XCTAssertEqual(budget.usage.reservedBytes, 0)
    }

    /// A file read alone waits for every other reading to end, not only for the room they hold to be
    /// given back: a reading that holds nothing between two buffers can take room again, and took it
    /// from the file read alone, which was then refused as too large (a CI failure of
    /// `testFilesInParallelShareTheBudget`). Here `a` holds nothing at the moment `b` restarts alone,
    /// then takes room again while `b` grows.
    func testAFileReadAloneWaitsForReadingsThatHoldNothingNow() {
        let unit = 1 << 20
        let budget = MemoryBudget(totalBytes: 10 * unit)
        let aHolds = DispatchSemaphore(value: 0)
        let results = Results()
        let group = DispatchGroup()
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            do {
                try budget.reading("a") {
                    let reservation = MemoryBudget.current!
                    try reservation.hold(5 * unit, as: .points)
                    aHolds.signal()
                    while budget.usage.restarts == 0 { usleep(1000) }
                    reservation.release(.points)
                    usleep(50_000)
                    try reservation.hold(3 * unit, as: .analysis)
                    usleep(150_000)
                }
                results.add(1)
            } catch {
                results.add(-1)
            }
        }
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            aHolds.wait()
            do {
                try budget.reading("b") {
                    let reservation = MemoryBudget.current!
                    try reservation.hold(4 * unit, as: .points)
                    usleep(100_000)
                    try reservation.hold(8 * unit, as: .points)
                }
                results.add(2)
            } catch {
                results.add(-2)
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(results.values.sorted(), [1, 2])
        XCTAssertEqual(budget.usage.restarts, 1)
        XCTAssertEqual(budget.usage.reservedBytes, 0)
        XCTAssertLessThanOrEqual(budget.usage.peakBytes, budget.totalBytes)
    }
}

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Int] = []
    func add(_ value: Int) { lock.lock(); values.append(value); lock.unlock() }
}
