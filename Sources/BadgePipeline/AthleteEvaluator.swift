import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// Where an athlete's runs meet the rules: the one caller of the evaluators (`RuleEngine.evaluate`,
/// `ReusedEvaluator`, `IncrementalEvaluator`) for every command (`evaluate`, `add`, `remove`,
/// `diff --worker-input`, `whatif`), the worker, the league's map and BadgeKit.
///
/// An athlete is a profile (their heart rates, zones, birth date, sex; nil: the pipeline's own,
/// `--athlete`'s) and runs. Their runs are selected by the pipeline of their profile
/// (`RunPipeline.with(athlete:)`, then `RunPipeline.select`, the one selection), and the runs that
/// count are handed to the rules in one of three ways, which give the same awards for the same runs:
///
/// - **fresh** (`Kind.fresh`): each evaluation in a new Lua state (`RuleEngine.evaluate`): one history
///   at a time (the commands, BadgeKit);
/// - **reused** (`Kind.reused`): one loaded Lua state over many athletes, reset between them
///   (`ReusedEvaluator`): the worker and the league's map;
/// - **incremental**: a saved state (`start`, `add`, `remove`, `rebuild` with its `StateStore`) that
///   each step goes on from (`IncrementalEvaluator`: `evaluate --state`, `add`, `remove`,
///   `worker --state-dir`, BadgeKit's `saveState` and `add`), its rules run in a fresh or the reused
///   state as the kind says. The store is given with each step, not with the kind: the worker goes
///   through many athletes' states with one loaded Lua state.
///
/// Not Sendable (the reused kind holds a Lua state): one thread uses it; a `BadgeEngine` call makes
/// its own.
public final class AthleteEvaluator {
    /// How the rules are run: a new Lua state for each evaluation, or one loaded state reused.
    public enum Kind: Sendable, Equatable {
        /// A new Lua state for each evaluation (`RuleEngine.evaluate`).
        case fresh
        /// One loaded Lua state over every evaluation, reset between them (`ReusedEvaluator`): for
        /// many athletes in a row. A rule that leaves anything behind makes the next evaluation load
        /// the packs again, so an evaluation sees what a fresh state would show it.
        case reused
    }

    /// An athlete's history evaluated: what the rules gave, and what the selection made of the runs
    /// (the runs that count, those left out and why, the duplicates).
    public struct Outcome {
        public var evaluation: Evaluation
        public var selection: RunPipeline.Selected
    }

    /// The packs, the catalogue, the default profile, the selection and the zone of every athlete.
    public let pipeline: RunPipeline
    public let kind: Kind
    /// The reused kind's loaded state, made at its first evaluation.
    private var loaded: ReusedEvaluator?
    /// The last profile's pipeline (`pipeline(for:)`).
    private var last: (profile: Athlete, pipeline: RunPipeline)?

    public init(pipeline: RunPipeline, kind: Kind = .fresh) {
        self.pipeline = pipeline
        self.kind = kind
    }

    /// The pipeline of an athlete with `profile` (nil: this one's own): their runs are read with it
    /// (heart-rate zones, age grade) and evaluated with it (`ctx.athlete`).
    public func pipeline(for profile: Athlete?) -> RunPipeline {
        guard let profile else { return pipeline }
        // The worker reads an athlete's runs with it, then evaluates them: made once for both.
        if let last, last.profile == profile { return last.pipeline }
        let made = pipeline.with(athlete: profile)
        last = (profile, made)
        return made
    }

    /// Which of an athlete's runs count (`RunPipeline.select` of their profile's pipeline).
    public func select(_ runs: [RunSummary], profile: Athlete? = nil) -> RunPipeline.Selected {
        pipeline(for: profile).select(runs)
    }

    // MARK: - A whole history

    /// An athlete's whole history (any order: rules see it in start order): selected, then the runs
    /// that count evaluated.
    public func evaluate(_ runs: [RunSummary], profile: Athlete? = nil) -> Outcome {
        let selection = select(runs, profile: profile)
        return Outcome(evaluation: evaluate(selection, profile: profile), selection: selection)
    }

    /// The runs `selection` counts (a folder's, `RunPipeline.select(_: RunFolder)`), evaluated.
    public func evaluate(_ selection: RunPipeline.Selected, profile: Athlete? = nil) -> Evaluation {
        let engine = pipeline(for: profile).engine
        switch kind {
        case .fresh: return Self.evaluate(selection.selected, engine: engine)
        case .reused: return reused().evaluate(runs: selection.selected, athlete: engine.athlete)
        }
    }

    /// `evaluate`, also measuring each rule (`evaluate --profile`); always in a fresh state.
    public func evaluateProfiled(_ selection: RunPipeline.Selected) -> (evaluation: Evaluation, costs: [RuleCost]) {
        pipeline.engine.evaluateProfiled(runs: selection.selected)
    }

    /// `runs` evaluated by `engine` in a fresh state: the fresh kind, and a what-if's two evaluations
    /// (`WhatIf.evaluate`, given an engine).
    static func evaluate(_ runs: [RunSummary], engine: RuleEngine) -> Evaluation {
        engine.evaluate(runs: runs)
    }

    // MARK: - A saved state

    /// Evaluates the runs `selection` counts in full and saves the state in `store` (replacing any
    /// state there). `folder`: the folder they were read from, if any (`SavedState.folder`).
    public func start(_ selection: RunPipeline.Selected, in store: StateStore, profile: Athlete? = nil,
                      folder: String? = nil) throws -> StateUpdate {
        try incremental(store, profile: profile).start(selection.selected, folder: folder, reusing: reusedIfAny())
    }

    /// Adds the runs `selection` counts to the state saved in `store`: only they are handed to the
    /// rules, unless a replay is needed (`StateUpdate.replayed`). `withdrawing`: ids of saved runs read
    /// again that no longer count (`RunPipeline.Selected.noLongerCounted`), taken out of the history.
    public func add(_ selection: RunPipeline.Selected, to store: StateStore, profile: Athlete? = nil,
                    withdrawing: Set<String> = []) throws -> StateUpdate {
        try incremental(store, profile: profile).add(selection.selected, withdrawing: withdrawing, reusing: reusedIfAny())
    }

    /// Takes the runs `ids` out of the history saved in `store` and evaluates what is left; ids the
    /// state does not hold come back as `unknown`.
    public func remove(_ ids: [String], from store: StateStore, profile: Athlete? = nil) throws -> (update: StateUpdate, unknown: [String]) {
        try incremental(store, profile: profile).remove(ids, reusing: reusedIfAny())
    }

    /// Makes the state in `store` again from its saved runs and the runs `selection` counts (a
    /// damaged state database), evaluating them in full.
    public func rebuild(_ selection: RunPipeline.Selected, in store: StateStore, folder: String?) throws -> StateUpdate {
        try incremental(store, profile: nil).rebuild(selection.selected, folder: folder)
    }

    /// The saved state in `store`, read and written with the packs of the athlete's pipeline; runs are
    /// read in its zone, and an addition that is the same activity as a saved run replays the history
    /// when duplicates are counted once.
    private func incremental(_ store: StateStore, profile: Athlete?) -> IncrementalEvaluator {
        let pipeline = pipeline(for: profile)
        let removes = pipeline.selection.removesDuplicates
        return IncrementalEvaluator(engine: pipeline.engine, store: store, zone: ZoneNames.name(of: pipeline.zone)) { runs in
            removes ? Duplicates.removeSameActivity(from: runs).kept : runs
        }
    }

    // MARK: - The reused state

    private func reused() -> ReusedEvaluator {
        if let loaded { return loaded }
        let made = ReusedEvaluator(engine: pipeline.engine)
        loaded = made
        return made
    }

    private func reusedIfAny() -> ReusedEvaluator? {
        kind == .reused ? reused() : nil
    }
}

extension RunPipeline.Selected {
    /// Ids of runs read again that no longer count by the selection (re-typed as a ride, now
    /// implausible; a pack's own eligibility aside): a saved history takes them out (`add`'s `withdrawing`).
    package var noLongerCounted: Set<String> {
        Set(excluded.filter { $0.pack == nil }.map(\.id))
    }
}
