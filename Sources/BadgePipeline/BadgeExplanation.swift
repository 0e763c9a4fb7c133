import BadgeRules
import Foundation
import RunFiles

/// One badge explained for a runner's evaluated history: which runs earned it (tier, rule, detail, the
/// run's distance, time and pace, the measures the rule read and the evidence it showed), or what each
/// rule says is still to do (hints, progress, the runs that would earn a tier). What `badgectl explain`
/// prints (`--format json` as it is) and BadgeKit's `BadgeEngine.explain` returns.
public struct BadgeExplanation: Encodable, Sendable {
    /// One award of the badge, with the numbers of the run that earned it.
    public struct AwardLine: Encodable, Sendable {
        public var tier: String
        public var run: String
        @NullEncoded public var at: String?
        public var pack: String
        public var rule: String
        public var detail: String
        @NullEncoded public var distanceMeters: Double?
        @NullEncoded public var elapsedSeconds: Double?
        @NullEncoded public var paceSecondsPerKilometre: Double?
        @NullEncoded public var progress: BadgeRules.Progress?
        /// The measures the rule read from the run before awarding, by name (null: the run has none).
        public var measures: [String: MeasureValue?] = [:]
        /// Provenance: the pack's version and what the rule showed for the award (null: nothing).
        public var packVersion = ""
        @NullEncoded public var evidence: Evidence? = nil
        /// The same, in name order with their kinds (for the table).
        package var measureLines: [AwardMeasure] = []
        /// The run's local date (`--tz`, or its file's offset), for the table's DATE.
        package var localDate: String?

        enum CodingKeys: String, CodingKey {
            case tier, run, at, pack, rule, detail
            case distanceMeters = "distance_m"
            case elapsedSeconds = "elapsed_s"
            case paceSecondsPerKilometre = "pace_s_per_km"
            case progress, measures, evidence
            case packVersion = "pack_version"
        }
    }

    public var badge: String
    public var name: String
    public var information: String
    @NullEncoded public var image: String?
    @NullEncoded public var theme: String?
    /// True when the badge has an award (set with `awards`).
    public private(set) var earned: Bool
    public var awards: [AwardLine] { didSet { earned = !awards.isEmpty } }
    /// What each rule says about the badge ("why not yet", the next tier).
    public var statuses: [BadgeStatus]
    /// Distance still to run when a rule names this badge as its `next`.
    @NullEncoded public var remainingMeters: Double?
    public var ruleErrors: [RuleFailure]
    public var fileErrors: [String]
    /// Why measures of the badge's packs are nil in every run (no athlete profile for a zone).
    public var measureNotes: [String] = []
    /// The runs the badge's packs leave out by their `eligibility` (`pack.lua`), with why.
    public var exclusions: [Exclusion] = []
    /// Runs that would earn a tier still to earn, for a badge with a distance: the distance (the
    /// next 10 m above the badge's, as comparisons are strict) and, for silver and gold, the pace (the
    /// whole second below the rule's pace). Each is rounded to the qualifying side, so
    /// `badgectl whatif DIR --distance <distance_m>m --pace <pace>` earns the tier.
    public var targets: [Target] = []
    /// The badge's awards a saved state took back and does not hold now (`explain --state`): each
    /// with when and why (`StateStore.takenBack`). Empty without a state.
    public var withdrawn: [Withdrawal] = []

    /// A run that would earn `tier`: at least `distanceMeters`, at `paceSecondsPerKilometre` or faster
    /// (nil: any pace); `rule` names the rule whose status gave it (nil: from the silver and gold paces).
    public struct Target: Encodable, Sendable, Equatable {
        public var tier: String
        public var distanceMeters: Double
        @NullEncoded public var paceSecondsPerKilometre: Double? = nil
        @NullEncoded public var rule: String? = nil
        /// The run's time, when the rule named one (`pace_s_per_km` is then this time over the distance).
        @NullEncoded public var elapsedSeconds: Double? = nil

        package init(tier: String, distanceMeters: Double, paceSecondsPerKilometre: Double? = nil, rule: String? = nil, elapsedSeconds: Double? = nil) {
            self.tier = tier; self.distanceMeters = distanceMeters
            self.paceSecondsPerKilometre = paceSecondsPerKilometre; self.rule = rule; self.elapsedSeconds = elapsedSeconds
        }

        enum CodingKeys: String, CodingKey {
            case tier, rule
            case elapsedSeconds = "elapsed_s"
            case distanceMeters = "distance_m"
            case paceSecondsPerKilometre = "pace_s_per_km"
        }
    }

    /// The pace a runner must hold for a tier whose rule compares strictly (`pace < target`): the whole
    /// second at least 0.1 s below `target` (a what-if run is 0.01% slower than asked, `WhatIf.slowdown`;
    /// nobody paces to a tenth of a second), so that "11:04/km or faster" is exactly true. The one
    /// rounding rule of a tier's pace in every output (evaluate, explain, the report, the packs'
    /// `badgectl.format_tier_pace`): `FigureText.tierPace`.
    package static func qualifyingPace(_ target: Double) -> Double { FigureText.tierPace(target) }
    /// The next 10 m strictly above a distance a run must exceed (`a > target`), and at least the
    /// shortest run `whatif` makes (100 m: the lace-up badge's distance is 0).
    package static func qualifyingDistance(_ target: Double) -> Double {
        max(WhatIf.distanceRange.lowerBound, ((target / 10).rounded(.down) + 1) * 10)
    }

    /// The explanation of `badge` from `evaluation` of `runs` (their numbers fill the award lines);
    /// `theme` names the catalogue's theme, `fileErrors` the files that could not be read.
    package init(badge: CatalogueBadge, theme: String?, evaluation: Evaluation, runs: [RunSummary], fileErrors: [String]) {
        self.badge = badge.id; name = badge.name; information = badge.information; image = badge.image
        self.theme = theme
        let byId = Dictionary(runs.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        awards = evaluation.awards.filter { $0.badge == badge.id }.map { award in
            let run = byId[award.run]
            var line = AwardLine(tier: award.tier, run: award.run, at: award.at, pack: award.pack, rule: award.rule, detail: award.detail,
                                 distanceMeters: run?.distanceMeters, elapsedSeconds: run?.elapsedSeconds,
                                 paceSecondsPerKilometre: run?.paceSecondsPerKilometre, progress: award.progress)
            line.measureLines = award.measures
            line.localDate = run?.localDate
            line.packVersion = award.packVersion
            line.evidence = award.evidence
            for measure in award.measures { line.measures[measure.name] = .some(measure.value) }
            return line
        }
        earned = !awards.isEmpty
        statuses = evaluation.statuses.filter { $0.badge == badge.id }
        remainingMeters = evaluation.nexts.filter { $0.badge == badge.id }.map(\.remainingMeters).min()
        ruleErrors = evaluation.failures
        self.fileErrors = fileErrors
        let packs = Set(awards.map(\.pack) + statuses.map(\.pack))
        // Only where the badge is not earned: then a measure that is nil everywhere may be why.
        let notes = evaluation.notes.filter { $0.rule == nil && packs.contains($0.pack) && RuleNote.isUnavailableMeasure($0.message) }
        measureNotes = awards.isEmpty ? notes.map { "\($0.pack): \($0.message)" } : []
        exclusions = evaluation.exclusions.filter { packs.contains($0.pack) }
        for status in statuses {
            guard let target = status.target else { continue }
            targets.append(Target(tier: target.tier, distanceMeters: target.distanceMeters,
                                  paceSecondsPerKilometre: target.elapsedSeconds.map { $0 / (target.distanceMeters / 1000) },
                                  rule: "\(status.pack)/\(status.rule)", elapsedSeconds: target.elapsedSeconds))
        }
        if let distance = badge.distanceMeters, !statuses.contains(where: { $0.target != nil }) {
            let over = Self.qualifyingDistance(distance)
            if awards.isEmpty && remainingMeters != nil { targets.append(Target(tier: "earned", distanceMeters: over)) }
            for status in statuses {
                if let silver = status.silverPaceSecondsPerKilometre, silver > 1 {
                    targets.append(Target(tier: "silver", distanceMeters: over, paceSecondsPerKilometre: Self.qualifyingPace(silver)))
                }
                if let gold = status.goldPaceSecondsPerKilometre, gold > 1 {
                    targets.append(Target(tier: "gold", distanceMeters: over, paceSecondsPerKilometre: Self.qualifyingPace(gold)))
                }
            }
        }
    }

    /// The catalogue's badges, then the packs' own (first declaration of an id wins).
    package static func knownBadges(catalogue: Catalogue, packs: [RulePack]) -> [CatalogueBadge] {
        var result = catalogue.badges
        var seen = Set(result.map(\.id))
        for badge in packs.flatMap(\.badges) where seen.insert(badge.id).inserted { result.append(badge) }
        return result
    }

    /// The badge with this id, else the one with this name or id in any case; nil when none is.
    package static func badge(_ query: String, in badges: [CatalogueBadge]) -> CatalogueBadge? {
        if let exact = badges.first(where: { $0.id == query }) { return exact }
        let folded = query.lowercased()
        return badges.first { $0.name.lowercased() == folded || $0.id.lowercased() == folded }
    }

    /// The id of the badge whose id or name is closest to `query` (the one suggester, with no distance
    /// limit: some badge is always named when there is one).
    package static func closestBadge(to query: String, in badges: [CatalogueBadge]) -> String? {
        let candidates = badges.flatMap { [($0.id.lowercased(), $0.id), ($0.name.lowercased(), $0.id)] }
        let best = Suggestion.closest(to: query.lowercased(), in: candidates.map { $0.0 }, maxDistance: Int.max)
        return best.flatMap { name in candidates.first { $0.0 == name }?.1 }
    }

    enum CodingKeys: String, CodingKey {
        case badge, name, information, image, theme, earned, awards, statuses
        case remainingMeters = "remaining_m"
        case ruleErrors = "rule_errors"
        case fileErrors = "file_errors"
        case measureNotes = "measure_notes"
        case exclusions
        case targets
        case withdrawn
    }
}
