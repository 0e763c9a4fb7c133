import Foundation
import RunFiles

/// What saving a state or adding runs to it gave.
public struct StateUpdate: Sendable {
    /// The whole history's awards in evaluation order; this step's statuses, nexts, notes and failures.
    public var evaluation: Evaluation
    /// Awards that were not there before this step (the new runs', and `finish` awards that moved).
    public var added: [Award]
    /// Awards there before this step and gone now (a `finish` award that moved to another run, or
    /// every award of a rule that failed on a new run).
    public var withdrawn: [Award]
    /// Why the whole history was evaluated again rather than the new runs only; nil when it was not.
    public var replayed: String?
    /// Runs in the history now.
    public var runCount: Int
}

/// Evaluation that goes on from a saved state (`evaluate --state DIR`, `badgectl add --state DIR`):
/// each fold's state is saved after the last run (before `finish`), and added runs are handed to
/// the rules with that state. `finish` runs again on a copy, so awards it makes can be withdrawn or
/// replaced, and are reported. A pack that changed, a run older than the last saved one, or one
/// already saved (same id or same activity) makes it replay the history from the saved summaries.
public struct IncrementalEvaluator: Sendable {
    /// The engine (its packs must be loaded; their fingerprints are compared with the state's).
    public let engine: RuleEngine
    /// Where the state lives.
    public let store: StateStore
    /// The time zone runs are read in (recorded; an addition in another zone is refused).
    public let zone: String
    /// The runs of `runs` to keep when some may be the same activity (the commands pass
    /// `Duplicates.removeSameActivity`); an addition whose runs and the saved ones near them do not
    /// all survive it is a duplicate and replays. The default keeps everything.
    public var removeDuplicates: @Sendable ([RunSummary]) -> [RunSummary]

    /// An evaluator over `store` with `engine`'s packs, reading runs in `zone`.
    public init(engine: RuleEngine, store: StateStore, zone: String,
                removeDuplicates: @escaping @Sendable ([RunSummary]) -> [RunSummary] = { $0 }) {
        self.engine = engine; self.store = store; self.zone = zone; self.removeDuplicates = removeDuplicates
    }

    /// Evaluates `runs` in full and saves the state (replacing any state in the folder). `folder`:
    /// the folder they were read from, if any (recorded, see `SavedState.folder`).
    public func start(_ runs: [RunSummary], folder: String? = nil) throws -> StateUpdate {
        try store.locked { try startLocked(runs, folder: folder) }
    }

    func startLocked(_ runs: [RunSummary], folder: String?) throws -> StateUpdate {
        let ordered = RuleEngine.ordered(runs)
        let (evaluation, rules) = engine.evaluateKeepingState(runs: ordered)
        try store.save(rules: rules, runs: ordered, packs: engine.packs, zone: zone, folder: folder)
        return StateUpdate(evaluation: evaluation, added: evaluation.awards, withdrawn: [], replayed: nil, runCount: ordered.count)
    }

    /// Adds `runs` to the saved history: only they are handed to the rules, unless a replay is
    /// needed (`StateUpdate.replayed` says why). Throws `RulesError.state` when there is no state or
    /// it cannot be read, or it was made in another zone.
    public func add(_ runs: [RunSummary]) throws -> StateUpdate {
        // No lock (nor folder) is made where there is no state to add to.
        _ = try store.loadState()
        return try store.locked { try addLocked(runs) }
    }

    func addLocked(_ runs: [RunSummary]) throws -> StateUpdate {
        let state = try store.loadState()
        guard ZoneNames.canonical(state.zone) == ZoneNames.canonical(zone) else {
            throw RulesError.state(path: store.statePath, reason: "made with the time zone \(state.zone), not \(zone): add with --tz \(state.zone), or evaluate with --state again")
        }
        // A pack of the state that these rules lack (another --rules, or the pack did not load) would
        // withdraw every award it made: refused, naming it and where it was loaded from.
        let loaded = Set(engine.packs.map(\.name))
        let missing = state.packs.filter { !loaded.contains($0.name) }
        if !missing.isEmpty {
            let named = missing.map { "'\($0.name)'" + ($0.directory.map { " (from \($0))" } ?? "") }.joined(separator: ", ")
            let flags = state.packs.compactMap(\.directory).map { "--rules \($0)" }.joined(separator: " ")
            throw RulesError.state(path: store.statePath, reason: "made with \(missing.count == 1 ? "pack" : "packs") \(named), which these rules do not have "
                + "(they have \(engine.packs.map(\.name).joined(separator: ", "))): give the same packs\(flags.isEmpty ? " with --rules" : " (" + flags + ")"), "
                + "or evaluate with --state again to start without \(missing.count == 1 ? "it" : "them")")
        }
        let index = try store.loadIndex(state)
        let fresh = RuleEngine.ordered(runs)
        var position: [String: Int] = [:]
        position.reserveCapacity(index.count + fresh.count)
        for (i, entry) in index.enumerated() { position[entry.id] = i }
        let before = IncrementalEvaluator.awards(of: state.rules, position: position)
        if let reason = try replayReason(state: state, index: index, position: position, fresh: fresh) {
            return try replay(index: index, fresh: fresh, before: before, reason: reason, folder: state.folder)
        }
        for (i, run) in fresh.enumerated() { position[run.id] = index.count + i }
        // The saved runs the states name (as runs, or as ids in strings) come back as runs.
        var named = Set<String>()
        for rule in state.rules {
            guard let value = rule.state else { continue }
            IncrementalEvaluator.collectIDs(value, known: position, into: &named)
        }
        let savedRuns = try store.summaries(index.filter { named.contains($0.id) })
        var (evaluation, rules) = engine.resume(from: state.rules, savedRuns: savedRuns, newRuns: fresh, historyCount: state.runCount)
        _ = try store.append(fresh, to: state, rules: rules)
        let after = IncrementalEvaluator.awards(of: rules, position: position)
        evaluation.awards = after
        evaluation.runOrder = index.map(\.id) + fresh.map(\.id)
        let (added, withdrawn) = IncrementalEvaluator.difference(before: before, after: after)
        rules.removeAll()
        return StateUpdate(evaluation: evaluation, added: added, withdrawn: withdrawn, replayed: nil, runCount: state.runCount + fresh.count)
    }

    /// Why `fresh` cannot simply follow the saved history, or nil.
    func replayReason(state: SavedState, index: [StateStore.IndexEntry], position: [String: Int], fresh: [RunSummary]) throws -> String? {
        let stamps = engine.packs.map(PackStamp.init)
        if stamps != state.packs {
            for stamp in stamps where !state.packs.contains(stamp) {
                if state.packs.contains(where: { $0.name == stamp.name }) { return "pack '\(stamp.name)' changed" }
                return "pack '\(stamp.name)' is new"
            }
            for old in state.packs where !stamps.contains(where: { $0.name == old.name }) { return "pack '\(old.name)' is gone" }
            return "the packs' order changed"
        }
        if let rule = state.rules.first(where: { $0.failure == nil && ($0.unsaved != nil || ($0.fold && $0.state == nil)) }) {
            return "rule '\(rule.rule)' of pack '\(rule.pack)' has no saved state (\(rule.unsaved ?? "not saved"))"
        }
        for run in fresh where position[run.id] != nil { return "run '\(run.id)' is already saved" }
        if let first = fresh.first, let last = state.lastRun, IncrementalEvaluator.precedes(first, last) {
            return "run '\(first.id)' starts before the last saved run '\(last.id)'"
        }
        // Saved runs that start within two minutes of a new one may be the same activity.
        var near: [StateStore.IndexEntry] = []
        for run in fresh {
            guard let start = run.startEpochSeconds else { continue }
            var i = index.count - 1
            while i >= 0 {
                let entry = index[i]
                if let other = entry.startSeconds {
                    if other < start - 120 { break }
                    if abs(other - start) <= 120, !near.contains(entry) { near.append(entry) }
                }
                i -= 1
            }
        }
        let candidates = try store.summaries(near) + fresh
        let kept = Set(removeDuplicates(candidates).map(\.id))
        if let gone = candidates.first(where: { !kept.contains($0.id) }) {
            if near.contains(where: { $0.id == gone.id }) { return "saved run '\(gone.id)' is the same activity as a new run" }
            return "run '\(gone.id)' is the same activity as a saved run"
        }
        return nil
    }

    /// Evaluates the saved runs and `fresh` in full (a new run with a saved id replaces it) and saves.
    func replay(index: [StateStore.IndexEntry], fresh: [RunSummary], before: [Award], reason: String, folder: String?) throws -> StateUpdate {
        let replacing = Set(fresh.map(\.id))
        let saved = try store.summaries(index).filter { !replacing.contains($0.id) }
        let runs = RuleEngine.ordered(removeDuplicates(saved + fresh))
        let (evaluation, rules) = engine.evaluateKeepingState(runs: runs)
        try store.save(rules: rules, runs: runs, packs: engine.packs, zone: zone, folder: folder)
        let (added, withdrawn) = IncrementalEvaluator.difference(before: before, after: evaluation.awards)
        return StateUpdate(evaluation: evaluation, added: added, withdrawn: withdrawn, replayed: reason, runCount: runs.count)
    }

    /// Whether `run` comes before the saved `last` in start order (`RuleEngine.ordered`).
    static func precedes(_ run: RunSummary, _ last: RunStamp) -> Bool {
        switch (run.startEpochSeconds, last.startSeconds) {
        case let (x?, y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return !last.id.utf8.lexicographicallyPrecedes(run.id.utf8)
        }
    }

    /// The saved runs `value` names: runs, and strings that are a saved run's id.
    static func collectIDs(_ value: StateValue, known: [String: Int], into found: inout Set<String>) {
        switch value {
        case .run(let id): found.insert(id)
        case .string(let text): if known[text] != nil { found.insert(text) }
        case .array(let values): for item in values { collectIDs(item, known: known, into: &found) }
        case .table(let entries):
            for entry in entries { collectIDs(entry.key, known: known, into: &found); collectIDs(entry.value, known: known, into: &found) }
        default: break
        }
    }

    /// Every award the rules hold, in evaluation order: by run (`position`), then rule, then
    /// `on_run`'s before `finish`'s, then the order made.
    public static func awards(of rules: [RuleState], position: [String: Int]) -> [Award] {
        var keyed: [(run: Int, rule: Int, phase: Int, sequence: Int, award: Award)] = []
        for (ruleIndex, rule) in rules.enumerated() where rule.failure == nil {
            for (sequence, award) in rule.awards.enumerated() { keyed.append((position[award.run] ?? Int.max, ruleIndex, 0, sequence, award)) }
            for (sequence, award) in rule.finishAwards.enumerated() { keyed.append((position[award.run] ?? Int.max, ruleIndex, 1, sequence, award)) }
        }
        keyed.sort { ($0.run, $0.rule, $0.phase, $0.sequence) < ($1.run, $1.rule, $1.phase, $1.sequence) }
        return keyed.map(\.award)
    }

    /// An award's identity across evaluations: pack, rule, badge, tier and run (a detail may change).
    public static func identity(_ award: Award) -> String {
        [award.pack, award.rule, award.badge, award.tier, award.run].joined(separator: "\u{0}")
    }

    /// Awards in `after` and not `before`, and in `before` and not `after` (by `identity`), each in its list's order.
    public static func difference(before: [Award], after: [Award]) -> (added: [Award], withdrawn: [Award]) {
        let old = Set(before.map(identity)), new = Set(after.map(identity))
        return (after.filter { !old.contains(identity($0)) }, before.filter { !new.contains(identity($0)) })
    }
}
