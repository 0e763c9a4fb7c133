import ArgumentParser
import BadgePipeline
import BadgeRules
import Foundation
import RunFiles
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

            Examples:
              badgectl evaluate ~/runs --tz Europe/Paris
              badgectl explain "Ten K" ~/runs

            \(ExitStatus.help)
            """,
        version: BadgePipeline.Version.badgectl,
        subcommands: [
            EvaluateCommand.self, SummarizeCommand.self, ExplainCommand.self, TestCommand.self, NewCommand.self,
            ReportCommand.self, GenerateCommand.self, DiffCommand.self, WhatifCommand.self, WorkerCommand.self, AddCommand.self, RemoveCommand.self,
            LeagueCommand.self, EditorCommand.self, CredentialsCommand.self,
        ]
    )

    public init() {}

    /// Tunes the process, then parses the arguments and runs the command (what `main.swift` calls).
    public static func main() {
        ProcessSetup.tuneAllocator()
        ProcessSetup.failWritesPastTheFileSizeLimit()
        run(Array(CommandLine.arguments.dropFirst()))
    }

    /// Parses `arguments` and runs the command, as `ParsableCommand.main` does, with two differences:
    /// a misspelt subcommand gets "did you mean" (the one suggester, `Suggestion`), and a usage error
    /// a command finds while running (a `ValidationError` from `run()`: `--tz Europe/Pari`, whatif
    /// without `--time`) is printed under that command's own usage, not badgectl's, and exits 64.
    static func run(_ arguments: [String]) -> Never {
        // `--version` and the plain `summarize FILE...`, as the parser would read them (`FastPath`).
        if let invocation = FastPath.parse(arguments) { run(invocation) }
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            if let message = misspeltSubcommand(arguments) {
                Console.error(message)
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
        do {
            try command.run()
        } catch let error as ValidationError {
            Console.error(usageError(error.message, command: type(of: command)))
            Foundation.exit(ExitStatus.usage.rawValue)
        } catch {
            exit(withError: error)
        }
        exit()
    }

    /// `Error: MESSAGE`, then the usage of `command` and where its help is, as the argument parser
    /// prints a usage error of its own.
    static func usageError(_ message: String, command: ParsableCommand.Type) -> String {
        let path = commandPath(command)
        return "Error: \(message)\n" + usageString(for: command).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().map { $0.offset == 0 ? "Usage: " + $0.element : String($0.element) }.joined(separator: "\n")
            + "\n  See '\(path) --help' for more information."
    }

    /// `badgectl new pack`: the names from the root to `command`.
    static func commandPath(_ command: ParsableCommand.Type) -> String {
        func find(_ node: ParsableCommand.Type, _ path: [String]) -> [String]? {
            let here = path + [node.configuration.commandName ?? "badgectl"]
            if node == command { return here }
            for sub in node.configuration.subcommands { if let found = find(sub, here) { return found } }
            return nil
        }
        return (find(Badgectl.self, []) ?? ["badgectl"]).joined(separator: " ")
    }

    /// When an argument where a subcommand is expected names none but is close to one (`evalute`,
    /// `new pak`): the error with "did you mean" and the commands there; nil otherwise.
    static func misspeltSubcommand(_ arguments: [String]) -> String? {
        var node: ParsableCommand.Type = Badgectl.self
        var path = ["badgectl"]
        for argument in arguments {
            let subcommands = node.configuration.subcommands
            guard !subcommands.isEmpty, !argument.hasPrefix("-") else { return nil }
            if let next = subcommands.first(where: { $0.configuration.commandName == argument }) {
                node = next
                path.append(argument)
                continue
            }
            let names = subcommands.compactMap { $0.configuration.commandName }
            if node == Badgectl.self && argument == "help" { return nil }
            let guess = Suggestion.closest(to: argument, in: names)
            let shown = path.count == 1 ? "'\(argument)'" : "'\(argument)' for '\(path.joined(separator: " "))'"
            return "Error: unknown command \(shown)" + (guess.map { "; did you mean '\($0)'?" } ?? "")
                + "\nCommands: \(names.joined(separator: ", "))"
                + "\n  See '\(path.joined(separator: " ")) --help' for more information."
        }
        return nil
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
    /// Kept by issue T's rule with `HugePages` (see there): without both, `summarize --no-cache` of the
    /// 100k-record FIT 12.3 -> 15.4 ms.
    static func failWritesPastTheFileSizeLimit() {
        // Under `ulimit -f`, a write past the limit raises SIGXFSZ, whose default ends the process
        // at once, without a word and with a transaction half written. Ignored, the write fails with
        // EFBIG instead, as on a full disk: the cache leaves a warning and goes on uncached, the
        // saved state's transaction rolls back and the command says why, a league spill stops the
        // command by name.
        #if canImport(Glibc)
        signal(SIGXFSZ, SIG_IGN)
        #endif
    }

    static func tuneAllocator() {
        #if canImport(Glibc)
        // `mallopt` is in <malloc.h>, which the Glibc module does not import: look it up in libc.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let trimThreshold: Int32 = -1, topPad: Int32 = -2, mmapThreshold: Int32 = -3  // M_* in <malloc.h>
        _ = mallopt(mmapThreshold, Int32(HugePages.heapBlockLimit))
        _ = mallopt(trimThreshold, 512 << 20)
        _ = mallopt(topPad, Int32(HugePages.heapTopPad))
        // The heap keeps its room (the trim threshold): a large run may ask for huge pages there.
        HugePages.enabled = true
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
    /// A usage error: an unknown command or option, a value that cannot be read (printed with the
    /// command's usage line).
    case usage = 64

    /// The statuses, for every command's help (the README's "Exit status" says the same).
    static let help = """
        Exit status: 0 when every file was read and every rule ran; 2 when something was skipped (a bad \
        run file, a failing rule) with everything else still reported; 1 when nothing could be evaluated \
        (no such folder, unreadable catalogue); 3 when a pack test fails, a golden file differs or `diff` \
        finds awards that differ; 4 when `diff`'s packs do not load; 64 for a usage error (an unknown \
        command, option or badge, a value that cannot be read).
        """
}
