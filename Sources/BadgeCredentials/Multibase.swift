import Crypto
import Foundation

/// Base58 (the Bitcoin alphabet) and the multibase `z` prefix that marks it, as did:key, Multikey and
/// `proofValue` use. Written here: no package badgectl may use has base58 (swift-extras-base64 does
/// base64 and base32 only), and the codec is twenty lines.
public enum Base58 {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
    static let values: [UInt8: Int] = {
        var table: [UInt8: Int] = [:]
        for (index, byte) in alphabet.enumerated() { table[byte] = index }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits: [Int] = []  // base 58, least significant first
        for byte in bytes {
            var carry = Int(byte)
            for index in digits.indices {
                carry += digits[index] << 8
                digits[index] = carry % 58
                carry /= 58
            }
            while carry > 0 {
                digits.append(carry % 58)
                carry /= 58
            }
        }
        return String(repeating: "1", count: zeros) + String(decoding: digits.reversed().map { alphabet[$0] }, as: UTF8.self)
    }

    /// nil when `text` holds a character outside the alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        let zeros = characters.prefix { $0 == UInt8(ascii: "1") }.count
        var bytes: [Int] = []  // base 256, least significant first
        for character in characters {
            guard let value = values[character] else { return nil }
            var carry = value
            for index in bytes.indices {
                carry += bytes[index] * 58
                bytes[index] = carry & 0xFF
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(carry & 0xFF)
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: zeros) + bytes.reversed().map(UInt8.init)
    }

    /// `z` + base58btc: a multibase string.
    public static func multibase(_ bytes: [UInt8]) -> String { "z" + encode(bytes) }

    /// The bytes of a multibase base58btc string; nil when it does not start with `z` or is not base58.
    public static func decodeMultibase(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("z") else { return nil }
        return decode(String(text.dropFirst()))
    }
}

/// base64url without padding (RFC 7515's `BASE64URL`), for JWTs and `ni:` URIs.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// nil when `text` is not base64url (padding is not allowed).
    public static func decode(_ text: String) -> Data? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// An issuer's Ed25519 key as a `did:key` (W3C did:key method, Ed25519: multicodec `ed25519-pub`
/// 0xed, varint `0xed 0x01`, then the 32-byte key, in multibase base58btc, hence `z6Mk…`) and the
/// Multikey encoding of its private half (multicodec `ed25519-priv` 0x1300, varint `0x80 0x26`).
public enum DidKey {
    static let publicPrefix: [UInt8] = [0xED, 0x01]
    static let privatePrefix: [UInt8] = [0x80, 0x26]

    /// `z6Mk…`: the public key's multibase.
    public static func publicKeyMultibase(_ key: Curve25519.Signing.PublicKey) -> String {
        Base58.multibase(publicPrefix + [UInt8](key.rawRepresentation))
    }

    public static func privateKeyMultibase(_ key: Curve25519.Signing.PrivateKey) -> String {
        Base58.multibase(privatePrefix + [UInt8](key.rawRepresentation))
    }

    /// `did:key:z6Mk…`
    public static func did(_ key: Curve25519.Signing.PublicKey) -> String { "did:key:" + publicKeyMultibase(key) }

    /// `did:key:z6Mk…#z6Mk…`: the key's verification method.
    public static func verificationMethod(_ key: Curve25519.Signing.PublicKey) -> String {
        let multibase = publicKeyMultibase(key)
        return "did:key:\(multibase)#\(multibase)"
    }

    /// The public key of a `publicKeyMultibase`; nil when it is not an Ed25519 multikey.
    public static func publicKey(multibase: String) -> Curve25519.Signing.PublicKey? {
        guard let bytes = Base58.decodeMultibase(multibase), bytes.count == 34, Array(bytes.prefix(2)) == publicPrefix else { return nil }
        return try? Curve25519.Signing.PublicKey(rawRepresentation: bytes.dropFirst(2))
    }

    public static func privateKey(multibase: String) -> Curve25519.Signing.PrivateKey? {
        guard let bytes = Base58.decodeMultibase(multibase), bytes.count == 34, Array(bytes.prefix(2)) == privatePrefix else { return nil }
        return try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes.dropFirst(2))
    }

    /// Resolves a did:key DID or verification method (`did:key:z6Mk…` or `did:key:z6Mk…#z6Mk…`, the
    /// fragment the same key) to its Ed25519 public key, offline, as the did:key method defines.
    /// - Throws: `CredentialError.unknownKey` naming what it is not.
    public static func resolve(_ method: String) throws -> Curve25519.Signing.PublicKey {
        guard method.hasPrefix("did:key:") else {
            throw CredentialError.unknownKey(method: method, reason: "not a did:key (badgectl resolves did:key offline only)")
        }
        let rest = String(method.dropFirst("did:key:".count))
        let parts = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let key = publicKey(multibase: parts[0]) else {
            throw CredentialError.unknownKey(method: method, reason: "not an Ed25519 did:key (z6Mk…)")
        }
        if parts.count == 2, parts[1] != parts[0] {
            throw CredentialError.unknownKey(method: method, reason: "its fragment is not the key's own multibase")
        }
        return key
    }
}
