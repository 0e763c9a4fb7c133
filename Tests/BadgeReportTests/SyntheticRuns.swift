import BadgeReport
import Foundation
import RunAnalysis
import RunFiles

/// Realistic runs built in code (no GPX reader needed): laps of a park with GPS noise, speed that
/// varies along the way, a stop at a crossing, elevation and heart rate; summaries carry
/// kilometre splits and checkpoints computed here the way the analytics do.
enum SyntheticRuns {
    /// A deterministic pseudo-random source (64-bit LCG), so every test run sees the same tracks.
    struct Noise {
        var state: UInt64
        init(seed: UInt64) { state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        mutating func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        /// Roughly normal (sum of four uniforms), mean 0, standard deviation `sigma`.
        /// (Four uniforms on [0, 1) have variance 1/3, hence the factor √3.)
        mutating func normal(_ sigma: Double) -> Double {
            (uniform() + uniform() + uniform() + uniform() - 2) * sigma * 1.732
        }
    }

    static let metresPerDegree = Geodesy.meanRadius * Double.pi / 180

    /// Position on the park loop at angle `theta`, metres east/north of the start's centre. Each lap
    /// drifts `drift` metres per radian to the east-north-east (through the next park), so laps do not
    /// lie on top of each other.
    static func loop(_ theta: Double, scale: Double, drift: Double = 0) -> (x: Double, y: Double) {
        (450 * scale * cos(theta) * (1 + 0.12 * sin(3 * theta)) + drift * theta,
         280 * scale * sin(theta) * (1 + 0.10 * cos(2 * theta)) + 0.4 * drift * theta)
    }

    /// A run of `distanceMeters` around the park, one point a second.
    /// `speed(s)` gives the speed in m/s after `s` metres.
    static func parkRun(
        distanceMeters: Double, startEpoch: Double, seed: UInt64, centre: (lat: Double, lon: Double) = (51.5073, -0.1657),
        scale: Double = 1, drift: Double = 0, gpsSigmaMeters: Double = 2.5, stopAtMeters: Double? = nil, name: String? = nil,
        speed: (Double) -> Double
    ) -> Track {
        var track = Track(source: "synthetic-\(seed).gpx")
        track.name = name
        track.sport = "running"
        var noise = Noise(seed: seed)
        var theta = 0.0, travelled = 0.0, t = startEpoch
        var stopped = 0.0
        // GPS error drifts rather than jumps: an AR(1) process per axis, stationary sigma `gpsSigmaMeters`.
        let rho = 0.95
        var errorX = 0.0, errorY = 0.0
        let kx = metresPerDegree * cos(centre.lat * Double.pi / 180)
        while travelled < distanceMeters {
            let p = loop(theta, scale: scale, drift: drift)
            errorX = rho * errorX + noise.normal(gpsSigmaMeters * (1 - rho * rho).squareRoot())
            errorY = rho * errorY + noise.normal(gpsSigmaMeters * (1 - rho * rho).squareRoot())
            let lat = centre.lat + (p.y + errorY) / metresPerDegree
            let lon = centre.lon + (p.x + errorX) / kx
            var v = max(0.3, speed(travelled))
            if let stop = stopAtMeters, travelled >= stop, stopped < 25 { v = 0; stopped += 1 }
            let hr = 120 + 12 * v + noise.normal(2)
            track.append(latitude: lat, longitude: lon, elevation: 30 + 8 * sin(theta), time: t, heartRate: hr)
            // Advance the angle so the step along the loop is v metres.
            let q = loop(theta + 1e-4, scale: scale, drift: drift)
            let dsdTheta = ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot() / 1e-4
            theta += v / max(dsdTheta, 1e-6)
            travelled += v
            t += 1
        }
        return track
    }

    /// Summary with route, kilometre splits, checkpoints at `checkpointTargets`, elevation and HR.
    static func summary(
        of track: Track, id: String, checkpointTargets: [RunAnalyzer.CheckpointTarget] = [],
        toleranceMeters: Double = 4, maxVertices: Int = 800
    ) -> RunSummary {
        let profile = RunAnalyzer.profile(of: track)
        var summary = RunAnalyzer().summarize(track, id: id)
        summary.splitsKilometre = splits(profile)
        summary.checkpoints = checkpointTargets.compactMap { checkpoint($0, profile: profile, track: track) }
        let elevations = profile.indices.map { track.elevations[$0] }.filter(\.isFinite)
        if let lo = elevations.min(), let hi = elevations.max() {
            var gain = 0.0, loss = 0.0
            for k in 1..<elevations.count {
                let d = elevations[k] - elevations[k - 1]
                if d > 0 { gain += d } else { loss -= d }
            }
            summary.elevation = Elevation(gainMeters: gain, lossMeters: loss, minMeters: lo, maxMeters: hi)
        }
        let rates = profile.indices.map { track.heartRate(at: $0) }.filter(\.isFinite)
        if let hi = rates.max() {
            summary.heartRate = SensorStats(average: rates.reduce(0, +) / Double(rates.count), maximum: hi)
        }
        summary.route = RouteTrace.make(track: track, profile: profile, toleranceMeters: toleranceMeters, maxVertices: maxVertices)
        return summary
    }

    static func splits(_ profile: Profile) -> [Split] {
        var result: [Split] = []
        var lastTime = 0.0, lastDistance = 0.0
        var next = 1000.0
        for k in 1..<profile.count {
            while profile.distances[k] >= next {
                let d0 = profile.distances[k - 1], d1 = profile.distances[k]
                let f = d1 > d0 ? (next - d0) / (d1 - d0) : 1
                let time = profile.elapsed[k - 1] + f * (profile.elapsed[k] - profile.elapsed[k - 1])
                result.append(Split(index: result.count + 1, distanceMeters: 1000, elapsedSeconds: time - lastTime, cumulativeSeconds: time, partial: false))
                lastTime = time; lastDistance = next; next += 1000
            }
        }
        let rest = profile.totalDistance - lastDistance
        if rest > 1, let end = profile.elapsed.last {
            result.append(Split(index: result.count + 1, distanceMeters: rest, elapsedSeconds: end - lastTime, cumulativeSeconds: end, partial: true))
        }
        return result
    }

    static func checkpoint(_ target: RunAnalyzer.CheckpointTarget, profile: Profile, track: Track) -> Checkpoint? {
        for k in 1..<profile.count where profile.distances[k] >= target.distanceMeters {
            let d0 = profile.distances[k - 1], d1 = profile.distances[k]
            let f = d1 > d0 ? (target.distanceMeters - d0) / (d1 - d0) : 1
            let i0 = profile.indices[k - 1], i1 = profile.indices[k]
            return Checkpoint(
                badge: target.badge, name: target.name, distanceMeters: target.distanceMeters,
                latitude: track.latitudes[i0] + f * (track.latitudes[i1] - track.latitudes[i0]),
                longitude: track.longitudes[i0] + f * (track.longitudes[i1] - track.longitudes[i0]),
                elapsedSeconds: profile.elapsed[k - 1] + f * (profile.elapsed[k] - profile.elapsed[k - 1]))
        }
        return nil
    }

    /// A catalogue in the spirit of MoonRunner's, with awards for a sample report.
    static let catalogue: [(id: String, name: String, info: String, meters: Double)] = [
        ("first-run", "First Steps", "You ran! Every journey starts somewhere.", 0),
        ("park-2k", "Park Lap", "Once around the park.", 2000),
        ("5k", "Park 5K", "The classic 5 km.", 5000),
        ("10k", "10K Club", "Double digits.", 10000),
        ("15k", "15K", "Further than most.", 15000),
        ("half", "Half Marathon", "21.1 km of determination.", 21097.5),
        ("30k", "30K", "Into the unknown.", 30000),
        ("marathon", "Marathon", "The full 42.2 km.", 42195),
    ]

    /// The sample report the browser test renders: four runs (one with a stop, one slow-then-fast,
    /// one long, one indoor without positions), awards with silver and gold.
    static func sampleInput() -> ReportInput {
        let day = 86_400.0
        let start = 1_714_545_000.0  // 2024-05-01 06:30 UTC
        let targets = catalogue.filter { $0.meters > 0 }.map { RunAnalyzer.CheckpointTarget(badge: $0.id, name: $0.name, distanceMeters: $0.meters) }
        let steady = summary(
            of: parkRun(distanceMeters: 5300, startEpoch: start, seed: 1, scale: 0.9, drift: 30, stopAtMeters: 2600, name: "Morning park loop") { s in
                3.0 + 0.45 * sin(s / 260)
            }, id: "2024/05-01-park.gpx", checkpointTargets: targets)
        let negative = summary(
            of: parkRun(distanceMeters: 6200, startEpoch: start + 3 * day, seed: 2, scale: 1.1, drift: 45, name: "Negative split") { s in
                s < 3100 ? 2.6 + 0.1 * sin(s / 90) : 3.9 + 0.1 * sin(s / 90)
            }, id: "2024/05-04-negative.gpx", checkpointTargets: targets)
        let long = summary(
            of: parkRun(distanceMeters: 10_600, startEpoch: start + 6 * day, seed: 3, scale: 1.5, drift: 70, name: "Long Sunday") { s in
                3.2 + 0.5 * sin(s / 700) - 0.3 * s / 10_600
            }, id: "2024/05-07-long.gpx", checkpointTargets: targets)
        var indoor = RunSummary(id: "2024/05-09-treadmill.fit", startEpochSeconds: start + 8 * day, localDate: "2024-05-09",
                                name: "Treadmill", format: "fit", distanceMeters: 4000, elapsedSeconds: 1320)
        indoor.splitsKilometre = (1...4).map { Split(index: $0, distanceMeters: 1000, elapsedSeconds: 330, cumulativeSeconds: Double($0) * 330, partial: false) }
        let runs = [steady, negative, long, indoor]
        func award(_ run: RunSummary, pace: Double? = nil) -> ReportAward {
            ReportAward(runId: run.id, date: run.localDate, paceSecondsPerKilometre: pace ?? run.paceSecondsPerKilometre)
        }
        var badges: [ReportBadge] = []
        for entry in catalogue {
            var badge = ReportBadge(id: entry.id, name: entry.name, information: entry.info, distanceMeters: entry.meters)
            switch entry.id {
            case "first-run":
                badge.earned = award(steady); badge.silver = award(negative); badge.gold = award(long)
                badge.best = award(negative)
            case "park-2k":
                badge.earned = award(steady); badge.silver = award(negative)
                badge.best = award(negative); badge.goldPaceSecondsPerKilometre = 5 * 60 + 2
            case "5k":
                badge.earned = award(steady); badge.best = award(steady)
                badge.silverPaceSecondsPerKilometre = 5 * 60 + 28; badge.goldPaceSecondsPerKilometre = 5 * 60 + 13
            case "10k":
                badge.earned = award(long); badge.best = award(long)
                badge.silverPaceSecondsPerKilometre = 5 * 60 + 41; badge.goldPaceSecondsPerKilometre = 5 * 60 + 25
            default:
                break
            }
            badges.append(badge)
        }
        return ReportInput(
            title: "badgectl: my runs", generatedAt: Date(timeIntervalSince1970: start + 9 * day), badges: badges,
            runs: runs, next: NextBadge(name: "15K", remainingMeters: 15_000 - long.distanceMeters))
    }
}
