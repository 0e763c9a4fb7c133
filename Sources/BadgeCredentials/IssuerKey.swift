import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An issuer's Ed25519 key in a file: JSON in the shape of a W3C Multikey (Controlled Identifiers
/// 1.0) with its private half, `{"type": "Multikey", "id": did:key#…, "controller": did:key,
/// "publicKeyMultibase": "z6Mk…", "privateKeyMultibase": "z3u2…"}` (the private key is the multicodec
/// `ed25519-priv` prefix and the 32-byte seed, base58btc). Written with mode 0600 and never overwritten.
public struct IssuerKey: Sendable {
    public let privateKey: Curve25519.Signing.PrivateKey
    public var publicKey: Curve25519.Signing.PublicKey { privateKey.publicKey }
    public var did: String { DidKey.did(publicKey) }
    public var verificationMethod: String { DidKey.verificationMethod(publicKey) }

    public init(_ privateKey: Curve25519.Signing.PrivateKey) { self.privateKey = privateKey }

    /// A new random key.
    public static func generate() -> IssuerKey { IssuerKey(Curve25519.Signing.PrivateKey()) }

    /// The key file's JSON (JCS: one line, members sorted).
    public var fileText: String {
        JCS.canonicalText(.object([
            "type": .string("Multikey"),
            "id": .string(verificationMethod),
            "controller": .string(did),
            "publicKeyMultibase": .string(DidKey.publicKeyMultibase(publicKey)),
            "privateKeyMultibase": .string(DidKey.privateKeyMultibase(privateKey)),
        ])) + "\n"
    }

    /// Writes the key to a new file at `path`, readable and writable by its owner only.
    /// - Throws: `CredentialError.keyExists` when anything is at `path` (a file, a link, a folder);
    ///   `.io` when it cannot be created or written.
    public func write(to path: String) throws {
        // O_EXCL with O_CREAT: fails if the name exists at all, dangling links included (O_NOFOLLOW).
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            let code = errno
            if code == EEXIST { throw CredentialError.keyExists(path: path) }
            throw CredentialError.io(path: path, reason: String(cString: strerror(code)))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            _ = fchmod(descriptor, 0o600)  // whatever the umask
            try handle.write(contentsOf: Data(fileText.utf8))
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            unlink(path)
            throw CredentialError.io(path: path, reason: "cannot write the key (\(error.localizedDescription))")
        }
    }

    /// Reads a key file `write` made.
    /// - Throws: `CredentialError.io` when it cannot be read; `.badKeyFile` naming what is wrong.
    public static func read(path: String) throws -> IssuerKey {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CredentialError.io(path: path, reason: "cannot read the key file (\(error.localizedDescription))")
        }
        let json: CredentialJSON
        do { json = try CredentialJSON.parse(data) } catch { throw CredentialError.badKeyFile(path: path, reason: "\(error)") }
        guard let text = json["privateKeyMultibase"]?.stringValue else {
            throw CredentialError.badKeyFile(path: path, reason: "no privateKeyMultibase (a public key alone cannot sign)")
        }
        guard let key = DidKey.privateKey(multibase: text) else {
            throw CredentialError.badKeyFile(path: path, reason: "privateKeyMultibase is not an Ed25519 private multikey (z3u2…)")
        }
        let issuer = IssuerKey(key)
        if let stated = json["publicKeyMultibase"]?.stringValue, stated != DidKey.publicKeyMultibase(key.publicKey) {
            throw CredentialError.badKeyFile(path: path, reason: "publicKeyMultibase is not the private key's public half")
        }
        return issuer
    }
}
