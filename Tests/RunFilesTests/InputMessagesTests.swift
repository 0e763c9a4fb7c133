import RunFixtures
@testable import RunFiles
import XCTest

/// Messages worth acting on (issue H item 7): a UTF-16 file, a JSON string with a lone surrogate,
/// a FIT header whose data size runs past the file.
final class InputMessagesTests: XCTestCase {
    let gpx = """
        <?xml version="1.0" encoding="UTF-16"?>
        <gpx version="1.1"><trk><trkseg><trkpt lat="52.0" lon="4.0"><time>2024-05-01T07:00:00Z</time></trkpt></trkseg></trk></gpx>
        """

    /// UTF-16 as Windows tools write it: little-endian with a byte-order mark, or big-endian without.
    func utf16(_ text: String, littleEndian: Bool, mark: Bool) -> [UInt8] {
        var bytes: [UInt8] = mark ? (littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]) : []
        for unit in text.utf16 {
            let (low, high) = (UInt8(unit & 0xFF), UInt8(unit >> 8))
            bytes += littleEndian ? [low, high] : [high, low]
        }
        return bytes
    }

    func testUTF16GPXSaysSaveItAsUTF8() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        for (littleEndian, mark) in [(true, true), (false, false), (true, false), (false, true)] {
            let bytes = utf16(gpx, littleEndian: littleEndian, mark: mark)
            let path = folder + "/run-\(littleEndian)-\(mark).gpx"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            for read in [{ try GPXReader.read(path: path) }, { try GPXReader.read(bytes: bytes, source: path) },
                         { try GPXReader.read(bytes: bytes, source: path, chunkSize: 3) }] {
                XCTAssertThrowsError(try read()) { error in
                    XCTAssertEqual("\(error)", "\(path): not a gpx file: UTF-16 is not supported; save it as UTF-8 (line 1)")
                }
            }
        }
        // A gzip'd one says the same.
        let packed = folder + "/run.gpx.gz"
        try Data(Gzip.compress(utf16(gpx, littleEndian: true, mark: true))).write(to: URL(fileURLWithPath: packed))
        XCTAssertThrowsError(try GPXReader.read(gzipPath: packed)) { error in
            XCTAssertTrue("\(error)".hasSuffix("UTF-16 is not supported; save it as UTF-8 (line 1)"), "\(error)")
        }
        // UTF-8 with a byte-order mark is read as ever.
        XCTAssertEqual(try GPXReader.read(bytes: [0xEF, 0xBB, 0xBF] + Array(gpx.utf8), source: "bom.gpx").count, 1)
    }

    func testUTF16TCXSaysSaveItAsUTF8() {
        let tcx = "<?xml version=\"1.0\"?><TrainingCenterDatabase></TrainingCenterDatabase>"
        for (littleEndian, mark) in [(true, true), (false, false)] {
            XCTAssertThrowsError(try TCXReader.read(bytes: utf16(tcx, littleEndian: littleEndian, mark: mark), source: "w.tcx")) { error in
                XCTAssertEqual("\(error)", "w.tcx: not a TCX file: UTF-16 is not supported; save it as UTF-8")
            }
        }
    }

    func testLoneSurrogateInAJSONStringIsNamedWithItsPlace() throws {
        let cases = [
            (#"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700, "name": "run \ud800 x"}"#, "\\ud800", 1, 87),
            ("{\"start\": \"2024-05-09T07:00:00Z\",\n \"name\": \"\\uDC01\", \"distance_m\": 5200, \"duration_s\": 1700}", "\\uDC01", 2, 44),
            (#"{"name": "\ud83c", "start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700}"#, "\\ud83c", 1, 10),
        ]
        for (json, escape, line, offset) in cases {
            XCTAssertThrowsError(try SummaryReader.read(data: Data(json.utf8), source: "s.json", id: "s.json", zoneOffsetSeconds: 0), json) { error in
                guard case .malformed(let path, let l, let o, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
                XCTAssertEqual(path, "s.json")
                XCTAssertEqual(l, line, json)
                XCTAssertEqual(o, offset, json)
                XCTAssertEqual(reason, "a string holds \(escape), half of a UTF-16 surrogate pair without its other half; "
                    + "JSON text must be valid Unicode (write the character itself, or both halves)")
            }
        }
        // A whole pair, and an escaped backslash before "ud800" (text, not an escape), read as ever.
        let pair = #"{"start": "2024-05-09T07:00:00Z", "distance_m": 5200, "duration_s": 1700, "name": "\ud83c\udfc3 \\ud800"}"#
        let run = try SummaryReader.read(data: Data(pair.utf8), source: "p.json", id: "p.json", zoneOffsetSeconds: 0)
        XCTAssertEqual(run.name, "\u{1F3C3} \\ud800")
    }

    /// A header whose data size runs past the file: the message says what the header claims, what
    /// the file holds, and what to do.
    func testFITHeaderDataSizePastTheFile() {
        var header: [UInt8] = [14, 0x20, 0x54, 0x08]
        header += [0xA0, 0x86, 0x01, 0x00]  // 100,000 data bytes
        header += Array(".FIT".utf8) + [0, 0]
        XCTAssertThrowsError(try FITReader.read(bytes: header, source: "cut.fit")) { error in
            XCTAssertEqual("\(error)", "cut.fit (byte 14): unexpected end of file: the header (byte 4) says 100000 data bytes follow it, "
                + "the file has only 0: the file was cut short (copy it from the device again) or its header is damaged")
        }
    }

    /// The same on a real file full of messages: its header made to claim 2 GB (header CRC fixed
    /// up) was reported as a lap message cut short; the header is now checked first.
    func testFITHeaderDataSizePastTheFileComesBeforeItsMessages() throws {
        let repository = Repository.root
        var bytes = [UInt8](try Data(contentsOf: repository.appendingPathComponent("runs/2026-08-20-first-10k.fit")))
        XCTAssertEqual(bytes[0], 14)
        XCTAssertNoThrow(try FITReader.read(bytes: bytes, source: "big.fit"))
        bytes.replaceSubrange(4..<8, with: [0x00, 0x00, 0x00, 0x80])  // 2,147,483,648 data bytes
        let crc = FITProfile.crc16(bytes[0..<12])
        bytes.replaceSubrange(12..<14, with: [UInt8(crc & 0xFF), UInt8(crc >> 8)])
        XCTAssertThrowsError(try FITReader.read(bytes: bytes, source: "big.fit")) { error in
            XCTAssertEqual("\(error)", "big.fit (byte \(bytes.count)): unexpected end of file: the header (byte 4) says 2147483648 data bytes "
                + "follow it, the file has only \(bytes.count - 14): the file was cut short (copy it from the device again) or its header is damaged")
        }
    }
}
