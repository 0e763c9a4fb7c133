import Crypto
import Foundation

/// A `DataIntegrityProof` with the cryptosuite `eddsa-jcs-2022` (W3C Data Integrity EdDSA
/// Cryptosuites v1.0, section 3.3): the proof configuration (the proof without `proofValue`, with the
/// document's `@context`) and the document without its proof are each canonicalised with JCS and
/// hashed with SHA-256; the Ed25519 signature of the two hashes, configuration first, is the
/// `proofValue`, in multibase base58btc. Ed25519 through BoringSSL is deterministic, so the W3C test
/// vector's `proofValue` is reproduced exactly (Tests/BadgeCredentialsTests).
public enum DataIntegrity {
    public static let cryptosuite = "eddsa-jcs-2022"

    /// The 64 bytes signed: SHA-256(JCS(proof configuration)) ‖ SHA-256(JCS(document without proof)).
    public static func hashData(document: CredentialJSON, proofConfiguration: CredentialJSON) -> Data {
        var unsecured = document
        unsecured["proof"] = nil
        return Data(SHA256.hash(data: JCS.canonical(proofConfiguration))) + Data(SHA256.hash(data: JCS.canonical(unsecured)))
    }

    /// The proof configuration for `document`: type, cryptosuite, created, verification method,
    /// purpose `assertionMethod`, and the document's `@context` when it has one.
    public static func proofConfiguration(document: CredentialJSON, created: String, verificationMethod: String) -> CredentialJSON {
        var proof = CredentialJSON.object([
            "type": .string("DataIntegrityProof"),
            "cryptosuite": .string(cryptosuite),
            "created": .string(created),
            "verificationMethod": .string(verificationMethod),
            "proofPurpose": .string("assertionMethod"),
        ])
        if let context = document["@context"] { proof["@context"] = context }
        return proof
    }

    /// `document` with an embedded proof made with `key` (any proof already there is replaced).
    /// - Throws: the signer's error (BoringSSL refusing to sign), which does not happen with a valid key.
    public static func sign(_ document: CredentialJSON, key: Curve25519.Signing.PrivateKey, created: String) throws -> CredentialJSON {
        var unsecured = document
        unsecured["proof"] = nil
        var proof = proofConfiguration(document: unsecured, created: created,
                                       verificationMethod: DidKey.verificationMethod(key.publicKey))
        let signature = try key.signature(for: hashData(document: unsecured, proofConfiguration: proof))
        proof["proofValue"] = .string(Base58.multibase([UInt8](signature)))
        var secured = unsecured
        secured["proof"] = proof
        return secured
    }

    /// Checks the embedded proof of `document` and returns the verification method that signed it.
    /// - Throws: `CredentialError.badField` for a missing or malformed proof, `.unknownKey` for a
    ///   verification method that is not an Ed25519 did:key, `.badContext` for a proof whose
    ///   `@context` is not the document's, `.badSignature` when the signature does not match.
    @discardableResult
    public static func verify(_ document: CredentialJSON) throws -> String {
        guard let proof = document["proof"] else { throw CredentialError.badField(field: "proof", reason: "missing: the credential is not signed") }
        guard case .object = proof else {
            throw CredentialError.badField(field: "proof", reason: "expected one proof object (badgectl signs with one)")
        }
        guard proof["type"]?.stringValue == "DataIntegrityProof" else {
            throw CredentialError.badField(field: "proof.type", reason: "expected \"DataIntegrityProof\"")
        }
        guard proof["cryptosuite"]?.stringValue == cryptosuite else {
            throw CredentialError.badField(field: "proof.cryptosuite", reason: "expected \"\(cryptosuite)\"")
        }
        guard proof["proofPurpose"]?.stringValue == "assertionMethod" else {
            throw CredentialError.badField(field: "proof.proofPurpose", reason: "expected \"assertionMethod\"")
        }
        guard let method = proof["verificationMethod"]?.stringValue else {
            throw CredentialError.badField(field: "proof.verificationMethod", reason: "missing")
        }
        guard proof["created"]?.stringValue != nil else { throw CredentialError.badField(field: "proof.created", reason: "missing") }
        guard let proofValue = proof["proofValue"]?.stringValue else {
            throw CredentialError.badField(field: "proof.proofValue", reason: "missing")
        }
        guard let signature = Base58.decodeMultibase(proofValue), signature.count == 64 else {
            throw CredentialError.badField(field: "proof.proofValue", reason: "expected 'z' and the base58btc of a 64-byte Ed25519 signature")
        }
        // Section 3.3.2: a proof's @context must be the document's (or begin it).
        if let proofContext = proof["@context"] {
            guard let documentContext = document["@context"], contextBegins(documentContext, with: proofContext) else {
                throw CredentialError.badContext(field: "proof.@context", reason: "is not the credential's @context")
            }
        }
        let key = try DidKey.resolve(method)
        var configuration = proof
        configuration["proofValue"] = nil
        guard key.isValidSignature(signature, for: hashData(document: document, proofConfiguration: configuration)) else {
            throw CredentialError.badSignature(what: "the embedded proof (a field was changed after signing, or another key signed it)")
        }
        return method
    }

    static func contextBegins(_ context: CredentialJSON, with prefix: CredentialJSON) -> Bool {
        if context == prefix { return true }
        guard let whole = context.arrayValue else { return false }
        let start = prefix.arrayValue ?? [prefix]
        return whole.count >= start.count && Array(whole.prefix(start.count)) == start
    }
}
