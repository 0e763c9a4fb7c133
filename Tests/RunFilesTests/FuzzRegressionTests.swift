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

    /// Same as FuzzGPX: one buffer and 7-byte chunks agree on a track (its size) or an error.
    func testGPX() throws {
        for (name, bytes) in try inputs("FuzzGPX") {
            let whole = Result { try GPXReader.read(bytes: bytes, source: name) }
            let chunked = Result { try GPXReader.read(bytes: bytes, source: name, chunkSize: 7) }
            XCTAssertEqual(try? whole.get().count, try? chunked.get().count, name)
        }
    }

    func testTCX() throws {
        for (name, bytes) in try inputs("FuzzTCX") { _ = try? TCXReader.read(bytes: bytes, source: name) }
    }

    func testFIT() throws {
        for (name, bytes) in try inputs("FuzzFIT") {
            _ = try? FITReader.read(bytes: bytes, source: name, checkCRC: false)
            _ = try? FITReader.read(bytes: bytes, source: name, checkCRC: true)
        }
    }

    func testJSON() throws {
        for (name, bytes) in try inputs("FuzzJSON") {
            _ = try? SummaryReader.read(data: Data(bytes), source: name, id: name, zoneOffsetSeconds: nil)
            _ = try? SummaryReader.read(data: Data(bytes), source: name, id: name, zoneOffsetSeconds: 3600)
        }
    }

    /// Same as FuzzGzip: inflated (capped at 16 MiB), then read as GPX.
    func testGzip() throws {
        for (name, bytes) in try inputs("FuzzGzip") {
            guard let inflated = try? Gzip.decompress(bytes, source: name, maximumBytes: 1 << 24) else { continue }
            _ = try? GPXReader.read(bytes: inflated, source: name)
        }
    }
}
