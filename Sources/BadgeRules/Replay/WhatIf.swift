import Foundation
import RunAnalysis
import RunFiles
import RunFixtures

/// What a run would earn if it were run next (`badgectl whatif`): a hypothetical even-paced run (made
/// by RunFixtures' generator, so it has splits, efforts, checkpoints and measures like a real one) is
/// added to a history and the history evaluated with and without it.
public enum WhatIf {
    /// The run to imagine.
    public struct Run: Sendable, Equatable {
        /// The distance (m): the length of the generated path.
        public var distanceMeters: Double
        /// The time (s) the distance takes at an even pace.
        public var elapsedSeconds: Double
        /// The start (s since 1970, UTC).
        public var startEpochSeconds: Double
        /// The UTC offset of the start (its local date and time: `local_date`, `local_start`).
        public var utcOffsetSeconds: Int
        /// The climb (m): the summary's `elevation.gain_m` (and loss: the run ends where it started,
        /// in height); nil: a flat run.
        public var elevationGainMeters: Double?
        /// The run's id in the evaluation (awards name it).
        public var id: String

        public init(distanceMeters: Double, elapsedSeconds: Double, startEpochSeconds: Double, utcOffsetSeconds: Int,
                    elevationGainMeters: Double? = nil, id: String = "what-if") {
            self.distanceMeters = distanceMeters; self.elapsedSeconds = elapsedSeconds
            self.startEpochSeconds = startEpochSeconds; self.utcOffsetSeconds = utcOffsetSeconds
            self.elevationGainMeters = elevationGainMeters; self.id = id
        }

        /// Its even pace (s/km).
        public var paceSecondsPerKilometre: Double { elapsedSeconds / (distanceMeters / 1000) }
    }

    /// What the run would change.
    public struct Outcome: Sendable, Equatable {
        /// The hypothetical run as the rules saw it.
        public var run: RunSummary
        /// The awards the run itself would be given (tier, detail, evidence), in evaluation order.
        public var awards: [Award]
        /// Every change to the badge wall, the run's own awards included: a `best` that moves to it,
        /// an award made in `finish` that changes.
        public var changes: AwardDiff
        /// The evaluation of the history alone, and with the run.
        public var before: Evaluation
        public var after: Evaluation
    }

    /// How much slower than asked the run is generated (a relative share; see `summary(of:analyzer:)`).
    public static let slowdown = 1e-4
    /// How far past the distance asked the path goes (m; see `summary(of:analyzer:)`).
    public static let overrunMeters = 1.0

    /// The hypothetical run's summary: generated (even pace, no GPS noise, one point a second) and
    /// analysed with `analyzer` (its checkpoints and measures), then given the climb asked for.
    /// Measure kinds that depend on where the run goes: nil in a what-if, whose path is invented.
    public static let whereKinds: Set<String> = [MeasureKind.place.name, MeasureKind.segment.name, MeasureKind.tiles.name]

    public static func summary(of run: Run, analyzer: RunAnalyzer) -> RunSummary {
        // Exact boundaries resolve as the rules' strict comparisons say (not more than the distance,
        // not faster than the pace), and an even run is not a negative split: the run is generated
        // 0.01% slower than asked and slowing down by 0.01% from start to end (an even run's halves
        // and efforts otherwise differ from the pace asked by milliseconds either way, as positions
        // are rounded the way a device writes them). The path goes a metre past the distance asked,
        // so that efforts of exactly that distance exist (a winding path measures a little shorter
        // than it is); the summary's distance and time are then those at the distance asked.
        let distance = max(run.distanceMeters, 0)
        let pace = distance > 0 ? run.elapsedSeconds / (distance / 1000) * (1 + WhatIf.slowdown) : 0
        var generator = RunGenerator(seed: 20, distanceMeters: distance + WhatIf.overrunMeters, paceSecondsPerKilometre: pace)
        generator.paceVariation = 0
        generator.paceRamp = WhatIf.slowdown
        generator.gpsNoiseMeters = 0
        generator.hillAmplitudeMeters = 0
        generator.startEpochSeconds = run.startEpochSeconds
        generator.utcOffsetSeconds = run.utcOffsetSeconds
        generator.name = "What if"
        var summary = analyzer.summarize(generator.track(), id: run.id, zoneOffsetSeconds: run.utcOffsetSeconds)
        if distance > 0, abs(summary.distanceMeters - distance) <= WhatIf.overrunMeters + distance * 1e-3 {
            let elapsed = run.elapsedSeconds * (1 + WhatIf.slowdown)
            summary.distanceMeters = distance
            summary.elapsedSeconds = elapsed
            summary.timerSeconds = elapsed
            summary.movingSeconds = elapsed
            summary.speedMetersPerSecond = distance / elapsed
            summary.paceSecondsPerKilometre = elapsed / (distance / 1000)
            summary.movingPaceSecondsPerKilometre = summary.paceSecondsPerKilometre
            summary.paceSecondsPerMile = elapsed / (distance / Units.metresPerMile)
        }
        // Where the run goes is invented (the generator's winding path): measures of where (places
        // passed, segments, map tiles) would be made up, so they are nil, as for a run without positions.
        for definition in analyzer.measures where WhatIf.whereKinds.contains(definition.kind) {
            summary.measures[definition.key] = nil
        }
        if let gain = run.elevationGainMeters {
            let base = generator.baseElevationMeters
            summary.elevation = Elevation(gainMeters: gain, lossMeters: gain, minMeters: base, maxMeters: base + gain / 2)
        }
        return summary
    }

    /// Evaluates `history` with `engine`, then `history` plus `run`, and says what the run changes.
    /// `analyzer` should be the one the history was read with (same checkpoints and measures).
    public static func evaluate(_ run: Run, history: [RunSummary], engine: RuleEngine, analyzer: RunAnalyzer) -> Outcome {
        var hypothetical = summary(of: run, analyzer: analyzer)
        // An id no run of the history has.
        let ids = Set(history.map(\.id))
        var id = hypothetical.id, number = 1
        while ids.contains(id) { number += 1; id = "\(hypothetical.id)-\(number)" }
        hypothetical.id = id
        let before = engine.evaluate(runs: history)
        let after = engine.evaluate(runs: history + [hypothetical])
        return Outcome(run: hypothetical, awards: after.awards.filter { $0.run == id },
                       changes: AwardDiff(current: before.awards, candidate: after.awards), before: before, after: after)
    }
}
