/// What can go wrong making, reading or verifying a credential. Every case names the place and what
/// was expected, so that a runner or an organiser can act on it.
public enum CredentialError: Error, Equatable, CustomStringConvertible {
    /// The bytes are not the JSON expected: `offset` is the byte where reading stopped.
    case badJSON(offset: Int, expected: String)
    /// A key file that cannot be read or is not a badgectl key (`reason` says which part).
    case badKeyFile(path: String, reason: String)
    /// `credentials key --out FILE` where FILE already exists: keys are never overwritten.
    case keyExists(path: String)
    /// A verification method that badgectl cannot turn into an Ed25519 key, or that no trusted issuer holds.
    case unknownKey(method: String, reason: String)
    /// A credential without a field it must have, or with one of the wrong shape (`field` is its JSON path).
    case badField(field: String, reason: String)
    /// The `@context` is not the VC 2.0 and Open Badges 3.0 pair badgectl ships, or a member name is
    /// not defined by them (`field` its JSON path).
    case badContext(field: String, reason: String)
    /// The signature does not match the credential: a field was changed after signing, or another key signed it.
    case badSignature(what: String)
    /// A VC-JWT that is not three base64url parts of JSON, or whose header or claims do not match the credential.
    case badJWT(reason: String)
    /// An SVG without an `<openbadges:credential>` element, or one that cannot be read.
    case badCard(reason: String)
    /// A card whose visible text (name, tier, date, figures, issuer) is not what its baked credential says.
    case cardDiffers(reason: String)
    /// A file that cannot be read or written (`reason` from the system).
    case io(path: String, reason: String)
    /// Bytes that are none of the forms a credential comes in (JSON, a VC-JWT, an SVG or PNG card).
    case notACredential

    public var description: String {
        switch self {
        case .badJSON(let offset, let expected): return "not valid JSON at byte \(offset): expected \(expected)"
        case .badKeyFile(let path, let reason): return "\(path): not a badgectl issuer key: \(reason)"
        case .keyExists(let path): return "\(path) already exists; a key is never overwritten (choose another --out)"
        case .unknownKey(let method, let reason): return "unknown key \(method): \(reason)"
        case .badField(let field, let reason): return "\(field): \(reason)"
        case .badContext(let field, let reason): return "bad context: \(field): \(reason)"
        case .badSignature(let what): return "the signature does not match: \(what)"
        case .badJWT(let reason): return "not a valid VC-JWT: \(reason)"
        case .badCard(let reason): return "not a baked badge card: \(reason)"
        case .cardDiffers(let reason): return "the card does not show what its credential says: \(reason)"
        case .io(let path, let reason): return "\(path): \(reason)"
        case .notACredential: return "not a credential: neither JSON, a VC-JWT, nor an SVG or PNG card"
        }
    }
}
