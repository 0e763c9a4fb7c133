import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// `badgectl worker`'s stream: JSON lines in (one run each, grouped by athlete, in start order),
/// a header, awards and one status line per athlete out (docs/worker.md). The one engine of
/// `badgectl worker`, `badgectl league`'s map and BadgeKit's `WorkerStream`: it takes lines and hands
/// out output lines (`write`), and prints nothing; the command says each error on stderr (`diagnose`).
///
/// Memory: one athlete's runs at a time (and the name of every athlete already finished, packed, to
/// catch an athlete whose lines are not together: `FinishedAthletes`). Output is flushed after each
/// athlete.
package final class Worker {
    /// What the worker was given: the pipeline (packs, selection, the zone of lines without `tz`,
    /// the cache files are read through) and `--sport` as given (for the header).
    package struct Setup: Sendable {
        package var pipeline: RunPipeline
        package var sport: String
        /// Errors tolerated; one more stops the worker (nil: no limit).
        package var maximumErrors: Int?
        /// `--root`: the folder every `path` must resolve into (links included); relative paths are
        /// taken from it. nil: any path the process can open (docs/worker.md, "What a worker reads").
        package var root: String? = nil
        /// `--state-dir`: where each athlete's saved state lives between invocations (a folder per
        /// athlete, `Worker.stateFolder`); the lines of a batch are added to it (`AthleteEvaluator.add`)
        /// and only what changed is written. nil: every athlete's lines are their whole history.
        package var stateDirectory: String? = nil
        /// `--any-order`: an athlete's runs may come in any order (they are evaluated in start order
        /// all the same); false: a run that starts before the one before it is that line's error.
        package var anyOrder = false
        /// `--threads`: with `--state-dir`, how many athletes' states are changed at once, on threads of
        /// their own while this one reads the next lines (their folders are apart). The output is the
        /// same, line for line, as with 1. With `maximumErrors`, always 1: no athlete past the line
        /// where the worker stops may have been saved.
        package var threads = 1

        package init(pipeline: RunPipeline, sport: String, maximumErrors: Int?, root: String? = nil, stateDirectory: String? = nil,
                     anyOrder: Bool = false) {
            self.pipeline = pipeline
            self.sport = sport
            self.maximumErrors = maximumErrors
            // A root given with a trailing slash is the same folder (messages and paths join it with one).
            self.root = root.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            self.stateDirectory = stateDirectory
            self.anyOrder = anyOrder
        }
    }

    /// How the stream ended.
    package enum Outcome: Equatable, Sendable {
        /// Every line was evaluated.
        case complete
        /// Some lines or rules failed; everything else was evaluated.
        case partial(errors: Int)
        /// More errors than `--max-errors`: the worker stopped at `line`.
        case stopped(line: Int, errors: Int)
    }

    /// One athlete's lines so far.
    struct Athlete: Sendable {
        var name: String
        var firstLine: Int
        /// The pipeline of this athlete's runs: the worker's, or the worker's with the profile their
        /// first line gave (`RunPipeline.with(athlete:)`: their zones and age grade, `ctx.athlete`).
        var pipeline: RunPipeline
        /// The profile their lines gave (nil: `--athlete`'s), fixed by the first (`AthleteGrouping`).
        var profile: RunAnalysis.Athlete?
        var runs: [RunSummary] = []
        /// With `--state-dir`: what the lines ask, in their order (runs to add, runs to take back).
        var steps: [Step] = []
        /// The run ids of the last step when it adds runs.
        var lastStepIDs: Set<String> = []
        /// The line of each run id given, to refuse a second run with the same id.
        var idLines: [String: Int] = [:]
        /// The latest start given so far, and its line (the order check).
        var lastStart: (epoch: Double?, line: Int)?
        var errors = 0
    }

    /// One change to a saved history (`--state-dir`), in line order: a run given again in a batch
    /// (changed, re-typed) starts a step of its own, so that it replaces the one before.
    enum Step: Sendable {
        case add([RunSummary])
        case remove([String])
        /// The whole saved state taken away (`{"forget": true}`).
        case forget
    }

    package let setup: Setup
    /// Takes one output line's bytes (without its newline).
    let write: (UnsafeBufferPointer<UInt8>) -> Void
    let flush: () -> Void
    /// Called with each error's message for a person to read (`line N: ...`; the same is in the
    /// error line written): the command prints it on stderr, a library need not.
    package var diagnose: ((String) -> Void)?
    /// Called with each athlete's name, the profile their lines gave (nil when they gave none), the
    /// runs the rules saw and their evaluation, once its lines are written (`badgectl league`
    /// collects its facts here; the worker itself sets none).
    package var observe: ((_ athlete: String, _ profile: RunAnalysis.Athlete?, _ runs: [RunSummary], _ evaluation: Evaluation) -> Void)?
    /// The lines grouped into athletes, their profiles checked.
    private let grouping = AthleteGrouping(order: .together)
    private var current: Athlete?
    private var errors = 0
    private var stoppedAt: Int?
    /// Where each athlete's runs meet the rules: the packs loaded once and reset between athletes (a
    /// state a rule wrote into is replaced), also for their saved states (`--state-dir`).
    private lazy var evaluator = AthleteEvaluator(pipeline: setup.pipeline, kind: .reused)
    /// With `--state-dir` and more than one thread (`Setup.threads`): where athletes' states change,
    /// each thread with its own loaded packs; results are written in the athletes' order.
    private lazy var pool: OrderedPool<Athlete, SavedOutcome, (AthleteEvaluator, AthleteStore)>? = {
        guard let directory = setup.stateDirectory, setup.threads > 1, setup.maximumErrors == nil else { return nil }
        let pipeline = setup.pipeline
        // Each athlete on the thread that owns their shard.
        return OrderedPool(threads: setup.threads, lane: { AthleteStore.shard(ofAthlete: $0.name) },
                           makeContext: { (AthleteEvaluator(pipeline: pipeline, kind: .reused), AthleteStore(directory: directory)) }) { context, athlete in
            Worker.apply(athlete, savedIn: context.1, evaluator: context.0)
        }
    }()
    /// With `--state-dir` on the worker's own thread: the store, with this thread's connections.
    private lazy var store = setup.stateDirectory.map(AthleteStore.init(directory:))

    /// The award or status line being written (its storage is reused line after line).
    private var pending = WorkerLines.LineBuffer()

    /// `write` takes each output line's bytes (without the newline); `flush` is called after each athlete.
    package init(setup: Setup, write: @escaping (UnsafeBufferPointer<UInt8>) -> Void, flush: @escaping () -> Void) {
        self.setup = setup
        self.write = write
        self.flush = flush
    }

    /// Writes `pending` (an award or status line) and empties it.
    private func writePending() {
        pending.bytes.withUnsafeBufferPointer(write)
        pending.removeAll()
    }


    /// Messages of the errors of lines in sequence (docs/worker.md lists them; those of one line are
    /// `WorkerLine.Message`).
    package enum Message {
        package static func tooLong(_ limit: Int) -> String { "line longer than \(limit) bytes; skipped" }
        static func seenBefore(_ athlete: String) -> String {
            "athlete \(ShownValue.quoted(athlete)) already ended (another athlete's lines came between): an athlete's lines must be together"
        }
        static func outOfOrder(_ start: String, _ line: Int) -> String {
            "run starts at \(start), before the run of line \(line): an athlete's runs must be in start order"
        }
        package static func duplicateID(_ id: String, _ line: Int) -> String { "run id \(ShownValue.quoted(id)) already given on line \(line)" }
        static func stopped(_ limit: Int) -> String { "more than \(limit) error\(limit == 1 ? "" : "s") (--max-errors): stopped here" }
        static let removeNeedsState = "\"remove\" takes a run back from a saved state: it needs --state-dir"
        static let forgetNeedsState = "\"forget\" takes an athlete's saved state away: it needs --state-dir"
        /// Said alike whether or not anything exists outside: nothing outside was looked at.
        static func outsideRoot(_ path: String, link: String?) -> String {
            "\"path\" \(ShownValue.quoted(path)) leads outside --root"
                + (link.map { " through the link \(ShownValue.quoted($0)) (relative to --root)" } ?? "")
                + ": the worker reads only files inside --root"
        }
        static func tooManyLinks(_ path: String, link: String) -> String {
            "\"path\" \(ShownValue.quoted(path)): more than \(ConfinedPath.maximumLinks) links to follow (a loop?) at \(ShownValue.quoted(link))"
        }
    }

    /// Writes the header (and a line per pack that did not load).
    package func start() {
        let packs = setup.pipeline.engine.packs.map {
            WorkerLines.Header.Pack(name: $0.name, version: $0.version, fingerprint: $0.fingerprint, directory: $0.directory)
        }
        pending.append(WorkerLines.Header(badgectl: Version.badgectl, zone: ZoneNames.name(of: setup.pipeline.zone), sport: setup.sport,
                                          packs: packs))
        writePending()
        for failure in setup.pipeline.engine.loadFailures {
            fail(line: nil, athlete: nil, failure.shown())
        }
        flush()
    }

    /// True once `--max-errors` stopped the worker: no more lines are taken.
    package var stopped: Bool { stoppedAt != nil }

    /// Takes line `number` (its bytes, without the newline), read by `WorkerLine.read`.
    package func take(line number: Int, bytes: UnsafeBufferPointer<UInt8>) {
        guard !stopped else { return }
        switch grouping.take(line: number, bytes: bytes) {
        case .blank: return
        case .flush:
            // The athlete read so far is written now, then `{"type":"flushed"}`, always (a driver
            // reads up to it, whatever the lines before it held); who comes next starts afresh, even
            // one seen before (`AthleteGrouping`).
            finishAthlete()
            settle()
            pending.raw(WorkerLines.flushed)
            writePending()
            flush()
        case .refused(let athlete, let message):
            settle()
            fail(line: number, athlete: athlete, message)
        case .line(let name, _, let starts, let line):
            if starts {
                finishAthlete()
                guard !stopped else { return }
                current = Athlete(name: name, firstLine: number, pipeline: setup.pipeline)
            }
            do {
                let (line, profile, fixed) = try line.get()
                if fixed {
                    current?.profile = profile
                    current?.pipeline = evaluator.pipeline(for: profile)
                }
                try add(line, line: number)
            } catch {
                current?.errors += 1
                settle()
                fail(line: number, athlete: name, "\(error)")
            }
        }
    }

    /// A line that is too long to be read: an error on its own (its athlete is not known).
    package func takeTooLong(line number: Int, limit: Int) {
        guard !stopped else { return }
        settle()
        fail(line: number, athlete: nil, Message.tooLong(limit))
    }

    /// The end of the input: evaluates the last athlete. Returns how the stream went.
    package func finish() -> Outcome {
        if !stopped { finishAthlete() }
        settle()
        // The store's connections closed (each database's log checkpointed into it) before the end.
        pool?.close()
        store?.close()
        flush()
        if let line = stoppedAt { return .stopped(line: line, errors: errors) }
        return errors == 0 ? .complete : .partial(errors: errors)
    }

    // MARK: - One line

    struct LineError: Error, CustomStringConvertible {
        var description: String
    }

    /// The path to open for a line's `path`: as given without `--root`; with it, taken from the root
    /// when relative, and refused unless it resolves (links, `..`) inside the root. The run's reader
    /// is still chosen by the name given.
    private func confined(_ path: String) throws -> String {
        guard let root = setup.root else { return path }
        switch ConfinedPath.resolve(path, in: root) {
        case .inside: return path.hasPrefix("/") ? path : root + "/" + path
        case .outside(let link): throw LineError(description: Message.outsideRoot(path, link: link))
        case .tooManyLinks(let link): throw LineError(description: Message.tooManyLinks(path, link: link))
        }
    }

    /// The line's runs, read (through the cache) and localised by the pipeline, appended to the athlete's.
    private func add(_ line: WorkerLine, line number: Int) throws {
        guard let pipeline = current?.pipeline else { return }
        let runs: [RunSummary]
        switch line.source {
        case .remove(let id):
            guard setup.stateDirectory != nil else { throw LineError(description: Message.removeNeedsState) }
            if case .remove(let ids)? = current?.steps.last {
                current?.steps.removeLast()
                current?.steps.append(.remove(ids + [id]))
            } else {
                current?.steps.append(.remove([id]))
            }
            current?.lastStepIDs = []
            return
        case .forget:
            guard setup.stateDirectory != nil else { throw LineError(description: Message.forgetNeedsState) }
            current?.steps.append(.forget)
            current?.lastStepIDs = []
            return
        case .path, .summary:
            runs = try line.runs(number: number, pipeline: pipeline, open: confined)
        }
        if setup.stateDirectory != nil {
            // Uploads in any order (an older run replays the history); a run given again replaces
            // the one before it: a step of its own.
            for run in runs {
                if case .add(var batch)? = current?.steps.last, current?.lastStepIDs.contains(run.id) == false {
                    current?.steps.removeLast()
                    batch.append(run)
                    current?.steps.append(.add(batch))
                } else {
                    current?.steps.append(.add([run]))
                    current?.lastStepIDs = []
                }
                current?.lastStepIDs.insert(run.id)
            }
            return
        }
        // Checked against `current` in place, and appended through it: a copy of the athlete would
        // copy every run so far (quadratic in the athlete's runs).
        var previous = current?.lastStart
        for run in runs {
            if let line = current?.idLines[run.id] { throw LineError(description: Message.duplicateID(run.id, line)) }
            if let last = previous, !setup.anyOrder {
                let later: Bool
                switch (last.epoch, run.startEpochSeconds) {
                case let (before?, now?): later = now >= before
                case (nil, .some): later = false
                default: later = true
                }
                guard later else { throw LineError(description: Message.outOfOrder(run.start ?? "?", last.line)) }
            }
            previous = (run.startEpochSeconds, number)
        }
        for run in runs {
            current?.idLines[run.id] = number
            current?.lastStart = (run.startEpochSeconds, number)
            current?.runs.append(run)
        }
    }

    // MARK: - One athlete

    /// Awards alike for `AwardID`'s occurrence count.
    private struct OccurrenceKey: Hashable {
        let pack, badge, tier, run: String
    }

    private func finishAthlete() {
        guard let athlete = current else { return }
        current = nil
        if let store {
            if let pool {
                pool.submit(athlete, deliver: report)
                pool.deliverReady(report)
            } else {
                report(Worker.apply(athlete, savedIn: store, evaluator: evaluator))
            }
            return
        }
        let profile = athlete.profile
        let outcome = evaluator.evaluate(athlete.runs, profile: profile)
        let (evaluation, selection) = (outcome.evaluation, outcome.selection)
        observe?(athlete.name, profile, selection.selected, evaluation)
        writeAwards(evaluation.awards, of: athlete.name, type: "award")
        finish(athlete.name, evaluation: evaluation, runs: selection.selected.count, awards: evaluation.awards.count,
               errors: athlete.errors, excluded: selection.excluded.count, duplicates: selection.duplicates.count)
    }

    /// An athlete's end, with or without `--state-dir`: their rule failures as error lines (pack
    /// load failures were reported once, in the header's lines), then their status line, flushed.
    private func finish(_ athlete: String, evaluation: Evaluation?, runs: Int, awards: Int, errors: Int, excluded: Int, duplicates: Int) {
        let failures = evaluation?.failures.dropFirst(setup.pipeline.engine.loadFailures.count) ?? []
        for failure in failures {
            fail(line: nil, athlete: athlete, failure.shown())
        }
        var progress: [WorkerLines.Progress] = []
        progress.reserveCapacity(evaluation?.statuses.count ?? 0)
        for status in evaluation?.statuses ?? [] {
            guard let made = status.progress else { continue }
            progress.append(WorkerLines.Progress(pack: status.pack, badge: status.badge, current: made.current, target: made.target,
                                                 unit: made.unit, hint: status.hint))
        }
        pending.append(WorkerLines.Status(
            athlete: athlete, runs: runs, awards: awards, errors: errors + failures.count,
            excluded: excluded, duplicates: duplicates, next: evaluation?.nexts ?? [], progress: progress))
        writePending()
        flush()
    }

    /// What applying an athlete's steps to their saved state gave (`apply`), for `report`.
    struct SavedOutcome: Sendable {
        var athlete: String
        var added: [Award] = [], withdrawn: [Award] = []
        /// The last step's update (the status of the history now), nil when no step changed anything.
        var last: StateUpdate?
        var excluded = 0, duplicates = 0, errors = 0
        /// Why the state could not be read or written (that athlete's error), nil when it could.
        var failure: String?
    }

    /// Writes every athlete's lines still out on other threads (`Setup.threads`), in order, waiting
    /// for them: before a line of the worker's own (an error, `flushed`) and at the end, so that the
    /// output is the one of a single thread.
    private func settle() {
        pool?.drain(report)
    }

    /// `--state-dir`: the athlete's steps applied to their saved state (made by the first batch that
    /// names them), in line order, with `evaluator` (the worker's, or a thread's own): the awards given
    /// and withdrawn by the whole batch, and the status of the history now. A state that cannot be read
    /// or written is that athlete's error; the others go on.
    static func apply(_ athlete: Athlete, savedIn states: AthleteStore, evaluator: AthleteEvaluator) -> SavedOutcome {
        let profile = athlete.profile
        var outcome = SavedOutcome(athlete: athlete.name, errors: athlete.errors)
        do {
            let store = try states.state(ofAthlete: athlete.name)
            // One step: what it changed. Several: the awards before and after, compared.
            let before = athlete.steps.count > 1 && store.exists ? try store.awards() : []
            for step in athlete.steps {
                switch step {
                case .add(let runs):
                    let selection = evaluator.select(runs, profile: profile)
                    outcome.excluded += selection.excluded.count
                    outcome.duplicates += selection.duplicates.count
                    if store.exists {
                        // A run given again that no longer counts (a ride now) leaves the history.
                        outcome.last = try evaluator.add(selection, to: store, profile: profile, withdrawing: selection.noLongerCounted)
                    } else {
                        outcome.last = try evaluator.start(selection, in: store, profile: profile)
                    }
                case .remove(let ids):
                    // A run the state does not hold (never given, a ride, removed before): nothing to take back.
                    guard store.exists else { continue }
                    let held = try store.holds(Set(ids))
                    if held.isEmpty { continue }
                    outcome.last = try evaluator.remove(ids.filter(held.contains), from: store, profile: profile).update
                case .forget:
                    // Every award they held is taken back; nothing is left of them.
                    guard store.exists else { continue }
                    let held = try store.awards()
                    try store.forget()
                    outcome.last = nil
                    if athlete.steps.count == 1 { (outcome.added, outcome.withdrawn) = ([], held) }
                    continue
                }
                if athlete.steps.count == 1, let update = outcome.last { (outcome.added, outcome.withdrawn) = (update.added, update.withdrawn) }
            }
            if athlete.steps.count > 1 {
                (outcome.added, outcome.withdrawn) = IncrementalEvaluator.difference(before: before, after: store.exists ? try store.awards() : [])
            }
        } catch {
            outcome.errors += 1
            outcome.failure = "\(error)"
        }
        return outcome
    }

    /// Writes what `apply` gave: the state's error if any, the `withdrawn` and `award` lines, the status.
    private func report(_ outcome: SavedOutcome) {
        if let failure = outcome.failure { fail(line: nil, athlete: outcome.athlete, failure) }
        writeAwards(outcome.withdrawn, of: outcome.athlete, type: "withdrawn")
        writeAwards(outcome.added, of: outcome.athlete, type: "award")
        finish(outcome.athlete, evaluation: outcome.last?.evaluation, runs: outcome.last?.runCount ?? 0, awards: outcome.last?.awardCount ?? 0,
               errors: outcome.errors, excluded: outcome.excluded, duplicates: outcome.duplicates)
    }

    /// Award lines (`type` `award`, or `withdrawn` for one taken back), with their `AwardID`s.
    private func writeAwards(_ awards: [Award], of athlete: String, type: String) {
        var occurrences: [OccurrenceKey: Int] = [:]
        for award in awards {
            let key = OccurrenceKey(pack: award.pack, badge: award.badge, tier: award.tier, run: award.run)
            let occurrence = (occurrences[key] ?? 0) + 1
            occurrences[key] = occurrence
            let id = AwardID.make(pack: award.pack, athlete: athlete, badge: award.badge, tier: award.tier, run: award.run, occurrence: occurrence)
            pending.append(WorkerLines.Award(type: type, athlete: athlete, badge: award.badge, tier: award.tier, run: award.run, at: award.at,
                                             awardID: id, pack: award.pack, packVersion: award.packVersion, rule: award.rule,
                                             detail: award.detail, evidence: award.evidence))
            writePending()
        }
    }

    /// Writes an error line (and tells `diagnose` the same); past `--max-errors`, stops the worker.
    private func fail(line: Int?, athlete: String?, _ message: String) {
        errors += 1
        pending.append(WorkerLines.Failure(line: line, athlete: athlete, message: message))
        writePending()
        // Messages from the line's reader start with "line N" already.
        let prefix = line.map { "line \($0)" }
        diagnose?((prefix.map { message.hasPrefix($0 + " ") || message.hasPrefix($0 + ":") ? "" : $0 + ": " } ?? "") + message)
        if let limit = setup.maximumErrors, errors > limit, stoppedAt == nil {
            stoppedAt = line ?? 0
            let at = line ?? 0
            pending.append(WorkerLines.Failure(line: line, athlete: athlete, message: Message.stopped(limit)))
            writePending()
            diagnose?("line \(at): " + Message.stopped(limit))
        }
    }
}
