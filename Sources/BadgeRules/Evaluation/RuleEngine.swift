import Foundation
import RunAnalysis
import RunFiles

/// Evaluates rule packs over runs. Each `evaluate` makes one Lua state, loads every pack into its own
/// environment, hands the rules read-only run tables in start order and closes the state again.
/// One pack's or rule's failure (at load or call time) is reported and the others go on.
///
/// The rules host's entry, and only that: it takes the runs it is given. Runs reach it through
/// `RunPipeline` (BadgePipeline: read, localise, select, hand on), which the command line (its
/// `EvaluationPipeline` turns options into a `RunPipeline`) and the library (`BadgeKit.BadgeEngine`)
/// both call.
public struct RuleEngine: Sendable {
    /// Sandbox limits. Every one but `callSeconds` is a deterministic budget: the same packs on the
    /// same runs stop at the same point with the same message on every run.
    public struct Limits: Sendable, Equatable {
        /// VM instructions one call into a rule may run (one `earned`, `on_run`, top-level chunk…),
        /// library work included: sorting, pattern matching, scanning and building strings are charged
        /// as the instructions they stand for.
        public var instructionsPerCall: Int
        /// Bytes the rules of one evaluation may hold beyond the run tables the host builds.
        public var memoryBytes: Int
        /// Bytes one call may allocate in all, freed or not (a loop building big strings).
        public var allocationBytesPerCall: Int
        /// The wall-clock backstop per call, in seconds: only for what no budget counts.
        public var callSeconds: Double

        public init(instructionsPerCall: Int = 20_000_000, memoryBytes: Int = 64 << 20,
                    allocationBytesPerCall: Int = 1 << 30, callSeconds: Double = 10) {
            self.instructionsPerCall = instructionsPerCall
            self.memoryBytes = memoryBytes
            self.allocationBytesPerCall = allocationBytesPerCall
            self.callSeconds = callSeconds
        }

        public static let `default` = Limits()
    }

    public let packDirectories: [String]
    public let catalogue: Catalogue
    public let limits: Limits
    /// Packs whose `pack.lua` loaded, in the order given.
    public let packs: [RulePack]
    /// Packs that did not load (reported again in every evaluation's failures).
    public let loadFailures: [RuleFailure]
    /// The runner's profile (`--athlete`): zones for `zone = n` measures, `ctx.athlete` for rules.
    public var athlete: Athlete?
    /// The name of the zone local dates are made in (`--tz`; `RunPipeline` sets it from its zone):
    /// `ctx.zone`. Nil: the machine's zone.
    public var zone: String?
    /// `ctx.zone`: `zone`, else the machine's zone's name.
    var zoneName: String { zone ?? ZoneNames.name(of: ZoneNames.machine) }

    /// Every measure the packs declare, as the analyzer computes it (zones resolved with `athlete`;
    /// a zone measure without a profile is left out: it is nil, and `measureNotes` says why).
    public var measureDefinitions: [MeasureDefinition] { PackMeasureTable.definitions(of: packs, athlete: athlete) }

    /// Why some declared measures are nil in this evaluation (pack, measure, reason).
    public var unavailableMeasures: [(pack: String, name: String, reason: String)] {
        packs.flatMap { pack in
            pack.measures.compactMap { measure in
                if case .failure(let problem) = measure.definition.resolved(athlete: athlete) { return (pack.name, measure.name, problem.reason) }
                return nil
            }
        }
    }

    public init(packDirectories: [String], catalogue: Catalogue, limits: Limits = .default) {
        self.packDirectories = packDirectories
        self.catalogue = catalogue
        self.limits = limits
        var packs: [RulePack] = []
        var failures: [RuleFailure] = []
        for directory in packDirectories {
            let folder = RulePack.normalise(directory)
            let folderName = (folder as NSString).lastPathComponent
            do {
                let pack = try RulePack.load(directory: folder, limits: limits)
                if let other = packs.first(where: { $0.name == pack.name }) {
                    failures.append(RuleFailure(pack: pack.name, rule: nil, file: folder + "/pack.lua", line: nil,
                                                message: "duplicate pack name '\(pack.name)' (also \(other.directory)/pack.lua)"))
                    continue
                }
                packs.append(pack)
            } catch let error as RulesError {
                switch error {
                case .pack(let file, let line, let reason):
                    failures.append(RuleFailure(pack: folderName, rule: nil, file: file, line: line, message: reason))
                default:
                    failures.append(RuleFailure(pack: folderName, rule: nil, file: folder, line: nil, message: error.description))
                }
            } catch {
                failures.append(RuleFailure(pack: folderName, rule: nil, file: folder, line: nil, message: "\(error)"))
            }
        }
        self.packs = packs
        self.loadFailures = failures
    }

    /// Everything of these packs that does not load: the packs themselves (`loadFailures`: no such
    /// folder, no pack.lua, a pack.lua that fails) and each rule file that fails to load or to declare
    /// its rule (a syntax error, a missing `id`, an unknown badge), as an evaluation reports them.
    /// Empty when every pack and rule loads. Loads the rules into a fresh Lua state, with no runs.
    public func loadProblems() -> [RuleFailure] {
        do {
            let session = try Session(packs: packs, catalogue: catalogue, limits: limits, runs: [], zone: zoneName)
            session.loader.load()
            return loadFailures + session.loader.failures
        } catch {
            return loadFailures + packs.map { RuleFailure(pack: $0.name, rule: nil, file: $0.directory, line: nil, message: "\(error)") }
        }
    }

    /// Runs in the order rules see them: by start (runs without a start last), ties by id. Runs
    /// already in that order come back as they are after one linear check.
    public static func ordered(_ runs: [RunSummary]) -> [RunSummary] {
        // By index, in place: zipping the array with itself copied every summary twice.
        let inOrder = runs.withUnsafeBufferPointer { runs in
            runs.indices.dropFirst().allSatisfy { !precedes(runs[$0], runs[$0 - 1]) }
        }
        if inOrder { return runs }
        return runs.sorted(by: precedes)
    }

    /// Whether `a` comes before `b` in start order (ties by id, in bytes).
    static func precedes(_ a: RunSummary, _ b: RunSummary) -> Bool {
        switch (a.startEpochSeconds, b.startEpochSeconds) {
        case let (x?, y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
        }
    }

    public func evaluate(runs: [RunSummary]) -> Evaluation {
        evaluate(runs: runs, profiling: false).evaluation
    }

    /// `evaluate`, also measuring each rule: the calls into its functions and the time its pass over
    /// the runs took (building run tables it asked for included). For `--profile`.
    public func evaluateProfiled(runs: [RunSummary]) -> (evaluation: Evaluation, costs: [RuleCost]) {
        evaluate(runs: runs, profiling: true)
    }

    /// `evaluate`, also giving what each rule leaves for the next evaluation (in rule order): its
    /// fold state before `finish` as plain data, its awards. What `evaluate --state` saves.
    public func evaluateKeepingState(runs: [RunSummary]) -> (evaluation: Evaluation, rules: [RuleState]) {
        evaluateKeepingState(runs: runs, reusing: nil)
    }

    /// `evaluateKeepingState`, in `reused`'s loaded state when given (the worker's, `worker --state-dir`).
    func evaluateKeepingState(runs: [RunSummary], reusing reused: ReusedEvaluator?) -> (evaluation: Evaluation, rules: [RuleState]) {
        var rules: [RuleState] = []
        if let reused {
            let evaluation = reused.evaluate(runs: runs, athlete: athlete, ordered: false) { runner in
                runner.saving = true
            } after: { runner in
                rules = runner.loader.rules.indices.compactMap { runner.ruleStates[$0] }
            } fresh: { engine in
                let made = engine.evaluateKeepingState(runs: runs, reusing: nil)
                rules = made.rules
                return made.evaluation
            }
            return (evaluation, rules)
        }
        let evaluation = evaluate(runs: runs, profiling: false) { session in
            session.runner.saving = true
        } after: { session in
            rules = session.loader.rules.indices.compactMap { session.runner.ruleStates[$0] }
        }.evaluation
        return (evaluation, rules)
    }

    /// Goes on from saved rule states with `newRuns`, which all come after the saved history in
    /// start order. `savedRuns`: the saved runs the states and awards name (restored as the same
    /// runs); `historyCount`: how many runs the saved history holds. The evaluation holds what this
    /// step made: the new runs' awards, every `finish` award, statuses, nexts, notes and failures;
    /// the rules' states hold the whole history's awards (`RuleState.awards` and `finishAwards`).
    /// The rules must be those the states were saved with (same pack fingerprints).
    public func resume(from saved: [RuleState], savedRuns: [RunSummary], newRuns: [RunSummary], historyCount: Int) -> (evaluation: Evaluation, rules: [RuleState]) {
        resume(from: saved, savedRuns: savedRuns, newRuns: newRuns, historyCount: historyCount, savedMaps: nil)
    }

    /// `resume`, the states' saved maps (`RuleState.split`) read from `savedMaps`.
    func resume(from saved: [RuleState], savedRuns: [RunSummary], newRuns: [RunSummary], historyCount: Int,
                savedMaps: SavedMapSource?, reusing reused: ReusedEvaluator? = nil) -> (evaluation: Evaluation, rules: [RuleState]) {
        let old = RuleEngine.ordered(savedRuns)
        var rules: [RuleState] = []
        let fresh = RuleEngine.ordered(newRuns)
        if let reused {
            let evaluation = reused.evaluate(runs: old + fresh, athlete: athlete, ordered: true) { runner in
                runner.resumed = Dictionary(saved.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
                runner.states.savedMaps = savedMaps
                runner.firstRun = old.count + 1
                runner.historyCount = historyCount + fresh.count
            } after: { runner in
                rules = runner.loader.rules.indices.compactMap { runner.ruleStates[$0] }
            } fresh: { engine in
                let made = engine.resume(from: saved, savedRuns: savedRuns, newRuns: newRuns, historyCount: historyCount, savedMaps: savedMaps)
                rules = made.rules
                return made.evaluation
            }
            return (evaluation, rules)
        }
        let evaluation = evaluate(runs: old + fresh, profiling: false, ordered: true) { session in
            session.runner.resumed = Dictionary(saved.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
            session.runner.states.savedMaps = savedMaps
            session.runner.firstRun = old.count + 1
            session.runner.historyCount = historyCount + fresh.count
        } after: { session in
            rules = session.loader.rules.indices.compactMap { session.runner.ruleStates[$0] }
        }.evaluation
        return (evaluation, rules)
    }

    private func evaluate(runs: [RunSummary], profiling: Bool, ordered: Bool = false,
                          before: (Session) -> Void = { _ in }, after: (Session) -> Void = { _ in }) -> (evaluation: Evaluation, costs: [RuleCost]) {
        let sorted = ordered ? runs : RuleEngine.ordered(runs)
        var evaluation: Evaluation
        var costs: [RuleCost] = []
        do {
            let session = try Session(packs: packs, catalogue: catalogue, limits: limits, runs: sorted, zone: zoneName)
            session.runner.profiling = profiling
            before(session)
            evaluation = session.evaluate(athlete: athlete)
            after(session)
            if profiling {
                for (index, rule) in session.loader.rules.enumerated() {
                    costs.append(RuleCost(pack: session.sandbox.packNames[rule.pack], rule: rule.id, calls: session.runner.ruleCalls[index] ?? 0,
                                          seconds: Double(session.runner.ruleNanoseconds[index] ?? 0) / 1e9))
                }
            }
        } catch {
            evaluation = Evaluation(runOrder: sorted.map(\.id))
            for pack in packs {
                evaluation.failures.append(RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "\(error)"))
            }
        }
        return (completed(evaluation, runs: sorted), costs)
    }

    /// What every evaluation gets after its rules ran, however its state was made (fresh here, or
    /// reused by `ReusedEvaluator`): the packs' load failures first, and the runs each pack's
    /// eligibility left out. One place, so the two paths cannot drift apart.
    func completed(_ evaluation: Evaluation, runs sorted: [RunSummary]) -> Evaluation {
        var evaluation = evaluation
        evaluation.failures.insert(contentsOf: loadFailures, at: 0)
        evaluation.exclusions = RuleEngine.exclusions(packs: packs, runs: sorted)
        return evaluation
    }
}

/// What one rule cost in an evaluation (`RuleEngine.evaluateProfiled`).
public struct RuleCost: Sendable, Equatable {
    public var pack: String
    public var rule: String
    /// Calls into the rule's functions (`earned`, `on_run`, `init`, `status`, ...).
    public var calls: Int
    /// Wall time of the rule's whole pass over the runs.
    public var seconds: Double
}
