import Foundation
import RunAnalysis
import RunFiles

/// One evaluation: the parts of the rules host over one Lua state, put together. The sandbox
/// holds the packs' environments, the run table the runs, the loader the rules, the runner runs
/// them (with `FoldStates` for saved states), and the host functions dispatch Lua's calls to
/// them. Lives on one thread from creation to `evaluate()`'s return.
final class Session {
    let lua: LuaState
    let sandbox: PackSandbox
    let runs: RunTable
    let loader: RuleLoader
    let runner: RuleRunner
    let host: HostFunctions

    init(packs: [RulePack], catalogue: Catalogue, limits: RuleEngine.Limits, runs: [RunSummary], zone: String = "UTC") throws {
        let lua = try LuaState(limits: limits)
        self.lua = lua
        sandbox = PackSandbox(lua: lua)
        self.runs = RunTable(lua: lua, runs: runs, measureTable: PackMeasureTable(packs: packs, athlete: nil))
        let notes = NoteLog()
        loader = RuleLoader(sandbox: sandbox, runs: self.runs, notes: notes, packs: packs, catalogue: catalogue, zone: zone)
        runner = RuleRunner(loader: loader, states: FoldStates(runs: self.runs, sandbox: sandbox))
        host = HostFunctions(lua: lua, sandbox: sandbox, runs: self.runs, notes: notes)
        host.loader = loader
        host.runner = runner
        try sandbox.loadPrelude()
    }

    /// Loads the rules and runs them over the runs, for `athlete`.
    func evaluate(athlete: Athlete?) -> Evaluation {
        loader.load()
        present(athlete: athlete)
        defer { withdrawAthlete() }
        return runner.run()
    }

    /// The one way an athlete reaches the rules, once per evaluation (fresh or reused state): what
    /// their measure names stand for (`run.measures`, zones and age grade resolved with the profile),
    /// `ctx.athlete` and the notes of measures the profile leaves unavailable.
    func present(athlete: Athlete?) {
        if measureAthlete != athlete || !measureTableSet {
            runs.measureTable = PackMeasureTable(packs: loader.packs, athlete: athlete)
            measureAthlete = athlete
            measureTableSet = true
        }
        loader.present(athlete: athlete)
    }

    /// Takes the athlete back after the evaluation (nothing of them stays where rules can reach).
    func withdrawAthlete() {
        loader.withdrawAthlete()
    }

    /// The profile `runs.measureTable` was made for (made again only when the next athlete differs).
    private var measureAthlete: Athlete?
    private var measureTableSet = false
}
