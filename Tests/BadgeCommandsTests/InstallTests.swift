import RunFixtures
import Foundation
import XCTest

/// Issue J-8: `scripts/install PREFIX`, then badgectl run from any folder finds the installed packs and
/// catalogue (saying so on stderr); `./rules` and `./badges.json` and the flags come first; a miss says
/// where it looked and which flag to use.
final class InstallTests: XCTestCase {
    func run(_ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String]? = nil) throws -> CLI.Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLI.Output(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                          stderr: String(decoding: errData, as: UTF8.self))
    }

    func testInstalledBinaryRunsFromAnotherFolder() throws {
        let prefix = try TemporaryFolder()
        let installed = try run(URL(fileURLWithPath: "/bin/bash"), [CLI.repository.appendingPathComponent("scripts/install").path, prefix.path],
                                in: CLI.repository, environment: ["BADGECTL_BINARY": CLI.binary.path])
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let binary = prefix.url.appendingPathComponent("bin/badgectl")
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.path + "/share/badgectl/rules/checkpoints/pack.lua"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.path + "/share/badgectl/badges.json"))
        // Installed like a tool people know: a stripped binary, the man page, completions for three shells.
        let symbols = try run(URL(fileURLWithPath: "/usr/bin/env"), ["nm", prefix.path + "/bin/badgectl"], in: prefix.url)
        XCTAssertTrue(symbols.stderr.contains("no symbols"), "the installed binary is stripped: \(symbols.stderr.prefix(200))")
        let manual = try String(contentsOfFile: prefix.path + "/share/man/man1/badgectl.1", encoding: .utf8)
        XCTAssertTrue(manual.contains(".Nm badgectl") || manual.contains("badgectl"), String(manual.prefix(300)))
        for subcommand in ["evaluate", "worker", "league"] { XCTAssertTrue(manual.contains(subcommand), "the man page lists \(subcommand)") }
        let bash = try String(contentsOfFile: prefix.path + "/share/bash-completion/completions/badgectl", encoding: .utf8)
        XCTAssertTrue(bash.contains("complete") && bash.contains("evaluate"), String(bash.prefix(300)))
        let zsh = try String(contentsOfFile: prefix.path + "/share/zsh/site-functions/_badgectl", encoding: .utf8)
        XCTAssertTrue(zsh.hasPrefix("#compdef badgectl"), String(zsh.prefix(100)))
        let fish = try String(contentsOfFile: prefix.path + "/share/fish/vendor_completions.d/badgectl.fish", encoding: .utf8)
        XCTAssertTrue(fish.contains("complete -c 'badgectl'"), String(fish.prefix(300)))

        let home = try TemporaryFolder()
        try home.write("runs/a.json", #"{ "start": "2024-05-01T07:00:00Z", "distance_m": 5200, "duration_s": 1800 }"#)
        let output = try run(binary, ["evaluate", "runs", "--no-cache", "--format", "json"], in: home.url)
        XCTAssertEqual(output.status, 0, output.stderr)
        let share = prefix.url.appendingPathComponent("share/badgectl").resolvingSymlinksInPath().path
        XCTAssertTrue(output.stderr.contains("badgectl: using \(share)/badges.json (no ./badges.json here; --badges FILE to choose)"), output.stderr)
        XCTAssertTrue(output.stderr.contains("badgectl: using \(share)/rules (no ./rules here; --rules PATH to choose)"), output.stderr)
        XCTAssertTrue(output.stdout.contains("\"badge\" : \"five-k\""), output.stdout)

        // ./rules in the current folder wins over the installed packs (and is not announced).
        try home.write("rules/mine/pack.lua", #"return { name = "mine", version = "1", badges = { { id = "any", name = "Any" } } }"#)
        try home.write("rules/mine/any.lua", #"return { id = "any", badge = "any", earned = function(run) return true end }"#)
        let local = try run(binary, ["evaluate", "runs", "--no-cache", "--format", "json"], in: home.url)
        XCTAssertEqual(local.status, 0, local.stderr)
        XCTAssertFalse(local.stderr.contains("(no ./rules here"), local.stderr)
        XCTAssertTrue(local.stdout.contains("\"badge\" : \"any\""), local.stdout)
        XCTAssertFalse(local.stdout.contains("\"badge\" : \"five-k\""), local.stdout)
    }

    /// The build's own binary has no share folder beside it: from an empty folder, the message says
    /// where it looked and which flag to use.
    func testCannotFindSaysWhereItLookedAndWhichFlag() throws {
        let empty = try TemporaryFolder()
        try empty.write("runs/a.json", #"{ "start": "2024-05-01T07:00:00Z", "distance_m": 5200, "duration_s": 1800 }"#)
        let output = try CLI.run(["evaluate", "runs", "--no-cache"], in: empty.url)
        XCTAssertEqual(output.status, 1)
        XCTAssertTrue(output.stderr.contains("badgectl: cannot find the badge catalogue: looked in ./badges.json, "), output.stderr)
        XCTAssertTrue(output.stderr.contains("share/badgectl/badges.json; give it with --badges FILE"), output.stderr)
        try empty.write("badges.json", "[]")
        let noRules = try CLI.run(["evaluate", "runs", "--no-cache"], in: empty.url)
        XCTAssertEqual(noRules.status, 1)
        XCTAssertTrue(noRules.stderr.contains("badgectl: cannot find the rule packs: looked in ./rules, "), noRules.stderr)
        XCTAssertTrue(noRules.stderr.contains("give it with --rules PATH"), noRules.stderr)
        let test = try CLI.run(["test"], in: empty.url)
        XCTAssertEqual(test.status, 1)
        // As every command: ./rules, then the installed packs (none beside the build's binary).
        XCTAssertTrue(test.stderr.contains("cannot find the rule packs: looked in ./rules, "), test.stderr)
        XCTAssertTrue(test.stderr.contains("share/badgectl/rules; give it with a PATH argument (badgectl test PATH)"), test.stderr)
    }
}
