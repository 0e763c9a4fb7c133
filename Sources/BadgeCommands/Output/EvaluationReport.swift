import ArgumentParser
import BadgeRules
import Foundation
import RunFiles
import RunLibrary

/// The JSON contract of `badgectl evaluate` (fields are added over time, never renamed).
public struct EvaluationReport: Encodable, Sendable {
    public struct AwardRef: Codable, Sendable, Equatable {
        public var run: String
        public var at: String?
    }

    /// One tier of a badge in `tiers`: the first award of it and how many runs were given it
    /// (more than 1 only for a repeatable badge).
    public struct TierAward: Codable, Sendable, Equatable {
        public var run: String
        @NullEncoded public var at: String?
        public var count: Int
    }

    public struct BadgeRow: Encodable, Sendable {
        public var id: String
        public var name: String
        /// The badge's text and image (themed with `--theme`).
        public var information: String = ""
        @NullEncoded public var image: String? = nil
        public var pack: String
        @NullEncoded public var earned: AwardRef? = nil
        @NullEncoded public var silver: AwardRef? = nil
        @NullEncoded public var gold: AwardRef? = nil
        @NullEncoded public var best: AwardRef? = nil
        @NullEncoded public var silverPaceSecondsPerKilometre: Double? = nil
        @NullEncoded public var goldPaceSecondsPerKilometre: Double? = nil
        @NullEncoded public var progress: BadgeRules.Progress? = nil
        @NullEncoded public var hint: String? = nil
        /// Every tier of the badge, by name: the pack's declared tiers (each null until earned), else
        /// the tiers awarded. JSON writes keys sorted, so their order is in `tierOrder`.
        public var tiers: [String: TierAward?] = [:]
        /// The tiers' order: as declared in pack.lua, else in order of first award.
        public var tierOrder: [String] = []

        enum CodingKeys: String, CodingKey {
            case id, name, information, image, pack, earned, silver, gold, best
            case silverPaceSecondsPerKilometre = "silver_pace_s_per_km"
            case goldPaceSecondsPerKilometre = "gold_pace_s_per_km"
            case progress, hint, tiers
            case tierOrder = "tier_order"
        }
    }

    public struct Next: Encodable, Sendable {
        public var badge: String
        public var name: String
        public var pack: String
        public var remainingMeters: Double
        enum CodingKeys: String, CodingKey {
            case badge, name, pack
            case remainingMeters = "remaining_m"
        }
    }

    /// A line a rule wrote (`ctx.note`, `print`): the rules' own type, encoded as it is.
    public typealias Note = RuleNote

    /// What made the report: badgectl's version, the time zone of local dates, and each pack's name,
    /// version and content fingerprint (`PackFingerprint`), in the order the packs ran.
    public struct Header: Codable, Sendable, Equatable {
        public struct Pack: Codable, Sendable, Equatable {
            public var name: String
            public var version: String
            public var fingerprint: String
            public var directory: String
        }
        public var badgectl: String
        public var zone: String
        public var packs: [Pack]

        public init(zone: TimeZone, packs: [RulePack]) {
            badgectl = Badgectl.configuration.version
            self.zone = ZoneNames.name(of: zone)
            self.packs = packs.map { Pack(name: $0.name, version: $0.version, fingerprint: $0.fingerprint, directory: $0.directory) }
        }
    }

    /// Always set by `evaluate --format json`; left out of `--golden` snapshots.
    public var header: Header?
    public var runs: [RunSummary]
    public var awards: [Award]
    public var badges: [BadgeRow]
    @NullEncoded public var next: Next? = nil
    /// Each pack's own next badge (fold rules' `status().next`), in pack and rule order.
    public var nextByPack: [Next] = []
    public var ignored: [String]
    /// Why an ignored entry was not read when it is not simply another kind of file (a named pipe,
    /// a device, a socket, a dangling link); left out of the JSON when there is none.
    public var ignoredReasons: [String: String]?
    /// Runs read but not given to the rules (another sport, or implausible for a runner), then the runs
    /// a pack's eligibility left out (`pack` set: the other packs' rules saw them), in pack then run order.
    public var excluded: [ExcludedRun] = []
    /// Runs left out as the same as a kept one: `{ id, same_as, reason }` ("same file", "same activity").
    public var duplicates: [RunDuplicate] = []
    public var errors: [RunFileError]
    /// Rules that failed to load or run: pack, rule, file:line, message.
    public var ruleErrors: [RuleFailure]
    public var notes: [Note]
    /// The catalogue has distance badges and every one of them was awarded (not in the JSON: for
    /// the table's "every distance badge is earned", which must not show when no rule awards them).
    public var everyDistanceBadgeEarned = false

    enum CodingKeys: String, CodingKey {
        case header, runs, awards, badges, next
        case nextByPack = "next_by_pack"
        case ignored
        case ignoredReasons = "ignored_reasons"
        case excluded, duplicates, errors
        case ruleErrors = "rule_errors"
        case notes
    }

    /// Names every skipped file and failed rule on stderr; throws the `partial` exit status when any was.
    func reportSkipped() throws {
        for error in errors { Console.error(CommandError.skipped + error.message) }
        for failure in ruleErrors { Console.error(CommandError.failed(failure)) }
        if isPartial { throw ExitCode(ExitStatus.partial.rawValue) }
    }

    /// True when a file or a rule was skipped.
    public var isPartial: Bool { !errors.isEmpty || !ruleErrors.isEmpty }

    /// Assembles the report: runs in start order, awards as the rules gave them, one row per badge
    /// (catalogue badges first in catalogue order, then pack-defined badges), the next badge.
    public init(folder: RunFolder, evaluation: Evaluation, catalogue: Catalogue, packBadges: [CatalogueBadge] = [], excluded: [ExcludedRun] = [],
                header: Header) {
        self.header = header
        runs = RuleEngine.ordered(folder.runs)
        var sports: [String: String] = [:]
        for run in runs { sports[run.id] = run.sport }
        self.excluded = excluded + evaluation.exclusions.map {
            ExcludedRun(id: $0.run, sport: sports[$0.run] ?? "", reason: $0.reason, pack: $0.pack)
        }
        awards = evaluation.awards
        ignored = folder.ignored
        duplicates = folder.duplicates
        ignoredReasons = folder.ignoredReasons.isEmpty ? nil : folder.ignoredReasons
        errors = folder.errors
        ruleErrors = evaluation.failures
        notes = evaluation.notes

        var known: [CatalogueBadge] = catalogue.badges
        var seen = Set(known.map(\.id))
        for badge in packBadges where !seen.contains(badge.id) {
            known.append(badge)
            seen.insert(badge.id)
        }
        var declared: [String: [String]] = [:]
        for badge in packBadges where declared[badge.id] == nil { declared[badge.id] = badge.tiers }
        var rows: [BadgeRow] = []
        for badge in known {
            var row = BadgeRow(id: badge.id, name: badge.name, information: badge.information, image: badge.image, pack: "")
            row.tierOrder = declared[badge.id] ?? []
            for tier in row.tierOrder { row.tiers[tier] = .some(nil) }
            for award in evaluation.awards where award.badge == badge.id {
                if row.pack.isEmpty { row.pack = award.pack }
                if case let held?? = row.tiers[award.tier] {
                    row.tiers[award.tier] = TierAward(run: held.run, at: held.at, count: held.count + 1)
                } else {
                    if row.tiers[award.tier] == nil { row.tierOrder.append(award.tier) }
                    row.tiers[award.tier] = TierAward(run: award.run, at: award.at, count: 1)
                }
                let ref = AwardRef(run: award.run, at: award.at)
                switch award.tier {
                case "earned": if row.earned == nil { row.earned = ref }
                case "silver": if row.silver == nil { row.silver = ref }
                case "gold": if row.gold == nil { row.gold = ref }
                case "best": row.best = ref
                default: break
                }
            }
            if let status = evaluation.statuses.first(where: { $0.badge == badge.id }) {
                if row.pack.isEmpty { row.pack = status.pack }
                row.silverPaceSecondsPerKilometre = status.silverPaceSecondsPerKilometre
                row.goldPaceSecondsPerKilometre = status.goldPaceSecondsPerKilometre
                row.progress = status.progress
                row.hint = status.hint
            }
            rows.append(row)
        }
        badges = rows
        (next, nextByPack) = EvaluationReport.nexts(of: evaluation, catalogue: catalogue, known: known)
        let distanceIds = Set(catalogue.distanceBadges.map(\.id))
        let awardedIds = Set(evaluation.awards.map(\.badge))
        everyDistanceBadgeEarned = !distanceIds.isEmpty && distanceIds.isSubset(of: awardedIds)
    }

    /// `next` is MoonRunner's: the nearest catalogue distance badge not yet earned. Every pack's own
    /// next (a lifetime milestone, a weekly target) is listed in `next_by_pack`. `known`: the badges
    /// by which they are named. The one choice of `evaluate`, `add` and `remove`.
    static func nexts(of evaluation: Evaluation, catalogue: Catalogue, known: [CatalogueBadge]) -> (next: Next?, byPack: [Next]) {
        let distanceIds = Set(catalogue.distanceBadges.map(\.id))
        func named(_ next: NextBadge) -> Next {
            Next(badge: next.badge, name: known.first { $0.id == next.badge }?.name ?? next.badge,
                 pack: next.pack, remainingMeters: next.remainingMeters)
        }
        let nearest = evaluation.nexts.filter { distanceIds.contains($0.badge) }.min { $0.remainingMeters < $1.remainingMeters }
        return (nearest.map(named), evaluation.nexts.map(named))
    }

    /// Deterministic JSON: sorted keys, so two evaluations of the same input are byte-identical.
    public func json() throws -> String {
        try JSONOutput.encode(self)
    }
}
