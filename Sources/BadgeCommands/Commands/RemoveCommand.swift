import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunFiles

/// `badgectl remove --state DIR RUN...`: takes runs back out of a saved state.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Take runs out of a saved state (evaluate --state DIR): their awards are withdrawn.",
        discussion: """
            A run is named by its id, as `evaluate --state` and `add` list it (the file's path \
            relative to the folder evaluated), or by its file's path. The history left is evaluated \
            again, so the state is what `evaluate --state` over it makes: the awards the runs earned are \
            withdrawn, and awards that follow without them (a badge earned by the next longer run, a \
            silver that is one no longer) are given. The output names both, as `add`'s does.

            A run whose file changed (trimmed, edited) is replaced by `add`ing the file again; one \
            re-typed as another sport (a ride) or now implausible leaves the history when `add`ed again.

            Without --rules, --badges, --athlete and --tz, the ones the state was made with, as for `add`.

            Examples:
              badgectl remove --state ~/.local/state/badgectl 2026/11-24-tempo.fit
              badgectl remove --state ~/.local/state/badgectl ~/runs/2026/11-24-tempo.fit --format json

            \(ExitStatus.help) A run the state does not hold is skipped (status 2); when it holds none of \
            them, nothing changes (status 1).
            """
    )

    @Option(name: .long, help: ArgumentHelp("The state folder `evaluate DIR --state` made.", valueName: "dir"))
    var state: String

    @Argument(help: ArgumentHelp("Runs to remove: ids as the state lists them, or their files' paths.", valueName: "run"))
    var runIDs: [String] = []

    @Flag(name: .long, help: "Also list every award of the history (JSON `awards`, a table for people).")
    var allAwards = false

    @OptionGroup var options: StreamOptions

    @Option(name: .long, help: "Output format: table (for people) or json (removed runs, new and withdrawn awards, statuses, next).")
    var format: OutputFormat = .table

    func validate() throws {
        if runIDs.isEmpty { throw ValidationError("give the runs to remove (their ids or files)") }
    }

    func run() throws {
        let store = StateStore.at(state)
        let (saved, zone, pipeline) = try AddCommand.open(store, options: options)
        // A path names the run `evaluate` read from it: relative to the folder it evaluated.
        let ids = runIDs.map { AddCommand.id(of: $0, folder: saved?.folder) }
        let (update, unknown) = try EvaluationPipeline.guarding(.printAndExit) { try AthleteEvaluator(pipeline: pipeline.runs).remove(ids, from: store) }
        let history = allAwards ? try EvaluationPipeline.guarding(.printAndExit) { try store.awards() } : nil
        var report = AddReport(update: update, pipeline: pipeline, zone: zone, selected: [], excluded: [], duplicates: [], errors: [], awards: history)
        report.removed = ids.filter { !unknown.contains($0) }
        switch format {
        case .json: print(try report.json())
        case .table: print(report.table())
        }
        for id in unknown { Console.error(CommandError.skipped + "\(ShownName.of(id)): no such run in the state \(ShownName.of(state))") }
        for failure in update.evaluation.failures { Console.error(CommandError.failed(failure)) }
        if !unknown.isEmpty || !update.evaluation.failures.isEmpty { throw ExitCode(ExitStatus.partial.rawValue) }
    }
}
