import Foundation
import XCTest

/// What-if runs are made above the rules: the rules host (BadgeRules) neither imports nor depends on
/// RunFixtures, the generator of synthetic runs.
final class LayeringTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testBadgeRulesDoesNotUseRunFixtures() throws {
        let sources = Self.root.appendingPathComponent("Sources/BadgeRules")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            XCTAssertFalse(text.contains("import RunFixtures"), "Sources/BadgeRules/\(file) imports RunFixtures")
        }
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let start = try XCTUnwrap(manifest.range(of: "name: \"BadgeRules\","))
        let end = try XCTUnwrap(manifest.range(of: "resources:", range: start.upperBound..<manifest.endIndex))
        XCTAssertFalse(manifest[start.upperBound..<end.lowerBound].contains("RunFixtures"), "BadgeRules depends on RunFixtures in Package.swift")
    }
}
