import Foundation
import RunAnalysis
import RunFiles

/// Evaluates one pack set over many small run lists (the worker's athletes) with one loaded Lua
/// state: the packs are compiled and their files run once, and each evaluation then only builds its
/// runs' proxies and runs the rules. Between evaluations the state is reset to its mark (the
/// evaluation's run proxies, light records and strings dropped, the memory cap re-armed as in a
/// fresh state) and checked against it: the mark listed every object Lua code could reach between
/// evaluations (the packs' environments and libraries, their modules' tables and upvalues, the
/// rules' functions and `ctx`, the shared metatables, C iterators' state) with a keyed hash of each
/// one's own contents, and the reset compares them all (if no listed object holds anything new,
/// nothing new is reachable). A rule that leaves anything behind there (a global, a module's
/// counter, a library function replaced, an iterator moved), or any rule failure (a stop can leave a
/// half-done change), makes the state be thrown away: the next evaluation starts from a freshly
/// loaded one. So an evaluation sees exactly what a fresh state would show it; packs that do write
/// shared state only lose the speed. Garbage of earlier evaluations is collected once it passes
/// 1/64 of the memory cap (at most 1 MiB); until then it counts as the host's, so rules may hold up
/// to that much more than the cap when the collector frees it during their evaluation.
///
/// An evaluation that keeps the rules' states (`IncrementalEvaluator`, which gives `fresh`) is made
/// again in a fresh state whenever its reset finds anything changed or a rule failed: the reset's
/// check then stands in for each rule's own check of what it keeps outside its state.
///
/// Not Sendable: one thread uses it from creation to its last `evaluate`.
public final class ReusedEvaluator {
    public let engine: RuleEngine
    private var session: Session?
    private var loadNotes: (notes: [RuleNote], counts: [String: Int]) = ([], [:])
    /// States loaded so far (1 when every evaluation reused the first).
    public private(set) var statesLoaded = 0
    /// Evaluations that ran in a state an earlier evaluation had used.
    public private(set) var reusedEvaluations = 0
    private var used = false

    public init(engine: RuleEngine) {
        self.engine = engine
    }

    /// The loaded state, marked; nil when it cannot be made (evaluations then go through a fresh
    /// state each, which reports why).
    private func loaded() -> Session? {
        if let session { return session }
        guard let session = try? Session(packs: engine.packs, catalogue: engine.catalogue, limits: engine.limits, runs: [], zone: engine.zoneName) else { return nil }
        statesLoaded += 1
        session.lua.makeMeasureMetatables()
        session.loader.load()
        session.runs.releaseProxies()
        loadNotes = session.loader.notes.snapshot
        guard session.lua.reuseMark() else { return nil }
        self.session = session
        used = false
        return session
    }

    /// The same evaluation as `engine.evaluate(runs:)`.
    public func evaluate(runs: [RunSummary]) -> Evaluation {
        evaluate(runs: runs, athlete: engine.athlete)
    }

    /// The same evaluation as `engine.evaluate(runs:)` with `athlete` as the engine's profile (a worker
    /// line's own: their zones and age grade, `ctx.athlete`). The profile is handed to this evaluation
    /// alone: it is made into the state after the reset's mark and taken back before the reset, so the
    /// next evaluation never sees it.
    public func evaluate(runs: [RunSummary], athlete: Athlete?) -> Evaluation {
        evaluate(runs: runs, athlete: athlete, ordered: false, before: { _ in }, after: { _ in }, fresh: nil)
    }

    /// `evaluate` with the rule runner set up by `before` (a saved history to go on from, states to
    /// keep: `IncrementalEvaluator`) and read by `after` once the rules ran; `fresh` makes the same
    /// evaluation in a state of its own, when none can be loaded. `ordered`: `runs` are in start order.
    func evaluate(runs: [RunSummary], athlete: Athlete?, ordered: Bool, before: (RuleRunner) -> Void, after: (RuleRunner) -> Void,
                  fresh: ((RuleEngine) -> Evaluation)?) -> Evaluation {
        guard let session = loaded() else {
            var engine = self.engine
            engine.athlete = athlete
            return fresh?(engine) ?? engine.evaluate(runs: runs)
        }
        if used { reusedEvaluations += 1 }
        used = true
        let lua = session.lua
        lua.reuseBegin()
        let sorted = ordered ? runs : RuleEngine.ordered(runs)
        session.runs.replace(runs: sorted)
        session.runs.buildProxies()
        session.loader.notes.restore(loadNotes)
        session.present(athlete: athlete)
        let runner = RuleRunner(loader: session.loader, states: FoldStates(runs: session.runs, sandbox: session.sandbox))
        session.host.runner = runner
        // With a fresh evaluation at hand, the reset's check (every object the rules can reach
        // compared with the mark) stands in for each rule's check of its values outside its state:
        // a reset that finds anything changed makes the evaluation again, fresh, checked rule by rule.
        runner.checksOutside = fresh == nil
        before(runner)
        let evaluation = runner.run()
        after(runner)
        runner.states.releaseSavedMaps()
        session.host.runner = nil
        session.withdrawAthlete()
        session.runs.releaseProxies()
        let ruleFailed = evaluation.failures.count > session.loader.failures.count
        if ruleFailed || !lua.reuseReset() {
            self.session = nil
            if !runner.checksOutside, let fresh {
                var engine = self.engine
                engine.athlete = athlete
                return fresh(engine)
            }
        }
        return engine.completed(evaluation, runs: sorted)
    }
}
