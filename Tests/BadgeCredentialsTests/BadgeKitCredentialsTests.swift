import RunFixtures
import BadgeKit
import Foundation
import XCTest

/// BadgeKit issues and verifies as the command line does: the same runs, key and time give the
/// same credentials, JWTs and cards, byte for byte.
final class BadgeKitCredentialsTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL { temporary.url }

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func testTheLibraryIssuesWhatTheCommandIssues() throws {
        let keyPath = folder.appendingPathComponent("issuer.key").path
        let key = IssuerKey.generate()
        try key.write(to: keyPath)
        let out = folder.appendingPathComponent("out")
        let issue = try BuiltBadgectl.run(["credentials", "issue", "runs/", "--key", keyPath, "--out", out.path, "--issuer-name", "Riverside RC",
                                           "--subject", "mailto:ana@example.org", "--tz", "UTC", "--no-cache"], scratch: folder)
        XCTAssertEqual(issue.status, 0, issue.stderr)

        let repository = Fixtures.repository
        let engine = try BadgeEngine(packs: [repository.appendingPathComponent("rules").path],
                                     catalogue: repository.appendingPathComponent("badges.json").path, zone: TimeZone(identifier: "UTC") ?? .current)
        let runsFolder = repository.appendingPathComponent("runs").path
        var runs: [RunSummary] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: runsFolder).sorted() where name != "README.txt" {
            runs += try engine.summaries(file: (runsFolder as NSString).appendingPathComponent(name), id: name)
        }
        let issuer = CredentialIssuer(key: try IssuerKey.read(path: keyPath), name: "Riverside RC", subject: "mailto:ana@example.org")
        let made = try engine.credentials(for: runs, folder: runsFolder, issuer: issuer,
                                          created: Date(timeIntervalSince1970: TimeInterval(BuiltBadgectl.sourceDateEpoch)))
        XCTAssertEqual(made.skipped, [])
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(made.issued.count, files.count)
        XCTAssertGreaterThan(made.issued.count, 10)
        for credential in made.issued {
            let base = out.appendingPathComponent(credential.facts.awardId)
            XCTAssertEqual(credential.json, try String(contentsOf: base.appendingPathExtension("json"), encoding: .utf8), credential.facts.awardId)
            XCTAssertEqual(credential.jwt + "\n", try String(contentsOf: base.appendingPathExtension("jwt"), encoding: .utf8))
            XCTAssertEqual(credential.card, try String(contentsOf: base.appendingPathExtension("svg"), encoding: .utf8))
            let verified = try BadgeEngine.verifyCredential(Data(credential.card.utf8), trustedIssuers: [key.did])
            XCTAssertEqual(verified.issuer, key.did)
        }
        XCTAssertThrowsError(try BadgeEngine.verifyCredential(Data(made.issued[0].json.replacingOccurrences(of: "Riverside RC", with: "Riverside FC").utf8)))
    }
}
