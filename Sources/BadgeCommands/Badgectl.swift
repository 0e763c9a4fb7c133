import ArgumentParser

/// The `badgectl` command. The executable target only calls `Badgectl.main()`.
public struct Badgectl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "badgectl",
        abstract: "A scriptable badge rules engine for runners.",
        discussion: """
            Reads runs (GPX, TCX, FIT, gzip'd or not, and JSON summaries), computes what a runner \
            would want to know about them, and lets Lua rule packs award badges.

            Exit status: 0 when every file was read and every rule ran; \(ExitStatus.partial.rawValue) when \
            anything was skipped (a bad run file, a failing rule) with everything else still reported; \
            \(ExitStatus.failure.rawValue) when nothing could be evaluated (no such folder, unreadable catalogue); \
            \(ExitStatus.testsFailed.rawValue) when `badgectl test` has a failing test or `evaluate --golden` \
            differs from its snapshot.
            """,
        version: "0.1.0",
        subcommands: [
            EvaluateCommand.self, SummarizeCommand.self, ExplainCommand.self, TestCommand.self, NewCommand.self,
            ReportCommand.self, GenerateCommand.self,
        ]
    )

    public init() {}
}

/// badgectl's exit statuses.
public enum ExitStatus: Int32 {
    case success = 0
    /// Nothing could be evaluated.
    case failure = 1
    /// Something was skipped; the rest was reported.
    case partial = 2
    /// `badgectl test`: a test failed or a test file, pack or catalogue did not load
    /// (`badgectl evaluate --golden`: the output differs from the snapshot).
    case testsFailed = 3
}
