import BadgeRules
import Foundation
import RunFiles
import XCTest

/// `rules/segments`, checked against hand-computed tables: pace tiers, personal records, steady
/// pacing between checkpoints and negative splits.
final class SegmentsPackTests: XCTestCase {
    static let packPath = CheckpointsPackTests.repoRoot.appendingPathComponent("rules/segments").path

    /// A run on 2025-05-`day` at 07:00Z with the given fastest efforts (seconds) and km splits.
    static func run(_ id: String, day: Int, km: Double, efforts: [String: Double] = [:], splits: [Double] = [],
                    checkpoints: [(Double, Double)] = []) -> RunSummary {
        let epoch = Double(Timestamps.daysFromCivil(year: 2025, month: 5, day: day) * 86_400 + 7 * 3600)
        let lengths: [String: Double] = ["400m": 400, "1km": 1000, "1mi": 1609.344, "5km": 5000, "10km": 10000,
                                         "half": 21097.5, "marathon": 42195]
        var cumulative = 0.0
        var covered = 0.0
        let splitList = splits.enumerated().map { index, seconds -> Split in
            let length = min(1000, km * 1000 - covered)
            covered += length
            cumulative += seconds
            return Split(index: index + 1, distanceMeters: length, elapsedSeconds: seconds, cumulativeSeconds: cumulative,
                         partial: length < 1000)
        }
        let effortList = efforts.keys.sorted().map { name in
            Effort(name: name, distanceMeters: lengths[name] ?? 0, elapsedSeconds: efforts[name] ?? 0,
                   startDistanceMeters: 0, startElapsedSeconds: 0)
        }
        let checkpointList = checkpoints.map { meters, seconds in
            Checkpoint(badge: "c\(Int(meters))", name: "C\(Int(meters))", distanceMeters: meters, latitude: nil, longitude: nil,
                       elapsedSeconds: seconds)
        }
        let elapsed = splits.isEmpty ? km * 330 : cumulative
        return RunSummary(id: id, start: Timestamps.iso8601(epoch), startEpochSeconds: epoch, utcOffsetSeconds: 0,
                          localDate: Timestamps.date(epoch, offsetSeconds: 0), format: "json", distanceMeters: km * 1000,
                          elapsedSeconds: elapsed, timerSeconds: elapsed, checkpoints: checkpointList,
                          splitsKilometre: splitList, efforts: effortList)
    }

    func evaluate(_ runs: [RunSummary]) -> Evaluation {
        let evaluation = RuleEngine(packDirectories: [Self.packPath], catalogue: Catalogue(badges: [])).evaluate(runs: runs)
        XCTAssertEqual(evaluation.failures, [], "\(evaluation.failures)")
        return evaluation
    }

    /// `rule: badge/tier@run` for every award of a rule, in award order.
    func awards(_ evaluation: Evaluation, rule: String) -> [String] {
        evaluation.awards.filter { $0.pack == "segments" && $0.rule == rule }.map { "\($0.badge)/\($0.tier)@\($0.run)" }
    }

    // 1 km: bronze < 5:00 (300 s), silver < 4:15 (255), gold < 3:30 (210); 5 km: 30:00, 25:00, 20:00;
    // 10 km: 1:00:00, 50:00, 42:00; half: 2:15:00, 1:50:00, 1:30:00. Strictly under.
    let paceRuns: [RunSummary] = [
        SegmentsPackTests.run("r1", day: 1, km: 10, efforts: ["1km": 290, "5km": 1790, "10km": 3700]),
        SegmentsPackTests.run("r2", day: 2, km: 5, efforts: ["1km": 255, "5km": 1500]),     // exactly 4:15 and 25:00: not silver
        SegmentsPackTests.run("r3", day: 3, km: 21.2, efforts: ["1km": 255, "5km": 1199, "10km": 3599, "half": 8000]),
        SegmentsPackTests.run("r4", day: 4, km: 5, efforts: ["1km": 300, "5km": 1190]),
        SegmentsPackTests.run("r5", day: 5, km: 5, efforts: ["5km": 1190]),                 // ties r4: no record
    ]

    func testPaceTiers() throws {
        let evaluation = evaluate(paceRuns.reversed())
        XCTAssertEqual(awards(evaluation, rule: "pace"), [
            "pace-1k/bronze@r1", "pace-5k/bronze@r1",
            "pace-5k/silver@r3", "pace-5k/gold@r3",  // 19:59 earns silver and gold at once
            "pace-10k/bronze@r3", "pace-half/bronze@r3",
        ])
        let gold = try XCTUnwrap(evaluation.awards.first { $0.badge == "pace-5k" && $0.tier == "gold" })
        XCTAssertEqual(gold.detail, "5 km in 19:59 (4:00/km), under 20:00")
        let oneK = try XCTUnwrap(evaluation.statuses.first { $0.badge == "pace-1k" })
        XCTAssertEqual(oneK.hint, "1 km in 4:15 so far; under 4:15 for silver")
        XCTAssertEqual(oneK.progress, Progress(current: 255, target: 255, unit: "s"))
        let fiveK = try XCTUnwrap(evaluation.statuses.first { $0.badge == "pace-5k" })
        XCTAssertEqual(fiveK.hint, "bronze, silver and gold earned; best 5 km 19:50")
        XCTAssertNil(fiveK.progress)
        let tenK = try XCTUnwrap(evaluation.statuses.first { $0.badge == "pace-10k" })
        XCTAssertEqual(tenK.hint, "10 km in 59:59 so far; under 50:00 for silver")
    }

    func testPersonalRecordsTieIsNotARecord() throws {
        let evaluation = evaluate(paceRuns)
        XCTAssertEqual(awards(evaluation, rule: "records"), [
            "pr-1k/earned@r1", "pr-5k/earned@r1", "pr-10k/earned@r1",  // first efforts are first records
            "pr-1k/earned@r2", "pr-5k/earned@r2",
            // r3's 1 km ties r2's 4:15: no record
            "pr-5k/earned@r3", "pr-10k/earned@r3", "pr-half/earned@r3",
            "pr-5k/earned@r4",
            // r5's 5 km ties r4's 19:50: no record
        ])
        let details = evaluation.awards.filter { $0.badge == "pr-5k" }.map(\.detail)
        XCTAssertEqual(details, ["first 5 km: 29:50", "5 km in 25:00, 4:50 faster than 29:50",
                                 "5 km in 19:59, 5:01 faster than 25:00", "5 km in 19:50, 0:09 faster than 19:59"])
        XCTAssertEqual(evaluation.statuses.first { $0.badge == "pr-5k" }?.hint, "beat 19:50 over 5 km for a new record (4 so far)")
        XCTAssertEqual(evaluation.statuses.first { $0.badge == "pr-half" }?.hint, "beat 2:13:20 over half marathon for a new record (1 so far)")
        // progress: the latest effort against the record
        XCTAssertEqual(evaluation.statuses.first { $0.badge == "pr-1k" }?.progress, Progress(current: 300, target: 255, unit: "s"))
        XCTAssertEqual(evaluation.statuses.first { $0.badge == "pr-5k" }?.progress, Progress(current: 1190, target: 1190, unit: "s"))

        // Before any effort: the longest run against the distance.
        let first = evaluate([SegmentsPackTests.run("only", day: 1, km: 6, efforts: ["1km": 280, "5km": 1600])])
        XCTAssertEqual(first.statuses.first { $0.badge == "pr-10k" }?.progress, Progress(current: 6, target: 10, unit: "km"))
        XCTAssertEqual(first.statuses.first { $0.badge == "pr-10k" }?.hint, "run at least 10.00 km to set your first 10 km record")
        XCTAssertEqual(first.statuses.first { $0.badge == "pace-half" }?.progress, Progress(current: 6, target: 21.0975, unit: "km"))
        XCTAssertEqual(first.statuses.first { $0.badge == "pace-half" }?.hint,
                       "no half marathon effort yet: run at least 21.10 km, the effort under 2:15:00 for bronze")
    }

    func testNegativeSplitByInterpolatedHalves() throws {
        let evaluation = evaluate([
            // 6 km: halves 900 (3 × 300) and 870 (3 × 290): negative
            Self.run("even-faster", day: 1, km: 6, splits: [300, 300, 300, 290, 290, 290]),
            // 5 km: halves at 2.5 km = 2 × 300 + 0.5 × 300 = 750 and 1500 − 750 = 750: a tie is not negative
            Self.run("tie", day: 2, km: 5, splits: [300, 300, 300, 300, 300]),
            // 4 km: too short, even with a fast second half
            Self.run("short", day: 3, km: 4, splits: [300, 300, 250, 250]),
            // 5.5 km with a 500 m partial split: half at 2.75 km = 640 + 0.75 × 320 = 880; 1700 − 880 = 820
            Self.run("partial", day: 4, km: 5.5, splits: [320, 320, 320, 300, 300, 140]),
            // positive split: first 900, second 960
            Self.run("slower", day: 5, km: 6, splits: [300, 300, 300, 320, 320, 320]),
        ])
        XCTAssertEqual(awards(evaluation, rule: "negative-split"), ["negative-split/earned@even-faster", "negative-split/earned@partial"])
        XCTAssertEqual(evaluation.awards.last { $0.badge == "negative-split" }?.detail, "halves 14:40 then 13:40: 1:00 faster")
        XCTAssertEqual(evaluation.statuses.first { $0.badge == "negative-split" }?.hint,
                       "2 negative-split runs; run the second half faster again")
        let none = evaluate([Self.run("tie", day: 2, km: 5, splits: [300, 300, 300, 300, 300]),
                             Self.run("slower", day: 5, km: 6, splits: [300, 300, 300, 320, 320, 320])])
        XCTAssertEqual(none.statuses.first { $0.badge == "negative-split" }?.hint, "closest so far: second half 0:00 slower than the first")
        XCTAssertEqual(none.statuses.first { $0.badge == "negative-split" }?.progress, Progress(current: 750, target: 750, unit: "s"))
    }

    /// Checkpoints every kilometre; leg paces in s/km.
    static func steadyRun(_ id: String, day: Int, legs: [Double]) -> RunSummary {
        var at = 0.0
        let checkpoints = [(0.0, 0.0)] + legs.enumerated().map { index, pace -> (Double, Double) in
            at += pace
            return (Double(index + 1) * 1000, at)
        }
        return run(id, day: day, km: Double(legs.count) + 0.5, checkpoints: checkpoints)
    }

    func testSteadyBetweenCheckpoints() throws {
        let evaluation = evaluate([
            Self.steadyRun("uneven", day: 1, legs: [300, 300, 300, 340]),   // average 310: worst 30/310 = 9.7%
            Self.steadyRun("three-legs", day: 2, legs: [300, 300, 300]),    // even, but only 3 legs
            Self.steadyRun("within5", day: 3, legs: [300, 300, 300, 320]),  // average 305: 15/305 = 4.9%
        ])
        XCTAssertEqual(awards(evaluation, rule: "steady"), ["steady/earned@within5"])
        XCTAssertEqual(evaluation.awards.first { $0.badge == "steady" }?.detail, "4 checkpoint legs within 4.9% of 5:05/km")
        let status = try XCTUnwrap(evaluation.statuses.first { $0.badge == "steady" })
        XCTAssertEqual(status.hint, "steadiest run so far: legs within 4.9% of the average; within 2.5% for gold")
        XCTAssertEqual(try XCTUnwrap(status.progress?.current), 1500.0 / 305, accuracy: 1e-9)

        let tooFew = evaluate([Self.steadyRun("three-legs", day: 2, legs: [300, 300, 300])])
        XCTAssertEqual(tooFew.statuses.first { $0.badge == "steady" }?.progress, Progress(current: 3, target: 4, unit: "legs"))

        let gold = evaluate([Self.steadyRun("even", day: 4, legs: [300, 300, 306, 306])])  // average 303: 3/303 = 1.0%
        XCTAssertEqual(awards(gold, rule: "steady"), ["steady/earned@even", "steady/gold@even"])
        XCTAssertEqual(gold.statuses.first { $0.badge == "steady" }?.hint, "earned and gold")
    }
}
