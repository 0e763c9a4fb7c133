import BadgePipeline
import Foundation
import RunFixtures
import XCTest

/// The worker's line reader (`LineReader`): lines of any length in blocks, without holding a long one.
final class LineReaderTests: XCTestCase {
    /// A line over the limit is one error and is never held whole; the next line is read as usual.
    func testLongLineIsSkipped() throws {
        let folder = try TemporaryFolder()
        let long = String(repeating: "x", count: 200_000)
        try folder.write("input", "short\n" + long + "\nafter\n" + String(repeating: "y", count: 999) + "\n" + long)
        let handle = try FileHandle(forReadingFrom: folder.url.appendingPathComponent("input"))
        defer { try? handle.close() }
        var seen: [String] = []
        let error = LineReader(descriptor: handle.fileDescriptor, maximumBytes: 1000).forEach { item in
            switch item {
            case .line(let number, let bytes): seen.append("\(number):\(bytes.count > 10 ? "\(bytes.count) bytes" : String(decoding: bytes, as: UTF8.self))")
            case .tooLong(let number): seen.append("\(number):too long")
            }
        }
        XCTAssertNil(error)
        XCTAssertEqual(seen, ["1:short", "2:too long", "3:after", "4:999 bytes", "5:too long"])
    }
}
