import BadgePipeline

/// `badgectl worker` as a library (docs/worker.md): JSON lines in, one run each (`{"athlete", "tz"?,
/// "path" | "summary", "id"?}`, the athlete's profile, `{"flush": true}`, and with a state directory
/// `{"athlete", "remove"}`), and out, to the closure given to `BadgeEngine.workerStream`, exactly the
/// lines the command writes for the same input: a header, the awards, one status per athlete and an
/// error line for each line or rule that failed. It is the command's own stream engine, so an
/// athlete earns here what `badgectl worker` (and `evaluate`) gives them.
///
/// An athlete's lines come together, in start order unless `Options.anyOrder`; an athlete's lines
/// are written once the next athlete's first line, `flush()` or `finish()` comes. A stream holds one
/// athlete's runs at a time and one loaded Lua state: make it, feed it and finish it in one task.
public final class WorkerStream {
    /// What `badgectl worker`'s flags of the same names set.
    public struct Options: Sendable, Equatable {
        /// `--state-dir`: where each athlete's saved state lives between streams (the worker's
        /// store, `DIR/~store`: docs/worker.md). The lines are added to it, `remove` lines take runs back, and only what changed is
        /// written: `award` and `withdrawn` lines, then the status of the whole history. nil: each
        /// athlete's lines are their whole history.
        public var stateDirectory: String?
        /// `--any-order`: an athlete's runs may come in any order (they are evaluated in start order all the same).
        public var anyOrder: Bool
        /// `--root`: the folder every `path` must resolve into (links included); relative paths are taken
        /// from it. nil: any path the process can open. Give it whenever the lines come from elsewhere.
        public var root: String?
        /// `--max-errors`: errors tolerated; one more stops the stream (nil: no limit).
        public var maximumErrors: Int?

        public init(stateDirectory: String? = nil, anyOrder: Bool = false, root: String? = nil, maximumErrors: Int? = nil) {
            self.stateDirectory = stateDirectory
            self.anyOrder = anyOrder
            self.root = root
            self.maximumErrors = maximumErrors
        }
    }

    /// How the stream ended (the command's exit status 0, 2 and 1).
    public enum Outcome: Equatable, Sendable {
        /// Every line was evaluated.
        case complete
        /// Some lines or rules failed (`errors`, each an error line); everything else was evaluated.
        case partial(errors: Int)
        /// More errors than `Options.maximumErrors`: the stream stopped at `line`.
        case stopped(line: Int, errors: Int)
    }

    private let worker: Worker
    /// The lines taken so far (the error lines name them by number, from 1, as the command does).
    private var number = 0
    private var outcome: Outcome?

    init(setup: Worker.Setup, write: @escaping (String) -> Void) {
        worker = Worker(setup: setup, write: { write(String(decoding: $0, as: UTF8.self)) }, flush: {})
        worker.start()
    }

    /// Takes one line (without its newline). Text with newlines in it is taken as that many lines, as
    /// the command reads its input.
    public func take(_ line: String) {
        var line = line
        line.withUTF8 { take(bytes: $0) }
    }

    /// Takes one line's UTF-8 bytes (without its newline), as `take(_:)`.
    public func take(line: some Collection<UInt8>) {
        if line.withContiguousStorageIfAvailable({ take(bytes: $0) }) == nil {
            Array(line).withUnsafeBufferPointer { take(bytes: $0) }
        }
    }

    /// Ends the athlete being read: their lines are written, then `{"type":"flushed"}` (the same as
    /// the line `{"flush": true}`, which this takes; a long-lived stream fed one athlete at a time
    /// calls it after each). Athletes may come again after it.
    public func flush() {
        take(#"{"flush": true}"#)
    }

    /// The end of the input: the last athlete's lines are written. Lines taken after it are ignored.
    @discardableResult
    public func finish() -> Outcome {
        if let outcome { return outcome }
        let ended: Outcome
        switch worker.finish() {
        case .complete: ended = .complete
        case .partial(let errors): ended = .partial(errors: errors)
        case .stopped(let line, let errors): ended = .stopped(line: line, errors: errors)
        }
        outcome = ended
        return ended
    }

    private func take(bytes: UnsafeBufferPointer<UInt8>) {
        guard outcome == nil else { return }
        // One newline at the end ends the line; any other separates lines.
        let end = bytes.last == 0x0A ? bytes.count - 1 : bytes.count
        var start = 0
        for index in 0...end where index == end || bytes[index] == 0x0A {
            number += 1
            let count = index - start
            if count > AthleteGrouping.maximumLineBytes {
                worker.takeTooLong(line: number, limit: AthleteGrouping.maximumLineBytes)
            } else {
                worker.take(line: number, bytes: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
            start = index + 1
        }
    }
}

extension BadgeEngine {
    /// A stream of `badgectl worker`'s lines over this engine (its packs, zone, selection, cache and
    /// profile): `write` is given each output line (without its newline), the header at once. The
    /// header's `sport` is the selection's sports, sorted and joined by commas (`all` for every sport).
    public func workerStream(_ options: WorkerStream.Options = WorkerStream.Options(), write: @escaping (String) -> Void) -> WorkerStream {
        let sport = pipeline.selection.sports.map { $0.sorted().joined(separator: ",") } ?? "all"
        let setup = Worker.Setup(pipeline: pipeline, sport: sport, maximumErrors: options.maximumErrors, root: options.root,
                                 stateDirectory: options.stateDirectory, anyOrder: options.anyOrder)
        return WorkerStream(setup: setup, write: write)
    }
}
