import BadgeReport
import BadgeRules
import Crypto
import Foundation
import RunFiles

extension AwardFacts {
    /// The facts of `award` as the evaluation made it (the same `Award` that `evaluate` prints), with
    /// its run, the badge as the catalogue or the pack names it (themed or not: the caller's choice),
    /// the badge's tiers in order, the run's file (relative to the folder) and its SHA-256, the
    /// history's last date `asOf` and the `zone` of local dates.
    /// - Throws: `CredentialError.badField` when the run has no start or elapsed time (a credential
    ///   needs its date, `validFrom`).
    public init(award: Award, run: RunSummary, badge: CatalogueBadge?, tiers: [String], runFile: String, runFileSHA256: String,
                asOf: String, zone: String) throws {
        guard let start = run.startEpochSeconds, start.isFinite, let elapsed = run.elapsedSeconds, elapsed.isFinite, elapsed >= 0,
              abs(start + elapsed) < 1e11 else {
            throw CredentialError.badField(field: "validFrom", reason: "the run \(award.run) has no times, so its credential has no date")
        }
        var evidence: [String] = []
        switch award.evidence {
        case .record(let values)?: evidence = values.keys.sorted().map { "\($0): \(values[$0]?.text ?? "")" }
        case let other?: evidence = ["evidence: \(other.text)"]
        case nil: break
        }
        // The figures as every badgectl output writes them (ReportFormat, the report's and the tables' one voice).
        let distance = run.distanceMeters < 1000 && run.distanceMeters.rounded() < 1000 && run.distanceMeters.isFinite
            ? "\(Int(run.distanceMeters.rounded())) m" : ReportFormat.kilometres(run.distanceMeters)
        let figure = "\(distance) in \(ReportFormat.duration(run.elapsedSeconds)), \(ReportFormat.pace(run.paceSecondsPerKilometre))"
        self.init(
            awardId: AwardFacts.awardId(pack: award.pack, badge: award.badge, tier: award.tier, run: award.run),
            pack: award.pack, packVersion: award.packVersion, packFingerprint: award.packFingerprint ?? "", rule: award.rule,
            badge: award.badge, badgeName: badge?.name ?? award.badge, badgeInformation: badge?.information ?? "",
            distanceMeters: badge?.distanceMeters, tier: award.tier, tiers: tiers.isEmpty ? [award.tier] : tiers, run: award.run,
            runFile: runFile, runFileSHA256: runFileSHA256, runEnd: CredentialTime.text(epochSeconds: Int((start + elapsed).rounded(.down))),
            runDate: run.localDate ?? String(run.start?.prefix(10) ?? ""), figure: figure, detail: award.detail, evidence: evidence,
            asOf: asOf, zone: zone)
    }

    /// The facts of every award of an evaluation, in order, with the awards that cannot be a
    /// credential (one line each, naming the run and the award): what `credentials issue` and a
    /// library issue from. `runs` are the evaluated runs (by id); `badges` the catalogue's badges then
    /// the packs' (as the caller shows them, themed or not; the first of an id names it, the first
    /// with declared tiers orders them, then the tiers in the order first awarded, as `evaluate`'s
    /// `tier_order`); `runFile` names a run's file and its SHA-256 (nil: it cannot be read); `asOf`,
    /// `zone`, `sport` and `keepsDuplicates` are the selection the awards were derived with.
    public static func all(awards: [Award], runs: [RunSummary], badges: [CatalogueBadge],
                           runFile: (String) -> (file: String, sha256: String)?, asOf: String, zone: String,
                           sport: String = "running", keepsDuplicates: Bool = false) -> (facts: [AwardFacts], skipped: [String]) {
        let byId = Dictionary(runs.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var named: [String: CatalogueBadge] = [:], order: [String: [String]] = [:]
        for badge in badges {
            if named[badge.id] == nil { named[badge.id] = badge }
            if order[badge.id] == nil, let tiers = badge.tiers { order[badge.id] = tiers }
        }
        for award in awards where !(order[award.badge] ?? []).contains(award.tier) { order[award.badge, default: []].append(award.tier) }
        var files: [String: (file: String, sha256: String)] = [:]
        var result: [AwardFacts] = [], skipped: [String] = []
        for award in awards {
            let what = "award \(award.badge) (\(award.tier))"
            guard let run = byId[award.run] else { skipped.append("\(award.run): no such run for \(what)"); continue }
            if files[award.run] == nil { files[award.run] = runFile(award.run) }
            guard let file = files[award.run] else {
                skipped.append("\(award.run): the run's file cannot be read to name it by its SHA-256 (\(what))")
                continue
            }
            do {
                var facts = try AwardFacts(award: award, run: run, badge: named[award.badge], tiers: order[award.badge] ?? [],
                                           runFile: file.file, runFileSHA256: file.sha256, asOf: asOf, zone: zone)
                facts.sport = sport
                facts.keepsDuplicates = keepsDuplicates
                result.append(facts)
            } catch {
                skipped.append("\(award.run): \(error) (\(what))")
            }
        }
        return (result, skipped)
    }

    /// The file a run was read from, relative to `folder` (the run's id without `#n`; for a run inside
    /// an archive, the archive), with its SHA-256 in hex; nil when none can be read. `folder` may be
    /// one run file, as `evaluate FILE` takes.
    public static func runFile(run id: String, folder: String) -> (file: String, sha256: String)? {
        func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else { return nil }
        if !isFolder.boolValue {
            guard let data = FileManager.default.contents(atPath: folder) else { return nil }
            return ((folder as NSString).lastPathComponent, sha256(data))
        }
        var relative = id
        if let hash = relative.lastIndex(of: "#"), relative[relative.index(after: hash)...].allSatisfy(\.isNumber) {
            relative = String(relative[..<hash])
        }
        while !relative.isEmpty && relative != "." && relative != "/" {
            let path = (folder as NSString).appendingPathComponent(relative)
            var entryIsFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &entryIsFolder), !entryIsFolder.boolValue,
               let data = FileManager.default.contents(atPath: path) {
                return (relative, sha256(data))
            }
            relative = (relative as NSString).deletingLastPathComponent
        }
        return nil
    }
}

/// Issues an award's credential in its three forms: what `badgectl credentials issue` writes and
/// what a library would keep, made one way.
public struct CredentialIssuer: Sendable {
    public var key: IssuerKey
    /// The issuer's name in the credentials.
    public var name: String
    /// The subject's id (a URL, a DID, `mailto:`); nil identifies the subject by `subjectName`.
    public var subject: String?
    public var subjectName: String
    /// Where the issuer publishes its status list; nil issues credentials that cannot be revoked.
    public var statusList: String?

    public init(key: IssuerKey, name: String, subject: String? = nil, subjectName: String? = nil, statusList: String? = nil) {
        self.key = key; self.name = name; self.subject = subject; self.subjectName = subjectName ?? name; self.statusList = statusList
    }

    /// One award's credential: the signed JSON (and its text), the VC-JWT and the card.
    public struct Issued: Sendable {
        public var facts: AwardFacts
        public var credential: CredentialJSON
        /// The credential as its `.json` file holds it (indented; the proof is over its JCS form).
        public var json: String
        public var jwt: String
        /// The card's SVG, the JSON credential baked in.
        public var card: String
    }

    /// Signs `facts`; `statusIndex` is its place in `statusList` (required when `statusList` is set),
    /// `created` the proof's time (`YYYY-MM-DDThh:mm:ssZ`).
    /// - Throws: `CredentialError.badField` for a status list without a place, or a `validFrom` that is not a date-time.
    public func issue(_ facts: AwardFacts, statusIndex: Int? = nil, created: String) throws -> Issued {
        var unsigned = OpenBadgeCredential.make(facts, issuerDid: key.did, issuerName: name, subject: subject, subjectName: subjectName,
                                                image: BadgeCard.medallion(facts))
        if let statusList {
            guard let statusIndex else { throw CredentialError.badField(field: "credentialStatus", reason: "no place in the status list \(statusList)") }
            unsigned["credentialStatus"] = StatusList.entry(url: statusList, index: statusIndex)
        }
        let signed = try DataIntegrity.sign(unsigned, key: key.privateKey, created: created)
        let json = signed.pretty + "\n"
        return Issued(facts: facts, credential: signed, json: json, jwt: try VCJWT.sign(unsigned, key: key.privateKey),
                      card: BadgeCard.svg(facts, issuerName: name, credential: json))
    }
}
