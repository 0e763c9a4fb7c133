import Foundation

/// The JSON-LD contexts a badgectl credential names, shipped inside badgectl (Contexts/, embedded at
/// build time) so that neither issuing nor verifying fetches anything: the W3C Verifiable
/// Credentials 2.0 context and 1EdTech's Open Badges 3.0 context 3.0.3, byte for byte as published
/// (Contexts/LICENSE-w3c.md; the sources and commits are in docs/credentials.md).
public enum Contexts {
    public static let credentialsV2 = "https://www.w3.org/ns/credentials/v2"
    public static let openBadgesV3 = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"

    /// The `@context` of every credential badgectl issues, in this order (OB 3.0 section 8.1).
    public static let required: [String] = [credentialsV2, openBadgesV3]

    /// The shipped documents, by URL.
    public static let documents: [String: [UInt8]] = [
        credentialsV2: PackageResources.credentials_v2_jsonld,
        openBadgesV3: PackageResources.ob_v3p0_context_3_0_3_json,
    ]

    /// Every term the two contexts define, at any depth (type-scoped and property-scoped contexts
    /// included): the member names and type names a credential may use.
    public static let terms: Set<String> = {
        var names = Set<String>()
        func collect(_ value: CredentialJSON) {
            switch value {
            case .object(let members):
                for member in members {
                    if member.key == "@context", case .object(let definitions) = member.value {
                        for definition in definitions where !definition.key.hasPrefix("@") { names.insert(definition.key) }
                    }
                    collect(member.value)
                }
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        for bytes in documents.values {
            // The shipped documents are checked by a test; one that did not parse would define nothing.
            if let document = try? CredentialJSON.parse(Data(bytes)) { collect(document) }
        }
        return names
    }()

    /// Checks that `credential`'s `@context` is exactly `required` (the shipped pair for a badge, the
    /// VC 2.0 context alone for a status list) and that every member name
    /// and every `type` it uses is a term they define, so that what was signed means what a JSON-LD
    /// processor reads (no name falls through to an undefined or issuer-dependent term).
    /// - Throws: `CredentialError.badContext` naming the field.
    public static func check(_ credential: CredentialJSON, required: [String] = required) throws {
        guard let context = credential["@context"] else { throw CredentialError.badContext(field: "@context", reason: "missing") }
        guard context.arrayValue?.compactMap(\.stringValue) == required, context.arrayValue?.count == required.count else {
            let expected = required.map { "\"\($0)\"" }.joined(separator: ", ")
            throw CredentialError.badContext(field: "@context", reason: "expected [\(expected)], the contexts badgectl ships")
        }
        func walk(_ value: CredentialJSON, path: String) throws {
            switch value {
            case .object(let members):
                for member in members {
                    let place = path.isEmpty ? member.key : path + "." + member.key
                    if member.key == "@context" { continue }
                    guard member.key.hasPrefix("@") || terms.contains(member.key) else {
                        throw CredentialError.badContext(field: place, reason: "'\(member.key)' is not a term of the VC 2.0 or Open Badges 3.0 context")
                    }
                    if member.key == "type" {
                        for name in value.typeNames ?? [] where !terms.contains(name) {
                            throw CredentialError.badContext(field: place, reason: "type '\(name)' is not defined by the VC 2.0 or Open Badges 3.0 context")
                        }
                    }
                    try walk(member.value, path: place)
                }
            case .array(let items):
                for (index, item) in items.enumerated() { try walk(item, path: "\(path)[\(index)]") }
            default: break
            }
        }
        try walk(credential, path: "")
    }
}
