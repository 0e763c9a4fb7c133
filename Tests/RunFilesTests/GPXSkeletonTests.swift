@testable import RunFiles
@testable import SyntheticRuns
import XCTest

/// A track point whose markup is byte for byte that of the last point `fastPoint` read is read by
/// matching that skeleton (`GPXScanner.skeletonPoint`). Whatever the bytes, a scan with skeletons
/// must give exactly what a scan without them gives (the same columns bit for bit, or the same error).
final class GPXSkeletonTests: XCTestCase {
    /// What a scan of `bytes` gives: the track's columns and fields as text, or the error's text;
    /// and how many points a skeleton read.
    static func scan(_ bytes: [UInt8], skeletons: Bool) -> (result: String, skeletonPoints: Int) {
        var scanner = GPXScanner(source: "p.gpx")
        scanner.learnsSkeletons = skeletons
        defer { scanner.release() }
        let line: (Int) -> Int? = { offset in
            bytes.withUnsafeBufferPointer { XMLBytes.lineNumber(in: $0.baseAddress!, count: $0.count, offset: offset) }
        }
        do {
            _ = try bytes.withUnsafeBufferPointer { try scanner.feed($0.baseAddress!, count: $0.count, final: true, offset: 0) }
            let t = try scanner.finish()
            let columns = [t.latitudes, t.longitudes, t.elevations, t.times, t.heartRates, t.cadences]
                .map { $0.map { String($0.bitPattern, radix: 16) }.joined(separator: ",") }
            return ("\(columns) \(t.segmentStarts) \(t.dropped.sorted { $0.key < $1.key }) \(String(describing: t.utcOffsetSeconds)) \(String(describing: t.name))",
                    scanner.skeletonPoints)
        } catch let failure as GPXScanner.Failure {
            return ("error: \(failure.error(source: "p.gpx", line: line))", scanner.skeletonPoints)
        } catch {
            return ("error: \(error)", scanner.skeletonPoints)
        }
    }

    static func document(_ points: [String]) -> [UInt8] {
        Array(("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
                 xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
              <trk><name>r</name><trkseg>

            """ + points.joined() + "    </trkseg></trk>\n</gpx>\n").utf8)
    }

    /// The usual Garmin Connect point, `second` seconds into the run, its offset written on the time.
    static func usual(_ second: Int, offset: String = "Z") -> String {
        """
              <trkpt lat="52.37016328610479831695556640625" lon="4.8952115792781114578247070312\(second % 10)">
                <ele>45.56332778930664062\(second % 10)</ele>
                <time>2024-05-01T06:30:\(second < 10 ? "0" : "")\(second).000\(offset)</time>
                <extensions>
                  <gpxtpx:TrackPointExtension>
                    <gpxtpx:atemp>21.0</gpxtpx:atemp>
                    <gpxtpx:hr>\(90 + second)</gpxtpx:hr>
                    <gpxtpx:cad>\(80 + second)</gpxtpx:cad>
                  </gpxtpx:TrackPointExtension>
                </extensions>
              </trkpt>

        """
    }

    func assertSame(_ bytes: [UInt8], _ what: @autoclosure () -> String, failures: inout Int) {
        let with = Self.scan(bytes, skeletons: true), without = Self.scan(bytes, skeletons: false)
        XCTAssertEqual(without.skeletonPoints, 0)
        if with.result != without.result {
            failures += 1
            if failures <= 10 { XCTFail("\(what()): with skeletons \(with.result)\nwithout \(without.result)") }
        }
    }

    /// Points of the usual shape after the first are read by the skeleton, with the values the
    /// fast path reads; a point of another shape in between is read as before, and its shape
    /// becomes the skeleton.
    func testRepeatedPointsAreReadByTheSkeleton() {
        let plain = Self.document((0..<6).map { Self.usual($0) })
        let with = Self.scan(plain, skeletons: true), without = Self.scan(plain, skeletons: false)
        XCTAssertEqual(with.result, without.result)
        XCTAssertEqual(with.skeletonPoints, 5)
        XCTAssertFalse(with.result.hasPrefix("error"))
        // Another shape (no extensions) twice, then the usual one again: one point each time is
        // read by the fast path, which learns its shape.
        let short = "      <trkpt lat=\"1.5\" lon=\"2.5\">\n        <ele>3</ele>\n      </trkpt>\n"
        let mixed = Self.document([Self.usual(0), Self.usual(1), short, short, Self.usual(2), Self.usual(3)])
        let m = Self.scan(mixed, skeletons: true)
        XCTAssertEqual(m.result, Self.scan(mixed, skeletons: false).result)
        XCTAssertEqual(m.skeletonPoints, 3)
        // The first timestamp's offset comes from the first point, whichever path reads the others.
        let offsets = Self.document([Self.usual(0, offset: "+02:00"), Self.usual(1, offset: "+03:00"), Self.usual(2)])
        XCTAssertEqual(Self.scan(offsets, skeletons: true).result, Self.scan(offsets, skeletons: false).result)
        XCTAssertTrue(Self.scan(offsets, skeletons: true).result.contains("Optional(7200)"))
    }

    /// Bytes that change a point's markup or a value when put in place of one of its bytes.
    static let markupBytes: [UInt8] = Array("< >/!?x0.9-e:\"\n\t&".utf8) + [0x00, 0xFF]

    /// `target` with its byte `k` replaced by each of `replacements` (those that differ), deleted, and doubled.
    static func edits(of target: [UInt8], at k: Int, replacingWith replacements: [UInt8]) -> [[UInt8]] {
        var edits: [[UInt8]] = replacements.filter { $0 != target[k] }.map { b in
            var t = target
            t[k] = b
            return t
        }
        var deleted = target
        deleted.remove(at: k)
        var doubled = target
        doubled.insert(target[k], at: k)
        edits += [deleted, doubled]
        return edits
    }

    /// The fourth of five usual points with every byte of its body (after the start tag) replaced
    /// by bytes that change the markup or a value, deleted, or doubled: the skeleton learnt from the
    /// third must give way wherever the markup differs, and read values exactly as the fast path.
    func testEveryByteOfAPointChangedReadsAsWithoutSkeletons() {
        let points = (0..<5).map { Self.usual($0) }
        let target = Array(points[3].utf8)
        let bodyStart = target.firstIndex(of: UInt8(ascii: ">"))! + 1
        var failures = 0
        var variants = 0
        for k in bodyStart..<target.count {
            for edited in Self.edits(of: target, at: k, replacingWith: Self.markupBytes) {
                var all = points
                all[3] = String(decoding: edited, as: UTF8.self)
                assertSame(Self.document(all), "byte \(k) of the fourth point: \(String(decoding: edited, as: UTF8.self))", failures: &failures)
                variants += 1
            }
        }
        XCTAssertGreaterThan(variants, 5_000)
        XCTAssertEqual(failures, 0)
    }

    /// Generated runs in both GPX styles, read with and without skeletons: the same tracks.
    func testGeneratedRunsReadTheSameWithSkeletons() {
        for (index, style) in [RunGenerator.GPXStyle.garminConnect, .compact].enumerated() {
            var generator = RunGenerator(seed: UInt64(31 + index), distanceMeters: 3000)
            generator.style = style
            generator.pauseCount = 2
            let bytes = generator.gpxBytes()
            let with = Self.scan(bytes, skeletons: true), without = Self.scan(bytes, skeletons: false)
            XCTAssertEqual(with.result, without.result)
            XCTAssertFalse(with.result.hasPrefix("error"))
            XCTAssertGreaterThan(with.skeletonPoints, 500, "\(style)")
        }
    }
}
