import BadgeRules
import Foundation
import RunFiles
import XCTest

/// `rules/lifetime`, checked against hand-computed tables, with the calendar edges: an ISO week across
/// a year boundary, a streak broken by one missed day, a run at 23:50 local that is the next day in UTC.
final class LifetimePackTests: XCTestCase {
    static let packPath = CheckpointsPackTests.repoRoot.appendingPathComponent("rules/lifetime").path

    /// A run starting at `hour`:`minute` local time on `date` (YYYY-MM-DD) in a zone `offset` seconds from UTC.
    static func run(_ id: String, _ date: String, km: Double, hour: Int = 7, minute: Int = 0, offset: Int = 0,
                    sport: String = "running", gainMeters: Double? = nil) -> RunSummary {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        let day = Timestamps.daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
        let epoch = Double(day * 86_400 + hour * 3600 + minute * 60 - offset)
        return RunSummary(id: id, start: Timestamps.iso8601(epoch), startEpochSeconds: epoch, utcOffsetSeconds: offset,
                          localDate: Timestamps.date(epoch, offsetSeconds: offset), sport: sport, format: "json",
                          distanceMeters: km * 1000, elapsedSeconds: km * 330, timerSeconds: km * 330,
                          elevation: gainMeters.map { Elevation(gainMeters: $0, lossMeters: $0, minMeters: 0, maxMeters: $0) })
    }

    func evaluate(_ runs: [RunSummary]) -> Evaluation {
        let evaluation = RuleEngine(packDirectories: [Self.packPath], catalogue: Catalogue(badges: [])).evaluate(runs: runs)
        XCTAssertEqual(evaluation.failures, [], "\(evaluation.failures)")
        return evaluation
    }

    func awards(_ evaluation: Evaluation, rule: String) -> [String] {
        evaluation.awards.filter { $0.pack == "lifetime" && $0.rule == rule }.map { "\($0.badge)@\($0.run): \($0.detail)" }
    }

    func status(_ evaluation: Evaluation, _ badge: String) -> BadgeStatus? {
        evaluation.statuses.first { $0.badge == badge }
    }

    func testWeekAcrossYearBoundaryMonthAndLifetime() throws {
        let evaluation = evaluate([
            Self.run("sun", "2024-12-29", km: 50),      // Sunday: 2024-W52
            Self.run("mon", "2024-12-30", km: 40),      // Monday: 2025-W01
            Self.run("thu", "2025-01-02", km: 30),      // 2025-W01; lifetime 120 km
            Self.run("bike", "2025-01-04", km: 150, sport: "cycling"),  // not running: counts nowhere
            Self.run("sun2", "2025-01-05", km: 30),     // 2025-W01 reaches exactly 100 km
            Self.run("mon2", "2025-01-06", km: 60),     // 2025-W02
            Self.run("late", "2025-01-20", km: 80),     // 2025-W04; January reaches 30+30+60+80 = 200 km
        ].reversed())
        XCTAssertEqual(awards(evaluation, rule: "week"), ["week-100k@sun2: 2025-W01: 100.00 km"])
        XCTAssertEqual(awards(evaluation, rule: "month"), ["month-200k@late: 2025-01: 200.00 km"])
        XCTAssertEqual(awards(evaluation, rule: "distance"), ["lifetime-100k@thu: 120.00 km in 3 runs"])
        XCTAssertEqual(status(evaluation, "week-100k")?.hint, "20.0 km left this ISO week (2025-W04)")
        XCTAssertEqual(status(evaluation, "week-100k")?.progress, Progress(current: 80, target: 100, unit: "km"))
        XCTAssertEqual(status(evaluation, "month-200k")?.hint, "2025-01 reached 200 km (months with 200 km: 1)")
        XCTAssertEqual(status(evaluation, "lifetime-500k")?.hint, "210.00 km left (290.00 km of 500.00 km)")
        XCTAssertEqual(status(evaluation, "lifetime-500k")?.progress, Progress(current: 290, target: 500, unit: "km"))
        let next = try XCTUnwrap(evaluation.nexts.first { $0.pack == "lifetime" })
        XCTAssertEqual(next.badge, "lifetime-500k")
        XCTAssertEqual(next.remainingMeters, 210_000, accuracy: 1e-6)

        // 99.9 km in a week is not 100.
        let short = evaluate([Self.run("a", "2025-01-06", km: 49.9), Self.run("b", "2025-01-12", km: 50)])
        XCTAssertEqual(awards(short, rule: "week"), [])
        XCTAssertEqual(status(short, "week-100k")?.hint, "0.1 km left this ISO week (2025-W02)")
    }

    /// Zone UTC−5: runs at 07:00 local are 12:00Z the same day; 23:50 local is 04:50Z the next day.
    func streakRuns() -> [RunSummary] {
        var runs: [RunSummary] = []
        for day in 1...5 { runs.append(Self.run("d\(day)", String(format: "2025-03-%02d", day), km: 5, offset: -18_000)) }
        runs.append(Self.run("d3-evening", "2025-03-03", km: 3, hour: 19, offset: -18_000))     // same day: counts once
        runs.append(Self.run("d6-late", "2025-03-06", km: 5, hour: 23, minute: 50, offset: -18_000))
        runs.append(Self.run("d7", "2025-03-07", km: 5, offset: -18_000))
        // 2025-03-08 missed: the streak starts again on the 9th
        for day in 9...15 { runs.append(Self.run("d\(day)", String(format: "2025-03-%02d", day), km: 5, offset: -18_000)) }
        return runs
    }

    func testStreaksOnLocalDatesBrokenByOneMissedDay() throws {
        let runs = streakRuns()
        let late = try XCTUnwrap(runs.first { $0.id == "d6-late" })
        XCTAssertEqual(late.start, "2025-03-07T04:50:00Z")   // the next day in UTC...
        XCTAssertEqual(late.localDate, "2025-03-06")         // ...but the 6th where it was run
        let evaluation = evaluate(runs)
        XCTAssertEqual(awards(evaluation, rule: "streak"), [
            "streak-7@d7: 7 days: 2025-03-01 to 2025-03-07",
            "streak-7@d15: 7 days: 2025-03-09 to 2025-03-15",
        ])
        XCTAssertEqual(status(evaluation, "streak-30")?.hint, "23 more days for a 30-day streak (current streak 7, last run 2025-03-15)")
        XCTAssertEqual(status(evaluation, "streak-30")?.progress, Progress(current: 7, target: 30, unit: "days"))

        let upTo14 = evaluate(runs.filter { $0.id != "d15" })
        XCTAssertEqual(awards(upTo14, rule: "streak").count, 1)
        XCTAssertEqual(status(upTo14, "streak-7")?.hint, "1 more day for a 7-day streak (current streak 6, last run 2025-03-14)")

        // Had the 23:50 run been dated in UTC, the 6th would be missing and no 7-day streak would exist:
        // the same runs with the 6th removed earn nothing before the 15th.
        let without6 = evaluate(runs.filter { $0.id != "d6-late" })
        XCTAssertEqual(awards(without6, rule: "streak"), ["streak-7@d15: 7 days: 2025-03-09 to 2025-03-15"])
    }

    func testEverestAndRunCounts() throws {
        var runs: [RunSummary] = [
            Self.run("h1", "2025-04-01", km: 10, gainMeters: 3000),
            Self.run("ride", "2025-04-02", km: 80, sport: "cycling", gainMeters: 5000),  // not running
            Self.run("flat", "2025-04-03", km: 10),                                      // no elevation
            Self.run("h2", "2025-04-04", km: 10, gainMeters: 3000),
        ]
        let before = evaluate(runs)
        XCTAssertEqual(awards(before, rule: "climb"), [])
        XCTAssertEqual(status(before, "everest")?.hint, "2848 m of climb left (6000 m of 8848 m)")
        runs.append(Self.run("h3", "2025-04-05", km: 10, gainMeters: 2848))  // exactly 8,848 m
        for day in 6...11 { runs.append(Self.run("n\(day)", String(format: "2025-04-%02d", day), km: 5)) }
        let evaluation = evaluate(runs)
        XCTAssertEqual(awards(evaluation, rule: "climb"), ["everest@h3: 8848 m of climb over 3 runs"])
        // Running runs: h1, flat, h2, h3, n6...n11 = 10 (the ride does not count).
        XCTAssertEqual(awards(evaluation, rule: "runs"), ["runs-10@n11: run number 10"])
        XCTAssertEqual(status(evaluation, "runs-50")?.hint, "40 more runs (10 of 50)")
        XCTAssertEqual(status(before, "runs-10")?.hint, "7 more runs (3 of 10)")
    }

    func testRunWithoutDateIsLeftOutWithANote() {
        let undated = RunSummary(id: "undated.json", format: "json", distanceMeters: 120_000)
        let evaluation = evaluate([undated])
        XCTAssertEqual(awards(evaluation, rule: "week"), [])
        XCTAssertEqual(awards(evaluation, rule: "distance"), ["lifetime-100k@undated.json: 120.00 km in 1 run"])
        XCTAssertTrue(evaluation.notes.contains { $0.rule == "week" && $0.message == "run undated.json left out: no start date" },
                      "\(evaluation.notes)")
    }
}
