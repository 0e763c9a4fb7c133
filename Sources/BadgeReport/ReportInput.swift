import Foundation
import RunFiles

/// Everything the HTML report shows, gathered by the caller (the `badgectl report` command) from
/// the catalogue, the rule engine's awards and the run summaries. The report module depends on
/// `RunFiles` only, so this is its own model, not the rule engine's.
public struct ReportInput: Sendable {
    public var title: String
    /// Printed in the header. Passed in (never read from the clock here) so that the same input
    /// renders to the same bytes.
    public var generatedAt: Date
    /// Every badge of the catalogue, in the order the wall shows them.
    public var badges: [ReportBadge]
    /// The runs, each with its `route` filled in (`RouteTrace.make`) when it should be drawn.
    public var runs: [RunSummary]
    /// The next distance badge to aim for, if any.
    public var next: NextBadge?
    /// A folder holding the catalogue's images (`<image>`, `<image>.png`/`.jpg`/`.svg`/…, or an
    /// Xcode `<image>.imageset/`); nil draws a generated medallion for every badge.
    public var imagesDirectory: String?
    /// The segments the packs declare: drawn on each run that passed them, with its efforts listed.
    public var segments: [ReportSegment] = []
    /// The tiles measure to draw (the visited tiles of every run, in a section of their own), if a pack
    /// declares one.
    public var tiles: ReportTiles?
    /// What `badgectl league`'s lines say of the runner (`report --league`): a League section with
    /// their crowns, ranks and Local Legend status, and each badge's rarity on the wall; nil: neither.
    public var league: ReportLeague?
    /// Awards a saved state took back and the runs do not give again (`report --state`): a section of
    /// their own, each with when and why; empty: no section.
    public var takenBack: [ReportTakenBack] = []

    public init(
        title: String, generatedAt: Date, badges: [ReportBadge], runs: [RunSummary],
        next: NextBadge? = nil, imagesDirectory: String? = nil
    ) {
        self.title = title; self.generatedAt = generatedAt; self.badges = badges; self.runs = runs
        self.next = next; self.imagesDirectory = imagesDirectory
    }
}

/// One badge on the wall: what the catalogue says, and what the runner has done about it.
public struct ReportBadge: Sendable, Equatable {
    public var id: String
    public var name: String
    public var information: String
    /// Catalogue image name, looked up in `ReportInput.imagesDirectory`.
    public var image: String?
    /// For distance badges: the distance a run must exceed.
    public var distanceMeters: Double?
    /// The run that first earned the badge; nil while it is not earned.
    public var earned: ReportAward?
    public var silver: ReportAward?
    public var gold: ReportAward?
    /// The best run for this badge so far (fastest pace over the distance), if the engine says.
    public var best: ReportAward?
    /// The pace (seconds per kilometre) a run must beat for the missing silver / gold.
    public var silverPaceSecondsPerKilometre: Double?
    public var goldPaceSecondsPerKilometre: Double?
    /// What to do to earn it; when nil and `distanceMeters` is set, the report says
    /// "Run more than X km to earn".
    public var hint: String?
    /// The tiers its pack declares (`bronze`, `silver`, `gold`), in order, each with its first award
    /// or nil (or, undeclared, the tiers of its own a rule gave); empty otherwise (the wall then shows
    /// silver and gold).
    public var declaredTiers: [ReportTier] = []
    /// Where each award of the badge came from, shown when the badge is clicked (a `<details>`).
    public var provenance: [ReportProvenance] = []
    /// Awards of the badge left out of `provenance` (a repeatable badge's middle ones), said in a line.
    public var provenanceLeftOut = 0

    public init(
        id: String, name: String, information: String = "", image: String? = nil, distanceMeters: Double? = nil,
        earned: ReportAward? = nil, silver: ReportAward? = nil, gold: ReportAward? = nil, best: ReportAward? = nil,
        silverPaceSecondsPerKilometre: Double? = nil, goldPaceSecondsPerKilometre: Double? = nil, hint: String? = nil
    ) {
        self.id = id; self.name = name; self.information = information; self.image = image
        self.distanceMeters = distanceMeters; self.earned = earned; self.silver = silver; self.gold = gold
        self.best = best; self.silverPaceSecondsPerKilometre = silverPaceSecondsPerKilometre
        self.goldPaceSecondsPerKilometre = goldPaceSecondsPerKilometre; self.hint = hint
    }
}

/// One award's provenance: the run, the pack (name, version) and rule that made it, the rule's detail
/// and the evidence it gave, as `name`/`value` lines (the value as text).
public struct ReportProvenance: Sendable, Equatable {
    public var tier: String
    public var runId: String
    /// Local date of the run, `YYYY-MM-DD`.
    public var date: String?
    /// `checkpoints 1.0.0`
    public var pack: String
    public var rule: String
    public var detail: String
    public var evidence: [(name: String, value: String)]
    /// Links (relative to the page) to the award's Open Badges credential and its card, when
    /// `report --credentials DIR` found them (`badgectl credentials issue`).
    public var credentialLinks: (json: String, card: String)? = nil

    public init(tier: String, runId: String, date: String?, pack: String, rule: String, detail: String, evidence: [(name: String, value: String)],
                credentialLinks: (json: String, card: String)? = nil) {
        self.tier = tier; self.runId = runId; self.date = date; self.pack = pack; self.rule = rule
        self.detail = detail; self.evidence = evidence; self.credentialLinks = credentialLinks
    }

    public static func == (a: ReportProvenance, b: ReportProvenance) -> Bool {
        a.tier == b.tier && a.runId == b.runId && a.date == b.date && a.pack == b.pack && a.rule == b.rule
            && a.detail == b.detail && a.evidence.map(\.name) == b.evidence.map(\.name) && a.evidence.map(\.value) == b.evidence.map(\.value)
            && a.credentialLinks?.json == b.credentialLinks?.json && a.credentialLinks?.card == b.credentialLinks?.card
    }
}

/// One declared tier of a badge and the run that first earned it (nil while not earned).
public struct ReportTier: Sendable, Equatable {
    public var name: String
    public var award: ReportAward?
    public init(name: String, award: ReportAward?) { self.name = name; self.award = award }
}

/// The run that earned a badge (or a tier of it).
public struct ReportAward: Sendable, Equatable {
    public var runId: String
    /// Local date of the run, `YYYY-MM-DD`.
    public var date: String?
    /// The pace of that run over the badge's distance, if known.
    public var paceSecondsPerKilometre: Double?

    public init(runId: String, date: String?, paceSecondsPerKilometre: Double? = nil) {
        self.runId = runId; self.date = date; self.paceSecondsPerKilometre = paceSecondsPerKilometre
    }
}

/// A segment a pack declares (`{ kind = "segment", file = ... }`): its path and the key of its measure in
/// `RunSummary.measures`, whose `efforts` the report lists.
public struct ReportSegment: Sendable {
    /// `pack.name` of the measure.
    public var name: String
    public var latitudes: [Double]
    public var longitudes: [Double]
    public var measureKey: String
    public init(name: String, latitudes: [Double], longitudes: [Double], measureKey: String) {
        self.name = name; self.latitudes = latitudes; self.longitudes = longitudes; self.measureKey = measureKey
    }
}

/// A tiles measure (`{ kind = "tiles", zoom = 14 }`): the key of its values in `RunSummary.measures`.
public struct ReportTiles: Sendable {
    public var name: String
    public var zoom: Int
    public var measureKey: String
    public init(name: String, zoom: Int, measureKey: String) { self.name = name; self.zoom = zoom; self.measureKey = measureKey }
}

/// The next badge within reach.
public struct NextBadge: Sendable, Equatable {
    public var name: String
    public var remainingMeters: Double
    public init(name: String, remainingMeters: Double) { self.name = name; self.remainingMeters = remainingMeters }
}

/// An award a saved state took back (`report --state`): the badge's name, the tier and run it was
/// on, the date it was taken back and why (`run 'x' removed; given to run 'y' instead`).
public struct ReportTakenBack: Sendable, Equatable {
    public var badge: String
    public var tier: String
    public var run: String
    public var date: String
    public var why: String

    public init(badge: String, tier: String, run: String, date: String, why: String) {
        self.badge = badge; self.tier = tier; self.run = run; self.date = date; self.why = why
    }
}
