import BadgeCredentials
import Crypto
import Foundation
import XCTest

/// The Bitstring Status List: the bits, the positions, the signed list.
final class StatusListTests: XCTestCase {
    func testBitsRoundTripMostSignificantFirst() throws {
        let revoked: Set<Int> = [0, 7, 8, 12_345, StatusList.size - 1]
        let encoded = try StatusList.encode(revoked: revoked)
        XCTAssertTrue(encoded.hasPrefix("uH4sI"), "multibase base64url of GZIP (1f 8b): \(encoded.prefix(8))")
        XCTAssertEqual(try StatusList.decode(encoded), revoked)
        // Bit 0 is the first byte's most significant bit.
        let bytes = [UInt8](try XCTUnwrap(Base64URL.decode(String(encoded.dropFirst()))))
        XCTAssertEqual(bytes.prefix(2), [0x1F, 0x8B])
        XCTAssertThrowsError(try StatusList.decode("u" + Base64URL.encode(Data([1, 2, 3]))))
        XCTAssertThrowsError(try StatusList.decode("zabc"))
    }

    func testPositionsAreStableAndFree() {
        let first = StatusList.index(for: "a.b.earned.000000000000", taken: [])
        XCTAssertEqual(first, StatusList.index(for: "a.b.earned.000000000000", taken: []))
        let taken: Set<Int> = [first ?? -1]
        let second = StatusList.index(for: "a.b.earned.000000000000", taken: taken)
        XCTAssertNotNil(second)
        XCTAssertFalse(taken.contains(second ?? -1))
        XCTAssertTrue((0..<StatusList.size).contains(second ?? -1))
    }

    func testTheSignedListAndAChangedOne() throws {
        let issuer = IssuerKey(try Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 3, count: 32)))
        let list = try StatusList.credential(url: "https://club.example/status.json", issuer: issuer, revoked: [42], validFrom: "2026-12-07T10:00:00Z")
        let verified = try StatusList.verify(Data(list.pretty.utf8))
        XCTAssertEqual(verified.url, "https://club.example/status.json")
        XCTAssertEqual(verified.issuer, issuer.did)
        XCTAssertEqual(verified.revoked, [42])
        // Un-revoking by editing the list breaks its proof.
        var edited = list
        edited["credentialSubject"]?["encodedList"] = .string(try StatusList.encode(revoked: []))
        XCTAssertThrowsError(try StatusList.verify(Data(edited.pretty.utf8))) { error in
            guard case CredentialError.badSignature = error else { return XCTFail("\(error)") }
        }
        let entry = StatusList.entry(url: "https://club.example/status.json", index: 42)
        var credential = CredentialJSON.object(["credentialStatus": entry])
        XCTAssertEqual(try StatusList.position(of: credential)?.index, 42)
        credential["credentialStatus"]?["statusListIndex"] = .string("\(StatusList.size)")
        XCTAssertThrowsError(try StatusList.position(of: credential))
    }
}
