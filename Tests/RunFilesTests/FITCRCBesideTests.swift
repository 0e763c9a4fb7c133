import Glibc
import Synchronization
import XCTest

@testable import RunFiles
import RunFixtures

/// A large FIT file's CRC is computed on a second thread while its messages are decoded
/// (`FITDecoder.decodeFile`). The tracks and the errors must be exactly those of the one-thread
/// reading: a CRC that does not match wins over whatever the decoding met, as it did when the CRC
/// was checked before decoding.
final class FITCRCBesideTests: XCTestCase {
    /// A generated 20-km run: about 160 KB of FIT.
    static let file: [UInt8] = {
        var generator = RunGenerator(seed: 5, distanceMeters: 20_000)
        generator.pauseCount = 2
        return FITWriter.encode(track: generator.track())
    }()

    override func setUp() {
        // The two-thread path whatever else the machine is running.
        SideBySide.ignoreBusyCores.store(true, ordering: .relaxed)
    }

    override func tearDown() {
        SideBySide.ignoreBusyCores.store(false, ordering: .relaxed)
    }

    enum Outcome: Equatable {
        case tracks([String])
        case error(String)
    }

    /// Every column and total of the tracks read (bit patterns), or the error's text.
    static func read(_ bytes: [UInt8], beside: Bool, checkCRC: Bool = true) -> Outcome {
        do {
            let tracks = try FITReader.read(bytes: bytes, source: "run.fit", checkCRC: checkCRC, crcBesideFrom: beside ? 0 : .max)
            return .tracks(tracks.map { t in
                let columns = [t.latitudes, t.longitudes, t.elevations, t.times, t.heartRates, t.cadences, t.deviceDistances]
                let bits = columns.map { $0.map { String($0.bitPattern, radix: 16) }.joined(separator: ",") }
                return bits.joined(separator: ";") + " segments \(t.segmentStarts) laps \(t.laps.count) pauses \(t.pauses.count) "
                    + "distance \(String(describing: t.deviceDistanceMeters)) sport \(String(describing: t.sport)) dropped \(t.dropped.sorted { $0.key < $1.key })"
            })
        } catch {
            return .error(String(describing: error))
        }
    }

    func assertSameBothWays(_ bytes: [UInt8], checkCRC: Bool = true, _ context: String, file: StaticString = #filePath, line: UInt = #line) -> Outcome {
        let one = Self.read(bytes, beside: false, checkCRC: checkCRC)
        let two = Self.read(bytes, beside: true, checkCRC: checkCRC)
        XCTAssertEqual(two, one, context, file: file, line: line)
        return one
    }

    /// The file with its CRC made right again after a change.
    static func recrc(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let crc = FITProfile.crc16(bytes[..<(bytes.count - 2)])
        bytes[bytes.count - 2] = UInt8(crc & 0xFF); bytes[bytes.count - 1] = UInt8(crc >> 8)
        return bytes
    }

    /// The offset of the first definition message whose architecture byte can be spoiled.
    static func firstDefinition(_ bytes: [UInt8]) -> Int {
        let headerSize = Int(bytes[0])
        XCTAssertEqual(bytes[headerSize] & 0x40, 0x40, "a FIT file starts with a definition")
        return headerSize
    }

    func testAGoodFileReadsTheSame() {
        guard case .tracks(let tracks) = assertSameBothWays(Self.file, "good file") else { return XCTFail("read") }
        XCTAssertEqual(tracks.count, 1)
        XCTAssertGreaterThan(Self.file.count, 100_000)
    }

    func testABadCRCWinsOverADecodingErrorAsBefore() {
        var spoiled = Self.file
        spoiled[Self.firstDefinition(spoiled) + 2] = 7  // architecture 7: a decoding error
        // The CRC no longer matches: the CRC is the error.
        guard case .error(let crcError) = assertSameBothWays(spoiled, "spoiled, CRC wrong") else { return XCTFail("read") }
        XCTAssertTrue(crcError.contains("file CRC"), crcError)
        // The CRC made right: the decoding error.
        guard case .error(let decodeError) = assertSameBothWays(Self.recrc(spoiled), "spoiled, CRC right") else { return XCTFail("read") }
        XCTAssertTrue(decodeError.contains("architecture byte 7"), decodeError)
        // Without the CRC check: the decoding error either way.
        guard case .error(let unchecked) = assertSameBothWays(spoiled, checkCRC: false, "spoiled, unchecked") else { return XCTFail("read") }
        XCTAssertTrue(unchecked.contains("architecture byte 7"), unchecked)
    }

    func testAChangedByteAnywhereGivesTheSameOutcome() {
        // Bytes changed through the data (records, definitions, the CRC itself): whatever the
        // outcome, it is the same on one thread and two.
        var crcErrors = 0
        for offset in stride(from: 20, to: Self.file.count, by: Self.file.count / 19) + [Self.file.count - 1] {
            var changed = Self.file
            changed[offset] ^= 0x5A
            if case .error(let text) = assertSameBothWays(changed, "byte \(offset)"), text.contains("file CRC") { crcErrors += 1 }
            // The same change with the CRC made right: what the decoding makes of it.
            _ = assertSameBothWays(Self.recrc(changed), "byte \(offset), CRC right")
            _ = assertSameBothWays(changed, checkCRC: false, "byte \(offset), unchecked")
        }
        XCTAssertGreaterThan(crcErrors, 15, "the changes are caught by the CRC")
    }

    func testChainedFilesAndACutEndReadTheSame() {
        // Two files back to back, the second spoiled: the first decodes, the second's CRC is the error.
        var second = Self.file
        second[Self.firstDefinition(second) + 2] = 9
        guard case .error(let chained) = assertSameBothWays(Self.file + second, "chained") else { return XCTFail("read") }
        XCTAssertTrue(chained.contains("file CRC"), chained)
        guard case .tracks = assertSameBothWays(Self.file + Self.file, "chained, both good") else { return XCTFail("read") }
        // A file cut inside its data, and one missing only its CRC.
        _ = assertSameBothWays(Array(Self.file.dropLast(1_000)), "cut")
        _ = assertSameBothWays(Array(Self.file.dropLast(2)), "no CRC")
        _ = assertSameBothWays(Array(Self.file.dropLast(1)), "half a CRC")
    }
}

/// The helper thread itself: a second thread really runs the second piece, both are done when
/// `run` returns, and /proc/stat's count of runnable threads is read.
final class SideBySideTests: XCTestCase {
    override func setUp() { SideBySide.ignoreBusyCores.store(true, ordering: .relaxed) }
    override func tearDown() { SideBySide.ignoreBusyCores.store(false, ordering: .relaxed) }

    func testTheSecondPieceRunsOnAnotherThreadWhileTheFirstWaitsForIt() {
        guard sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1 else { return }
        // A helper left from an earlier call (its piece taken by the caller) ends by itself.
        for _ in 0..<2_000 where SideBySide.helpersOut > 0 { usleep(1_000) }
        let started = Atomic<Bool>(false)
        var secondThread = pthread_self(), waitedOut = false, secondDone = false
        SideBySide.run({
            // The caller takes the second piece only after the first: if the first waits for the
            // second to start, the helper is running it.
            var spins = 0
            while !started.load(ordering: .acquiring), spins < 2_000 { usleep(1_000); spins += 1 }
            waitedOut = spins == 2_000
        }, {
            started.store(true, ordering: .releasing)
            secondThread = pthread_self()
            usleep(20_000)
            secondDone = true
        })
        XCTAssertFalse(waitedOut, "the helper started the second piece")
        XCTAssertEqual(pthread_equal(secondThread, pthread_self()), 0, "on another thread")
        XCTAssertTrue(secondDone, "done before run returned")
    }

    func testTheCallerDoesBothWhenTheHelperIsLate() {
        // The first piece is quick; whoever runs the second, both are done, once each.
        for _ in 0..<200 {
            var first = 0, second = 0
            SideBySide.run({ first += 1 }, { second += 1 })
            XCTAssertEqual([first, second], [1, 1])
        }
    }

    func testRunnableThreadsAreReadFromProcStat() {
        let text = Array("cpu  1 2 3\nintr 5 procs_running 9\nctxt 7\nprocs_running 3\nprocs_blocked 0\n".utf8)
        XCTAssertEqual(text.withUnsafeBytes { SideBySide.runnable(inProcStat: $0) }, 3, "the line's own key, not one inside another line")
        XCTAssertNil(Array("procs_blocked 1\n".utf8).withUnsafeBytes { SideBySide.runnable(inProcStat: $0) })
        XCTAssertNil(Array("procs_running \n".utf8).withUnsafeBytes { SideBySide.runnable(inProcStat: $0) })
    }
}
