import ArgumentParser
import Foundation
import RunFiles
import SyntheticRuns

/// `badgectl generate DIR`: writes realistic, deterministic run files (the sample runs and benchmark inputs).
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write realistic, deterministic run files: the sample runs, or many runs for benchmarks.",
        discussion: """
            Without --count, writes the repository's runs/ story: sixteen runs over three months (four of them laps of a park loop) \
            in GPX, gzip'd GPX, FIT and a treadmill JSON summary. With --count N writes N GPX runs of about \
            --minutes minutes each, sampled every second. The same options always give the same bytes.

            Examples:
              badgectl generate runs/
              badgectl generate /tmp/many --count 2000 --minutes 60 --seed 7

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("Folder to write into (created if missing).", valueName: "dir"))
    var directory: String

    @Option(help: "Write N generated GPX runs instead of the sample story.")
    var count: Int?

    @Option(help: "Duration of each generated run in minutes (with --count).")
    var minutes: Double = 60

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp(
        "Write N athletes lapping the places pack's park loop (LeaguePopulation.standard) and their worker lines, league.jsonl, for `badgectl league --root DIR`.",
        valueName: "athletes"))
    var league: Int?

    func run() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let league {
            guard league > 0 else { throw ValidationError("--league must be positive") }
            let lines = try LeaguePopulation.standard(count: league).write(to: directory)
            try (lines.joined(separator: "\n") + "\n").write(toFile: path("league.jsonl"), atomically: true, encoding: .utf8)
        } else if let count {
            guard count > 0 else { throw CommandError.countNotPositive.usage }
            try writeMany(count)
        } else {
            try writeSample()
        }
    }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    func writeMany(_ count: Int) throws {
        let width = String(count).count
        for i in 0..<count {
            let pace = 270.0 + Double((Int(seed) &+ i * 37) % 150)
            var generator = RunGenerator(seed: seed &+ UInt64(i), distanceMeters: minutes * 60 / pace * 1000, paceSecondsPerKilometre: pace)
            generator.startEpochSeconds = 1_672_560_000 + Double(i) * 86_400 * 0.9
            generator.name = "Run \(i + 1)"
            let number = String(repeating: "0", count: width - String(i + 1).count) + String(i + 1)
            try generator.writeGPX(to: path("run-\(number).gpx"))
        }
    }

    /// A loop round a park south-west of the sample runs' start (about 2.52 km, clockwise from its
    /// south-west corner): the places pack's segment (rules/places/segments/park-loop.gpx) runs along
    /// its north side from 4.8670°E and down its east side to 52.3575°N.
    static let parkLoop: [RunGenerator.Waypoint] = [
        .init(latitude: 52.3560, longitude: 4.8640), .init(latitude: 52.3600, longitude: 4.8640),
        .init(latitude: 52.3600, longitude: 4.8760), .init(latitude: 52.3560, longitude: 4.8760),
    ]
    /// One lap of `parkLoop` (2,523 m), rounded up a little so the last lap ends just past the start.
    static let parkLoopMeters = 2_525.0

    /// A runner's first three months: every MoonRunner tier shows up (earned, silver, gold, best, next).
    func writeSample() throws {
        struct Plan {
            var file: String
            var date: (Int, Int, Int)
            var km: Double
            var pace: Double
            var hills: Double = 12
            var pauses = 0
            var fast: RunGenerator.FastSection? = nil
            /// Laps of `parkLoop` (the places pack's segment lies on it); 0: a free route.
            var laps = 0
        }
        let plans: [Plan] = [
            Plan(file: "2026-08-01-first-run.gpx", date: (2026, 8, 1), km: 3.2, pace: 390),
            Plan(file: "2026-08-04-canal.gpx", date: (2026, 8, 4), km: 5.1, pace: 380),
            Plan(file: "2026-08-08-park-loop.gpx", date: (2026, 8, 8), km: 5.3, pace: 360, pauses: 1),
            Plan(file: "2026-08-12-treadmill.json", date: (2026, 8, 12), km: 6.0, pace: 360),
            Plan(file: "2026-08-15-hills.gpx.gz", date: (2026, 8, 15), km: 8.0, pace: 370, hills: 40),
            Plan(file: "2026-08-20-first-10k.fit", date: (2026, 8, 20), km: 10.4, pace: 365),
            Plan(file: "2026-08-27-tempo-5k.gpx", date: (2026, 8, 27), km: 5.2, pace: 330),
            Plan(file: "2026-09-04-long-pause.gpx", date: (2026, 9, 4), km: 12.0, pace: 355, pauses: 2),
            Plan(file: "2026-09-12-fifteen.gpx", date: (2026, 9, 12), km: 15.5, pace: 360),
            Plan(file: "2026-09-19-fast-middle.fit", date: (2026, 9, 19), km: 10.5, pace: 330,
                 fast: .init(startMeters: 3000, lengthMeters: 5000, paceSecondsPerKilometre: 300)),
            Plan(file: "2026-10-03-ten-miles.gpx", date: (2026, 10, 3), km: 16.5, pace: 365),
            Plan(file: "2026-10-18-half.gpx", date: (2026, 10, 18), km: 21.3, pace: 370, pauses: 1),
            // Laps of the park loop: eleven passes of rules/places' segment, faster by the month
            // (appended, so the seeds of the runs above stay as they were).
            Plan(file: "2026-08-06-park-laps.gpx", date: (2026, 8, 6), km: 0, pace: 380, laps: 2),
            Plan(file: "2026-08-24-park-laps.gpx", date: (2026, 8, 24), km: 0, pace: 370, laps: 3),
            Plan(file: "2026-09-08-park-laps.gpx", date: (2026, 9, 8), km: 0, pace: 350, laps: 3),
            Plan(file: "2026-09-29-park-laps.gpx", date: (2026, 9, 29), km: 0, pace: 325, laps: 3),
        ]
        for (i, plan) in plans.enumerated() {
            var generator = RunGenerator(seed: seed &+ UInt64(i * 7919), distanceMeters: plan.km * 1000, paceSecondsPerKilometre: plan.pace)
            if plan.laps > 0 {
                generator.route = Self.parkLoop
                generator.distanceMeters = Double(plan.laps) * Self.parkLoopMeters
            }
            let day = Timestamps.daysFromCivil(year: plan.date.0, month: plan.date.1, day: plan.date.2)
            generator.startEpochSeconds = Double(day * 86_400 + 6 * 3600 + 30 * 60)
            generator.hillAmplitudeMeters = plan.hills
            generator.pauseCount = plan.pauses
            generator.fastSection = plan.fast
            generator.style = .compact
            generator.sampling = .smart(minSeconds: 1, maxSeconds: 4)
            generator.name = plan.file.split(separator: ".").first.map(String.init)
            let target = path(plan.file)
            if plan.file.hasSuffix(".json") {
                generator.name = "Treadmill"
                try generator.summaryJSON().write(toFile: target, atomically: true, encoding: .utf8)
            } else if plan.file.hasSuffix(".gpx.gz") {
                try Data(try Gzip.compress(generator.gpxBytes())).write(to: URL(fileURLWithPath: target))
            } else if plan.file.hasSuffix(".fit") {
                try Data(FITWriter.encode(track: generator.track(), sport: 1, utcOffsetSeconds: nil))
                    .write(to: URL(fileURLWithPath: target))
            } else {
                try generator.writeGPX(to: target)
            }
        }
        try """
            Sample runs made by `badgectl generate runs/` (deterministic; no real person's data).
            This file is not a run file: badgectl lists it as ignored.

            """.write(toFile: path("README.txt"), atomically: true, encoding: .utf8)
    }
}
