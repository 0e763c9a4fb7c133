import Foundation
import RunAnalysis
import RunFiles

/// The worker's input lines grouped into athletes: the one reading of these lines into athletes, for
/// the worker (`Worker.take`, and so `badgectl league`'s map) and `diff --worker-input`. Each line is
/// read (`WorkerLine.read`, zones by name kept), given to its athlete, and checked against the profile
/// the athlete's first line fixed (`WorkerLine.Profiles`); what the athletes' runs then earn is
/// `AthleteEvaluator`'s.
///
/// Two orders: `.together` (the worker: an athlete's lines come together, a name that comes back
/// after another athlete's lines is refused, docs/worker.md "Grouping"; `{"flush": true}` ends the
/// athlete and lets any come again), `.anyOrder` (`diff --worker-input`: lines of an athlete may be
/// anywhere; an athlete is theirs from the first line read without error).
package final class AthleteGrouping {
    package enum Order {
        case together
        case anyOrder
    }

    /// The longest line read (a JSON run summary and the rest of its line); a longer one is skipped.
    package static let maximumLineBytes = SummaryReader.maximumBytes + 4096

    /// What a line is to its athlete.
    package enum Taken {
        /// Only blanks.
        case blank
        /// `{"flush": true}` (with `.together`: the athlete being read ends here).
        case flush
        /// A line that names no athlete, or (`.together`) names one whose lines already ended.
        case refused(athlete: String?, message: String)
        /// A line of `athlete`, the `ordinal`th athlete read (from 0); `starts` when it is their first
        /// (with `.together`, the athlete before them ended). Its run and the athlete's profile (nil:
        /// `--athlete`'s), with `fixed` when this line fixed it; or why the line cannot be used.
        case line(athlete: String, ordinal: Int, starts: Bool, Result<(run: WorkerLine, profile: Athlete?, fixed: Bool), WorkerLine.LineError>)
    }

    package let order: Order
    private var zones: [String: TimeZone] = [:]
    /// `.together`: the athlete being read and their profile; the names of those finished.
    private var current: (name: String, profiles: WorkerLine.Profiles)?
    private var finished = FinishedAthletes()
    /// `.anyOrder`: each athlete's number and profile.
    private var known: [String: (ordinal: Int, profiles: WorkerLine.Profiles)] = [:]
    private var count = 0

    package init(order: Order) {
        self.order = order
    }

    /// Takes line `number` (its bytes, without the newline).
    package func take(line number: Int, bytes: UnsafeBufferPointer<UInt8>) -> Taken {
        switch WorkerLine.read(bytes, number: number, zone: zone(named:)) {
        case .blank: return .blank
        case .flush:
            if order == .together {
                // Who comes next starts afresh, even one seen before.
                current = nil
                finished = FinishedAthletes()
            }
            return .flush
        case .unnamed(let message):
            return .refused(athlete: nil, message: message)
        case .named(let name, let result):
            switch order {
            case .together: return together(name, result, number: number)
            case .anyOrder: return anyOrder(name, result, number: number)
            }
        }
    }

    private func together(_ name: String, _ result: Result<WorkerLine, WorkerLine.LineError>, number: Int) -> Taken {
        var starts = false
        if current?.name != name {
            if finished.contains(name) { return .refused(athlete: name, message: Worker.Message.seenBefore(name)) }
            if let ended = current?.name { finished.insert(ended) }
            current = (name, WorkerLine.Profiles())
            count += 1
            starts = true
        }
        var profiles = current?.profiles ?? WorkerLine.Profiles()
        let taken = result.flatMap { Self.profile(of: $0, number: number, athlete: name, in: &profiles) }
        current?.profiles = profiles
        return .line(athlete: name, ordinal: count - 1, starts: starts, taken)
    }

    private func anyOrder(_ name: String, _ result: Result<WorkerLine, WorkerLine.LineError>, number: Int) -> Taken {
        guard case .success(let run) = result else {
            return .line(athlete: name, ordinal: known[name]?.ordinal ?? -1, starts: false, result.map { ($0, nil, false) })
        }
        let starts = known[name] == nil
        if starts {
            known[name] = (count, WorkerLine.Profiles())
            count += 1
        }
        let ordinal = known[name]?.ordinal ?? 0
        var profiles = known[name]?.profiles ?? WorkerLine.Profiles()
        let taken = Self.profile(of: run, number: number, athlete: name, in: &profiles)
        known[name]?.profiles = profiles
        return .line(athlete: name, ordinal: ordinal, starts: starts, taken)
    }

    /// `run` checked against the athlete's profile (`WorkerLine.Profiles.take`, which the athlete's
    /// first line read without error fixes): the profile (nil: `--athlete`'s) and whether this line
    /// fixed it, or why the line's profile is refused.
    private static func profile(of run: WorkerLine, number: Int, athlete: String, in profiles: inout WorkerLine.Profiles)
        -> Result<(run: WorkerLine, profile: Athlete?, fixed: Bool), WorkerLine.LineError> {
        let fixes = profiles.fixed == nil
        do {
            return .success((run, try profiles.take(run, number: number, athlete: athlete), fixes))
        } catch let error as WorkerLine.LineError {
            return .failure(error)
        } catch {
            return .failure(WorkerLine.LineError(description: "\(error)"))
        }
    }

    /// A `tz` as a zone (the zones met are kept, up to 1,024).
    private func zone(named name: String) throws -> TimeZone {
        if let known = zones[name] { return known }
        guard let zone = ZoneNames.zone(named: name) else { throw WorkerLine.LineError(description: WorkerLine.Message.unknownZone(name)) }
        if zones.count < 1024 { zones[name] = zone }
        return zone
    }
}
