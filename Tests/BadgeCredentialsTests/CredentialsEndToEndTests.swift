import BadgeCredentials
import Foundation
import RunFixtures
import XCTest

/// `badgectl credentials` through the built binary on the sample runs/: one credential, JWT and
/// card per award of `evaluate`; all verify; `--runs` re-derives them, and refuses one whose run
/// was removed from the folder.
final class CredentialsEndToEndTests: XCTestCase {
    func badgectl(_ arguments: [String]) throws -> BuiltBadgectl.Output {
        try BuiltBadgectl.run(arguments, scratch: folder)
    }

    /// A folder of this test's own (XCTest makes one instance per test).
    var temporary: TemporaryFolder!
    var folder: URL { temporary.url }

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func files(_ suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
            .filter { $0.hasSuffix(suffix) }.sorted().map { folder.appendingPathComponent("out/" + $0).path }
    }

    func testIssueVerifyAndRederiveOnTheSampleRuns() throws {
        let keyPath = folder.appendingPathComponent("issuer.key").path
        let key = try badgectl(["credentials", "key", "--out", keyPath])
        XCTAssertEqual(key.status, 0, key.stderr)
        let did = key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(did.hasPrefix("did:key:z6Mk"), did)
        let again = try badgectl(["credentials", "key", "--out", keyPath])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)

        let out = folder.appendingPathComponent("out").path
        let issue = try badgectl(["credentials", "issue", "runs/", "--key", keyPath, "--out", out, "--issuer-name", "Test Club",
                                  "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(issue.status, 0, issue.stderr)
        let evaluate = try badgectl(["evaluate", "runs/", "--format", "json", "--tz", "UTC", "--no-cache"])
        let awards = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(evaluate.stdout.utf8)) as? [String: Any])?["awards"] as? [[String: Any]])
        XCTAssertGreaterThan(awards.count, 10)
        let json = try files(".json"), jwt = try files(".jwt"), svg = try files(".svg")
        XCTAssertEqual([json.count, jwt.count, svg.count], [awards.count, awards.count, awards.count])
        XCTAssertTrue(issue.stdout.contains("wrote \(awards.count) credentials"), issue.stdout)

        let verify = try badgectl(["credentials", "verify", "--issuer", did] + json + jwt + svg)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(verify.stdout.split(separator: "\n").filter { $0.hasPrefix("valid ") }.count, awards.count * 3)

        let rederive = try badgectl(["credentials", "verify", "--runs", "runs/", "--no-cache"] + json)
        XCTAssertEqual(rederive.status, 0, rederive.stdout + rederive.stderr)
        XCTAssertEqual(rederive.stdout.split(separator: "\n").filter { $0.hasPrefix("follows ") }.count, awards.count)

        // The report links each award's credential and card, relative to the page.
        let page = folder.appendingPathComponent("page/report.html")
        try FileManager.default.createDirectory(at: page.deletingLastPathComponent(), withIntermediateDirectories: true)
        let report = try badgectl(["report", "runs/", "-o", page.path, "--credentials", out, "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let html = try String(contentsOf: page, encoding: .utf8)
        let links = html.components(separatedBy: "<p class=\"credential\"><a href=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        XCTAssertEqual(links.count, html.components(separatedBy: "<div class=\"award\"").count - 1)
        XCTAssertFalse(links.isEmpty)
        for link in links {
            XCTAssertTrue(link.hasPrefix("../out/"), String(link))
            XCTAssertTrue(FileManager.default.fileExists(atPath: page.deletingLastPathComponent().appendingPathComponent(String(link)).path), String(link))
        }

        // The same runs without one file: its awards no longer follow (status 3), the others still do.
        let runs = folder.appendingPathComponent("runs")
        try FileManager.default.copyItem(at: Fixtures.repository.appendingPathComponent("runs"), to: runs)
        try FileManager.default.removeItem(at: runs.appendingPathComponent("2026-09-12-fifteen.gpx"))
        let removed = try badgectl(["credentials", "verify", "--runs", runs.path, "--no-cache"] + json)
        XCTAssertEqual(removed.status, 3, removed.stdout + removed.stderr)
        let refused = removed.stdout.split(separator: "\n").filter { $0.hasPrefix("DOES NOT FOLLOW ") }
        XCTAssertFalse(refused.isEmpty)
        XCTAssertTrue(refused.contains { $0.contains("the run 2026-09-12-fifteen.gpx is not among the runs") }, removed.stdout)
        let fifteen = awards.filter { $0["run"] as? String == "2026-09-12-fifteen.gpx" }.count
        XCTAssertGreaterThanOrEqual(refused.count, fifteen)

        // A credential whose name was changed: the proof fails, named, status 1.
        let first = try XCTUnwrap(json.first)
        let text = try String(contentsOfFile: first, encoding: .utf8)
        let tampered = folder.appendingPathComponent("tampered.json").path
        try text.replacingOccurrences(of: "(earned)\"", with: "(gold)\"").replacingOccurrences(of: "(best)\"", with: "(gold)\"")
            .write(toFile: tampered, atomically: true, encoding: .utf8)
        let bad = try badgectl(["credentials", "verify", tampered, first])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stdout.contains("INVALID \(tampered): the signature does not match"), bad.stdout)
        XCTAssertTrue(bad.stdout.contains("valid \(first)"), bad.stdout)

        // Another issuer's credentials are refused with --issuer.
        let otherKey = folder.appendingPathComponent("other.key").path
        let other = try badgectl(["credentials", "key", "--out", otherKey]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let untrusted = try badgectl(["credentials", "verify", "--issuer", other, first])
        XCTAssertEqual(untrusted.status, 1)
        XCTAssertTrue(untrusted.stdout.contains("unknown key"), untrusted.stdout)
    }

    func testAPackOfAnotherVersionCannotRederive() throws {
        let keyPath = folder.appendingPathComponent("issuer.key").path
        XCTAssertEqual(try badgectl(["credentials", "key", "--out", keyPath]).status, 0)
        let out = folder.appendingPathComponent("out").path
        let issue = try badgectl(["credentials", "issue", "runs/", "--key", keyPath, "--out", out, "--rules", "rules/checkpoints",
                                  "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(issue.status, 0, issue.stderr)
        let pack = folder.appendingPathComponent("checkpoints")
        try FileManager.default.copyItem(at: Fixtures.repository.appendingPathComponent("rules/checkpoints"), to: pack)
        let packFile = pack.appendingPathComponent("pack.lua")
        let lua = try String(contentsOf: packFile, encoding: .utf8)
        XCTAssertTrue(lua.contains("version = \"1.0.0\""))
        try lua.replacingOccurrences(of: "version = \"1.0.0\"", with: "version = \"1.1.0\"").write(to: packFile, atomically: true, encoding: .utf8)
        let first = try XCTUnwrap(try files(".json").first)
        let result = try badgectl(["credentials", "verify", "--runs", "runs/", "--rules", pack.path, "--no-cache", first])
        XCTAssertEqual(result.status, 4, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("names checkpoints 1.0.0; the pack loaded from"), result.stdout)
    }

    func testRevokeWhatANewPackVersionWithdraws() throws {
        let keyPath = folder.appendingPathComponent("issuer.key").path
        XCTAssertEqual(try badgectl(["credentials", "key", "--out", keyPath]).status, 0)
        let out = folder.appendingPathComponent("out").path
        let url = "https://club.example/badges/status.json"
        let issue = try badgectl(["credentials", "issue", "runs/", "--key", keyPath, "--out", out, "--rules", "rules/checkpoints",
                                  "--status-list", url, "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(issue.status, 0, issue.stderr)
        // The candidate: gold needs 30% faster, not 10%.
        let next = folder.appendingPathComponent("next")
        try FileManager.default.copyItem(at: Fixtures.repository.appendingPathComponent("rules/checkpoints"), to: next)
        let rule = next.appendingPathComponent("distance.lua")
        let lua = try String(contentsOf: rule, encoding: .utf8)
        XCTAssertTrue(lua.contains("local GOLD = 1.10"))
        try lua.replacingOccurrences(of: "local GOLD = 1.10", with: "local GOLD = 1.30").write(to: rule, atomically: true, encoding: .utf8)
        let revoke = try badgectl(["credentials", "revoke", "runs/", "--rules", "rules/checkpoints", "--against", next.path, "--key", keyPath,
                                   "--credentials", out, "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(revoke.status, 0, revoke.stdout + revoke.stderr)
        let revokedFiles = revoke.stdout.split(separator: "\n").filter { $0.hasPrefix("revoked ") }
        XCTAssertFalse(revokedFiles.isEmpty, revoke.stdout)
        XCTAssertTrue(revokedFiles.allSatisfy { $0.contains(".gold.") }, revoke.stdout)

        let list = folder.appendingPathComponent("out/status-list.json").path
        let json = try files(".json").filter { !$0.hasSuffix("status-list.json") }
        let verify = try badgectl(["credentials", "verify", "--status-list", list] + json)
        XCTAssertEqual(verify.status, 1, verify.stdout)
        let refused = verify.stdout.split(separator: "\n").filter { $0.hasPrefix("REVOKED ") }
        XCTAssertEqual(refused.count, revokedFiles.count, verify.stdout)
        XCTAssertEqual(verify.stdout.split(separator: "\n").filter { $0.hasPrefix("valid ") && $0.hasSuffix("; not revoked") }.count,
                       json.count - revokedFiles.count, verify.stdout)
        // Without the list, the same credentials are valid, their revocation said to be unchecked.
        let unchecked = try badgectl(["credentials", "verify"] + json)
        XCTAssertEqual(unchecked.status, 0, unchecked.stdout)
        XCTAssertTrue(unchecked.stdout.contains("revocation not checked"), unchecked.stdout)
        // Issuing again keeps each credential's place in the list.
        let before = try String(contentsOfFile: json[0], encoding: .utf8)
        XCTAssertEqual(try badgectl(["credentials", "issue", "runs/", "--key", keyPath, "--out", out, "--rules", "rules/checkpoints",
                                     "--status-list", url, "--tz", "UTC", "--no-cache"]).status, 0)
        let after = try String(contentsOfFile: json[0], encoding: .utf8)
        func index(_ text: String) -> Substring? { text.range(of: "\"statusListIndex\": \"").map { text[$0.upperBound...].prefix { $0 != "\"" } } }
        XCTAssertNotNil(index(before))
        XCTAssertEqual(index(before), index(after))
    }

    /// `issue --png`: the cards rendered by headless Chromium and baked; needs a browser on PATH.
    func testPNGCards() throws {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let browser = ["chromium", "chromium-browser", "google-chrome"].contains { name in
            folders.contains { FileManager.default.isExecutableFile(atPath: ($0 as NSString).appendingPathComponent(name)) }
        }
        try XCTSkipUnless(browser, "no chromium, chromium-browser or google-chrome on PATH")
        let keyPath = folder.appendingPathComponent("issuer.key").path
        XCTAssertEqual(try badgectl(["credentials", "key", "--out", keyPath]).status, 0)
        let out = folder.appendingPathComponent("out").path
        let issue = try badgectl(["credentials", "issue", "runs/", "--key", keyPath, "--out", out, "--rules", "rules/checkpoints",
                                  "--as-of", "2026-08-01", "--png", "--tz", "UTC", "--no-cache"])
        XCTAssertEqual(issue.status, 0, issue.stderr)
        let pngs = try files(".png")
        XCTAssertEqual(pngs.count, try files(".json").count)
        XCTAssertFalse(pngs.isEmpty)
        let verify = try badgectl(["credentials", "verify"] + pngs)
        XCTAssertEqual(verify.status, 0, verify.stdout)
        XCTAssertEqual(verify.stdout.split(separator: "\n").filter { $0.hasSuffix("(png)") }.count, pngs.count, verify.stdout)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pngs[0])))
        XCTAssertEqual(try BakedPNG.credential(in: bytes), try String(contentsOfFile: pngs[0].replacingOccurrences(of: ".png", with: ".json"), encoding: .utf8))
    }
}
