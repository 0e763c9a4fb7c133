import BadgeRules
import Foundation
import RunAnalysis
import RunFiles
import SyntheticRuns

/// What a run would earn if it were run next (`badgectl whatif`): a hypothetical even-paced run (made
/// by SyntheticRuns' generator, so it has splits, efforts, checkpoints and measures like a real one) is
/// added to a history and the history evaluated with and without it. Here in the pipeline, above the
/// rules: making runs is not the rules host's job, and BadgeRules does not depend on SyntheticRuns.
public enum WhatIf {
    /// A point a what-if run passes through (degrees, WGS84).
    public struct Waypoint: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude; self.longitude = longitude
        }
    }

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
        /// Where the run goes (`WhatIf.route(segment:packs:)`: a segment's own path with a lead-in and a
        /// lead-out; `WhatIf.route(place:packs:distanceMeters:)`: out and back through a place); nil: the generator's invented path, on which measures of where are nil.
        public var route: [Waypoint]?

        public init(distanceMeters: Double, elapsedSeconds: Double, startEpochSeconds: Double, utcOffsetSeconds: Int,
                    elevationGainMeters: Double? = nil, id: String = "what-if", route: [Waypoint]? = nil) {
            self.distanceMeters = distanceMeters; self.elapsedSeconds = elapsedSeconds
            self.startEpochSeconds = startEpochSeconds; self.utcOffsetSeconds = utcOffsetSeconds
            self.elevationGainMeters = elevationGainMeters; self.id = id; self.route = route
        }

        /// Its even pace (s/km).
        public var paceSecondsPerKilometre: Double { elapsedSeconds / (distanceMeters / 1000) }

        /// Why the run cannot be made as asked, with the limits (`WhatIf.distanceRange`, `fastestPace`,
        /// `slowestPace`); nil when it can.
        public var outOfRange: String? {
            let limits = "a what-if run is \(WhatIf.describe(WhatIf.distanceRange)) at a pace from "
                + "\(ClockText.of(WhatIf.fastestPace))/km to \(ClockText.of(WhatIf.slowestPace))/km"
            guard distanceMeters.isFinite, elapsedSeconds.isFinite, WhatIf.distanceRange.contains(distanceMeters) else {
                return "\(limits); this one is \(distanceMeters) m"
            }
            let pace = paceSecondsPerKilometre
            guard pace >= WhatIf.fastestPace, pace <= WhatIf.slowestPace else {
                return "\(limits); this one is \(pace > 0 && pace < 1e7 ? ClockText.of(pace) + "/km" : "\(pace) s/km")"
            }
            guard startEpochSeconds.isFinite, WhatIf.startRange.contains(startEpochSeconds) else {
                return "a what-if run starts from 1970-01-01 to 2099-12-31; this one starts at \(startEpochSeconds) s since 1970"
            }
            if let gain = elevationGainMeters, !(gain.isFinite && gain >= 0) { return "a what-if run's climb is 0 m or more; this one is \(gain) m" }
            return nil
        }
    }

    /// The distances a what-if makes exactly (m): from 100 m to 250 km (about twice the longest
    /// single-stage race people train for). Within these and the paces below, the generated run's
    /// distance and time are within 0.1 % of those asked (WhatIfTests' property test); outside them,
    /// `evaluate` refuses the run (a 1e-9 km run at 5:00 took 3.3 GB and aborted; a metre in 30 minutes
    /// came out as 2.4 m in an hour).
    public static let distanceRange: ClosedRange<Double> = 100...250_000
    /// The fastest even pace a what-if makes (s/km): 1:30/km, faster than the 100 m world record
    /// (9.58 s, 1:36/km). `badgectl whatif` refuses anything faster than the record over the distance,
    /// as `evaluate` leaves such a run out.
    public static let fastestPace = 90.0
    /// The slowest even pace a what-if makes (s/km): 30:00/km, 2 km/h, slower than any walk a runner
    /// would log (a slower one is stopping, not a pace: its points are mostly GPS rounding).
    public static let slowestPace = 1800.0
    /// When a what-if run may start (s since 1970): 1970-01-01 to the end of 2099.
    public static let startRange: ClosedRange<Double> = 0...4_102_444_799

    /// `from 100 m to 250 km`.
    static func describe(_ range: ClosedRange<Double>) -> String {
        func text(_ m: Double) -> String { m < 1000 ? "\(Int(m)) m" : "\(Int(m / 1000)) km" }
        return "from \(text(range.lowerBound)) to \(text(range.upperBound))"
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
    /// How far the generated path's distance and time may be from those asked: 0.1 %.
    public static let tolerance = 1e-3
    /// How far a run along a route (a segment's path) may measure from the distance and time asked: 0.5 %.
    public static let routeTolerance = 5e-3

    /// Measure kinds that depend on where the run goes: nil in a what-if, whose path is invented.
    public static let whereKinds: Set<String> = [MeasureKind.place.name, MeasureKind.segment.name, MeasureKind.tiles.name]

    /// The hypothetical run's summary: generated (even pace, no GPS noise, one point a second) and
    /// analysed with `analyzer` (its checkpoints and measures), then given the climb asked for.
    /// - Throws: `RulesError.whatIf` when the run is out of range (`Run.outOfRange`), or (never within
    ///   range) when the generated run does not measure what was asked.
    public static func summary(of run: Run, analyzer: RunAnalyzer) throws -> RunSummary {
        if let problem = run.outOfRange { throw RulesError.whatIf(reason: problem) }
        // Exact boundaries resolve as the rules' strict comparisons say (not more than the distance,
        // not faster than the pace), and an even run is not a negative split: the run is generated
        // 0.01% slower than asked and slowing down by 0.01% from start to end (an even run's halves
        // and efforts otherwise differ from the pace asked by milliseconds either way, as positions
        // are rounded the way a device writes them). The path goes a metre past the distance asked,
        // so that efforts of exactly that distance exist (a winding path measures a little shorter
        // than it is); the summary's distance and time are then those at the distance asked.
        let distance = run.distanceMeters
        let pace = run.elapsedSeconds / (distance / 1000) * (1 + WhatIf.slowdown)
        var generator = RunGenerator(seed: 20, distanceMeters: distance + WhatIf.overrunMeters, paceSecondsPerKilometre: pace)
        generator.paceVariation = 0
        generator.paceRamp = WhatIf.slowdown
        generator.gpsNoiseMeters = 0
        generator.hillAmplitudeMeters = 0
        generator.startEpochSeconds = run.startEpochSeconds
        generator.utcOffsetSeconds = run.utcOffsetSeconds
        generator.name = "What if"
        if let route = run.route, let first = route.first {
            generator.route = route.map { RunGenerator.Waypoint(latitude: $0.latitude, longitude: $0.longitude) }
            generator.startLatitude = first.latitude
            generator.startLongitude = first.longitude
        }
        var summary = analyzer.summarize(generator.track(), id: run.id, zoneOffsetSeconds: run.utcOffsetSeconds)
        // The path as analysed: within 0.1 % of what was asked (the overrun aside). Never otherwise within
        // the limits; were it, the run would not be the one asked for, so it is an error, not a result.
        let generatedSeconds = (summary.elapsedSeconds ?? .nan) * distance / (distance + WhatIf.overrunMeters)
        // Along a route the generator lays out the path in a plane and the analyzer measures it on the
        // ellipsoid: they differ by a part in a thousand or so over a kilometre, so there both are within
        // `routeTolerance`.
        let allowed = run.route == nil ? WhatIf.tolerance : WhatIf.routeTolerance
        guard abs(summary.distanceMeters - distance - WhatIf.overrunMeters) <= distance * allowed,
              abs(generatedSeconds - run.elapsedSeconds) <= run.elapsedSeconds * allowed else {
            throw RulesError.whatIf(reason: "the run generated for \(distance) m in \(run.elapsedSeconds) s measures "
                                    + "\(summary.distanceMeters) m in \(summary.elapsedSeconds ?? .nan) s")
        }
        let elapsed = run.elapsedSeconds * (1 + WhatIf.slowdown)
        summary.distanceMeters = distance
        summary.elapsedSeconds = elapsed
        summary.timerSeconds = elapsed
        summary.movingSeconds = elapsed
        summary.speedMetersPerSecond = distance / elapsed
        summary.paceSecondsPerKilometre = elapsed / (distance / 1000)
        summary.movingPaceSecondsPerKilometre = summary.paceSecondsPerKilometre
        summary.paceSecondsPerMile = elapsed / (distance / Units.metresPerMile)
        // Where the run goes is invented (the generator's winding path): measures of where (places
        // passed, segments, map tiles) would be made up, so they are nil, as for a run without positions.
        // Along a real path (a segment's), they are the path's.
        if run.route == nil {
            for definition in analyzer.measures where WhatIf.whereKinds.contains(definition.kind) {
                summary.measures[definition.key] = nil
            }
        }
        if let gain = run.elevationGainMeters {
            let base = generator.baseElevationMeters
            summary.elevation = Elevation(gainMeters: gain, lossMeters: gain, minMeters: base, maxMeters: base + gain / 2)
        }
        return summary
    }

    /// A segment's path to run along (`whatif --segment PACK/NAME`): the segment measure NAME of pack PACK.
    public struct SegmentRoute: Sendable {
        /// The waypoints: `leadMeters` before the start gate, the path, `leadMeters` past the end gate.
        public var waypoints: [Waypoint]
        /// The segment's length (m) and the whole route's.
        public var segmentMeters: Double
        public var routeMeters: Double
    }

    /// How far before the start gate a segment what-if starts and past the end gate it ends (m): twice
    /// the segment's tolerance, so that both gates are crossed cleanly.
    static func leadMeters(_ path: SegmentPath) -> Double { 2 * path.tolerance }

    /// The route along segment `reference` (`PACK/NAME`) of `packs`: its path, with a lead-in along the
    /// path's first step backwards and a lead-out along its last step onwards.
    /// - Throws: `RulesError.whatIf` naming the packs or the segment measures there are when none matches.
    public static func route(segment reference: String, packs: [RulePack]) throws -> SegmentRoute {
        let parts = reference.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw RulesError.whatIf(reason: "--segment takes PACK/NAME, a segment measure of a pack (places/park), got '\(reference)'")
        }
        guard let pack = packs.first(where: { $0.name == parts[0] }) else {
            throw RulesError.whatIf(reason: "no pack '\(parts[0])' (packs: \(packs.map(\.name).joined(separator: ", ")))")
        }
        let segments = pack.measures.filter { $0.definition.kind == MeasureKind.segment.name }
        guard let measure = pack.measures.first(where: { $0.name == parts[1] }) else {
            let names = segments.map(\.name)
            throw RulesError.whatIf(reason: "no measure '\(parts[1])' in pack '\(pack.name)' (its segments: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        guard measure.definition.kind == MeasureKind.segment.name, let path = measure.definition.path else {
            throw RulesError.whatIf(reason: "measure '\(measure.name)' of pack '\(pack.name)' is a \(measure.definition.kind), not a segment")
        }
        let n = path.latitudes.count
        let lead = leadMeters(path)
        /// The point `lead` metres from point `a` away from point `b` (in the path's local plane).
        func beyond(_ a: Int, awayFrom b: Int) -> Waypoint {
            let dx = path.x[a] - path.x[b], dy = path.y[a] - path.y[b]
            let length = max((dx * dx + dy * dy).squareRoot(), 1e-9)
            return Waypoint(latitude: path.latitudes[a] + lead * dy / length / path.metresPerDegreeLatitude,
                                         longitude: path.longitudes[a] + lead * dx / length / path.metresPerDegreeLongitude)
        }
        var waypoints = [beyond(0, awayFrom: 1)]
        for i in 0..<n { waypoints.append(Waypoint(latitude: path.latitudes[i], longitude: path.longitudes[i])) }
        waypoints.append(beyond(n - 1, awayFrom: n - 2))
        return SegmentRoute(waypoints: waypoints, segmentMeters: path.length, routeMeters: path.length + 2 * lead)
    }

    /// The furthest from the equator a route through a place goes (degrees): past it, the run's far
    /// end is the place itself (see `route(place:packs:distanceMeters:)`).
    static let placeRouteLatitude = 85.0

    /// The route through place `reference` (`PACK/NAME`, a place measure of a pack) for a run of
    /// `distanceMeters` (`whatif --place PACK/NAME --distance …`): out and back along the meridian, from
    /// a quarter of the distance on the equator's side of the place, through it, a quarter beyond and
    /// back through it again (two visits). When the far end would pass `placeRouteLatitude`, the run
    /// goes out from half the distance on the equator's side and turns at the place (one visit).
    /// - Throws: `RulesError.whatIf` naming the packs, or the pack's places with the closest name, when
    ///   none matches.
    public static func route(place reference: String, packs: [RulePack], distanceMeters: Double) throws -> [Waypoint] {
        let parts = reference.split(separator: "/", maxSplits: 1).map(String.init)
        let places = packs.flatMap { pack in
            pack.measures.filter { $0.definition.kind == MeasureKind.place.name }.map { "\(pack.name)/\($0.name)" }
        }
        let listed = "places: " + (places.isEmpty ? "none in the packs" : places.joined(separator: ", "))
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw RulesError.whatIf(reason: "--place takes PACK/NAME, a place measure of a pack (places/fountain), got '\(reference)' (\(listed))")
        }
        let guess = Suggestion.closest(to: reference, in: places).map { "; did you mean '\($0)'?" } ?? ""
        guard let pack = packs.first(where: { $0.name == parts[0] }),
              let measure = pack.measures.first(where: { $0.name == parts[1] && $0.definition.kind == MeasureKind.place.name }),
              let lat = measure.definition.parameters["lat"]?.number, let lon = measure.definition.parameters["lon"]?.number else {
            if let other = packs.first(where: { $0.name == parts[0] })?.measures.first(where: { $0.name == parts[1] }) {
                throw RulesError.whatIf(reason: "measure '\(other.name)' of pack '\(parts[0])' is a \(other.definition.kind), not a place (\(listed))")
            }
            throw RulesError.whatIf(reason: "no place '\(reference)'\(guess) (\(listed))")
        }
        // Metres per degree of latitude (the mean radius: the generator lays the route out in its own
        // plane; whatif's routes are measured within `routeTolerance`).
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        let toward = lat >= 0 ? 1.0 : -1.0  // away from the equator
        let quarter = distanceMeters / 4 / metresPerDegree
        if abs(lat + toward * quarter) <= placeRouteLatitude {
            return [Waypoint(latitude: lat - toward * quarter, longitude: lon),
                    Waypoint(latitude: lat + toward * quarter, longitude: lon)]
        }
        return [Waypoint(latitude: lat - toward * 2 * quarter, longitude: lon), Waypoint(latitude: lat, longitude: lon)]
    }

    /// Evaluates `history` with `engine`, then `history` plus `run`, and says what the run changes.
    /// `analyzer` should be the one the history was read with (same checkpoints and measures).
    /// - Throws: `RulesError.whatIf` when the run is out of range (`Run.outOfRange`).
    public static func evaluate(_ run: Run, history: [RunSummary], engine: RuleEngine, analyzer: RunAnalyzer) throws -> Outcome {
        var hypothetical = try summary(of: run, analyzer: analyzer)
        // An id no run of the history has.
        let ids = Set(history.map(\.id))
        var id = hypothetical.id, number = 1
        while ids.contains(id) { number += 1; id = "\(hypothetical.id)-\(number)" }
        hypothetical.id = id
        let before = AthleteEvaluator.evaluate(history, engine: engine)
        let after = AthleteEvaluator.evaluate(history + [hypothetical], engine: engine)
        return Outcome(run: hypothetical, awards: after.awards.filter { $0.run == id },
                       changes: AwardDiff(current: before.awards, candidate: after.awards), before: before, after: after)
    }
}
