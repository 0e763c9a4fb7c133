import Crypto
import Foundation

/// What one award is, as a credential says it: everything `OpenBadgeCredential.make` needs, taken
/// from the evaluation (the same `Award`s `evaluate` prints), the catalogue, the pack and the run.
public struct AwardFacts: Equatable, Sendable {
    /// `AwardFacts.awardId`: stable for a pack, badge, tier and run.
    public var awardId: String
    public var pack: String
    public var packVersion: String
    /// `sha256:<hex>`, the pack's content fingerprint.
    public var packFingerprint: String
    public var rule: String
    public var badge: String
    public var badgeName: String
    /// The catalogue's or the pack's text about the badge.
    public var badgeInformation: String
    /// The badge's distance, when it is a distance badge (the medallion's label).
    public var distanceMeters: Double?
    public var tier: String
    /// The badge's tiers in order (declared, else as awarded): the achievement's levels.
    public var tiers: [String]
    /// The run's id (its path relative to the folder evaluated).
    public var run: String
    /// The file read for the run (relative to the folder) and its SHA-256, hex.
    public var runFile: String
    public var runFileSHA256: String
    /// When the run ended (`YYYY-MM-DDThh:mm:ssZ`): the credential's `validFrom`.
    public var runEnd: String
    /// The run's local date (`YYYY-MM-DD`), for the card.
    public var runDate: String
    /// The runner's figure for the card: distance, time and pace as badgectl writes them.
    public var figure: String
    /// The rule's words (`detail`) and its evidence, one `name: value` line each.
    public var detail: String
    public var evidence: [String]
    /// The last local date of the history the award was derived from (`--as-of`, else the last run's).
    public var asOf: String
    /// The zone local dates were made in (`--tz`).
    public var zone: String
    /// The sports that earned badges (`--sport`: `running`, a comma-separated list, or `all`).
    public var sport: String = "running"
    /// Whether several files of one activity each counted (`--keep-duplicates`).
    public var keepsDuplicates = false

    public init(awardId: String, pack: String, packVersion: String, packFingerprint: String, rule: String, badge: String,
                badgeName: String, badgeInformation: String, distanceMeters: Double?, tier: String, tiers: [String], run: String,
                runFile: String, runFileSHA256: String, runEnd: String, runDate: String, figure: String, detail: String,
                evidence: [String], asOf: String, zone: String) {
        self.awardId = awardId; self.pack = pack; self.packVersion = packVersion; self.packFingerprint = packFingerprint
        self.rule = rule; self.badge = badge; self.badgeName = badgeName; self.badgeInformation = badgeInformation
        self.distanceMeters = distanceMeters; self.tier = tier; self.tiers = tiers; self.run = run; self.runFile = runFile
        self.runFileSHA256 = runFileSHA256; self.runEnd = runEnd; self.runDate = runDate; self.figure = figure
        self.detail = detail; self.evidence = evidence; self.asOf = asOf; self.zone = zone
    }

    /// `<pack>.<badge>.<tier>.<12 hex>`: the first 12 hex digits of the SHA-256 of pack, badge, tier
    /// and run (NUL between), so the same award has the same id whatever the pack's version or the
    /// rule's evidence (as `badgectl diff` holds awards the same). Characters other than letters,
    /// digits, `-` and `_` become `-`, so that the id is a file name.
    public static func awardId(pack: String, badge: String, tier: String, run: String) -> String {
        let digest = SHA256.hash(data: Data([pack, badge, tier, run].joined(separator: "\u{0}").utf8))
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        func safe(_ text: String) -> String {
            String(text.unicodeScalars.map { scalar -> Character in
                let ok = (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) || scalar == "-" || scalar == "_"
                return ok ? Character(scalar) : "-"
            })
        }
        return "\(safe(pack)).\(safe(badge)).\(safe(tier)).\(hex.prefix(12))"
    }
}

/// An Open Badges 3.0 `OpenBadgeCredential` (a W3C Verifiable Credential 2.0) for one award, and the
/// claims badgectl reads back from one to re-derive it.
public enum OpenBadgeCredential {
    /// `urn:badgectl:<pack>@<version>:<badge>`: the achievement (a badge as one version of its pack defines it).
    public static func achievementId(pack: String, version: String, badge: String) -> String {
        "urn:badgectl:\(urnEscape(pack))@\(urnEscape(version)):\(urnEscape(badge))"
    }

    /// `urn:uuid:` of a UUID made from the award id (SHA-256, RFC 9562 version 8): the same award
    /// always has the same credential id.
    public static func credentialId(awardId: String) -> String {
        var bytes = [UInt8](SHA256.hash(data: Data("badgectl award \(awardId)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // the RFC 9562 variant
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return "urn:uuid:" + parts.joined(separator: "-")
    }

    /// Letters, digits and `-._~` as they are; every other byte percent-encoded (RFC 8141's URN syntax).
    static func urnEscape(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// `ni:///sha-256;<base64url>` (RFC 6920): a file named by its SHA-256.
    public static func namedInformation(sha256Hex hex: String) -> String? {
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return "ni:///sha-256;" + Base64URL.encode(Data(bytes))
    }

    /// The unsigned credential for `facts`, issued by `issuerDid` named `issuerName`, about `subject`
    /// (an identifier of the runner: a URL, a DID, `mailto:`). Open Badges 3.0 wants an `id` or an
    /// `identifier` for the subject: without `subject`, the subject is identified by its name,
    /// `subjectName` (an `IdentityObject` of type `name`, not hashed). `image` is the medallion's SVG.
    public static func make(_ facts: AwardFacts, issuerDid: String, issuerName: String, subject: String?, subjectName: String,
                            image: String) -> CredentialJSON {
        let achievement = achievementId(pack: facts.pack, version: facts.packVersion, badge: facts.badge)
        let levels = facts.tiers.contains(facts.tier) ? facts.tiers : facts.tiers + [facts.tier]
        let resultDescription = achievement + ":tiers"
        func level(_ tier: String) -> String { achievement + ":tier:" + urnEscape(tier) }
        let imageURI = "data:image/svg+xml;base64," + Data(image.utf8).base64EncodedString()
        var criteria = "Awarded by the rule '\(facts.rule)' of the badgectl rule pack '\(facts.pack)' version \(facts.packVersion) (\(facts.packFingerprint))"
        criteria += facts.badgeInformation.isEmpty ? "." : ": \(facts.badgeInformation)"
        var subjectValue = CredentialJSON.object([
            "type": .array([.string("AchievementSubject")]),
        ])
        if let subject {
            subjectValue["id"] = .string(subject)
        } else {
            subjectValue["identifier"] = .array([.object([
                "type": .string("IdentityObject"), "hashed": .bool(false), "identityHash": .string(subjectName), "identityType": .string("name"),
            ])])
        }
        subjectValue["achievement"] = .object([
            "id": .string(achievement),
            "type": .array([.string("Achievement")]),
            "name": .string(facts.badgeName),
            "description": .string(facts.badgeInformation.isEmpty ? facts.badgeName : facts.badgeInformation),
            "criteria": .object(["narrative": .string(criteria)]),
            "image": .object(["id": .string(imageURI), "type": .string("Image"), "caption": .string("\(facts.badgeName) medallion")]),
            "resultDescription": .array([.object([
                "id": .string(resultDescription),
                "type": .array([.string("ResultDescription")]),
                "name": .string("Tier"),
                "resultType": .string("RubricCriterionLevel"),
                "rubricCriterionLevel": .array(levels.map { tier in
                    .object(["id": .string(level(tier)), "type": .array([.string("RubricCriterionLevel")]), "name": .string(tier)])
                }),
            ])]),
        ])
        subjectValue["result"] = .array([.object([
            "type": .array([.string("Result")]),
            "resultDescription": .string(resultDescription),
            "achievedLevel": .string(level(facts.tier)),
        ])])
        var narrative = facts.detail.isEmpty ? "" : facts.detail + "\n\n"
        narrative += facts.evidence.map { "- " + $0 }.joined(separator: "\n")
        var evidence: [CredentialJSON] = []
        var runEvidence = CredentialJSON.object([])
        if let ni = namedInformation(sha256Hex: facts.runFileSHA256) { runEvidence["id"] = .string(ni) }
        runEvidence = runEvidence.merging([
            "type": .array([.string("Evidence")]),
            "name": .string(facts.run),
            "description": .string("The run file \(facts.runFile), by its SHA-256 (\(facts.runFileSHA256)): \(facts.figure) on \(facts.runDate)."),
            "genre": .string("Run file"),
        ])
        evidence.append(runEvidence)
        evidence.append(.object([
            "id": .string("urn:badgectl:pack:\(urnEscape(facts.pack))@\(urnEscape(facts.packVersion)):\(urnEscape(facts.packFingerprint))"),
            "type": .array([.string("Evidence")]),
            "name": .string("\(facts.pack) \(facts.packVersion)"),
            "description": .string("The rule pack that awarded it, by its content fingerprint \(facts.packFingerprint)."),
            "genre": .string("Rule pack"),
        ]))
        evidence.append(.object([
            "id": .string("urn:badgectl:award:\(facts.awardId)?=as-of=\(urnEscape(facts.asOf))&tz=\(urnEscape(facts.zone))"
                + "&sport=\(urnEscape(facts.sport))" + (facts.keepsDuplicates ? "&duplicates=kept" : "")),
            "type": .array([.string("Evidence")]),
            "name": .string("\(facts.badgeName), \(facts.tier)"),
            "description": .string("What the rule '\(facts.rule)' found in the run; it follows from the runs up to \(facts.asOf) (\(facts.zone))."),
            "narrative": .string(narrative),
            "genre": .string("Award"),
        ]))
        return .object([
            "@context": .array(Contexts.required.map { .string($0) }),
            "id": .string(credentialId(awardId: facts.awardId)),
            "type": .array([.string("VerifiableCredential"), .string("OpenBadgeCredential")]),
            "name": .string("\(facts.badgeName) (\(facts.tier))"),
            "issuer": .object(["id": .string(issuerDid), "type": .array([.string("Profile")]), "name": .string(issuerName)]),
            "validFrom": .string(facts.runEnd),
            "credentialSubject": subjectValue,
            "evidence": .array(evidence),
        ])
    }

    /// What a badgectl credential claims, read back for `credentials verify --runs`.
    public struct Claim: Equatable, Sendable {
        public var awardId: String
        public var pack: String
        public var packVersion: String
        public var packFingerprint: String
        public var badge: String
        public var tier: String
        public var run: String
        public var runFileNamedInformation: String?
        public var asOf: String
        public var zone: String
        /// The selection the award was derived with (`running` and duplicates removed when the
        /// credential does not say).
        public var sport: String = "running"
        public var keepsDuplicates = false

        public init(awardId: String, pack: String, packVersion: String, packFingerprint: String, badge: String, tier: String, run: String,
                    runFileNamedInformation: String?, asOf: String, zone: String, sport: String = "running", keepsDuplicates: Bool = false) {
            self.awardId = awardId; self.pack = pack; self.packVersion = packVersion; self.packFingerprint = packFingerprint
            self.badge = badge; self.tier = tier; self.run = run; self.runFileNamedInformation = runFileNamedInformation
            self.asOf = asOf; self.zone = zone; self.sport = sport; self.keepsDuplicates = keepsDuplicates
        }
    }

    /// Reads the award a badgectl credential is about.
    /// - Throws: `CredentialError.badField` naming the field that is missing or not badgectl's shape.
    public static func claim(_ credential: CredentialJSON) throws -> Claim {
        let subject = credential["credentialSubject"]
        guard let achievement = subject?["achievement"]?["id"]?.stringValue, achievement.hasPrefix("urn:badgectl:") else {
            throw CredentialError.badField(field: "credentialSubject.achievement.id", reason: "expected urn:badgectl:<pack>@<version>:<badge>")
        }
        let body = String(achievement.dropFirst("urn:badgectl:".count))
        let head = body.split(separator: ":", maxSplits: 1).map(String.init)
        let packVersion = head.first?.split(separator: "@", maxSplits: 1).map(String.init) ?? []
        guard head.count == 2, packVersion.count == 2, let pack = packVersion[0].removingPercentEncoding,
              let version = packVersion[1].removingPercentEncoding, let badge = head[1].removingPercentEncoding else {
            throw CredentialError.badField(field: "credentialSubject.achievement.id", reason: "expected urn:badgectl:<pack>@<version>:<badge>, not \(achievement)")
        }
        let levelPrefix = achievement + ":tier:"
        guard let level = subject?["result"]?.arrayValue?.first?["achievedLevel"]?.stringValue, level.hasPrefix(levelPrefix),
              let tier = String(level.dropFirst(levelPrefix.count)).removingPercentEncoding else {
            throw CredentialError.badField(field: "credentialSubject.result[0].achievedLevel", reason: "expected \(levelPrefix)<tier>")
        }
        let evidence = credential["evidence"]?.arrayValue ?? []
        func item(_ genre: String) throws -> CredentialJSON {
            guard let found = evidence.first(where: { $0["genre"]?.stringValue == genre }) else {
                throw CredentialError.badField(field: "evidence", reason: "no evidence of genre '\(genre)'")
            }
            return found
        }
        let runItem = try item("Run file")
        guard let run = runItem["name"]?.stringValue else { throw CredentialError.badField(field: "evidence (Run file).name", reason: "missing") }
        let packId = try item("Rule pack")["id"]?.stringValue ?? ""
        let packPrefix = "urn:badgectl:pack:\(urnEscape(pack))@\(urnEscape(version)):"
        guard packId.hasPrefix(packPrefix), let fingerprint = String(packId.dropFirst(packPrefix.count)).removingPercentEncoding else {
            throw CredentialError.badField(field: "evidence (Rule pack).id", reason: "expected \(packPrefix)<fingerprint>")
        }
        let awardText = try item("Award")["id"]?.stringValue ?? ""
        guard awardText.hasPrefix("urn:badgectl:award:"), let query = awardText.range(of: "?=") else {
            throw CredentialError.badField(field: "evidence (Award).id", reason: "expected urn:badgectl:award:<award id>?=as-of=<date>&tz=<zone>&sport=<sports>")
        }
        let awardId = String(awardText[awardText.index(awardText.startIndex, offsetBy: "urn:badgectl:award:".count)..<query.lowerBound])
        var parameters: [String: String] = [:]
        for pair in awardText[query.upperBound...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { parameters[parts[0]] = parts[1].removingPercentEncoding }
        }
        guard let asOf = parameters["as-of"], let zone = parameters["tz"] else {
            throw CredentialError.badField(field: "evidence (Award).id", reason: "expected as-of=<date>&tz=<zone> after '?='")
        }
        return Claim(awardId: awardId, pack: pack, packVersion: version, packFingerprint: fingerprint, badge: badge, tier: tier, run: run,
                     runFileNamedInformation: runItem["id"]?.stringValue, asOf: asOf, zone: zone, sport: parameters["sport"] ?? "running",
                     keepsDuplicates: parameters["duplicates"] == "kept")
    }
}
