import ArgumentParser
import BadgePipeline
import Foundation
import RunFiles
#if canImport(Glibc)
import Glibc
#endif

/// `badgectl worker`: the per-shard worker of a distributed job (docs/worker.md).
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Evaluate many athletes from JSON lines on stdin: awards and a status per athlete as JSON lines.",
        discussion: """
            Each input line is one run: {"athlete": ..., "tz": ..., "path": FILE} or {"athlete": ..., "tz": ..., \
            "summary": {...}} (a JSON run summary), an athlete's lines together and in start order. Writes a \
            header line (the packs' fingerprints), one line per award (with a stable award_id), one status line \
            per athlete, and an error line for each bad line, naming it; a bad line costs only itself. \
            Output is flushed after each athlete. Exit status 2 when any line or rule failed, 1 when \
            --max-errors stopped the worker. Give --root DIR so that lines can name only files inside DIR. \
            The line format is in docs/worker.md.

            With --state-dir DIR each athlete's history is kept between invocations (a saved state per \
            athlete, as evaluate --state makes, in the store DIR/~store; add, remove, explain and report \
            reach one as --state DIR/ATHLETE): a batch's lines are added to it, {"athlete": ..., \
            "remove": RUN} lines take runs back, {"athlete": ..., "forget": true} takes an athlete's whole \
            state away, a run given again replaces the one saved, and only what \
            changed is written: award lines for awards given, withdrawn lines for awards taken back, \
            and the status of the whole history.

            Examples:
              badgectl worker --root /data < runs.jsonl > awards.jsonl
              badgectl worker --state-dir /var/lib/badgectl/athletes < uploads.jsonl >> changes.jsonl

            \(ExitStatus.help)
            """
    )

    @OptionGroup var options: StreamOptions

    @OptionGroup var asOf: AsOfOptions

    @Option(name: .long, help: ArgumentHelp(
        "Stop after this many errors (bad lines, failed rules): the error past it ends the worker with status 1.",
        valueName: "count"))
    var maxErrors: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Read run files only inside this folder: a line's relative \"path\" is taken from it; a path (links and '..' resolved) outside it is an error line. Without it, the worker opens any path it is given (docs/worker.md).",
        valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "An athlete's runs may come in any order (they are evaluated in start order all the same).")
    var anyOrder = false

    @Option(name: .long, help: ArgumentHelp(
        "Keep each athlete's history here between invocations: lines add to it (or \"remove\" runs from it), and only the awards given and withdrawn are written.",
        valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp(
        "With --state-dir: how many athletes' states to change at once, on threads of their own (default: two per CPU, at most 16). The output is the same line for line; with --max-errors, 1.",
        valueName: "count"))
    var threads: Int?

    @OptionGroup var cacheOptions: CacheOptions<SummaryCache>

    func validate() throws {
        if stateDir != nil, asOf.asOf != nil { throw ValidationError("--as-of cuts a whole history: it cannot be used with --state-dir") }
        if let maxErrors, maxErrors < 0 { throw ValidationError("--max-errors must be 0 or more") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be 1 to 256") }
        if let root {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--root \(ShownName.of(root)): no such folder")
            }
        }
    }

    func run() throws {
        let pipeline = try EvaluationPipeline(options, failures: .printAndExit, asOf: try asOf.date())
        var runs = pipeline.runs
        runs.cache = cacheOptions.open()
        var setup = Worker.Setup(pipeline: runs, sport: options.selection.sport, maximumErrors: maxErrors, root: root,
                                 stateDirectory: stateDir, anyOrder: anyOrder)
        // Two per CPU: while one waits for its state to reach the disk, the other evaluates. At most
        // 16 (each holds its own loaded packs; past that the disk, not the CPUs, sets the pace).
        setup.threads = threads ?? min(16, 2 * ProcessInfo.processInfo.activeProcessorCount)
        var output: [UInt8] = []
        output.reserveCapacity(1 << 16)
        let worker = Worker(setup: setup, write: { line in
            output.append(contentsOf: line)
            output.append(0x0A)
        }, flush: {
            WorkerCommand.writeAll(output, to: 1)
            output.removeAll(keepingCapacity: true)
        })
        // Each error line is said on stderr too.
        worker.diagnose = { Console.error(CommandError.prefix + $0) }
        worker.start()
        if let readError = WorkerCommand.feed(worker, from: 0) {
            Console.error(CommandError.prefix + "cannot read stdin: \(readError)")
            _ = worker.finish()
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        let outcome = worker.finish()
        EvaluationPipeline.printWarnings(of: runs.cache)
        if outcome != .complete { throw ExitCode(WorkerCommand.exitStatus(of: outcome).rawValue) }
    }

    /// The exit status of how the stream ended: 0 when every line was evaluated, 2 when some line or
    /// rule failed, 1 when `--max-errors` stopped it.
    static func exitStatus(of outcome: Worker.Outcome) -> ExitStatus {
        switch outcome {
        case .complete: return .success
        case .partial: return .partial
        case .stopped: return .failure
        }
    }

    /// Writes every byte to `descriptor` (a pipe takes a large write in parts), retrying on EINTR.
    /// Feeds every line of `descriptor` to `worker`, in order (the longest line taken is a summary's
    /// cap plus room for its fields); a read error is returned. The worker's stdin goes through here,
    /// and so does the fuzz target FuzzWorker (`Entrances.workerLines`).
    static func feed(_ worker: Worker, from descriptor: Int32) -> String? {
        let limit = AthleteGrouping.maximumLineBytes
        return LineReader(descriptor: descriptor, maximumBytes: limit).forEach { item in
            switch item {
            case .line(let number, let bytes): worker.take(line: number, bytes: bytes)
            case .tooLong(let number): worker.takeTooLong(line: number, limit: limit)
            }
        }
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
