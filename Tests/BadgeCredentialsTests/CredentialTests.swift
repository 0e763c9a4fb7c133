import RunFixtures
import BadgeCredentials
import Crypto
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// Issue → verify in the library: every form round-trips, every changed field, unknown key and bad
/// context is refused, and the claim read back is the award.
final class CredentialTests: XCTestCase {
    static let facts = AwardFacts(
        awardId: AwardFacts.awardId(pack: "checkpoints", badge: "ten-k", tier: "earned", run: "2026-08-20-first-10k.fit"),
        pack: "checkpoints", packVersion: "1.0.0", packFingerprint: "sha256:" + String(repeating: "ab", count: 32), rule: "distance",
        badge: "ten-k", badgeName: "Ten K", badgeInformation: "Run further than 10 km.", distanceMeters: 10_000, tier: "earned",
        tiers: ["earned", "silver", "gold"], run: "2026-08-20-first-10k.fit", runFile: "2026-08-20-first-10k.fit",
        runFileSHA256: String(repeating: "0f", count: 32), runEnd: "2026-08-20T07:41:12Z", runDate: "2026-08-20",
        figure: "10.02 km in 58:40, 5:51/km", detail: "10.02 km at 5:51/km", evidence: ["distance_m: 10021.5", "elapsed_s: 3520"],
        asOf: "2026-10-18", zone: "Europe/Paris")

    /// A fixed key, so that a failure reproduces.
    var key = IssuerKey.generate()

    override func setUpWithError() throws {
        key = IssuerKey(try Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32)))
    }

    func signed(subject: String? = "mailto:ana@example.org") throws -> CredentialJSON {
        let unsigned = OpenBadgeCredential.make(Self.facts, issuerDid: key.did, issuerName: "Riverside RC", subject: subject,
                                                subjectName: "Ana", image: BadgeCard.medallion(Self.facts))
        return try DataIntegrity.sign(unsigned, key: key.privateKey, created: "2026-12-07T10:00:00Z")
    }

    func testRoundTripAndTheClaim() throws {
        let credential = try signed()
        let verified = try CredentialVerifier().verify(Data(credential.pretty.utf8))
        XCTAssertEqual(verified.issuer, key.did)
        XCTAssertEqual(verified.form, .json)
        let claim = try OpenBadgeCredential.claim(verified.credential)
        XCTAssertEqual(claim, OpenBadgeCredential.Claim(
            awardId: Self.facts.awardId, pack: "checkpoints", packVersion: "1.0.0", packFingerprint: Self.facts.packFingerprint,
            badge: "ten-k", tier: "earned", run: "2026-08-20-first-10k.fit",
            runFileNamedInformation: OpenBadgeCredential.namedInformation(sha256Hex: Self.facts.runFileSHA256),
            asOf: "2026-10-18", zone: "Europe/Paris"))
        XCTAssertEqual(credential["id"]?.stringValue, OpenBadgeCredential.credentialId(awardId: Self.facts.awardId))
        XCTAssertEqual(credential["validFrom"]?.stringValue, "2026-08-20T07:41:12Z")
        XCTAssertEqual(credential["credentialSubject"]?["id"]?.stringValue, "mailto:ana@example.org")
        // Without --subject: identified by name (OB 3.0 wants an id or an identifier).
        let anonymous = try signed(subject: nil)
        XCTAssertNil(anonymous["credentialSubject"]?["id"])
        XCTAssertEqual(anonymous["credentialSubject"]?["identifier"]?.arrayValue?.first?["identityHash"]?.stringValue, "Ana")
        XCTAssertNoThrow(try CredentialVerifier().verify(Data(JCS.canonical(anonymous))))
    }

    func testTheIdsAreStableAndDistinct() {
        let id = AwardFacts.awardId(pack: "p", badge: "b", tier: "earned", run: "r.gpx")
        XCTAssertEqual(id, AwardFacts.awardId(pack: "p", badge: "b", tier: "earned", run: "r.gpx"))
        XCTAssertNotEqual(id, AwardFacts.awardId(pack: "p", badge: "b", tier: "silver", run: "r.gpx"))
        XCTAssertNotEqual(id, AwardFacts.awardId(pack: "p", badge: "b", tier: "earned", run: "s.gpx"))
        XCTAssertTrue(AwardFacts.awardId(pack: "p", badge: "a b/c", tier: "x", run: "r").hasPrefix("p.a-b-c.x."))
        let uuid = OpenBadgeCredential.credentialId(awardId: id)
        XCTAssertEqual(uuid, OpenBadgeCredential.credentialId(awardId: id))
        XCTAssertNotNil(UUID(uuidString: String(uuid.dropFirst("urn:uuid:".count))))
        XCTAssertEqual(Array(uuid)["urn:uuid:".count + 14], "8")
    }

    /// Every scalar of the signed credential, proof included, changed in turn: each is refused.
    func testEveryChangedFieldIsRefused() throws {
        let credential = try signed()
        var paths: [[PathStep]] = []
        collect(credential, [], into: &paths)
        XCTAssertGreaterThan(paths.count, 40)
        for path in paths {
            let changed = modify(credential, path[...])
            XCTAssertThrowsError(try CredentialVerifier().verify(Data(JCS.canonical(changed))), "\(path)")
        }
    }

    func testUnknownKeyIsRefusedByName() throws {
        let credential = try signed()
        // Another key signs what claims to be the issuer's.
        let other = IssuerKey(try Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 9, count: 32)))
        let forged = try DataIntegrity.sign(credential, key: other.privateKey, created: "2026-12-07T10:00:00Z")
        XCTAssertThrowsError(try CredentialVerifier().verify(Data(JCS.canonical(forged)))) { error in
            guard case CredentialError.unknownKey(_, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("not the issuer's key"), reason)
        }
        // A verification method badgectl cannot resolve offline.
        var web = credential
        web["proof"]?["verificationMethod"] = .string("did:web:club.example#key-1")
        XCTAssertThrowsError(try CredentialVerifier().verify(Data(JCS.canonical(web)))) { error in
            guard case CredentialError.unknownKey = error else { return XCTFail("\(error)") }
        }
        // A valid credential from an issuer not among those trusted.
        XCTAssertThrowsError(try CredentialVerifier(trustedIssuers: [other.did]).verify(Data(JCS.canonical(credential)))) { error in
            guard case CredentialError.unknownKey(_, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("trusted"), reason)
        }
        XCTAssertNoThrow(try CredentialVerifier(trustedIssuers: [key.did]).verify(Data(JCS.canonical(credential))))
    }

    func testBadContextIsRefusedEvenWhenSigned() throws {
        var credential = try signed()
        credential["proof"] = nil
        var otherContext = credential
        otherContext["@context"] = .array([.string(Contexts.credentialsV2), .string("https://example.org/my-context.json")])
        var undefinedTerm = credential
        undefinedTerm["credentialSubject"]?["shoeSize"] = .number(43)
        var undefinedType = credential
        undefinedType["type"] = .array([.string("VerifiableCredential"), .string("OpenBadgeCredential"), .string("RunnerBadge")])
        for (document, field) in [(otherContext, "@context"), (undefinedTerm, "credentialSubject.shoeSize"), (undefinedType, "type")] {
            let resigned = try DataIntegrity.sign(document, key: key.privateKey, created: "2026-12-07T10:00:00Z")
            XCTAssertThrowsError(try CredentialVerifier().verify(Data(JCS.canonical(resigned)))) { error in
                guard case CredentialError.badContext(let named, _) = error else { return XCTFail("\(field): \(error)") }
                XCTAssertEqual(named, field)
            }
        }
        XCTAssertTrue(Contexts.terms.isSuperset(of: ["OpenBadgeCredential", "AchievementSubject", "achievedLevel", "rubricCriterionLevel",
                                                      "identityHash", "proofValue", "cryptosuite", "genre", "narrative"]))
    }

    func testJWTRoundTripAndTamper() throws {
        let credential = try signed()
        let token = try VCJWT.sign(credential, key: key.privateKey)
        let verified = try CredentialVerifier().verify(Data(token.utf8))
        XCTAssertEqual(verified.form, .jwt)
        var withoutProof = credential
        withoutProof["proof"] = nil
        XCTAssertEqual(JCS.canonical(verified.credential), JCS.canonical(withoutProof))
        let parts = token.split(separator: ".").map(String.init)
        var payload = try CredentialJSON.parse(try XCTUnwrap(Base64URL.decode(parts[1])))
        XCTAssertEqual(payload["iss"]?.stringValue, key.did)
        XCTAssertEqual(payload["nbf"], .number(Double(try XCTUnwrap(CredentialTime.epochSeconds("2026-08-20T07:41:12Z")))))
        payload["name"] = .string("Ten K (gold)")
        let forged = [parts[0], Base64URL.encode(JCS.canonical(payload)), parts[2]].joined(separator: ".")
        XCTAssertThrowsError(try CredentialVerifier().verify(Data(forged.utf8))) { error in
            guard case CredentialError.badSignature = error else { return XCTFail("\(error)") }
        }
        // Signed again by the right key, but with a claim that contradicts the credential.
        payload = try CredentialJSON.parse(try XCTUnwrap(Base64URL.decode(parts[1])))
        payload["jti"] = .string("urn:uuid:00000000-0000-8000-8000-000000000000")
        let input = parts[0] + "." + Base64URL.encode(JCS.canonical(payload))
        let resigned = input + "." + Base64URL.encode(try key.privateKey.signature(for: Data(input.utf8)))
        XCTAssertThrowsError(try CredentialVerifier().verify(Data(resigned.utf8))) { error in
            guard case CredentialError.badJWT(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("jti"), reason)
        }
    }

    func testTheCardCarriesTheCredential() throws {
        var facts = Self.facts
        facts.badgeName = "Ten K ]]> <& \"quoted\""
        let unsigned = OpenBadgeCredential.make(facts, issuerDid: key.did, issuerName: "R&R", subject: nil, subjectName: "Ana",
                                                image: BadgeCard.medallion(facts))
        let credential = try DataIntegrity.sign(unsigned, key: key.privateKey, created: "2026-12-07T10:00:00Z")
        let json = credential.pretty
        let card = BadgeCard.svg(facts, issuerName: "R&R", credential: json)
        XCTAssertTrue(card.contains("xmlns:openbadges=\"https://purl.imsglobal.org/ob/v3p0\""))
        XCTAssertEqual(try BadgeCard.bakedCredential(svg: card), json)
        let verified = try CredentialVerifier().verify(Data(card.utf8))
        XCTAssertEqual(verified.form, .svg)
        XCTAssertNotNil(try? XMLDocument(xmlString: card), "the card is well-formed XML")
        // A card whose credential was edited.
        let edited = card.replacingOccurrences(of: "\"validFrom\": \"2026-08-20T07:41:12Z\"", with: "\"validFrom\": \"2025-08-20T07:41:12Z\"")
        XCTAssertNotEqual(edited, card)
        XCTAssertThrowsError(try CredentialVerifier().verify(Data(edited.utf8)))
        // A card whose picture was edited, its credential intact: each visible line is checked.
        for (shown, edited) in [("EARNED", "GOLD"), ("10.02 km in 58:40", "12.02 km in 58:40"), ("2026-08-20", "2026-08-19"), ("Issued by R&amp;R", "Issued by Club")] {
            let forged = card.replacingOccurrences(of: ">\(shown)", with: ">\(edited)")
            XCTAssertNotEqual(forged, card, shown)
            XCTAssertThrowsError(try CredentialVerifier().verify(Data(forged.utf8)), shown) { error in
                guard case CredentialError.cardDiffers = error else { return XCTFail("\(shown): \(error)") }
            }
        }
        XCTAssertThrowsError(try CredentialVerifier().verify(Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8))) { error in
            guard case CredentialError.badCard = error else { return XCTFail("\(error)") }
        }
    }

    func testTheKeyFile() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.url
        let path = folder.appendingPathComponent("issuer.key").path
        let key = IssuerKey.generate()
        try key.write(to: path)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
        XCTAssertEqual(mode.intValue & 0o777, 0o600)
        XCTAssertEqual(try IssuerKey.read(path: path).did, key.did)
        XCTAssertThrowsError(try IssuerKey.generate().write(to: path)) { error in
            XCTAssertEqual(error as? CredentialError, .keyExists(path: path))
        }
        XCTAssertEqual(try IssuerKey.read(path: path).did, key.did, "the key is as it was")
        try Data("{\"publicKeyMultibase\":\"\(DidKey.publicKeyMultibase(key.publicKey))\"}".utf8)
            .write(to: folder.appendingPathComponent("public.key"))
        XCTAssertThrowsError(try IssuerKey.read(path: folder.appendingPathComponent("public.key").path)) { error in
            guard case CredentialError.badKeyFile(_, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("privateKeyMultibase"), reason)
        }
    }

    func testTimestamps() {
        for text in ["1970-01-01T00:00:00Z", "2026-08-20T07:41:12Z", "2000-02-29T23:59:59Z", "2100-03-01T00:00:00Z"] {
            XCTAssertEqual(CredentialTime.epochSeconds(text).map { CredentialTime.text(epochSeconds: $0) }, text)
        }
        XCTAssertEqual(CredentialTime.epochSeconds("2026-08-20T07:41:12Z"), 1_787_211_672)
        XCTAssertNil(CredentialTime.epochSeconds("2026-08-20 07:41:12"))
    }

    // MARK: - Helpers

    enum PathStep: CustomStringConvertible {
        case key(String), index(Int)
        var description: String {
            switch self {
            case .key(let key): return key
            case .index(let index): return "[\(index)]"
            }
        }
    }

    func collect(_ value: CredentialJSON, _ path: [PathStep], into paths: inout [[PathStep]]) {
        switch value {
        case .object(let members): for member in members { collect(member.value, path + [.key(member.key)], into: &paths) }
        case .array(let items): for (index, item) in items.enumerated() { collect(item, path + [.index(index)], into: &paths) }
        default: paths.append(path)
        }
    }

    /// The value at `path` with one byte changed (a string's middle character, a number + 1, a boolean negated).
    func modify(_ value: CredentialJSON, _ path: ArraySlice<PathStep>) -> CredentialJSON {
        guard let step = path.first else {
            switch value {
            case .string(let text):
                var scalars = Array(text.unicodeScalars)
                if scalars.isEmpty { return .string("x") }
                let middle = scalars.count / 2
                scalars[middle] = Unicode.Scalar(scalars[middle].value ^ 1) ?? "x"
                return .string(String(String.UnicodeScalarView(scalars)))
            case .number(let number): return .number(number + 1)
            case .bool(let flag): return .bool(!flag)
            default: return .string("x")
            }
        }
        switch (step, value) {
        case (.key(let key), _):
            var copy = value
            copy[key] = modify(value[key] ?? .null, path.dropFirst())
            return copy
        case (.index(let index), .array(var items)):
            items[index] = modify(items[index], path.dropFirst())
            return .array(items)
        default:
            return value
        }
    }
}
