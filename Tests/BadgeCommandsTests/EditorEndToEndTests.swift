import RunFixtures
import Foundation
import XCTest

/// The guide's "Editor example", as written (`badgectl new pack`, luacheck on it, `badgectl editor
/// --check`), luacheck on every shipped pack, and `--check` failing on a stale file.
final class EditorEndToEndTests: XCTestCase {
    /// luacheck, when installed (scripts/bootstrap.sh installs Debian's lua-check).
    static var luacheck: String? {
        ["/usr/bin/luacheck", "/usr/local/bin/luacheck"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func run(_ executable: String, _ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        let result = try ChildProcess.run(URL(fileURLWithPath: executable), arguments, in: folder, environment: ProcessInfo.processInfo.environment)
        return (result.status, result.stdout + result.stderr)
    }

    func testTheGuidesEditorExampleRunsAsWritten() throws {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        guard let start = text.range(of: "Editor example: a new pack comes with both.\n\n```sh\n"),
              let end = text[start.upperBound...].range(of: "```") else { return XCTFail("no editor example in the guide") }
        let commands = text[start.upperBound..<end.lowerBound].split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(commands.map(\.first), ["badgectl", "luacheck", "badgectl"])
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/rules", withIntermediateDirectories: true)
        for command in commands {
            if command[0] == "badgectl" {
                let result = try CLI.run(Array(command.dropFirst()), in: folder.url)
                XCTAssertEqual(result.status, 0, command.joined(separator: " ") + ": " + result.stdout + result.stderr)
            } else {
                guard let luacheck = Self.luacheck else { throw XCTSkip("luacheck is not installed (scripts/bootstrap.sh installs lua-check)") }
                let result = try run(luacheck, Array(command.dropFirst()) + ["--no-color"], in: folder.url)
                XCTAssertEqual(result.status, 0, result.output)
            }
        }
        let luarc = try String(contentsOfFile: folder.path + "/rules/hello/.luarc.json", encoding: .utf8)
        XCTAssertTrue(luarc.contains("\"workspace.library\": [\"../badgectl.d.lua\"]"), luarc)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(luarc.utf8)) as? [String: Any])
        XCTAssertEqual(object["runtime.version"] as? String, "Lua 5.4")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path + "/rules/badgectl.d.lua"))
        // A stale file fails the check.
        try "-- old\n".write(toFile: folder.path + "/rules/badgectl.d.lua", atomically: true, encoding: .utf8)
        let stale = try CLI.run(["editor", "--check", "--dir", "rules"], in: folder.url)
        XCTAssertEqual(stale.status, 1)
        XCTAssertTrue(stale.stderr.contains("not what this badgectl generates"), stale.stderr)
    }

    /// luacheck finds no warning in any shipped pack with the shipped configuration (what scripts/test runs).
    func testLuacheckPassesOnEveryShippedPack() throws {
        guard let luacheck = Self.luacheck else { throw XCTSkip("luacheck is not installed (scripts/bootstrap.sh installs lua-check)") }
        let result = try run(luacheck, ["--config", "rules/.luacheckrc", "--no-color", "rules/"], in: CLI.repository)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("0 warnings / 0 errors"), result.output)
    }
}
