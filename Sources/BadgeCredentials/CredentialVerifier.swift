import Foundation

/// Verifies a credential badgectl (or anyone) issued, in any of the three forms badgectl writes: the
/// JSON with an embedded `eddsa-jcs-2022` proof, the VC-JWT, and a card (SVG) with either baked in.
public struct CredentialVerifier: Sendable {
    /// The form a credential came in.
    public enum Form: String, Sendable { case json, jwt, svg, png }

    /// A credential whose proof held.
    public struct Verified: Sendable {
        public var credential: CredentialJSON
        public var form: Form
        /// The issuer's DID (`did:key:z6Mk…`).
        public var issuer: String
        public var verificationMethod: String
    }

    /// Issuers (DIDs) to accept; empty accepts any did:key that signed its own credential.
    public var trustedIssuers: Set<String>

    public init(trustedIssuers: Set<String> = []) { self.trustedIssuers = trustedIssuers }

    /// Verifies the bytes of a file: a baked PNG (by its signature), an SVG (by its `<`), a JWT
    /// (three base64url parts) or JSON.
    /// - Throws: a `CredentialError` naming what failed.
    public func verify(_ data: Data) throws -> Verified {
        if BakedPNG.isPNG([UInt8](data.prefix(8))) {
            let baked = try BakedPNG.credential(in: [UInt8](data))
            var result = baked.hasPrefix("{") ? try verifyJSON(Data(baked.utf8)) : try verifyJWT(baked)
            result.form = .png
            return result
        }
        guard let text = String(data: data, encoding: .utf8) else { throw CredentialError.badJSON(offset: 0, expected: "UTF-8 text") }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("<") {
            let baked = try BadgeCard.bakedCredential(svg: text)
            var result = baked.hasPrefix("{") ? try verifyJSON(Data(baked.utf8)) : try verifyJWT(baked)
            try BadgeCard.checkShown(svg: text, credential: result.credential)
            result.form = .svg
            return result
        }
        if trimmed.hasPrefix("{") { return try verifyJSON(data) }
        let jwtCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy(jwtCharacters.contains) else { throw CredentialError.notACredential }
        return try verifyJWT(trimmed)
    }

    public func verifyJSON(_ data: Data) throws -> Verified {
        let credential = try CredentialJSON.parse(data)
        try Contexts.check(credential)
        let method = try DataIntegrity.verify(credential)
        return try checked(credential, form: .json, method: method)
    }

    public func verifyJWT(_ token: String) throws -> Verified {
        let (credential, method) = try VCJWT.verify(token)
        try Contexts.check(credential)
        return try checked(credential, form: .jwt, method: method)
    }

    /// The checks after the signature: the types, the issuer is the key's controller, a trusted issuer.
    func checked(_ credential: CredentialJSON, form: Form, method: String) throws -> Verified {
        let types = credential.typeNames ?? []
        guard types.contains("VerifiableCredential"), types.contains("OpenBadgeCredential") || types.contains("AchievementCredential") else {
            throw CredentialError.badField(field: "type", reason: "expected [\"VerifiableCredential\", \"OpenBadgeCredential\"]")
        }
        guard let issuer = credential["issuer"]?["id"]?.stringValue ?? credential["issuer"]?.stringValue else {
            throw CredentialError.badField(field: "issuer.id", reason: "missing")
        }
        let did = String(method.split(separator: "#", maxSplits: 1).first ?? "")
        guard did == issuer else {
            throw CredentialError.unknownKey(method: method, reason: "not the issuer's key (issuer.id is \(issuer))")
        }
        if !trustedIssuers.isEmpty && !trustedIssuers.contains(issuer) {
            throw CredentialError.unknownKey(method: method, reason: "not among the trusted issuers (--issuer)")
        }
        guard credential["credentialSubject"]?["achievement"] != nil else {
            throw CredentialError.badField(field: "credentialSubject.achievement", reason: "missing")
        }
        return Verified(credential: credential, form: form, issuer: issuer, verificationMethod: method)
    }
}
