import Foundation
import RunFixtures
import XCTest

/// What-if runs are made above the rules: the rules host (BadgeRules) neither imports nor depends on
/// RunFixtures or SyntheticRuns, the generator of made-up runs; no shipped product links the test
/// fixtures (RunFixtures). Only the Lua state wrapper (`Lua/LuaState.swift`)
/// imports the C modules (CLua, CLuaShims): every other file reaches Lua through it.
final class LayeringTests: XCTestCase {
    static let root = Repository.root

    func testBadgeRulesDoesNotUseRunFixtures() throws {
        let sources = Self.root.appendingPathComponent("Sources/BadgeRules")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            XCTAssertFalse(text.contains("import RunFixtures"), "Sources/BadgeRules/\(file) imports RunFixtures")
            XCTAssertFalse(text.contains("import SyntheticRuns"), "Sources/BadgeRules/\(file) imports SyntheticRuns")
        }
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let start = try XCTUnwrap(manifest.range(of: "name: \"BadgeRules\","))
        let end = try XCTUnwrap(manifest.range(of: "resources:", range: start.upperBound..<manifest.endIndex))
        XCTAssertFalse(manifest[start.upperBound..<end.lowerBound].contains("RunFixtures"), "BadgeRules depends on RunFixtures in Package.swift")
    }

    /// The targets each target depends on in Package.swift, by name (products of other packages left out).
    static func manifestDependencies() throws -> [String: [String]] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var dependencies: [String: [String]] = [:]
        var rest = manifest[...]
        while let name = rest.range(of: "name: \""), let close = rest[name.upperBound...].firstIndex(of: "\"") {
            let target = String(rest[name.upperBound..<close])
            rest = rest[close...]
            // The `dependencies: [...]` that follows, before the next target.
            let next = rest.range(of: "name: \"", range: rest.index(after: rest.startIndex)..<rest.endIndex)?.lowerBound ?? rest.endIndex
            guard let list = rest.range(of: "dependencies: [", range: rest.startIndex..<next) else { continue }
            var depth = 1, index = list.upperBound
            while depth > 0, index < rest.endIndex {
                if rest[index] == "[" { depth += 1 } else if rest[index] == "]" { depth -= 1 }
                index = rest.index(after: index)
            }
            let text = String(rest[list.upperBound..<index]).replacingOccurrences(of: #"\.product\([^)]*\)"#, with: "", options: .regularExpression)
            dependencies[target] = text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        return dependencies
    }

    /// The shipped products (badgectl, BadgeKit, BadgeCommands, RunFiles) link no test fixtures, and the
    /// pipeline makes what-if runs with SyntheticRuns, not RunFixtures.
    func testNoShippedProductLinksTheFixtures() throws {
        let dependencies = try Self.manifestDependencies()
        func closure(_ target: String) -> Set<String> {
            var seen: Set<String> = [], queue = [target]
            while let next = queue.popLast() {
                if seen.insert(next).inserted { queue += dependencies[next] ?? [] }
            }
            return seen
        }
        XCTAssertEqual(dependencies["BadgePipeline"]?.contains("SyntheticRuns"), true)
        for product in ["badgectl", "BadgeKit", "BadgeCommands", "RunFiles"] {
            let linked = closure(product)
            XCTAssertNotNil(dependencies[product], "no target \(product) in Package.swift")
            XCTAssertFalse(linked.contains("RunFixtures"), "\(product) links RunFixtures")
        }
        XCTAssertFalse(closure("BadgeRules").contains("SyntheticRuns"))
        XCTAssertTrue(closure("BadgeKitTests").contains("RunFixtures"))
    }

    /// The worker's stream engine lives below the commands (`Sources/BadgePipeline/Worker`), where
    /// BadgeKit's `WorkerStream` can use it: BadgePipeline and BadgeKit neither import nor link the
    /// commands or the argument parser.
    func testTheWorkerStreamIsBelowTheCommands() throws {
        let dependencies = try Self.manifestDependencies()
        var linked: Set<String> = [], queue = ["BadgeKit"]
        while let next = queue.popLast() {
            if linked.insert(next).inserted { queue += dependencies[next] ?? [] }
        }
        XCTAssertTrue(linked.contains("BadgePipeline"))
        XCTAssertFalse(linked.contains("BadgeCommands"), "BadgeKit links BadgeCommands")
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Sources/BadgeCommands/Worker").path))
        for module in ["BadgePipeline", "BadgeKit"] {
            let sources = Self.root.appendingPathComponent("Sources/" + module)
            let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            XCTAssertTrue(module != "BadgePipeline" || files.contains("Worker/Worker.swift"), "no Worker/Worker.swift in Sources/BadgePipeline")
            for file in files {
                let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
                XCTAssertFalse(text.contains("import ArgumentParser"), "Sources/\(module)/\(file) imports ArgumentParser")
                XCTAssertFalse(text.contains("import BadgeCommands"), "Sources/\(module)/\(file) imports BadgeCommands")
            }
        }
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
