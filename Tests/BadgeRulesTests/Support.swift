import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// The packs of a `PackFixture` (RunFixtures) evaluated with this target's catalogue.
extension PackFixture {
    func engine(_ packs: [String], limits: RuleEngine.Limits = RuleEngine.Limits(instructionsPerCall: 2_000_000, memoryBytes: 16 << 20)) -> RuleEngine {
        RuleEngine(packDirectories: packs.map(directory(of:)), catalogue: testCatalogue, limits: limits)
    }
}

let testCatalogue = Catalogue(badges: [
    CatalogueBadge(id: "marathon", name: "Marathon", information: "42.195 km", distanceMeters: 42_195),
    CatalogueBadge(id: "5k", name: "5K", information: "Five kilometres", distanceMeters: 5_000),
    CatalogueBadge(id: "10k", name: "10K", information: "Ten kilometres", distanceMeters: 10_000),
    CatalogueBadge(id: "early-bird", name: "Early bird", information: "A run before 6"),
    CatalogueBadge(id: "lifetime-20k", name: "20 km for life", information: "", distanceMeters: nil),
])

/// A run starting `day` days after 2024-03-04 (a Monday) at 06:00Z.
func makeRun(_ id: String, day: Int?, distance: Double, elapsed: Double? = nil) -> RunSummary {
    let epoch = day.map { 1_709_532_000 + Double($0) * 86_400 }
    var run = RunSummary(
        id: id, start: epoch.map { Timestamps.iso8601($0) }, startEpochSeconds: epoch, utcOffsetSeconds: day == nil ? nil : 3600,
        localDate: epoch.map { Timestamps.date($0, offsetSeconds: 3600) }, name: "Run \(id)", format: "gpx", points: 120,
        distanceMeters: distance, elapsedSeconds: elapsed ?? distance * 0.3, timerSeconds: elapsed ?? distance * 0.3,
        movingSeconds: (elapsed ?? distance * 0.3) - 10)
    var splits: [Split] = []
    var covered = 0.0
    var index = 1
    while covered < distance {
        let length = min(1000, distance - covered)
        splits.append(Split(index: index, distanceMeters: length, elapsedSeconds: length * 0.3,
                            cumulativeSeconds: (covered + length) * 0.3, partial: length < 1000))
        covered += length
        index += 1
    }
    run.splitsKilometre = splits
    if distance >= 5000 {
        run.efforts = [Effort(name: "5km", distanceMeters: 5000, elapsedSeconds: 1400, startDistanceMeters: 0, startElapsedSeconds: 0)]
        run.checkpoints = [Checkpoint(badge: "5k", name: "5K", distanceMeters: 5000, latitude: 51.5, longitude: -0.1, elapsedSeconds: 1500)]
    }
    run.elevation = Elevation(gainMeters: 12, lossMeters: 11, minMeters: 3, maxMeters: 20)
    run.dropped = [Dropped(reason: "no time", count: 2)]
    return run
}

/// Runs given out of order: start order is r1 (3 km), r2 (6 km), r3 (12 km), r4 (7 km).
let sampleRuns = [
    makeRun("r3.gpx", day: 2, distance: 12_000),
    makeRun("r1.gpx", day: 0, distance: 3_000),
    makeRun("r4.gpx", day: 3, distance: 7_000),
    makeRun("r2.gpx", day: 1, distance: 6_000),
]

let goodPack: [String: String] = [
    "five.lua": """
    return {
      id = "first-5k", title = "First 5 km", badge = "5k",
      earned = function(run, ctx) return run.distance_m >= 5000 end,
    }
    """,
]
