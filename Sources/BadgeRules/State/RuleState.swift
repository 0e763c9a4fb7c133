/// What one rule leaves after an evaluation, for the next one to go on from (`evaluate --state`,
/// `badgectl add`): plain data, saved as JSON in the state file.
public struct RuleState: Codable, Equatable, Sendable {
    /// Pack name.
    public var pack: String
    /// Rule id.
    public var rule: String
    /// A fold (`on_run`) rather than a predicate (`earned`).
    public var fold: Bool
    /// A fold's state as `on_run` left it after the last run, before `finish` (which runs on a copy).
    /// nil for a predicate, a failed rule, or a state that is not plain data (`unsaved` says why).
    public var state: StateValue?
    /// Why the fold's state could not be saved (the first value that is not plain data). An addition
    /// then replays the history.
    public var unsaved: String?
    /// A predicate: some run earned it.
    public var earned = false
    /// A predicate: no later run can earn it again (every tier held, or not repeatable).
    public var stopped = false
    /// A predicate never earned: the best progress a run made.
    public var progress: Progress?
    /// Awards made by `on_run`/`earned`, in the order made: an added run never moves them.
    public var awards: [Award] = []
    /// Awards made by `finish` after the last run: an added run can withdraw or replace them.
    public var finishAwards: [Award] = []
    /// The rule failed (it then has no awards, as in a full evaluation).
    public var failure: RuleFailure?
    /// The fields of `state` kept apart in the state database, one key a row (`SavedMaps`), when
    /// read for an addition: not in `state`, handed to the rule as saved maps.
    public var split: [String] = []
    /// What an addition wrote to those fields (`.null`: deleted), by field.
    var splitWrites: [String: [StateEntry]] = [:]

    /// A rule's state; the other fields start empty.
    public init(pack: String, rule: String, fold: Bool, failure: RuleFailure? = nil) {
        self.pack = pack; self.rule = rule; self.fold = fold; self.failure = failure
    }

    /// `pack` and `rule` as one key.
    public var key: String { RuleState.key(pack: pack, rule: rule) }

    /// The key of rule `rule` of pack `pack`.
    public static func key(pack: String, rule: String) -> String { pack + "\u{0}" + rule }

    enum CodingKeys: String, CodingKey {
        case pack, rule, fold, state, unsaved, earned, stopped, progress, awards
        case finishAwards = "finish_awards"
        case failure
    }

    /// Reads a saved rule state (absent fields take their defaults).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pack = try c.decode(String.self, forKey: .pack)
        rule = try c.decode(String.self, forKey: .rule)
        fold = try c.decode(Bool.self, forKey: .fold)
        state = try c.decodeIfPresent(StateValue.self, forKey: .state)
        unsaved = try c.decodeIfPresent(String.self, forKey: .unsaved)
        earned = try c.decodeIfPresent(Bool.self, forKey: .earned) ?? false
        stopped = try c.decodeIfPresent(Bool.self, forKey: .stopped) ?? false
        progress = try c.decodeIfPresent(Progress.self, forKey: .progress)
        awards = try c.decodeIfPresent([Award].self, forKey: .awards) ?? []
        finishAwards = try c.decodeIfPresent([Award].self, forKey: .finishAwards) ?? []
        failure = try c.decodeIfPresent(RuleFailure.self, forKey: .failure)
    }

    /// Writes the fields that are set.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pack, forKey: .pack)
        try c.encode(rule, forKey: .rule)
        try c.encode(fold, forKey: .fold)
        try c.encodeIfPresent(state, forKey: .state)
        try c.encodeIfPresent(unsaved, forKey: .unsaved)
        if earned { try c.encode(earned, forKey: .earned) }
        if stopped { try c.encode(stopped, forKey: .stopped) }
        try c.encodeIfPresent(progress, forKey: .progress)
        if !awards.isEmpty { try c.encode(awards, forKey: .awards) }
        if !finishAwards.isEmpty { try c.encode(finishAwards, forKey: .finishAwards) }
        try c.encodeIfPresent(failure, forKey: .failure)
    }
}
