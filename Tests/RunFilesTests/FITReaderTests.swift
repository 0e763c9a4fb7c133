import XCTest

@testable import RunFiles
@testable import RunAnalysis
@testable import SyntheticRuns

/// FIT bytes assembled by hand from the protocol description, plus round trips through FITWriter.
final class FITReaderTests: XCTestCase {
    // MARK: byte helpers (no encoder involved)

    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
    func be32(_ v: UInt32) -> [UInt8] { le32(v).reversed() }
    func le32(_ v: Int32) -> [UInt8] { le32(UInt32(bitPattern: v)) }
    func be32(_ v: Int32) -> [UInt8] { be32(UInt32(bitPattern: v)) }

    /// 14-byte header with its CRC, the records, the file CRC.
    func fitFile(_ records: [UInt8], headerSize: UInt8 = 14) -> [UInt8] {
        var file: [UInt8] = [headerSize, 0x20] + le16(2132) + le32(UInt32(records.count)) + Array(".FIT".utf8)
        if headerSize == 14 { file += le16(FITProfile.crc16(file)) }
        file += records
        file += le16(FITProfile.crc16(file))
        return file
    }

    let t0: UInt32 = 1_000_000_000  // FIT seconds = 2021-09-08T01:46:40Z
    var epoch0: Double { Double(t0) + 631_065_600 }

    // MARK: CRC

    func testCRCMatchesKnownVectors() {
        // The CRC-16/ARC catalogue check value (same polynomial and table as the FIT SDK).
        XCTAssertEqual(FITProfile.crc16(Array("123456789".utf8)), 0xBB3D)
        // The header CRC a Garmin Forerunner 945 wrote into a 14-byte header (stored as 6A F1).
        let header: [UInt8] = [0x0E, 0x20, 0x29, 0x08, 0x45, 0xD5, 0x03, 0x00, 0x2E, 0x46, 0x49, 0x54]
        XCTAssertEqual(FITProfile.crc16(header), 0xF16A)
        XCTAssertEqual(FITProfile.crc16([]), 0)
        // A file with its CRC appended has CRC 0 over everything.
        let file = fitFile([])
        XCTAssertEqual(FITProfile.crc16(file), 0)
        // The byte-table form used for whole files agrees with the SDK's nibble form.
        var bytes: [UInt8] = []
        var x: UInt32 = 7
        for _ in 0..<4096 {
            x = x &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: x >> 24))
        }
        let fast = bytes.withUnsafeBytes { FITProfile.crc16($0, from: 0, to: $0.count) }
        XCTAssertEqual(fast, FITProfile.crc16(bytes))
        // Every start and length, across the sixteen-byte steps and their tails.
        for from in [0, 1, 3, 7, 8, 15, 16, 17, 1000] {
            for count in Array(0...70) + [255, 256, 257, 1021, 3000] {
                let sliced = bytes.withUnsafeBytes { FITProfile.crc16($0, from: from, to: from + count) }
                XCTAssertEqual(sliced, FITProfile.crc16(bytes[from..<(from + count)]), "\(from) + \(count)")
            }
        }
        let hello = Array("123456789".utf8).withUnsafeBytes { FITProfile.crc16($0, from: 0, to: $0.count) }
        XCTAssertEqual(hello, 0xBB3D)
    }

    func testSlicedCRCMatchesTheNibbleAlgorithmAtEveryLengthAndOffset() {
        var state: UInt32 = 12345
        let bytes: [UInt8] = (0..<300).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        bytes.withUnsafeBytes { raw in
            for from in 0..<9 {
                for to in stride(from: from, through: bytes.count, by: 7) {
                    XCTAssertEqual(FITProfile.crc16(raw, from: from, to: to), FITProfile.crc16(bytes[from..<to]), "bytes \(from)..<\(to)")
                }
            }
        }
    }

    // MARK: hand-assembled files

    /// Definition (little endian) + two records + compressed timestamps (with a rollover) +
    /// a big-endian definition + a developer field + a session.
    func handAssembled() -> [UInt8] {
        var r: [UInt8] = []
        // local 0: record, little endian: timestamp, lat, long, heart_rate, distance
        r += [0x40, 0x00, 0x00] + le16(20) + [5, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 3, 1, 0x02, 5, 4, 0x86]
        // 45° N = 2^29 semicircles, 90° W = −2^30
        r += [0x00] + le32(t0) + le32(Int32(1 << 29)) + le32(Int32(-(1 << 30))) + [120] + le32(UInt32(0))
        r += [0x00] + le32(t0 + 2) + le32(Int32(1 << 29) + 1000) + le32(Int32(-(1 << 30))) + [0xFF] + le32(UInt32(1050))
        // local 1: record without timestamp, for compressed headers: lat, long, altitude
        r += [0x41, 0x00, 0x00] + le16(20) + [3, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84]
        // last timestamp t0+2 (low bits 0b00010): offset 7 → t0+7; offset 1 < 7 → rollover: t0+1+32
        r += [0x80 | (1 << 5) | 7] + le32(Int32(1 << 29) + 2000) + le32(Int32(-(1 << 30))) + le16(2500 + 123 * 5)
        r += [0x80 | (1 << 5) | 1] + le32(Int32(1 << 29) + 3000) + le32(Int32(-(1 << 30))) + le16(0xFFFF)
        // local 2: record, BIG endian: timestamp, lat, long, distance
        r += [0x42, 0x00, 0x01, 0x00, 20, 4, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 5, 4, 0x86]
        r += [0x02] + be32(t0 + 40) + be32(Int32(1 << 29) + 4000) + be32(Int32(-(1 << 30))) + be32(UInt32(5000))
        // local 3: record with a developer field (2 bytes) and no position → dropped
        r += [0x63, 0x00, 0x00] + le16(20) + [2, 253, 4, 0x86, 3, 1, 0x02] + [1, 0, 2, 0]
        r += [0x03] + le32(t0 + 41) + [130] + [0xAB, 0xCD]
        // invalid position (0x7FFFFFFF) through local 0 → dropped
        r += [0x00] + le32(t0 + 42) + le32(Int32.max) + le32(Int32.max) + [131] + le32(UInt32(5100))
        // local 4: session: timestamp, start_time, sport, total_elapsed_time, total_timer_time, total_distance
        r += [0x44, 0x00, 0x00] + le16(18) + [6, 253, 4, 0x86, 2, 4, 0x86, 5, 1, 0x00, 7, 4, 0x86, 8, 4, 0x86, 9, 4, 0x86]
        r += [0x04] + le32(t0 + 42) + le32(t0) + [1] + le32(UInt32(42_500)) + le32(UInt32(41_000)) + le32(UInt32(5100))
        return fitFile(r)
    }

    func testHandAssembledFile() throws {
        let tracks = try FITReader.read(bytes: handAssembled(), source: "hand.fit")
        XCTAssertEqual(tracks.count, 1)
        let t = try XCTUnwrap(tracks.first)
        XCTAssertEqual(t.format, .fit)
        XCTAssertEqual(t.sport, "running")
        XCTAssertTrue(t.hasPositions)
        XCTAssertEqual(t.count, 5)
        XCTAssertEqual(t.dropped["no position"], 2)
        XCTAssertEqual(t.times.map { $0 - epoch0 }, [0, 2, 7, 33, 40])
        XCTAssertEqual(t.latitudes[0], 45, accuracy: 1e-12)
        XCTAssertEqual(t.longitudes[0], -90, accuracy: 1e-12)
        XCTAssertEqual(t.latitudes[4], 45 + 4000 * 180 / 2_147_483_648.0, accuracy: 1e-12)
        XCTAssertEqual(t.heartRates[0], 120)
        XCTAssertTrue(t.heartRates[1].isNaN, "0xFF is the invalid uint8")
        XCTAssertEqual(t.elevations[2], 123, accuracy: 1e-9)
        XCTAssertTrue(t.elevations[3].isNaN, "0xFFFF is the invalid uint16")
        XCTAssertEqual(t.deviceDistances[1], 10.5, accuracy: 1e-9)
        XCTAssertEqual(t.deviceDistances[4], 50, accuracy: 1e-9)
        XCTAssertTrue(t.deviceDistances[2].isNaN)
        XCTAssertEqual(t.deviceDistanceMeters ?? 0, 51, accuracy: 1e-9)
        XCTAssertEqual(t.deviceElapsedSeconds ?? 0, 42.5, accuracy: 1e-9)
        XCTAssertEqual(t.deviceTimerSeconds ?? 0, 41, accuracy: 1e-9)
        XCTAssertEqual(t.segmentStarts, [0])
    }

    func testTwelveByteHeaderWithoutHeaderCRC() throws {
        var r: [UInt8] = [0x40, 0x00, 0x00] + le16(20) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        r += [0x00] + le32(t0) + le32(Int32(1 << 29)) + le32(Int32(1 << 28))
        let t = try XCTUnwrap(FITReader.read(bytes: fitFile(r, headerSize: 12), source: "legacy.fit").first)
        XCTAssertEqual(t.count, 1)
        XCTAssertEqual(t.longitudes[0], 22.5, accuracy: 1e-12)
        XCTAssertNil(t.sport)
    }

    func testIndoorFileKeepsRecordsWithDeviceDistance() throws {
        var r: [UInt8] = [0x40, 0x00, 0x00] + le16(20) + [2, 253, 4, 0x86, 5, 4, 0x86]
        for k in 0..<4 { r += [0x00] + le32(t0 + UInt32(k * 10)) + le32(UInt32(k * 3000)) }
        let t = try XCTUnwrap(FITReader.read(bytes: fitFile(r), source: "treadmill.fit").first)
        XCTAssertFalse(t.hasPositions)
        XCTAssertEqual(t.count, 4)
        XCTAssertTrue(t.latitudes.allSatisfy(\.isNaN))
        XCTAssertNil(t.dropped["no position"])
        XCTAssertEqual(RunAnalyzer.profile(of: t).totalDistance, 90, accuracy: 1e-9)
        XCTAssertEqual(t.deviceDistanceMeters ?? 0, 90, accuracy: 1e-9, "without a session: the last record distance")
    }

    func testTimerEventsBecomePauses() throws {
        var r: [UInt8] = [0x40, 0x00, 0x00] + le16(21) + [3, 253, 4, 0x86, 0, 1, 0x00, 1, 1, 0x00]
        r += [0x41, 0x00, 0x00] + le16(20) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        r += [0x00] + le32(t0) + [0, 0]  // timer start
        r += [0x01] + le32(t0) + le32(Int32(0)) + le32(Int32(0))
        r += [0x00] + le32(t0 + 100) + [0, 4]  // timer stop_all
        r += [0x00] + le32(t0 + 160) + [0, 0]  // timer start
        r += [0x00] + le32(t0 + 170) + [3, 0]  // not a timer event
        r += [0x01] + le32(t0 + 200) + le32(Int32(1000)) + le32(Int32(0))
        r += [0x00] + le32(t0 + 200) + [0, 1]  // timer stop, never restarted
        let t = try XCTUnwrap(FITReader.read(bytes: fitFile(r), source: "pause.fit").first)
        XCTAssertEqual(t.pauses, [Pause(from: epoch0 + 100, to: epoch0 + 160)])
    }

    func testSeveralSessionsGiveSeveralTracks() throws {
        var r: [UInt8] = [0x40, 0x00, 0x00] + le16(20) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        for k in 0..<6 { r += [0x00] + le32(t0 + UInt32(k * 60)) + le32(Int32(k * 100)) + le32(Int32(0)) }
        r += [0x41, 0x00, 0x00] + le16(18) + [3, 253, 4, 0x86, 2, 4, 0x86, 5, 1, 0x00]
        r += [0x01] + le32(t0 + 120) + le32(t0) + [2]
        r += [0x01] + le32(t0 + 300) + le32(t0 + 180) + [1]
        let tracks = try FITReader.read(bytes: fitFile(r), source: "multi.fit")
        XCTAssertEqual(tracks.map(\.sport), ["cycling", "running"])
        XCTAssertEqual(tracks.map(\.count), [3, 3])
        XCTAssertEqual(tracks[1].times.first.map { $0 - epoch0 }, 180)
    }

    func testChainedFilesAreReadInSequence() throws {
        var a: [UInt8] = [0x40, 0x00, 0x00] + le16(20) + [3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        a += [0x00] + le32(t0) + le32(Int32(0)) + le32(Int32(0))
        // The second file uses local 0 for the same message but must define it again.
        var b: [UInt8] = [0x40, 0x00, 0x00] + le16(20) + [2, 0, 4, 0x85, 1, 4, 0x85]
        b += [0x00] + le32(Int32(100)) + le32(Int32(0))
        let t = try XCTUnwrap(FITReader.read(bytes: fitFile(a) + fitFile(b) + [0, 0, 0], source: "chain.fit").first)
        XCTAssertEqual(t.count, 2)
        XCTAssertTrue(t.times[1].isNaN)
        XCTAssertThrowsError(try FITReader.read(bytes: fitFile(a) + [1, 2, 3], source: "junk.fit")) { error in
            XCTAssertTrue("\(error)".contains("junk.fit"), "\(error)")
            XCTAssertTrue("\(error)".contains("after the FIT file's CRC"), "\(error)")
        }
    }

    // MARK: broken files

    func testBadSignatureIsNotFIT() {
        var bytes = handAssembled()
        bytes[9] = 0x58
        XCTAssertThrowsError(try FITReader.read(bytes: bytes, source: "x.fit")) { error in
            guard case ActivityError.notFormat(let path, let format, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "x.fit"); XCTAssertEqual(format, "FIT")
            XCTAssertTrue(reason.contains(".FIT"), reason)
        }
        XCTAssertThrowsError(try FITReader.read(bytes: [0x0E, 0x10], source: "short.fit"))
    }

    func testCorruptByteFailsTheFileCRCUnlessCheckingIsOff() throws {
        var bytes = handAssembled()
        bytes[14 + 27] ^= 0x01  // inside the first record's latitude
        XCTAssertThrowsError(try FITReader.read(bytes: bytes, source: "bad.fit")) { error in
            guard case ActivityError.malformed(_, _, let offset, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(offset, bytes.count - 2)
            XCTAssertTrue(reason.contains("CRC"), reason)
        }
        let lenient = try FITReader.read(bytes: bytes, source: "bad.fit", checkCRC: false)
        XCTAssertEqual(lenient.first?.count, 5)
    }

    /// A file large enough to have its CRC computed beside the decoding (`parallelCRCBytes`): a
    /// changed byte anywhere, including one that breaks the decoding itself, is still the CRC error
    /// at the CRC's offset; an intact file reads as it does with checking off.
    func testLargeFileCRCBesideTheDecodingGivesTheSameErrorsAndTracks() throws {
        let bytes = FITWriter.encode(track: RunGenerator(seed: 3, distanceMeters: 90_000).track())
        XCTAssertGreaterThanOrEqual(bytes.count, FITDecoder.parallelCRCBytes + 14, "the test must take the two-thread path")
        let checked = try FITReader.read(bytes: bytes, source: "big.fit")
        let unchecked = try FITReader.read(bytes: bytes, source: "big.fit", checkCRC: false)
        XCTAssertEqual(checked.count, 1)
        XCTAssertEqual(checked.first?.count, unchecked.first?.count)
        XCTAssertEqual(checked.first?.times, unchecked.first?.times)
        XCTAssertEqual(checked.first?.latitudes, unchecked.first?.latitudes)
        // The first message's header (an undefined local type) and its architecture byte: both
        // break the decoding itself; the middle of the records; the last record.
        for offset in [14, 19, bytes.count / 2, bytes.count - 5] {
            var bad = bytes
            bad[offset] ^= 0x4F
            XCTAssertThrowsError(try FITReader.read(bytes: bad, source: "big.fit"), "byte \(offset)") { error in
                guard case ActivityError.malformed(_, _, let at, let reason) = error else { return XCTFail("byte \(offset): \(error)") }
                XCTAssertEqual(at, bytes.count - 2, "byte \(offset): \(reason)")
                XCTAssertTrue(reason.contains("file CRC"), "byte \(offset): \(reason)")
            }
        }
    }

    func testBadHeaderCRC() {
        var bytes = handAssembled()
        bytes[12] ^= 0xFF
        XCTAssertThrowsError(try FITReader.read(bytes: bytes, source: "h.fit")) { error in
            guard case ActivityError.malformed(_, _, let offset, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(offset, 12)
            XCTAssertTrue(reason.contains("header CRC"), reason)
        }
    }

    func testTruncatedFileNamesTheBrokenMessage() {
        let bytes = handAssembled()
        // Cut inside the first data message (header 14 + definition 21 + 5 bytes of the record): the
        // header's data size runs past the file, and that is said first, whatever the cut message
        // (a header claiming 2 GB was otherwise named as whichever message the file's end cut).
        let cut = Array(bytes.prefix(14 + 21 + 5))
        XCTAssertThrowsError(try FITReader.read(bytes: cut, source: "cut.fit")) { error in
            guard case ActivityError.malformed(let path, _, let offset, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "cut.fit")
            XCTAssertEqual(offset, 40)
            XCTAssertTrue(reason.contains("the file has only 26: the file was cut short"), reason)
        }
        // A message that runs past the data the header gives is still named by that message.
        var short = bytes
        short.replaceSubrange(4..<8, with: [UInt8(21 + 5), 0, 0, 0])
        short.replaceSubrange(12..<14, with: FITProfile.crc16(short[0..<12]).littleEndianBytes)
        short.replaceSubrange(14 + 21 + 5..<14 + 21 + 7, with: Array(FITProfile.crc16(short[0..<40]).littleEndianBytes))
        XCTAssertThrowsError(try FITReader.read(bytes: Array(short.prefix(42)), source: "cut.fit")) { error in
            guard case ActivityError.malformed(_, _, let offset, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(offset, 35)
            XCTAssertTrue(reason.contains("record data message starting at byte 35"), reason)
        }
        // Cut just before the CRC: every message is whole, the CRC is missing.
        XCTAssertThrowsError(try FITReader.read(bytes: Array(bytes.dropLast(2)), source: "nocrc.fit")) { error in
            XCTAssertTrue("\(error)".contains("file CRC is missing"), "\(error)")
        }
    }

    func testDataBeforeDefinitionAndBadArchitecture() {
        XCTAssertThrowsError(try FITReader.read(bytes: fitFile([0x05, 1, 2]), source: "d.fit")) { error in
            XCTAssertTrue("\(error)".contains("local message type 5"), "\(error)")
        }
        XCTAssertThrowsError(try FITReader.read(bytes: fitFile([0x40, 0, 7, 20, 0, 0]), source: "a.fit")) { error in
            XCTAssertTrue("\(error)".contains("architecture byte 7"), "\(error)")
            XCTAssertTrue("\(error)".contains("(byte 16)"), "\(error)")
        }
        XCTAssertThrowsError(try FITReader.read(bytes: fitFile([0x80, 1, 2]), source: "c.fit")) { error in
            XCTAssertTrue("\(error)".contains("compressed-timestamp header before any full timestamp"), "\(error)")
        }
        // file_id type 6: a course.
        let course = [0x40, 0x00, 0x00] + le16(0) + [1, 0, 1, 0x00] + [0x00, 6]
        XCTAssertThrowsError(try FITReader.read(bytes: fitFile(course), source: "route.fit")) { error in
            XCTAssertTrue("\(error)".contains("course"), "\(error)")
        }
        XCTAssertThrowsError(try FITReader.read(bytes: fitFile([]), source: "empty.fit")) { error in
            guard case ActivityError.noUsablePoints = error else { return XCTFail("\(error)") }
        }
    }

    // MARK: writer round trip

    func sampleTrack() -> Track {
        var t = Track(source: "gen")
        let start = 1_700_000_000.0
        for k in 0..<300 {
            t.append(
                latitude: 52.0 + Double(k) * 0.00003, longitude: 4.9 + Double(k) * 0.00002,
                elevation: 10 + Double(k % 7), time: start + Double(k),
                heartRate: Double(120 + k % 30), cadence: 85, deviceDistance: .nan)
        }
        t.pauses = [Pause(from: start + 100, to: start + 130)]
        return t
    }

    func testWriterRoundTrip() throws {
        let original = sampleTrack()
        let bytes = FITWriter.encode(track: original, sport: 1, utcOffsetSeconds: 3600)
        XCTAssertEqual(FITProfile.crc16(bytes), 0)
        let t = try XCTUnwrap(FITReader.read(bytes: bytes, source: "rt.fit").first)
        XCTAssertEqual(t.count, original.count)
        XCTAssertEqual(t.sport, "running")
        XCTAssertEqual(t.utcOffsetSeconds, 3600)
        XCTAssertEqual(t.pauses, original.pauses)
        for i in stride(from: 0, to: t.count, by: 37) {
            XCTAssertEqual(t.latitudes[i], original.latitudes[i], accuracy: 1e-7)
            XCTAssertEqual(t.longitudes[i], original.longitudes[i], accuracy: 1e-7)
            XCTAssertEqual(t.elevations[i], original.elevations[i], accuracy: 0.2)
            XCTAssertEqual(t.times[i], original.times[i])
            XCTAssertEqual(t.heartRate(at: i), original.heartRate(at: i))
            XCTAssertEqual(t.cadences[i], 85)
        }
        let computed = RunAnalyzer.profile(of: original).totalDistance
        XCTAssertEqual(t.deviceDistanceMeters ?? 0, computed, accuracy: 0.01)
        XCTAssertEqual(RunAnalyzer.profile(of: t).totalDistance, computed, accuracy: computed * 1e-4)
        XCTAssertEqual(t.deviceElapsedSeconds, 299)
        XCTAssertEqual(t.deviceTimerSeconds, 269)
        XCTAssertEqual(t.laps.count, 1)
    }

    /// Records whose fields all have their profile's types (little-endian) are read without the
    /// general dispatch (`FITDefinition.standardRecord`): the same records written big-endian, or
    /// with heart rate as a uint16 (both read by the general path), give the same track bit for bit,
    /// with invalid values, either altitude alone or both, absent fields and compressed timestamps.
    func testStandardRecordsReadAsTheGeneralPathReadsThem() throws {
        typealias B = FITProfile.BaseType
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        func random(_ n: Int) -> Int {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return Int(x % UInt64(n))
        }
        // Field numbers and types of a record: timestamp, lat, long, altitude, enhanced altitude, hr, cadence, distance.
        let standard: [(UInt8, UInt8)] = [(253, B.uint32), (0, B.sint32), (1, B.sint32), (2, B.uint16), (78, B.uint32), (3, B.uint8), (4, B.uint8), (5, B.uint32)]
        let layouts: [[Int]] = [[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 4, 5, 6, 7], [0, 1, 2, 3, 5, 7], [0, 1, 2, 3, 4]]
        var rows: [(layout: Int, compressed: Bool, values: [FITWriter.Value])] = []
        var time = Int64(t0)
        for k in 0..<4_000 {
            time += Int64(1 + random(3))
            let compressed = k > 0 && random(4) == 0  // after a full timestamp
            let values: [FITWriter.Value] = [
                .integer(time),
                .integer(Int64(random(1 << 30)) - (1 << 29)), .integer(Int64(random(1 << 30)) - (1 << 29)),
                .integer(Int64(random(65_535))), .integer(Int64(random(100_000))),
                .integer(Int64(random(255))), .integer(Int64(random(255))), .integer(Int64(random(5_000_000))),
            ].enumerated().map { $0.offset > 0 && random(10) == 0 ? .invalid : $0.element }
            rows.append((random(layouts.count), compressed, values))
        }
        func file(bigEndian: Bool, heartRateType: UInt8) -> [UInt8] {
            var w = FITWriter()
            for (local, layout) in layouts.enumerated() {
                w.define(local: UInt8(local), global: 20, fields: layout.map { k in
                    .init(standard[k].0, k == 5 ? heartRateType : standard[k].1)
                }, bigEndian: bigEndian)
            }
            for row in rows {
                let layout = layouts[row.layout]
                if row.compressed, case .integer(let t) = row.values[0] {
                    let local = UInt8(row.layout)
                    // A compressed header carries no timestamp field: the layout's other fields only.
                    w.define(local: local, global: 20, fields: layout.dropFirst().map { k in
                        .init(standard[k].0, k == 5 ? heartRateType : standard[k].1)
                    }, bigEndian: bigEndian)
                    w.writeCompressed(local: local, timeOffset: UInt8(t & 0x1F), layout.dropFirst().map { row.values[$0] })
                    w.define(local: local, global: 20, fields: layout.map { k in
                        .init(standard[k].0, k == 5 ? heartRateType : standard[k].1)
                    }, bigEndian: bigEndian)
                } else {
                    w.write(local: UInt8(row.layout), layout.map { row.values[$0] })
                }
            }
            return w.finish()
        }
        func columns(_ t: Track) -> [[UInt64]] {
            [t.latitudes, t.longitudes, t.elevations, t.times, t.heartRates, t.cadences, t.deviceDistances].map { $0.map(\.bitPattern) }
        }
        let fast = try XCTUnwrap(FITReader.read(bytes: file(bigEndian: false, heartRateType: B.uint8), source: "standard.fit").first)
        XCTAssertGreaterThan(fast.count, 3_000)
        XCTAssertGreaterThan(fast.dropped["no position"] ?? 0, 100)
        XCTAssertTrue(fast.elevations.contains { $0.isNaN } && fast.heartRates.contains { $0.isNaN }, "invalid values among them")
        for (name, bytes) in [("big-endian", file(bigEndian: true, heartRateType: B.uint8)), ("uint16 heart rate", file(bigEndian: false, heartRateType: B.uint16))] {
            let general = try XCTUnwrap(FITReader.read(bytes: bytes, source: "general.fit").first)
            XCTAssertEqual(general.count, fast.count, name)
            XCTAssertEqual(general.dropped, fast.dropped, name)
            XCTAssertTrue(columns(general) == columns(fast), "\(name): every column bit for bit")
        }
    }

    /// Standard records are appended to the track in chunks (`FITRecordChunk`): long stretches of
    /// them across chunk boundaries, heart rate and cadence that start hundreds of records in (and
    /// stop again), a device distance never given, and a few records read the general way in the
    /// middle (a big-endian local type) and a definition redefined give the same track, bit for bit,
    /// as a file whose every record is read the general way, one `Track.append` each.
    func testChunkedStandardRecordsFillEveryColumnAsTheGeneralPathDoes() throws {
        typealias B = FITProfile.BaseType
        let fields: [FITWriter.Field] = [.init(253, B.uint32), .init(0, B.sint32), .init(1, B.sint32), .init(2, B.uint16),
                                         .init(3, B.uint8), .init(4, B.uint8), .init(5, B.uint32)]
        func values(_ k: Int) -> [FITWriter.Value] {
            [.integer(Int64(t0) + Int64(k)), .integer(Int64(k * 1_000 - 500_000)), .integer(Int64(700_000 - k * 37)),
             k % 97 == 0 ? .invalid : .integer(Int64(12_500 + k % 300)),
             k < 700 || (1_900..<2_100).contains(k) ? .invalid : .integer(Int64(120 + k % 60)),
             k < 1_100 ? .invalid : .integer(Int64(80 + k % 10)),
             .invalid]
        }
        func file(allGeneral: Bool) -> [UInt8] {
            var w = FITWriter()
            w.define(local: 0, global: 20, fields: fields, bigEndian: allGeneral)
            w.define(local: 1, global: 20, fields: fields, bigEndian: true)
            for k in 0..<3_000 {
                if k == 1_500 { w.define(local: 0, global: 20, fields: fields, bigEndian: allGeneral) }
                w.write(local: (900..<905).contains(k) || k == 2_047 ? 1 : 0, values(k))
            }
            return w.finish()
        }
        let chunked = try XCTUnwrap(FITReader.read(bytes: file(allGeneral: false), source: "chunked.fit").first)
        let general = try XCTUnwrap(FITReader.read(bytes: file(allGeneral: true), source: "general.fit").first)
        XCTAssertEqual(chunked.count, 3_000)
        XCTAssertEqual(chunked.heartRates.count, 3_000)
        XCTAssertTrue(chunked.heartRates[699].isNaN && chunked.heartRates[700] == Double(120 + 700 % 60) && chunked.heartRates[2_000].isNaN)
        XCTAssertTrue(chunked.cadences[1_099].isNaN && chunked.cadences[1_100] == 80)
        XCTAssertTrue(chunked.deviceDistances.isEmpty)
        XCTAssertEqual(chunked.segmentStarts, general.segmentStarts)
        func columns(_ t: Track) -> [[UInt64]] {
            [t.latitudes, t.longitudes, t.elevations, t.times, t.heartRates, t.cadences, t.deviceDistances].map { $0.map(\.bitPattern) }
        }
        XCTAssertTrue(columns(chunked) == columns(general), "every column bit for bit")
    }

    func testWriterBigEndianCompressedAndDeveloperFields() throws {
        typealias B = FITProfile.BaseType
        var w = FITWriter()
        w.define(local: 0, global: 20, fields: [.init(253, B.uint32), .init(3, B.uint8)], bigEndian: true)
        w.write(local: 0, [.integer(Int64(t0)), .integer(140)])
        w.define(
            local: 1, global: 20, fields: [.init(0, B.sint32), .init(1, B.sint32)],
            developerFields: [.init(number: 0, size: 3)], bigEndian: true)
        w.writeCompressed(local: 1, timeOffset: UInt8((t0 + 3) & 0x1F), [.integer(1 << 29), .integer(1 << 29)], developerBytes: [1, 2, 3])
        w.write(local: 0, [.integer(Int64(t0 + 4)), .invalid])
        let t = try XCTUnwrap(FITReader.read(bytes: w.finish(), source: "w.fit").first)
        XCTAssertEqual(t.count, 1)
        XCTAssertEqual(t.times[0], epoch0 + 3)
        XCTAssertEqual(t.latitudes[0], 45, accuracy: 1e-12)
        XCTAssertEqual(t.dropped["no position"], 2)
    }

    /// Random corruption must give an error or a track, never a crash or a hang.
    func testMutatedFilesNeverCrash() {
        let original = handAssembled()
        let written = FITWriter.encode(track: sampleTrack())
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ n: Int) -> Int {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return Int(x % UInt64(n))
        }
        var outcomes = (tracks: 0, errors: 0)
        for round in 0..<3000 {
            var bytes = round % 2 == 0 ? original : written
            for _ in 0..<(1 + random(4)) { bytes[random(bytes.count)] = UInt8(truncatingIfNeeded: random(256)) }
            if round % 7 == 0 { bytes = Array(bytes.prefix(random(bytes.count))) }
            do {
                _ = try FITReader.read(bytes: bytes, source: "fuzz.fit", checkCRC: false)
                outcomes.tracks += 1
            } catch let error as ActivityError {
                XCTAssertEqual(error.path, "fuzz.fit")
                outcomes.errors += 1
            } catch {
                XCTFail("unexpected error type \(error)")
            }
        }
        XCTAssertGreaterThan(outcomes.tracks, 0)
        XCTAssertGreaterThan(outcomes.errors, 0)
    }
}

extension UInt16 {
    fileprivate var littleEndianBytes: [UInt8] { [UInt8(self & 0xFF), UInt8(self >> 8)] }
}
