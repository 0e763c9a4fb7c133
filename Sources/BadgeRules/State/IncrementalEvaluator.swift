import Foundation
import RunFiles

/// What saving a state or adding runs to it gave.
public struct StateUpdate: Sendable {
    /// This step's evaluation: its statuses, nexts, notes and failures. Its awards: after `start` or
    /// a replay, the whole history's; after an addition, only those this step's run of the rules
    /// made (the new runs' awards and every `finish` award): the whole list is
    /// `StateStore.awards()`, read from the state database, and its length is `awardCount`.
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
    /// Awards in the history now (every rule's, failed rules' left out).
    public var awardCount: Int
    /// Rows of the state database this step inserted, updated or deleted (for tests: an addition
    /// touches only what changed).
    public var rowsWritten: Int = 0
}

/// An award a saved state took back (`add`, `remove`, `worker --state-dir`), when and why: what
/// `explain --state` and `report --state` name.
public struct Withdrawal: Codable, Sendable, Equatable {
    /// The award as it was given.
    public var award: Award
    /// When it was taken back, `YYYY-MM-DDThh:mm:ssZ`.
    public var at: String
    /// Why: the change that took it back (`run 'x' removed`, `run 'x' no longer counts`), and the
    /// run it went to instead when the same badge and tier went to another (`given to run 'y' instead`).
    public var why: String

    public init(award: Award, at: String, why: String) { self.award = award; self.at = at; self.why = why }

    /// `withdrawn` stamped now, each with `reason` (or "no longer earned") and the run the same
    /// badge and tier went to instead among `added`, if one did.
    static func stamped(_ withdrawn: [Award], added: [Award], reason: String?) -> [Withdrawal] {
        let now = Timestamps.iso8601(Date().timeIntervalSince1970.rounded(.down))
        return withdrawn.map { award in
            let instead = added.first { $0.pack == award.pack && $0.badge == award.badge && $0.tier == award.tier && $0.run != award.run }
            let why = [reason ?? "no longer earned", instead.map { "given to run '\($0.run)' instead" }].compactMap { $0 }.joined(separator: "; ")
            return Withdrawal(award: award, at: now, why: why)
        }
    }
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

    /// The engine's athlete profile file, absolute, when it was read from one that is still there.
    var athleteFile: String? {
        guard let source = engine.athlete?.source, FileManager.default.fileExists(atPath: source) else { return nil }
        return source.hasPrefix("/") ? source : FileManager.default.currentDirectoryPath + "/" + source
    }

    /// An evaluator over `store` with `engine`'s packs, reading runs in `zone`.
    public init(engine: RuleEngine, store: StateStore, zone: String,
                removeDuplicates: @escaping @Sendable ([RunSummary]) -> [RunSummary] = { $0 }) {
        self.engine = engine; self.store = store; self.zone = zone; self.removeDuplicates = removeDuplicates
    }

    /// Evaluates `runs` in full and saves the state (replacing any state in the folder). `folder`:
    /// the folder they were read from, if any (recorded, see `SavedState.folder`).
    /// `reusing`, in every method: a loaded state to evaluate in (the worker's, over many athletes'
    /// states: `worker --state-dir`); nil: a fresh state for each evaluation. Either gives the same
    /// evaluation (`ReusedEvaluator`).
    public func start(_ runs: [RunSummary], folder: String? = nil, reusing reused: ReusedEvaluator? = nil) throws -> StateUpdate {
        try store.locked { try startLocked(runs, folder: folder, reusing: reused) }
    }

    func startLocked(_ runs: [RunSummary], folder: String?, reusing reused: ReusedEvaluator? = nil) throws -> StateUpdate {
        let ordered = RuleEngine.ordered(runs)
        let (evaluation, rules) = engine.evaluateKeepingState(runs: ordered, reusing: reused)
        try store.save(rules: rules, runs: ordered, packs: engine.packs, zone: zone, folder: folder, catalogue: engine.catalogue.file,
                       athlete: athleteFile)
        return StateUpdate(evaluation: evaluation, added: evaluation.awards, withdrawn: [], replayed: nil, runCount: ordered.count,
                           awardCount: evaluation.awards.count)
    }

    /// Makes the state again from the runs saved in `runs.jsonl` and `runs` (for a state database
    /// that cannot be read: it is kept as `state.sqlite.damaged`), evaluating them in full.
    /// `folder`: as for `start`. A new run with a saved id replaces it.
    public func rebuild(_ runs: [RunSummary], folder: String?) throws -> StateUpdate {
        try store.locked {
            let saved = try store.allSavedRuns()
            let path = store.statePath
            if !store.inStore, FileManager.default.fileExists(atPath: path) { _ = rename(path, path + ".damaged") }
            let replacing = Set(runs.map(\.id))
            var update = try startLocked(removeDuplicates(saved.filter { !replacing.contains($0.id) } + runs), folder: folder)
            update.replayed = "the state was rebuilt from \(saved.count) saved runs"
            return update
        }
    }

    /// Adds `runs` to the saved history: only they are handed to the rules, unless a replay is
    /// needed (`StateUpdate.replayed` says why). A run with a saved id replaces the saved one (a file
    /// trimmed or edited since). `withdrawing`: ids of runs read again that no longer count (a file
    /// re-typed as a ride, now implausible): those saved are taken out of the history, as `remove` does.
    /// Throws `RulesError.state` when there is no state or it cannot be read, or it was made in another zone.
    public func add(_ runs: [RunSummary], withdrawing: Set<String> = [], reusing reused: ReusedEvaluator? = nil) throws -> StateUpdate {
        // No lock (nor folder) is made where there is no state to add to.
        if !store.exists { _ = try store.database() }
        return try store.locked { try addLocked(runs, withdrawing: withdrawing, reusing: reused) }
    }

    /// Takes the runs `ids` out of the saved history (a run deleted, made private, or no longer a run)
    /// and evaluates what is left, so the state is what `start` over that history makes: the awards
    /// they earned, and any that the runs after them earned only by coming later, are withdrawn;
    /// awards that follow without them are given. Ids the state does not hold are returned as
    /// `unknown` and change nothing. Throws `RulesError.state` as `add` does, and when the state holds
    /// none of `ids` (naming the closest saved id).
    public func remove(_ ids: [String], reusing reused: ReusedEvaluator? = nil) throws -> (update: StateUpdate, unknown: [String]) {
        if !store.exists { _ = try store.database() }
        return try store.locked {
            let database = try store.database(holdingLock: true)
            let state = try database.header()
            try checkZone(state)
            try checkPacks(state)
            let saved = Set(try database.runs(ids: Set(ids)).map(\.id))
            let unknown = ids.filter { !saved.contains($0) }
            let removed = ids.filter { saved.contains($0) }
            guard !removed.isEmpty else {
                let all = try database.allRuns().map(\.id)
                let hint = unknown.first.flatMap { Suggestion.closest(to: $0, in: all) }.map { "; did you mean '\($0)'?" } ?? ""
                throw RulesError.state(path: store.statePath, reason: "holds no run \(unknown.map { "'\($0)'" }.joined(separator: ", "))\(hint) "
                    + "(a run id as evaluate --state lists it, or the run's file)")
            }
            let reason = removed.count == 1 ? "run '\(removed[0])' removed" : "\(removed.count) runs removed"
            return (try replay(database: database, fresh: [], removing: saved, reason: reason, folder: state.folder, reusing: reused), unknown)
        }
    }

    /// Refuses a state with a pack these rules lack (another --rules, or the pack did not load): it
    /// would withdraw every award that pack made. The error names it and where it was loaded from.
    func checkPacks(_ state: SavedState) throws {
        let loaded = Set(engine.packs.map(\.name))
        let missing = state.packs.filter { !loaded.contains($0.name) }
        if !missing.isEmpty {
            let named = missing.map { "'\($0.name)'" + ($0.directory.map { " (from \($0))" } ?? "") }.joined(separator: ", ")
            let flags = state.packs.compactMap(\.directory).map { "--rules \($0)" }.joined(separator: " ")
            throw RulesError.state(path: store.statePath, reason: "made with \(missing.count == 1 ? "pack" : "packs") \(named), which these rules do not have "
                + "(they have \(engine.packs.map(\.name).joined(separator: ", "))): give the same packs\(flags.isEmpty ? " with --rules" : " (" + flags + ")"), "
                + "or evaluate with --state again to start without \(missing.count == 1 ? "it" : "them")")
        }
    }

    /// Refuses a state made in another zone than this evaluator's.
    func checkZone(_ state: SavedState) throws {
        guard ZoneNames.canonical(state.zone) == ZoneNames.canonical(zone) else {
            throw RulesError.state(path: store.statePath, reason: "made with the time zone \(state.zone), not \(zone): add with --tz \(state.zone), or evaluate with --state again")
        }
    }

    /// What an addition reads: the header, each rule's state and `finish` awards (not the history's
    /// awards), the saved runs the new ones need (by id, by start, and those the states name), and
    /// for each rule the awards its duplicate policy needs; then it writes the new rows only.
    func addLocked(_ runs: [RunSummary], withdrawing: Set<String> = [], reusing reused: ReusedEvaluator? = nil) throws -> StateUpdate {
        let database = try store.database(holdingLock: true)
        let fresh = RuleEngine.ordered(runs)
        // What it reads and writes, in one transaction; a replay saves the state whole after it.
        let outcome = try database.transaction { () -> Addition in
            let state = try database.header()
            try checkZone(state)
            try checkPacks(state)
            // A saved run read again and no longer counted leaves the history (as `remove`).
            let gone = withdrawing.isEmpty ? [] : try database.runs(ids: withdrawing).map(\.id).sorted()
            if !gone.isEmpty {
                let reason = gone.count == 1 ? "run '\(gone[0])' no longer counts" : "\(gone.count) saved runs no longer count"
                return .replay(reason: reason, removing: Set(gone), folder: state.folder)
            }
            let read = try database.rules(awards: .none)
            // The saved runs the states name (as runs, or as ids in strings) and those the new runs'
            // ids are, in one query.
            var candidates = Set<String>()
            for rule in read.rules {
                guard let value = rule.state else { continue }
                IncrementalEvaluator.collectStrings(value, into: &candidates)
            }
            let known = try database.runs(ids: candidates.union(fresh.map(\.id)))
            if let reason = try replayReason(state: state, rules: read.rules, database: database, fresh: fresh,
                                             saved: Set(known.map(\.id))) {
                return .replay(reason: reason, removing: [], folder: state.folder)
            }
            return .added(try addFollowing(state: state, read: read, named: known.filter { candidates.contains($0.id) }, fresh: fresh,
                                           database: database, reusing: reused))
        }
        switch outcome {
        case .added(let update): return update
        case .replay(let reason, let removing, let folder):
            return try replay(database: database, fresh: fresh, removing: removing, reason: reason, folder: folder, reusing: reused)
        }
    }

    /// What an addition did: added the runs after the history, or found that it must replay it.
    private enum Addition {
        case added(StateUpdate)
        case replay(reason: String, removing: Set<String>, folder: String?)
    }

    /// `fresh` handed to the rules after the saved history (`state`, the rules as `read`), and the
    /// changes written, in the addition's transaction.
    /// `named`: the saved runs the states name, in history order.
    private func addFollowing(state: SavedState, read: (rules: [RuleState], nextSequence: [Int]), named namedEntries: [StateStore.IndexEntry],
                              fresh: [RunSummary], database: StateDatabase, reusing reused: ReusedEvaluator?) throws -> StateUpdate {
        var rules = read.rules
        let nextSequence = read.nextSequence
        // The saved runs the states name come back as runs.
        let named = Set(namedEntries.map(\.id))
        try database.addSeeds(to: &rules, runs: named)
        let seeds = rules.map(\.awards.count)
        let savedRuns = try store.summaries(namedEntries)
        var position: [String: Int] = [:]
        for entry in namedEntries { position[entry.id] = entry.position }
        for (i, run) in fresh.enumerated() { position[run.id] = state.runCount + i }
        var (evaluation, after) = engine.resume(from: rules, savedRuns: savedRuns, newRuns: fresh, historyCount: state.runCount, savedMaps: database,
                                                 reusing: reused)
        // What changed: the new `on_run` awards and the `finish` awards; and every award of a rule
        // that failed now. Awards of the history that stay are neither read nor written.
        var before: [RuleState] = []
        var now: [RuleState] = []
        for (i, rule) in after.enumerated() where i < rules.count {
            var old = rules[i]
            old.awards = []
            var new = rule
            new.awards = rule.failure == nil ? Array(rule.awards.dropFirst(seeds[i])) : []
            if rule.failure != nil, old.failure == nil {
                // Every award it gave, both phases, whole (its `finish` awards were read as keys: once only).
                old.awards = try database.awards(ofRule: i)
                old.finishAwards = []
            }
            before.append(old)
            now.append(new)
        }
        let changedBefore = IncrementalEvaluator.awards(of: before, position: position)
        let changedAfter = IncrementalEvaluator.awards(of: now, position: position)
        let (added, taken) = IncrementalEvaluator.difference(before: changedBefore, after: changedAfter)
        // (The `finish` awards were read as keys: those taken back are read whole.)
        let withdrawn = try taken.map(database.complete)
        // runs.jsonl first, then the database in one transaction: until it commits, the state is the
        // old one (the bytes appended are cut on the next addition).
        // (A worker's store keeps the lines in the rows.)
        let (runBytes, entries) = try StateStore.lines(fresh, startingAt: state.runsBytes, keepingLines: store.inStore)
        if !store.inStore { try store.appendBytes(runBytes, to: store.runsPath, at: state.runsBytes) }
        var next = state
        next.runCount += fresh.count
        if let last = fresh.last { next.lastRun = RunStamp(last) }
        if !store.inStore { next.runsBytes += runBytes.count }
        let written = database.rowsWritten
        try database.add(next, added: entries, firstPosition: state.runCount, old: rules, rules: after, seeds: seeds, nextSequence: nextSequence,
                         position: position, withdrawals: Withdrawal.stamped(withdrawn, added: added, reason: nil))
        let rowsWritten = database.rowsWritten - written
        // The history's awards as the rows now hold them: of each rule that did not fail, the `on_run`
        // awards made so far (its `next_seq` as read, and the new ones) and its `finish` awards.
        var awardCount = 0
        for (i, rule) in after.enumerated() where rule.failure == nil {
            let made = i < nextSequence.count ? nextSequence[i] : 0
            let new = max(0, rule.awards.count - (i < seeds.count ? seeds[i] : 0))
            awardCount += made + new + rule.finishAwards.count
        }
        after.removeAll()
        evaluation.runOrder = savedRuns.map(\.id) + fresh.map(\.id)
        return StateUpdate(evaluation: evaluation, added: added, withdrawn: withdrawn, replayed: nil, runCount: next.runCount,
                           awardCount: awardCount, rowsWritten: rowsWritten)
    }

    /// Why `fresh` cannot simply follow the saved history, or nil.
    /// `saved`: which of the new runs' ids the history holds (it may hold more ids).
    func replayReason(state: SavedState, rules: [RuleState], database: StateDatabase, fresh: [RunSummary], saved: Set<String>) throws -> String? {
        // Compared by name, version and fingerprint first: a stamp's folder (made absolute, links
        // resolved) is needed only to say what changed.
        let same = engine.packs.count == state.packs.count && zip(engine.packs, state.packs).allSatisfy {
            $0.name == $1.name && $0.version == $1.version && $0.fingerprint == $1.fingerprint
        }
        if !same {
            let stamps = engine.packs.map(PackStamp.init)
            for stamp in stamps where !state.packs.contains(stamp) {
                if state.packs.contains(where: { $0.name == stamp.name }) { return "pack '\(stamp.name)' changed" }
                return "pack '\(stamp.name)' is new"
            }
            for old in state.packs where !stamps.contains(where: { $0.name == old.name }) { return "pack '\(old.name)' is gone" }
            return "the packs' order changed"
        }
        if let rule = rules.first(where: { $0.failure == nil && ($0.unsaved != nil || ($0.fold && $0.state == nil)) }) {
            return "rule '\(rule.rule)' of pack '\(rule.pack)' has no saved state (\(rule.unsaved ?? "not saved"))"
        }
        for run in fresh where saved.contains(run.id) { return "run '\(run.id)' is already saved" }
        if let first = fresh.first, let last = state.lastRun, IncrementalEvaluator.precedes(first, last) {
            return "run '\(first.id)' starts before the last saved run '\(last.id)'"
        }
        // Saved runs that start within two minutes of a new one may be the same activity.
        var near: [StateStore.IndexEntry] = []
        for run in fresh {
            guard let start = run.startEpochSeconds else { continue }
            for entry in try database.runs(near: start, within: 120) where !near.contains(entry) { near.append(entry) }
        }
        let candidates = try store.summaries(near) + fresh
        let kept = Set(removeDuplicates(candidates).map(\.id))
        if let gone = candidates.first(where: { !kept.contains($0.id) }) {
            if near.contains(where: { $0.id == gone.id }) { return "saved run '\(gone.id)' is the same activity as a new run" }
            return "run '\(gone.id)' is the same activity as a saved run"
        }
        return nil
    }

    /// Evaluates the saved runs (less `removing`) and `fresh` in full (a new run with a saved id
    /// replaces it) and saves.
    func replay(database: StateDatabase, fresh: [RunSummary], removing: Set<String> = [], reason: String, folder: String?,
                reusing reused: ReusedEvaluator? = nil) throws -> StateUpdate {
        let before = try database.awards()
        let taken = try database.withdrawals()
        let replacing = Set(fresh.map(\.id)).union(removing)
        let saved = try store.summaries(try database.allRuns()).filter { !replacing.contains($0.id) }
        if !store.inStore { try? database.queue.close() }
        let runs = RuleEngine.ordered(removeDuplicates(saved + fresh))
        let (evaluation, rules) = engine.evaluateKeepingState(runs: runs, reusing: reused)
        try store.save(rules: rules, runs: runs, packs: engine.packs, zone: zone, folder: folder, catalogue: engine.catalogue.file,
                       athlete: athleteFile)
        let (added, withdrawn) = IncrementalEvaluator.difference(before: before, after: evaluation.awards)
        // The awards taken back so far, and now these: the state was written whole, its record goes on.
        let record = taken + Withdrawal.stamped(withdrawn, added: added, reason: reason)
        if !record.isEmpty { try store.database(holdingLock: true).record(record) }
        return StateUpdate(evaluation: evaluation, added: added, withdrawn: withdrawn, replayed: reason, runCount: runs.count,
                           awardCount: evaluation.awards.count)
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

    /// The runs and strings `value` holds (keys included): the saved runs it may name.
    static func collectStrings(_ value: StateValue, into found: inout Set<String>) {
        switch value {
        case .run(let id), .string(let id): found.insert(id)
        case .array(let values): for item in values { collectStrings(item, into: &found) }
        case .table(let entries):
            for entry in entries { collectStrings(entry.key, into: &found); collectStrings(entry.value, into: &found) }
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
