import Foundation
import XCTest

/// What-if runs are made above the rules: the rules host (BadgeRules) neither imports nor depends on
/// RunFixtures, the generator of synthetic runs. Only the Lua state wrapper (`Lua/LuaState.swift`)
/// imports the C modules (CLua, CLuaShims): every other file reaches Lua through it.
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

    func testOnlyLuaStateImportsTheCModules() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 50)
        var importers: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").contains { line in
                let words = line.split(separator: " ")
                return words.count >= 2 && words[0] == "import" && (words[1] == "CLua" || words[1] == "CLuaShims")
            }
            if imports { importers.append(file) }
        }
        XCTAssertEqual(importers.sorted(), ["BadgeRules/Lua/LuaState.swift"], "only the Lua state wrapper may import CLua or CLuaShims")
    }

    /// The rules host by job: one host-function dispatch (`HostFunctions`) serves evaluations, pack
    /// files and test files; reading a pack's `pack.lua` (`PackReader`) builds no evaluation `Session`.
    func testOneHostFunctionDispatch() throws {
        let sources = Self.root.appendingPathComponent("Sources/BadgeRules")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var dispatchers: [String] = []
        var hostSetters: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            if text.contains("HostFunction(rawValue:") { dispatchers.append(file) }
            if text.contains(".setHost(") { hostSetters.append(file) }
            if file.hasPrefix("Packs/") { XCTAssertFalse(text.contains("Session("), "\(file) builds a Session") }
        }
        XCTAssertEqual(dispatchers.sorted(), ["Evaluation/HostFunctions.swift"])
        XCTAssertEqual(hostSetters.sorted(), ["Evaluation/HostFunctions.swift"])
    }
}
