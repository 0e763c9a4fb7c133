import BadgeCredentials
import Crypto
import Foundation
import XCTest

/// The W3C vc-di-eddsa test vector for eddsa-jcs-2022: every intermediate form and the proofValue.
final class EddsaJcs2022Tests: XCTestCase {
    func vectorKey() throws -> Curve25519.Signing.PrivateKey {
        let pair = try CredentialJSON.parse(try Fixtures.data("eddsa-jcs-2022/keyPair.json"))
        let key = try XCTUnwrap(DidKey.privateKey(multibase: try XCTUnwrap(pair["privateKeyMultibase"]?.stringValue)))
        XCTAssertEqual(DidKey.publicKeyMultibase(key.publicKey), pair["publicKeyMultibase"]?.stringValue)
        return key
    }

    func testReproducesEveryStepAndTheProofValue() throws {
        let key = try vectorKey()
        let signed = try CredentialJSON.parse(try Fixtures.data("eddsa-jcs-2022/signedJCS.json"))
        var document = signed
        document["proof"] = nil
        XCTAssertEqual(JCS.canonicalText(document), try Fixtures.text("eddsa-jcs-2022/canonDocJCS.txt"))
        XCTAssertEqual(Fixtures.hex(SHA256.hash(data: JCS.canonical(document))), try Fixtures.text("eddsa-jcs-2022/docHashJCS.txt"))

        let created = try XCTUnwrap(signed["proof"]?["created"]?.stringValue)
        let configuration = DataIntegrity.proofConfiguration(document: document, created: created,
                                                             verificationMethod: DidKey.verificationMethod(key.publicKey))
        XCTAssertEqual(JCS.canonical(configuration), JCS.canonical(try CredentialJSON.parse(try Fixtures.data("eddsa-jcs-2022/proofConfigJCS.json"))))
        XCTAssertEqual(JCS.canonicalText(configuration), try Fixtures.text("eddsa-jcs-2022/proofCanonJCS.txt"))
        XCTAssertEqual(Fixtures.hex(SHA256.hash(data: JCS.canonical(configuration))), try Fixtures.text("eddsa-jcs-2022/proofHashJCS.txt"))
        XCTAssertEqual(Fixtures.hex(DataIntegrity.hashData(document: document, proofConfiguration: configuration)),
                       try Fixtures.text("eddsa-jcs-2022/combinedHashJCS.txt"))

        let resigned = try DataIntegrity.sign(document, key: key, created: created)
        XCTAssertEqual(resigned["proof"]?["proofValue"]?.stringValue, try Fixtures.text("eddsa-jcs-2022/sigBTC58JCS.txt"))
        let signature = try XCTUnwrap(Base58.decodeMultibase(try XCTUnwrap(resigned["proof"]?["proofValue"]?.stringValue)))
        XCTAssertEqual(Fixtures.hex(signature), try Fixtures.text("eddsa-jcs-2022/sigHexJCS.txt"))
        XCTAssertEqual(JCS.canonical(resigned), JCS.canonical(signed))
    }

    func testVerifiesThePublishedCredentialAndRefusesAChangedOne() throws {
        let signed = try CredentialJSON.parse(try Fixtures.data("eddsa-jcs-2022/signedJCS.json"))
        XCTAssertEqual(try DataIntegrity.verify(signed), signed["proof"]?["verificationMethod"]?.stringValue)
        var changed = signed
        changed["name"] = .string("Alumni Credentia1")
        XCTAssertThrowsError(try DataIntegrity.verify(changed)) { error in
            guard case CredentialError.badSignature = error else { return XCTFail("\(error)") }
        }
        var otherProof = signed
        otherProof["proof"]?["created"] = .string("2023-02-24T23:36:39Z")
        XCTAssertThrowsError(try DataIntegrity.verify(otherProof))
    }

    func testBase58RoundTripsLeadingZeros() {
        for bytes: [UInt8] in [[], [0], [0, 0, 1], [255, 254, 0, 3], Array(0..<64)] {
            XCTAssertEqual(Base58.decode(Base58.encode(bytes)), bytes)
        }
        XCTAssertEqual(Base58.encode(Array("Hello World!".utf8)), "2NEpo7TZRRrLZSi2U")
        XCTAssertNil(Base58.decode("0OIl"))
    }
}
