import RunFiles

/// How far a runner is towards a badge: `current` of `target` `unit`s (e.g. 7.5 of 10 "km").
public struct Progress: Codable, Sendable, Equatable {
    public var current: Double
    public var target: Double
    public var unit: String

    public init(current: Double, target: Double, unit: String) {
        self.current = current; self.target = target; self.unit = unit
    }
}

/// A badge a rule gave for a run.
public struct Award: Codable, Sendable, Equatable {
    /// Badge id (catalogue or a pack's `badges`/`themes`).
    public var badge: String
    /// Name of the pack (`pack.lua`'s `name`).
    public var pack: String
    /// Id of the rule that made the award.
    public var rule: String
    /// `earned`, `silver`, `gold`, `best` or any short word the rule chose.
    public var tier: String
    /// Id of the run that earned it.
    public var run: String
    /// The run's start (`YYYY-MM-DDThh:mm:ssZ`), nil when the run had no times.
    @NullEncoded public var at: String?
    /// Short human text from the rule ("" when it gave none).
    public var detail: String
    @NullEncoded public var progress: Progress?
    /// The measures the rule read from the awarded run before it awarded (`explain` shows them); not
    /// part of `evaluate`'s JSON.
    public var measures: [AwardMeasure] = []
    /// Provenance: the version (`pack.lua`'s `version`) of the pack that made the award.
    public var packVersion: String = ""
    /// Provenance: the pack's content fingerprint (`RulePack.fingerprint`, `sha256:<hex>`); nil in
    /// `--golden` snapshots (an edit that awards the same still matches) and for packs made in memory.
    public var packFingerprint: String? = nil
    /// What the rule showed for the award (`award { evidence = ... }`), nil when it gave none.
    public var evidence: Evidence? = nil

    public init(badge: String, pack: String, rule: String, tier: String, run: String, at: String?, detail: String, progress: Progress? = nil,
                packVersion: String = "", packFingerprint: String? = nil, evidence: Evidence? = nil) {
        self.badge = badge; self.pack = pack; self.rule = rule; self.tier = tier
        self.run = run; self.at = at; self.detail = detail; self.progress = progress
        self.packVersion = packVersion; self.packFingerprint = packFingerprint; self.evidence = evidence
    }

    /// The award without its provenance (pack version, fingerprint) and evidence: what decides it.
    public var decision: Award {
        var copy = self
        copy.packVersion = ""; copy.packFingerprint = nil; copy.evidence = nil; copy.measures = []
        return copy
    }

    enum CodingKeys: String, CodingKey {
        case badge, pack, rule, tier, run, at, detail, progress, evidence
        case packVersion = "pack_version"
        case packFingerprint = "pack_fingerprint"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        badge = try c.decode(String.self, forKey: .badge)
        pack = try c.decode(String.self, forKey: .pack)
        rule = try c.decode(String.self, forKey: .rule)
        tier = try c.decode(String.self, forKey: .tier)
        run = try c.decode(String.self, forKey: .run)
        _at = NullEncoded(wrappedValue: try c.decodeIfPresent(String.self, forKey: .at))
        detail = try c.decodeIfPresent(String.self, forKey: .detail) ?? ""
        _progress = NullEncoded(wrappedValue: try c.decodeIfPresent(Progress.self, forKey: .progress))
        packVersion = try c.decodeIfPresent(String.self, forKey: .packVersion) ?? ""
        packFingerprint = try c.decodeIfPresent(String.self, forKey: .packFingerprint)
        evidence = try c.decodeIfPresent(Evidence.self, forKey: .evidence)
    }

    /// Every field; `pack_fingerprint` only when known (left out of `--golden` snapshots), `evidence` null when none.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(badge, forKey: .badge)
        try c.encode(pack, forKey: .pack)
        try c.encode(rule, forKey: .rule)
        try c.encode(tier, forKey: .tier)
        try c.encode(run, forKey: .run)
        try c.encode(at, forKey: .at)
        try c.encode(detail, forKey: .detail)
        try c.encode(progress, forKey: .progress)
        try c.encode(packVersion, forKey: .packVersion)
        try c.encodeIfPresent(packFingerprint, forKey: .packFingerprint)
        try c.encode(evidence, forKey: .evidence)
    }

}

/// A measure behind an award: its name in the pack, its kind and its value in the awarded run (nil: none).
public struct AwardMeasure: Codable, Sendable, Equatable {
    public var name: String
    public var kind: String
    public var value: MeasureValue?
    public init(name: String, kind: String, value: MeasureValue?) { self.name = name; self.kind = kind; self.value = value }
}

/// A pack or rule that could not be loaded or failed while it ran. The evaluation goes on without it.
public struct RuleFailure: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Pack name (the folder name when `pack.lua` itself failed).
    public var pack: String
    /// Rule id (the file name without `.lua` when the file failed before returning its table); nil for pack-level failures.
    @NullEncoded public var rule: String?
    /// File the error points at, as given (`rules/x/y.lua`).
    public var file: String
    @NullEncoded public var line: Int?
    /// What went wrong, without the `file:line:` prefix.
    public var message: String
    /// Lua's stack traceback, when there is one.
    @NullEncoded public var traceback: String?

    public init(pack: String, rule: String?, file: String, line: Int?, message: String, traceback: String? = nil) {
        self.pack = pack; self.rule = rule; self.file = file; self.line = line
        self.message = message; self.traceback = traceback
    }

    /// A failure of the pack as a whole (its folder, its pack.lua, its environment): none of its rules ran.
    public var isPackFailure: Bool { rule == nil }

    /// `rules/x/y.lua:12: pack 'x' rule 'y': <reason>`
    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        if let rule { return "\(place): pack '\(pack)' rule '\(rule)': \(message)" }
        return "\(place): pack '\(pack)': \(message)"
    }

    enum CodingKeys: String, CodingKey { case pack, rule, file, line, message, traceback }

}

/// A run that would earn a tier, as a rule's `status()` names it (`target = { tier, distance_m,
/// elapsed_s }`): a run of `distanceMeters` in `elapsedSeconds` (nil: at any pace). Checkable with
/// `badgectl whatif`: rules round it to the qualifying side.
public struct RunTarget: Codable, Sendable, Equatable {
    public var tier: String
    public var distanceMeters: Double
    @NullEncoded public var elapsedSeconds: Double?

    public init(tier: String, distanceMeters: Double, elapsedSeconds: Double? = nil) {
        self.tier = tier; self.distanceMeters = distanceMeters; self.elapsedSeconds = elapsedSeconds
    }

    enum CodingKeys: String, CodingKey {
        case tier
        case distanceMeters = "distance_m"
        case elapsedSeconds = "elapsed_s"
    }
}

/// "Why not yet" for one badge, from a fold's `status()` or a predicate's `progress()`.
public struct BadgeStatus: Codable, Sendable, Equatable {
    public var pack: String
    public var rule: String
    public var badge: String
    @NullEncoded public var silverPaceSecondsPerKilometre: Double?
    @NullEncoded public var goldPaceSecondsPerKilometre: Double?
    @NullEncoded public var progress: Progress?
    @NullEncoded public var hint: String?
    /// The run the rule says would earn the next tier (`target` in a status entry), if it names one.
    public var target: RunTarget? = nil

    public init(pack: String, rule: String, badge: String, silverPaceSecondsPerKilometre: Double? = nil,
                goldPaceSecondsPerKilometre: Double? = nil, progress: Progress? = nil, hint: String? = nil) {
        self.pack = pack; self.rule = rule; self.badge = badge
        self.silverPaceSecondsPerKilometre = silverPaceSecondsPerKilometre
        self.goldPaceSecondsPerKilometre = goldPaceSecondsPerKilometre
        self.progress = progress; self.hint = hint
    }

    enum CodingKeys: String, CodingKey {
        case pack, rule, badge
        case silverPaceSecondsPerKilometre = "silver_pace_s_per_km"
        case goldPaceSecondsPerKilometre = "gold_pace_s_per_km"
        case progress, hint, target
    }

}

/// The badge a fold says comes next, and how far away it is.
public struct NextBadge: Codable, Sendable, Equatable {
    public var pack: String
    public var rule: String
    public var badge: String
    public var remainingMeters: Double

    public init(pack: String, rule: String, badge: String, remainingMeters: Double) {
        self.pack = pack; self.rule = rule; self.badge = badge; self.remainingMeters = remainingMeters
    }

    enum CodingKeys: String, CodingKey {
        case pack, rule, badge
        case remainingMeters = "remaining_m"
    }
}

/// A line a rule wrote with `ctx.note(text)` or `print(...)`.
public struct RuleNote: Codable, Sendable, Equatable {
    public var pack: String
    /// nil when written while the pack's files were loading.
    @NullEncoded public var rule: String?
    public var message: String

    public init(pack: String, rule: String?, message: String) {
        self.pack = pack; self.rule = rule; self.message = message
    }

    enum CodingKeys: String, CodingKey { case pack, rule, message }

    /// The note of a declared measure that has no value in any run of this evaluation (a zone measure
    /// without an athlete profile), in a runner's words: what to do first, then what it costs.
    public static func unavailableMeasure(_ name: String, reason: String) -> String {
        "\(reason); until then, measure '\(name)' has no value and its badges cannot be earned"
    }

    /// Whether `message` is such a note.
    public static func isUnavailableMeasure(_ message: String) -> Bool {
        message.contains("; until then, measure '") && message.hasSuffix("' has no value and its badges cannot be earned")
    }
}

/// Everything one evaluation produced.
public struct Evaluation: Codable, Sendable, Equatable {
    /// In run start order, then pack order, then rule order (file order), then the order the rule awarded.
    public var awards: [Award]
    /// Per pack, per rule, in the order the rules' `status()` (or `progress()`) listed them.
    public var statuses: [BadgeStatus]
    /// Every `next` a fold gave, in pack and rule order.
    public var nexts: [NextBadge]
    /// Load and call failures, in pack and rule order.
    public var failures: [RuleFailure]
    public var notes: [RuleNote]
    /// The runs in the order rules saw them (ids).
    public var runOrder: [String]
    /// The runs packs' eligibility left out (`pack.lua`'s `eligibility`), with why; not in the JSON
    /// when there are none.
    public var exclusions: [Exclusion] = []

    public init(awards: [Award] = [], statuses: [BadgeStatus] = [], nexts: [NextBadge] = [],
                failures: [RuleFailure] = [], notes: [RuleNote] = [], runOrder: [String] = []) {
        self.awards = awards; self.statuses = statuses; self.nexts = nexts
        self.failures = failures; self.notes = notes; self.runOrder = runOrder
    }

    /// The nearest `next` (smallest remaining distance; the first pack and rule on a tie).
    public var next: NextBadge? {
        var best: NextBadge? = nil
        for candidate in nexts {
            if let current = best, candidate.remainingMeters >= current.remainingMeters { continue }
            best = candidate
        }
        return best
    }

    enum CodingKeys: String, CodingKey {
        case awards, statuses, next, nexts, failures, notes, exclusions
        case runOrder = "run_order"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        awards = try c.decodeIfPresent([Award].self, forKey: .awards) ?? []
        statuses = try c.decodeIfPresent([BadgeStatus].self, forKey: .statuses) ?? []
        nexts = try c.decodeIfPresent([NextBadge].self, forKey: .nexts) ?? []
        failures = try c.decodeIfPresent([RuleFailure].self, forKey: .failures) ?? []
        notes = try c.decodeIfPresent([RuleNote].self, forKey: .notes) ?? []
        runOrder = try c.decodeIfPresent([String].self, forKey: .runOrder) ?? []
        exclusions = try c.decodeIfPresent([Exclusion].self, forKey: .exclusions) ?? []
    }

    /// Encodes every field plus `next` (the nearest of `nexts`, or null).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(awards, forKey: .awards)
        try c.encode(statuses, forKey: .statuses)
        try c.encode(next, forKey: .next)
        try c.encode(nexts, forKey: .nexts)
        try c.encode(failures, forKey: .failures)
        try c.encode(notes, forKey: .notes)
        try c.encode(runOrder, forKey: .runOrder)
        if !exclusions.isEmpty { try c.encode(exclusions, forKey: .exclusions) }
    }
}
