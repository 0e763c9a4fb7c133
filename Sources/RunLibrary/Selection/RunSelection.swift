import Foundation
import RunAnalysis
import RunFiles

/// A run that was read but is not handed to the rules, and why; with `pack`, a run that one pack's
/// eligibility left out (the other packs' rules saw it).
public struct ExcludedRun: Codable, Sendable, Equatable {
    public var id: String
    public var sport: String
    public var reason: String
    /// The pack whose `eligibility` left the run out (`indoor`, `no GPS`, ...); nil when no rule saw it
    /// (another sport, implausible). Left out of the JSON when nil.
    public var pack: String?
    public init(id: String, sport: String, reason: String, pack: String? = nil) {
        self.id = id; self.sport = sport; self.reason = reason; self.pack = pack
    }
}

/// Which runs earn badges: running by default (rides, swims and hikes earn no running badges),
/// and never a "run" no runner could have run.
public struct RunSelection: Sendable, Equatable {
    /// Normalised sports to keep; nil keeps every sport.
    public var sports: Set<String>?
    /// Leave out a "run" faster than the world record for its distance (true by default).
    public var excludesImplausible = true

    public init(sports: Set<String>? = ["running"], excludesImplausible: Bool = true) {
        self.sports = sports
        self.excludesImplausible = excludesImplausible
    }

    /// Parses `--sport`: `all`, or a comma-separated list of sports in any spelling files use
    /// (`running,walking`, `Run`, `9`).
    public init(option: String) {
        let words = option.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if words.contains(where: { $0.lowercased() == "all" }) {
            sports = nil
        } else {
            sports = Set(words.map { Sport.normalise($0) })
        }
    }

    /// The fastest average speed a runner has ever held over `meters` (`WorldRecord`, the one table).
    public static func recordSpeed(forDistance meters: Double) -> Double { WorldRecord.speed(forDistance: meters) }

    /// Splits runs into those the rules see and those left out (with a reason). Runs keep their order.
    public func apply(_ runs: [RunSummary]) -> (selected: [RunSummary], excluded: [ExcludedRun]) {
        var selected: [RunSummary] = []
        var excluded: [ExcludedRun] = []
        for run in runs {
            if let sports, !sports.contains(run.sport) {
                excluded.append(ExcludedRun(id: run.id, sport: run.sport, reason: "sport '\(run.sport)' is not chosen (--sport \(sports.sorted().joined(separator: ",")))"))
                continue
            }
            if excludesImplausible, run.sport == "running", let speed = run.speedMetersPerSecond, run.distanceMeters >= WorldRecord.shortestCheckedMeters {
                let limit = RunSelection.recordSpeed(forDistance: run.distanceMeters)
                if speed > limit {
                    excluded.append(ExcludedRun(
                        id: run.id, sport: run.sport,
                        reason: String(format: "implausible for a runner: %.2f m/s average over %.2f km is faster than the world record (%.2f m/s); not counted as a run", speed, run.distanceMeters / 1000, limit)))
                    continue
                }
            }
            selected.append(run)
        }
        return (selected, excluded)
    }
}
