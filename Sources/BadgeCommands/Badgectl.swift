import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

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

    /// Tunes the process, then parses the arguments and runs the command (what `main.swift` calls).
    public static func main() {
        ProcessSetup.tuneAllocator()
        main(nil)
    }
}

/// Process-wide settings made once, before any command runs.
enum ProcessSetup {
    /// The largest block glibc's malloc may take from its heap instead of a fresh `mmap`: 32 MiB
    /// (glibc's own maximum). A run's columns (100,000 points: 800 kB each) grow by doubling; by
    /// default every block over 128 kB is a new mapping, zero-filled page by page on first touch and
    /// unmapped when freed, so a one-file `summarize` spent a third of its system time in page faults.
    /// From the heap, freed blocks are used again. Output is unchanged; only where memory comes from.
    static func tuneAllocator() {
        #if canImport(Glibc)
        // `mallopt` is in <malloc.h>, which the Glibc module does not import: look it up in libc.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 32 << 20)
        #endif
    }
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
