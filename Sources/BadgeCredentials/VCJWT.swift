import Crypto
import Foundation

/// The credential as a VC-JWT (Open Badges 3.0 section 8.2, "JSON Web Token Proof Format"): a JWS
/// compact serialisation, `alg` EdDSA, `kid` the issuer's did:key verification method, the public key
/// as `jwk` too; the payload is the credential's members (no proof) with the registered claims `iss`
/// (the issuer's id), `jti` (the credential's id), `nbf` (`validFrom` in seconds) and `sub` (the
/// subject's id, when it has one).
///
/// Written by hand over swift-crypto rather than with vapor/jwt-kit: it is one header, one payload
/// and one Ed25519 signature, jwt-kit would add a dependency tree (and its own JSON encoding, which
/// cannot carry our `CredentialJSON`) to sign three strings, and verifying needs our did:key resolution anyway.
public enum VCJWT {
    /// The compact JWS of `credential` (its `proof`, if any, left out), signed with `key`.
    /// - Throws: `CredentialError.badField` when `validFrom` is not a date-time.
    public static func sign(_ credential: CredentialJSON, key: Curve25519.Signing.PrivateKey) throws -> String {
        var payload = credential
        payload["proof"] = nil
        guard let validFrom = credential["validFrom"]?.stringValue, let seconds = CredentialTime.epochSeconds(validFrom) else {
            throw CredentialError.badField(field: "validFrom", reason: "expected a date-time YYYY-MM-DDThh:mm:ssZ")
        }
        payload["iss"] = credential["issuer"]?["id"] ?? credential["issuer"]
        payload["jti"] = credential["id"]
        payload["nbf"] = .number(Double(seconds))
        if let subject = credential["credentialSubject"]?["id"] { payload["sub"] = subject }
        let header = CredentialJSON.object([
            "alg": .string("EdDSA"),
            "typ": .string("JWT"),
            "kid": .string(DidKey.verificationMethod(key.publicKey)),
            "jwk": .object(["kty": .string("OKP"), "crv": .string("Ed25519"), "x": .string(Base64URL.encode(key.publicKey.rawRepresentation))]),
        ])
        let input = Base64URL.encode(JCS.canonical(header)) + "." + Base64URL.encode(JCS.canonical(payload))
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// Checks the JWT's signature and claims and returns the credential it carries (the registered
    /// claims removed) with the verification method that signed it.
    /// - Throws: `CredentialError.badJWT` (shape, header, claims), `.unknownKey`, `.badSignature`.
    public static func verify(_ token: String) throws -> (credential: CredentialJSON, method: String) {
        let parts = token.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw CredentialError.badJWT(reason: "expected three base64url parts separated by '.', found \(parts.count)") }
        guard let headerData = Base64URL.decode(parts[0]), let header = try? CredentialJSON.parse(headerData) else {
            throw CredentialError.badJWT(reason: "the header is not base64url JSON")
        }
        guard let payloadData = Base64URL.decode(parts[1]) else { throw CredentialError.badJWT(reason: "the payload is not base64url") }
        let payload: CredentialJSON
        do { payload = try CredentialJSON.parse(payloadData) } catch { throw CredentialError.badJWT(reason: "the payload: \(error)") }
        guard let signature = Base64URL.decode(parts[2]), signature.count == 64 else {
            throw CredentialError.badJWT(reason: "the signature is not the base64url of 64 bytes")
        }
        guard header["alg"]?.stringValue == "EdDSA" else { throw CredentialError.badJWT(reason: "header alg: expected \"EdDSA\"") }
        guard let method = header["kid"]?.stringValue else { throw CredentialError.badJWT(reason: "header kid: missing") }
        let key = try DidKey.resolve(method)
        if let jwk = header["jwk"], jwk["x"]?.stringValue != Base64URL.encode(key.rawRepresentation) {
            throw CredentialError.badJWT(reason: "header jwk: not the key kid names")
        }
        guard key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) else {
            throw CredentialError.badSignature(what: "the JWT (its header or payload was changed after signing, or another key signed it)")
        }
        var credential = payload
        for claim in ["iss", "jti", "nbf", "sub"] { credential[claim] = nil }
        let issuer = credential["issuer"]?["id"] ?? credential["issuer"]
        guard payload["iss"] == issuer, issuer != nil else { throw CredentialError.badJWT(reason: "claim iss: not the credential's issuer") }
        guard payload["jti"] == credential["id"] else { throw CredentialError.badJWT(reason: "claim jti: not the credential's id") }
        guard let validFrom = credential["validFrom"]?.stringValue, let seconds = CredentialTime.epochSeconds(validFrom),
              payload["nbf"] == .number(Double(seconds)) else {
            throw CredentialError.badJWT(reason: "claim nbf: not the credential's validFrom")
        }
        if payload["sub"] != credential["credentialSubject"]?["id"] { throw CredentialError.badJWT(reason: "claim sub: not the subject's id") }
        return (credential, method)
    }
}

/// `YYYY-MM-DDThh:mm:ssZ` and seconds since 1970, both ways, in UTC (no locale, no time zone database).
public enum CredentialTime {
    public static func epochSeconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard bytes[range].allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }

    public static func text(epochSeconds seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, rest / 3_600, rest % 3_600 / 60, rest % 60)
    }
}
