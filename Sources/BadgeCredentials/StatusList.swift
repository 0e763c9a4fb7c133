import Crypto
import Foundation
import RunFiles

/// Revocation with a W3C Bitstring Status List (Recommendation 2025): each credential issued with a
/// status list names a position in it (`credentialStatus`, a `BitstringStatusListEntry` of purpose
/// `revocation`); the list is itself a credential, `BitstringStatusListCredential`, signed by the
/// same issuer, whose `encodedList` is the bitstring (131,072 bits, the smallest the Recommendation
/// allows, so that a position says little about who holds it), GZIP-compressed, in multibase
/// base64url (`u…`). Bit 0 is the most significant bit of the first byte; a set bit is revoked.
public enum StatusList {
    /// Positions in a list.
    public static let size = 131_072

    /// The `credentialStatus` of the credential at `index` of the list published at `url`.
    public static func entry(url: String, index: Int) -> CredentialJSON {
        .object([
            "id": .string("\(url)#\(index)"),
            "type": .string("BitstringStatusListEntry"),
            "statusPurpose": .string("revocation"),
            "statusListIndex": .string(String(index)),
            "statusListCredential": .string(url),
        ])
    }

    /// A position for `awardId` not in `taken`: from the award id's SHA-256, the next free one after
    /// it. The same award in an empty list always gets the same position; issuing into a folder
    /// keeps the positions its credentials already have (`CredentialsCommand` reads them).
    public static func index(for awardId: String, taken: Set<Int>) -> Int? {
        guard taken.count < size else { return nil }
        let digest = Array(SHA256.hash(data: Data("badgectl status \(awardId)".utf8)))
        var index = (Int(digest[0]) << 16 | Int(digest[1]) << 8 | Int(digest[2])) % size
        while taken.contains(index) { index = (index + 1) % size }
        return index
    }

    /// The position and list of a credential's `credentialStatus`; nil when it has none.
    /// - Throws: `CredentialError.badField` when it has one badgectl cannot read.
    public static func position(of credential: CredentialJSON) throws -> (url: String, index: Int)? {
        guard let status = credential["credentialStatus"] else { return nil }
        guard status["type"]?.stringValue == "BitstringStatusListEntry", status["statusPurpose"]?.stringValue == "revocation",
              let url = status["statusListCredential"]?.stringValue, let text = status["statusListIndex"]?.stringValue,
              let index = Int(text), index >= 0, index < size else {
            throw CredentialError.badField(field: "credentialStatus",
                                           reason: "expected a BitstringStatusListEntry of purpose revocation with statusListIndex below \(size)")
        }
        return (url, index)
    }

    /// `u` + base64url(gzip(bitstring)) with the bits of `revoked` set.
    public static func encode(revoked: Set<Int>) throws -> String {
        var bytes = [UInt8](repeating: 0, count: size / 8)
        for index in revoked where index >= 0 && index < size { bytes[index / 8] |= 0x80 >> UInt8(index % 8) }
        return "u" + Base64URL.encode(Data(try Gzip.compress(bytes, level: 9)))
    }

    /// The set positions of an `encodedList`.
    /// - Throws: `CredentialError.badField` when it is not multibase base64url GZIP of at least `size` bits.
    public static func decode(_ encoded: String) throws -> Set<Int> {
        guard encoded.hasPrefix("u"), let data = Base64URL.decode(String(encoded.dropFirst())) else {
            throw CredentialError.badField(field: "credentialSubject.encodedList", reason: "expected 'u' and base64url")
        }
        let bytes: [UInt8]
        do { bytes = try Gzip.decompress([UInt8](data), source: "encodedList", maximumBytes: 16 << 20) } catch {
            throw CredentialError.badField(field: "credentialSubject.encodedList", reason: "not GZIP data (\(error))")
        }
        guard bytes.count * 8 >= size else {
            throw CredentialError.badField(field: "credentialSubject.encodedList", reason: "\(bytes.count * 8) bits; at least \(size) expected")
        }
        var set = Set<Int>()
        for (offset, byte) in bytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 { set.insert(offset * 8 + bit) }
        }
        return set
    }

    /// The signed `BitstringStatusListCredential` published at `url`, with `revoked` set.
    public static func credential(url: String, issuer: IssuerKey, revoked: Set<Int>, validFrom: String) throws -> CredentialJSON {
        let unsigned = CredentialJSON.object([
            "@context": .array([.string(Contexts.credentialsV2)]),
            "id": .string(url),
            "type": .array([.string("VerifiableCredential"), .string("BitstringStatusListCredential")]),
            "issuer": .string(issuer.did),
            "validFrom": .string(validFrom),
            "credentialSubject": .object([
                "id": .string(url + "#list"),
                "type": .string("BitstringStatusList"),
                "statusPurpose": .string("revocation"),
                "encodedList": .string(try encode(revoked: revoked)),
            ]),
        ])
        return try DataIntegrity.sign(unsigned, key: issuer.privateKey, created: validFrom)
    }

    /// Verifies a status list credential and returns its URL (`id`), issuer and revoked positions.
    /// - Throws: a `CredentialError` naming what failed.
    public static func verify(_ data: Data) throws -> (url: String, issuer: String, revoked: Set<Int>) {
        let list = try CredentialJSON.parse(data)
        try Contexts.check(list, required: [Contexts.credentialsV2])
        let method = try DataIntegrity.verify(list)
        guard list.typeNames?.contains("BitstringStatusListCredential") == true else {
            throw CredentialError.badField(field: "type", reason: "expected a BitstringStatusListCredential")
        }
        guard let url = list["id"]?.stringValue else { throw CredentialError.badField(field: "id", reason: "missing") }
        guard let issuer = list["issuer"]?.stringValue ?? list["issuer"]?["id"]?.stringValue,
              issuer == String(method.split(separator: "#").first ?? "") else {
            throw CredentialError.unknownKey(method: method, reason: "not the status list issuer's key")
        }
        guard list["credentialSubject"]?["statusPurpose"]?.stringValue == "revocation",
              let encoded = list["credentialSubject"]?["encodedList"]?.stringValue else {
            throw CredentialError.badField(field: "credentialSubject", reason: "expected a BitstringStatusList of purpose revocation with its encodedList")
        }
        return (url, issuer, try decode(encoded))
    }
}
