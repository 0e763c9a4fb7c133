import RunFixtures
import GRDB
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
@testable import RunLibrary
import XCTest

/// Several connections (as several processes would) opening one new cache file at the same moment:
/// one makes the tables, the others find them; nobody warns, nothing is moved aside.
final class RunCacheSharingTests: XCTestCase {
    func testConnectionsOpeningANewCacheTogetherAllUseIt() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        try FileManager.default.createDirectory(atPath: folder + "/runs", withIntermediateDirectories: true)
        for index in 1...3 {
            try Data(RunGenerator(seed: UInt64(index), distanceMeters: 1000 + Double(index) * 300).gpxBytes())
                .write(to: URL(fileURLWithPath: folder + "/runs/run-\(index).gpx"))
        }
        let expected = try RunFolder.read(folder + "/runs")
        for round in 0..<20 {
            let path = folder + "/cache-\(round).sqlite"
            let outcomes = Outcomes()
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    start.wait()
                    var warning: String?
                    let cache = RunCache.open(path: path, warning: &warning)
                    let read = try? RunFolder.read(folder + "/runs", cache: cache)
                    outcomes.add(warning: warning, warnings: cache?.warnings ?? ["no cache"], runs: read?.runs ?? [])
                }
            }
            for _ in 0..<4 { start.signal() }
            XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
            XCTAssertEqual(outcomes.messages, [], "round \(round)")
            XCTAssertEqual(outcomes.runs.count, 4)
            for runs in outcomes.runs { XCTAssertEqual(runs, expected.runs, "round \(round)") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".corrupt"), "round \(round)")
        }
    }

    /// A busy or locked database is waited for, never taken for one that is not ours.
    func testOnlyNotADatabaseOrDamageMovesAFileAside() {
        func verdict(_ code: ResultCode) -> String {
            switch RunCache.verdict(DatabaseError(resultCode: code)) {
            case .ready: "ready"
            case .busy: "busy"
            case .notOurs: "aside"
            case .failed: "failed"
            case .foreign: "foreign"
            }
        }
        XCTAssertEqual(verdict(.SQLITE_BUSY), "busy")
        XCTAssertEqual(verdict(.SQLITE_LOCKED), "busy")
        XCTAssertEqual(verdict(.SQLITE_NOTADB), "aside")
        XCTAssertEqual(verdict(.SQLITE_CORRUPT), "aside")
        XCTAssertEqual(verdict(.SQLITE_CANTOPEN), "failed")
        XCTAssertEqual(verdict(.SQLITE_READONLY), "failed")
    }
}

final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var messages: [String] = []
    private(set) var runs: [[RunSummary]] = []
    func add(warning: String?, warnings: [String], runs read: [RunSummary]) {
        lock.lock()
        defer { lock.unlock() }
        if let warning { messages.append(warning) }
        messages += warnings
        runs.append(read)
    }
}
