import Foundation
import RunFiles

/// A population of athletes who all lap one park loop (the places pack's segment, rules/places,
/// lies on it), at known paces and counts: the input of `badgectl league` whose answers are known
/// by construction (tests, `badgectl generate --league N`, BENCHMARKS.md).
///
/// Every run is `laps` laps of `loop` at an even pace, without GPS noise, so each lap is one effort
/// on the segment and an athlete's efforts all take the same time (the faster pace, the shorter);
/// two athletes with the same pace and seed make exactly the same efforts.
public struct LeaguePopulation: Sendable {
    /// One athlete: what its input lines say and how it runs.
    public struct Athlete: Sendable, Equatable {
        public var name: String
        public var paceSecondsPerKilometre: Double
        /// Runs, one a day from `firstDay` (days since 1970-01-01), every `everyDays` days.
        public var runs: Int
        public var laps: Int
        public var firstDay: Int
        public var everyDays = 1
        public var team: String?
        public var sex: String?
        /// `YYYY-MM-DD`.
        public var birthDate: String?
        /// The generator's seed (equal seeds and paces give equal efforts).
        public var seed: UInt64

        public init(name: String, paceSecondsPerKilometre: Double, runs: Int, laps: Int, firstDay: Int, everyDays: Int = 1,
                    team: String? = nil, sex: String? = nil, birthDate: String? = nil, seed: UInt64 = 1) {
            self.name = name; self.paceSecondsPerKilometre = paceSecondsPerKilometre; self.runs = runs; self.laps = laps
            self.firstDay = firstDay; self.everyDays = everyDays; self.team = team; self.sex = sex; self.birthDate = birthDate
            self.seed = seed
        }

        /// The start of run `index` (from 0): 06:30 UTC on its day.
        public func start(of index: Int) -> Double { Double((firstDay + index * everyDays) * 86_400 + 6 * 3600 + 30 * 60) }
    }

    /// A loop round a park (about 2.52 km, clockwise from its south-west corner): the places pack's
    /// segment runs along its north side from 4.8670°E and down its east side to 52.3575°N, and its
    /// south side passes the fountain (52.3560, 4.8700). The same loop as the sample runs'.
    public static let loop: [RunGenerator.Waypoint] = [
        .init(latitude: 52.3560, longitude: 4.8640), .init(latitude: 52.3600, longitude: 4.8640),
        .init(latitude: 52.3600, longitude: 4.8760), .init(latitude: 52.3560, longitude: 4.8760),
    ]
    /// One lap of `loop`, rounded up a little so the last lap ends just past the start.
    public static let lapMeters = 2_525.0

    public var athletes: [Athlete]

    public init(athletes: [Athlete]) { self.athletes = athletes }

    /// `count` athletes `a00001`…: paces 300 s/km + 1 s per athlete in a cycle of 200 (so equal
    /// paces recur), 1 to 3 runs of one lap each, every other day from 2026-03-01, teams `t0`…`t9`,
    /// alternating sex, birth years 1960–1999.
    public static func standard(count: Int) -> LeaguePopulation {
        let width = max(5, String(count).count)
        let firstDay = Timestamps.daysFromCivil(year: 2026, month: 3, day: 1)
        return LeaguePopulation(athletes: (0..<count).map { i in
            let number = String(i + 1)
            return Athlete(name: "a" + String(repeating: "0", count: width - number.count) + number,
                           paceSecondsPerKilometre: 300 + Double(i % 200), runs: 1 + i % 3, laps: 1, firstDay: firstDay + i % 30,
                           everyDays: 2, team: "t\(i % 10)", sex: i % 2 == 0 ? "F" : "M",
                           birthDate: "\(1960 + i % 40)-0\(1 + i % 9)-1\(i % 10)", seed: UInt64(1 + i % 200))
        })
    }

    /// The generator of an athlete's run `index`.
    public static func generator(_ athlete: Athlete, run index: Int) -> RunGenerator {
        var generator = RunGenerator(seed: athlete.seed, distanceMeters: Double(athlete.laps) * lapMeters,
                                     paceSecondsPerKilometre: athlete.paceSecondsPerKilometre)
        generator.route = loop
        generator.startEpochSeconds = athlete.start(of: index)
        generator.paceVariation = 0
        generator.gpsNoiseMeters = 0
        generator.style = .compact
        // A point every 3 s, no heart rate or cadence: about 20 KB a lap, so that 10,000 athletes fit
        // on a disk (BENCHMARKS.md, "League"); the gates are interpolated between points.
        generator.sampling = .every(3)
        generator.heartRate = false
        generator.cadence = false
        generator.name = "Park laps"
        return generator
    }

    /// The file name of an athlete's run `index` (relative to the folder written).
    public static func file(_ athlete: Athlete, run index: Int) -> String { "\(athlete.name)/run-\(index + 1).gpx" }

    /// Writes every run under `directory` and returns the worker's input lines (one per run, each
    /// athlete's together and in start order, `path` relative to `directory`, with `team`, `sex`
    /// and `birth_date`).
    public func write(to directory: String) throws -> [String] {
        var lines: [String] = []
        for athlete in athletes {
            try FileManager.default.createDirectory(atPath: directory + "/" + athlete.name, withIntermediateDirectories: true)
            for index in 0..<athlete.runs {
                let file = Self.file(athlete, run: index)
                try Self.generator(athlete, run: index).writeGPX(to: directory + "/" + file)
                var fields = ["\"athlete\":\"\(athlete.name)\"", "\"path\":\"\(file)\"", "\"tz\":\"UTC\""]
                if let team = athlete.team { fields.append("\"team\":\"\(team)\"") }
                if let sex = athlete.sex { fields.append("\"sex\":\"\(sex)\"") }
                if let birth = athlete.birthDate { fields.append("\"birth_date\":\"\(birth)\"") }
                lines.append("{" + fields.joined(separator: ",") + "}")
            }
        }
        return lines
    }
}
