import Foundation
import XCTest

@testable import RunFiles

/// Replays every input that ever crashed or hung a reader under the fuzzer
/// (Fuzz/regressions/<target>/, see scripts/fuzz), the way its fuzz target feeds it: each must
/// end with a result or a thrown error, in well under the fuzzer's timeout.
final class FuzzRegressionTests: XCTestCase {
    /// Fuzz/regressions, found from this file (Tests/RunFilesTests/ -> the package root).
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/regressions")

    /// The inputs of one target (hidden files such as `.keep` are not inputs).
    func inputs(_ target: String) throws -> [(name: String, bytes: [UInt8])] {
        let dir = Self.folder.appendingPathComponent(target)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix(".") }.sorted()
        return try names.map { ($0, Array(try Data(contentsOf: dir.appendingPathComponent($0)))) }
    }

    /// The result of `read`, nil when it throws; the error's message is built, as the targets do.
    func ends<T>(_ read: () throws -> T) -> T? {
        do { return try read() } catch { _ = String(describing: error); return nil }
    }

    /// Same as FuzzGPX: one buffer and 7-byte chunks agree on a track (its size) or an error.
    func testGPX() throws {
        for (name, bytes) in try inputs("FuzzGPX") {
            let whole = ends { try GPXReader.read(bytes: bytes, source: name) }
            let chunked = ends { try GPXReader.read(bytes: bytes, source: name, chunkSize: 7) }
            XCTAssertEqual(whole?.count, chunked?.count, name)
        }
    }

    func testTCX() throws {
        for (name, bytes) in try inputs("FuzzTCX") { _ = ends { try TCXReader.read(bytes: bytes, source: name) } }
    }

    func testFIT() throws {
        for (name, bytes) in try inputs("FuzzFIT") {
            for checkCRC in [false, true] { _ = ends { try FITReader.read(bytes: bytes, source: name, checkCRC: checkCRC) } }
        }
    }

    func testJSON() throws {
        for (name, bytes) in try inputs("FuzzJSON") {
            for zone in [nil, 3600] {
                _ = ends { try SummaryReader.read(data: Data(bytes), source: name, id: name, zoneOffsetSeconds: zone) }
            }
        }
    }

    /// Same as FuzzGzip: inflated (capped at 16 MiB), then read as GPX.
    func testGzip() throws {
        for (name, bytes) in try inputs("FuzzGzip") {
            _ = ends { try GPXReader.read(bytes: try Gzip.decompress(bytes, source: name, maximumBytes: 1 << 24), source: name) }
        }
    }
}
