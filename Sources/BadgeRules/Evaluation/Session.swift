import Foundation
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

    init(packs: [RulePack], catalogue: Catalogue, limits: RuleEngine.Limits, runs: [RunSummary], athlete: Athlete? = nil,
         zone: String = "UTC") throws {
        let lua = try LuaState(limits: limits)
        self.lua = lua
        sandbox = PackSandbox(lua: lua)
        self.runs = RunTable(lua: lua, runs: runs, measureTable: PackMeasureTable(packs: packs, athlete: athlete))
        let notes = NoteLog()
        loader = RuleLoader(sandbox: sandbox, runs: self.runs, notes: notes, packs: packs, catalogue: catalogue, athlete: athlete, zone: zone)
        runner = RuleRunner(loader: loader, states: FoldStates(runs: self.runs, sandbox: sandbox))
        host = HostFunctions(lua: lua, sandbox: sandbox, runs: self.runs, notes: notes)
        host.loader = loader
        host.runner = runner
        try sandbox.loadPrelude()
    }

    /// Loads the rules and runs them over the runs.
    func evaluate() -> Evaluation {
        loader.load()
        return runner.run()
    }
}
