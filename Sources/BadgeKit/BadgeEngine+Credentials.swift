import BadgeCredentials
import BadgePipeline
import BadgeRules
import RunFiles
import Foundation

/// Open Badges 3.0 credentials (docs/credentials.md) as `badgectl credentials` makes and checks
/// them: the types a client needs, named here so that `import BadgeKit` is enough.
public typealias IssuerKey = BadgeCredentials.IssuerKey
public typealias CredentialIssuer = BadgeCredentials.CredentialIssuer
public typealias IssuedCredential = BadgeCredentials.CredentialIssuer.Issued
public typealias VerifiedCredential = BadgeCredentials.CredentialVerifier.Verified
public typealias CredentialJSON = BadgeCredentials.CredentialJSON
public typealias CredentialError = BadgeCredentials.CredentialError

extension BadgeEngine {
    /// A credential for every award of a runner's history (evaluated here, as `evaluate(_:)`),
    /// signed by `issuer`, the same bytes as `badgectl credentials issue` (one implementation,
    /// `AwardFacts.all` and `CredentialIssuer`): the JSON with its eddsa-jcs-2022 proof, the VC-JWT
    /// and the SVG card. `folder` is where the run files are (a run's id is its path there), so that
    /// each credential names its run file's SHA-256; `created` is the proofs' time. With
    /// `issuer.statusList`, `positions` (award id to place, from credentials issued before) are kept
    /// and new awards get free places.
    /// - Returns: the credentials, and the awards that cannot be one (a run without times, a file that
    ///   cannot be read), one line each.
    /// - Throws: `CredentialError` when signing fails.
    public func credentials(for runs: [RunSummary], folder: String, issuer: CredentialIssuer, created: Date = Date(),
                            positions: [String: Int] = [:]) throws -> (issued: [IssuedCredential], skipped: [String]) {
        let evaluation = evaluate(runs)
        let selected = select(runs).selected
        let sport = selection.sports.map { $0.sorted().joined(separator: ",") } ?? "all"
        let facts = AwardFacts.all(awards: evaluation.awards, runs: runs, badges: pipeline.engine.catalogue.badges + pipeline.engine.packs.flatMap(\.badges),
                                   runFile: { AwardFacts.runFile(run: $0, folder: folder) },
                                   asOf: selection.asOf ?? selected.compactMap(\.localDate).max() ?? "", zone: ZoneNames.name(of: zone),
                                   sport: sport, keepsDuplicates: !removesDuplicates)
        let time = CredentialTime.text(epochSeconds: Int(created.timeIntervalSince1970.rounded(.down)))
        var places = positions, taken = Set(positions.values)
        var issued: [IssuedCredential] = []
        for item in facts.facts {
            var index: Int?
            if issuer.statusList != nil {
                index = places[item.awardId] ?? StatusList.index(for: item.awardId, taken: taken)
                if let index {
                    places[item.awardId] = index
                    taken.insert(index)
                }
            }
            issued.append(try issuer.issue(item, statusIndex: index, created: time))
        }
        return (issued, facts.skipped)
    }

    /// Checks a credential in any form badgectl writes (JSON, VC-JWT, an SVG or PNG card), offline,
    /// as `badgectl credentials verify` does; `trustedIssuers` (did:key DIDs) limits who may have issued it.
    /// - Throws: `CredentialError` naming what failed (a changed field, an unknown key, a bad context).
    public static func verifyCredential(_ data: Data, trustedIssuers: Set<String> = []) throws -> VerifiedCredential {
        try CredentialVerifier(trustedIssuers: trustedIssuers).verify(data)
    }
}
