import RunFixtures
import XCTest

@testable import RunFiles
@testable import SyntheticRuns

final class GzipTests: XCTestCase {
    /// "hello" in one stored (uncompressed) deflate block, gzip header and trailer written by hand:
    /// CRC-32 of "hello" is 0x3610A686, ISIZE 5.
    let storedHello: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        + [0x01, 0x05, 0x00, 0xFA, 0xFF] + Array("hello".utf8)
        + [0x86, 0xA6, 0x10, 0x36] + [0x05, 0x00, 0x00, 0x00]

    /// What Python's gzip.compress(b"hello world, hello world, hello world\n", mtime=0) writes.
    let pythonGzip: [UInt8] = [
        31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 40, 207, 47, 202, 73, 209, 81, 200, 192, 193, 225, 2,
        0, 126, 249, 152, 172, 38, 0, 0, 0,
    ]

    func testKnownStreams() throws {
        XCTAssertTrue(Gzip.isGzip(storedHello))
        XCTAssertFalse(Gzip.isGzip(Array("<?xml".utf8)))
        XCTAssertFalse(Gzip.isGzip([0x1F]))
        XCTAssertEqual(try Gzip.decompress(storedHello, source: "h.gz"), Array("hello".utf8))
        XCTAssertEqual(
            String(decoding: try Gzip.decompress(pythonGzip, source: "p.gz"), as: UTF8.self),
            "hello world, hello world, hello world\n")
        // Concatenated members and zero padding.
        XCTAssertEqual(
            try Gzip.decompress(storedHello + pythonGzip + [0, 0, 0, 0], source: "m.gz"),
            Array("hello".utf8) + Array("hello world, hello world, hello world\n".utf8))
    }

    func testRoundTripLargerThanOneChunk() throws {
        var data: [UInt8] = []
        var x: UInt32 = 12345
        for _ in 0..<(1_200_000) {
            x = x &* 1_103_515_245 &+ 12345
            data.append(UInt8(truncatingIfNeeded: x >> 24) & 0x3F)
        }
        let packed = try Gzip.compress(data)
        XCTAssertTrue(Gzip.isGzip(packed))
        XCTAssertLessThan(packed.count, data.count)
        XCTAssertEqual(try Gzip.decompress(packed, source: "big.gz"), data)
        XCTAssertThrowsError(try Gzip.decompress(packed, source: "big.gz", maximumBytes: 1000)) { error in
            XCTAssertTrue("\(error)".contains("refusing"), "\(error)")
        }
    }

    func testTruncatedAndCorruptStreams() {
        XCTAssertThrowsError(try Gzip.decompress(Array(pythonGzip.prefix(20)), source: "cut.gpx.gz")) { error in
            guard case ActivityError.malformed(let path, _, _, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "cut.gpx.gz")
            XCTAssertTrue(reason.contains("truncated gzip"), reason)
        }
        var badCRC = storedHello
        badCRC[15] ^= 0xFF
        XCTAssertThrowsError(try Gzip.decompress(badCRC, source: "crc.gz")) { error in
            XCTAssertTrue("\(error)".contains("corrupt gzip data"), "\(error)")
            XCTAssertTrue("\(error)".contains("crc.gz"), "\(error)")
        }
        var badBlock = storedHello
        badBlock[10] = 0x07  // reserved block type 11
        XCTAssertThrowsError(try Gzip.decompress(badBlock, source: "blk.gz")) { error in
            XCTAssertTrue("\(error)".contains("corrupt gzip data"), "\(error)")
        }
        XCTAssertThrowsError(try Gzip.decompress(storedHello + [1, 2, 3], source: "tail.gz")) { error in
            XCTAssertTrue("\(error)".contains("3 unexpected bytes"), "\(error)")
        }
        XCTAssertThrowsError(try Gzip.decompress(Array("plain".utf8), source: "plain.gz")) { error in
            guard case ActivityError.notFormat = error else { return XCTFail("\(error)") }
        }
    }

    /// A .gpx.gz is inflated as it is scanned (never whole in memory): the same track as inflating
    /// it first, whatever the members, padding or chunk size; a cut or padded-with-junk file names
    /// what is wrong; the content hash covers the file as stored.
    func testGPXStreamsOutOfGzip() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let dir = temporary.url
        let gpx = RunGenerator(seed: 3, distanceMeters: 3000).gpxBytes()
        let half = gpx.count / 2
        let members = try Gzip.compress(Array(gpx[..<half])) + Gzip.compress(Array(gpx[half...])) + [0, 0, 0]
        let path = dir.appendingPathComponent("run.gpx.gz").path
        try Data(members).write(to: URL(fileURLWithPath: path))
        let whole = try GPXReader.read(bytes: gpx, source: path)
        for chunk in [7, 4096, GPXReader.defaultChunkSize] {
            let streamed = try GPXReader.read(gzipPath: path, chunkSize: chunk)
            XCTAssertEqual(streamed.latitudes, whole.latitudes)
            XCTAssertEqual(streamed.times, whole.times)
        }
        let hasher = ContentHasher()
        _ = try GPXReader.read(gzipPath: path, hasher: hasher)
        var state = Hasher64()
        members.withUnsafeBytes { state.update($0) }
        XCTAssertEqual(hasher.finish(), state.finish())

        try Data(members.prefix(members.count / 2)).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try GPXReader.read(gzipPath: path)) { error in
            XCTAssertTrue("\(error)".contains("truncated gzip file"), "\(error)")
        }
        // A broken element is named by its line in the inflated text (inflated again in chunks).
        let broken = Array("<gpx>\n<trk>\n<trkseg>\n</trk>\n</gpx>\n".utf8)
        try Data(Gzip.compress(broken)).write(to: URL(fileURLWithPath: path))
        var expected = ""
        XCTAssertThrowsError(try GPXReader.read(bytes: broken, source: path)) { expected = "\($0)" }
        XCTAssertThrowsError(try GPXReader.read(gzipPath: path)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(path):4 "), "\(error)")
            XCTAssertEqual("\(error)", expected)
        }
        try Data(members + [1, 2, 3]).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try GPXReader.read(gzipPath: path)) { error in
            XCTAssertTrue("\(error)".contains("6 unexpected bytes after the end of the gzip data"), "\(error)")
        }
    }

    func testReadersOpenGzippedFiles() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let dir = temporary.url
        var track = Track(source: "gen")
        for k in 0..<10 {
            track.append(latitude: 48 + Double(k) * 1e-4, longitude: 2, time: 1_700_000_000 + Double(k))
        }
        let fitPath = dir.appendingPathComponent("run.fit.gz").path
        try Data(Gzip.compress(FITWriter.encode(track: track))).write(to: URL(fileURLWithPath: fitPath))
        XCTAssertEqual(try FITReader.read(path: fitPath).first?.count, 10)

        let tcx = """
            <?xml version="1.0"?><TrainingCenterDatabase><Activities><Activity Sport="Running"><Lap StartTime="2024-01-01T00:00:00Z"><Track>
            <Trackpoint><Time>2024-01-01T00:00:00Z</Time><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let tcxPath = dir.appendingPathComponent("run.tcx.gz").path
        try Data(Gzip.compress(Array(tcx.utf8))).write(to: URL(fileURLWithPath: tcxPath))
        XCTAssertEqual(try TCXReader.read(path: tcxPath).first?.latitudes, [1])

        XCTAssertThrowsError(try FITReader.read(path: dir.appendingPathComponent("missing.fit").path)) { error in
            guard case ActivityError.unreadable(let path, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(path.hasSuffix("missing.fit"))
            XCTAssertTrue(reason.contains("No such file"), reason)
        }
    }
}
