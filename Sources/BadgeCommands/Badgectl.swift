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
            ReportCommand.self, GenerateCommand.self, DiffCommand.self, WhatifCommand.self, WorkerCommand.self, AddCommand.self, LeagueCommand.self,
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
    /// glibc's malloc, tuned for a short process that reads large runs.
    ///
    /// By default every block over 128 kB is a fresh `mmap`, zero-filled page by page on first touch
    /// and unmapped when freed. A run's columns (100,000 points: 800 kB each) grow by doubling, so a
    /// one-file `summarize` spent a third of its system time in page faults. Blocks up to 32 MiB
    /// (glibc's maximum) now come from the heap, and freed memory stays there to be used again: the
    /// trim threshold and top pad must rise with it, or each worker thread's heap is grown and
    /// trimmed over and over (a cold `evaluate` of 1,000 runs then spent 5x the system time).
    /// Output is unchanged; only where memory comes from. Against the readers' memory budget
    /// (`MemoryBudget`, 1.25 GiB, so that the process stays under 2 GB): blocks of 32 MiB and more (the
    /// columns of a run over 4 million points, a gzip bomb's buffers) are still mmapped and given back
    /// when freed, and what a worker's heap keeps is reused by its next file (measured: six 3.5-million-
    /// point runs, columns just under 32 MiB, peak 480 MB; three 10.5-million-point gzip bombs, 830 MB).
    static func tuneAllocator() {
        #if canImport(Glibc)
        // `mallopt` is in <malloc.h>, which the Glibc module does not import: look it up in libc.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let trimThreshold: Int32 = -1, topPad: Int32 = -2, mmapThreshold: Int32 = -3  // M_* in <malloc.h>
        _ = mallopt(mmapThreshold, 32 << 20)
        _ = mallopt(trimThreshold, 512 << 20)
        _ = mallopt(topPad, 16 << 20)
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
    /// `badgectl diff`: the current or the candidate packs do not load (a path without a pack, a pack
    /// without pack.lua, a pack.lua or rule file that fails to load): the comparison is not of the
    /// packs asked for.
    case packsDoNotLoad = 4
}
