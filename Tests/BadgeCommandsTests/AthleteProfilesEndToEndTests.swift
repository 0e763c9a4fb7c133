import RunFixtures
import Foundation
import SyntheticRuns
import XCTest

/// Each athlete is themselves (issue 48, item 2): a worker or league line's profile (`birth_date`,
/// `sex`, `max_hr`, `resting_hr`, `zones`) is that athlete's, for their measures (age grade,
/// heart-rate zones) and rules (`ctx.athlete`); `--athlete` is the default for lines without one.
///
/// The property: N athletes with different profiles and generated runs in ONE worker stream give,
/// each, exactly what `evaluate --athlete THEIR_PROFILE` gives that athlete alone. The seed is random
/// per run and printed in every failure (`BADGECTL_PROFILE_SEED=N` replays one).
final class AthleteProfilesEndToEndTests: XCTestCase {
    static let rules = ["--rules", "rules", "--badges", "badges.json", "--tz", "UTC", "--no-cache"]
    static let athleteCount = 12

    /// The default profile (`--athlete`): a woman born 1968 with her own zones.
    static let defaultProfile = #"{"birth_date": "1968-06-15", "sex": "female", "max_hr": 182, "resting_hr": 55}"#

    struct Population {
        var seed: UInt64
        var root: TemporaryFolder
        /// Each athlete's name and profile JSON (nil: their lines give none; `--athlete`'s applies).
        var athletes: [(name: String, profile: String?)]
        /// The worker lines, every athlete's together, in start order.
        var lines: [String]
    }

    /// Karvonen's five zones, as `Athlete.defaultZones` makes them.
    static func zones(max: Double, resting: Double?) -> [(Double, Double?)] {
        let base = resting ?? 0
        func bound(_ share: Double) -> Double { (base + share * (max - base)).rounded() }
        return (0..<5).map { i -> (Double, Double?) in
            let share = 0.5 + 0.1 * Double(i)
            return (bound(share), i == 4 ? nil : bound(share + 0.1))
        }
    }

    /// N athletes: sex, birth dates across the age groups, maximum and resting heart rates, zones given
    /// or made from them, one athlete with no profile and one with zones only; three to four runs each
    /// (5–16 km, 3:40–6:40/km), heart rate held in a zone of their own (2 for some, which earns the
    /// hour in zone 2 only with their zones).
    func population(seed: UInt64) throws -> Population {
        let root = try TemporaryFolder()
        var rng = SplitMix64(seed: seed)
        var athletes: [(name: String, profile: String?)] = []
        var lines: [String] = []
        for index in 0..<Self.athleteCount {
            let name = "athlete-\(index)"
            let sexes = ["F", "M", "female", "male", "f", "m"]
            let sex = sexes[rng.below(sexes.count)]
            let birth = String(format: "%04d-%02d-%02d", 1935 + rng.below(72), 1 + rng.below(12), 1 + rng.below(28))
            let maxHR = Double(165 + rng.below(40))
            let resting: Double? = rng.below(4) == 0 ? nil : Double(40 + rng.below(30))
            var zones = Self.zones(max: maxHR, resting: resting)
            var fields: [String]? = ["\"birth_date\": \"\(birth)\"", "\"sex\": \"\(sex)\"", "\"max_hr\": \(Int(maxHR))"]
            if let resting { fields?.append("\"resting_hr\": \(Int(resting))") }
            if rng.below(3) == 0 {
                // Zones of their own: five from a random start and widths.
                var lower = Double(95 + rng.below(30))
                zones = (0..<5).map { i in
                    let upper = lower + Double(8 + rng.below(15))
                    defer { lower = upper }
                    return (lower, i == 4 ? nil : upper)
                }
                let text = zones.map { "[\(Int($0.0)), \(Int($0.1 ?? $0.0 + 40))]" }.joined(separator: ", ")
                fields?.append("\"zones\": [\(text)]")
            }
            if index == 3 { fields = nil; zones = Self.zones(max: 182, resting: 55) }
            if index == 7 { fields = ["\"max_hr\": \(Int(maxHR))"] + (resting.map { ["\"resting_hr\": \(Int($0))"] } ?? []) }
            let profile = fields.map { "{" + $0.joined(separator: ", ") + "}" }
            athletes.append((name, profile))
            let inZone2 = index == 0 || rng.below(2) == 0
            let zone = inZone2 ? zones[1] : zones[2 + rng.below(2)]
            let bpm = ((zone.0 + (zone.1 ?? zone.0 + 20)) / 2).rounded()
            var start = 1_714_545_000.0 + Double(rng.below(20)) * 86_400
            for run in 0..<(3 + rng.below(2)) {
                // Athlete 0's first run: 14 km at 5:30/km, 77 minutes in their zone 2.
                let long = index == 0 && run == 0
                var generator = RunGenerator(seed: seed &+ UInt64(index * 10 + run), distanceMeters: long ? 14_000 : Double(5_000 + rng.below(11_000)),
                                             paceSecondsPerKilometre: long ? 330 : Double(220 + rng.below(180)))
                generator.startEpochSeconds = start
                generator.sampling = .every(5)
                generator.heartRateSteps = [RunGenerator.HeartRateStep(untilSeconds: 1e6, bpm: bpm)]
                let file = "\(name)/run-\(run).gpx"
                try FileManager.default.createDirectory(atPath: root.path + "/" + name, withIntermediateDirectories: true)
                try generator.writeGPX(to: root.path + "/" + file)
                // The profile on the first line; on later ones, repeated or left out at random.
                let repeated = run == 0 || rng.below(2) == 0
                let profileFields = (repeated ? profile.map { ", " + $0.dropFirst().dropLast() } : nil) ?? ""
                lines.append(#"{"athlete": "\#(name)", "tz": "UTC", "path": "\#(file)"\#(profileFields)}"#)
                start += Double(1 + rng.below(4)) * 86_400
            }
        }
        try root.write("default.json", Self.defaultProfile)
        for (name, profile) in athletes { try root.write("\(name).json", profile ?? Self.defaultProfile) }
        return Population(seed: seed, root: root, athletes: athletes, lines: lines)
    }

    static var seed: UInt64 {
        if let given = ProcessInfo.processInfo.environment["BADGECTL_PROFILE_SEED"], let seed = UInt64(given) { return seed }
        return UInt64.random(in: 1...UInt64.max / 2)
    }

    func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
    }

    /// An award as both outputs write it: every field a rule decides, evidence included.
    func key(_ award: [String: Any]) throws -> String {
        let fields = ["badge", "tier", "run", "at", "pack", "rule", "detail"].map { "\(award[$0] ?? "nil")" }
        let evidence = try award["evidence"].map { value -> String in
            guard !(value is NSNull) else { return "null" }
            return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
        } ?? "null"
        return (fields + [evidence]).joined(separator: "|")
    }

    /// `evaluate` of one athlete's folder with their profile file: the awards and each badge's
    /// progress and hint.
    func evaluateAlone(_ population: Population, _ index: Int) throws -> (awards: [String], progress: [String: String]) {
        let name = population.athletes[index].name
        let result = try CLI.run(["evaluate", population.root.path + "/" + name, "--athlete", population.root.path + "/\(name).json",
                                  "--format", "json"] + Self.rules)
        XCTAssertEqual(result.status, 0, "seed \(population.seed): " + result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let awards = try XCTUnwrap(report["awards"] as? [[String: Any]]).map(key)
        var progress: [String: String] = [:]
        for badge in try XCTUnwrap(report["badges"] as? [[String: Any]]) {
            guard let id = badge["id"] as? String, let value = badge["progress"] as? [String: Any], !(badge["hint"] is NSNull) else { continue }
            progress[id] = "\(value["current"] ?? "")/\(value["target"] ?? "") \(badge["hint"] ?? "")"
        }
        return (awards, progress)
    }

    func testEveryAthleteInOneWorkerStreamIsEvaluatedWithTheirOwnProfile() throws {
        let population = try population(seed: Self.seed)
        let seed = "seed \(population.seed)"
        let worker = try CLI.run(["worker", "--root", population.root.path, "--athlete", population.root.path + "/default.json"] + Self.rules,
                                 stdin: population.lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(worker.status, 0, seed + ": " + worker.stderr)
        let output = try objects(worker.stdout)
        var gradedDetails: Set<String> = []
        var zoneTwo = 0
        for (index, athlete) in population.athletes.enumerated() {
            let alone = try evaluateAlone(population, index)
            let awards = try output.filter { $0["type"] as? String == "award" && $0["athlete"] as? String == athlete.name }.map(key)
            XCTAssertEqual(awards, alone.awards, "\(seed): \(athlete.name) \(athlete.profile ?? "(no profile: --athlete)")")
            let status = try XCTUnwrap(output.first { $0["type"] as? String == "status" && $0["athlete"] as? String == athlete.name }, seed)
            // Each badge's progress and hint (the hour in zone 2's hint reads ctx.athlete) as evaluate's badge rows give them.
            for entry in try XCTUnwrap(status["progress"] as? [[String: Any]]) {
                let badge = try XCTUnwrap(entry["badge"] as? String)
                XCTAssertEqual("\(entry["current"] ?? "")/\(entry["target"] ?? "") \(entry["hint"] ?? "")", alone.progress[badge],
                               "\(seed): \(athlete.name) \(badge)")
            }
            gradedDetails.formUnion(awards.filter { $0.hasPrefix("age-grade|") }.map { $0.split(separator: "|")[6].description })
            zoneTwo += awards.filter { $0.hasPrefix("zone-two-hour|") }.count
        }
        // Not vacuous: age grades (each athlete's own: their ages and percentages differ) and the hour
        // in zone 2, which only their own zones give.
        XCTAssertGreaterThanOrEqual(gradedDetails.count, 3, seed)
        XCTAssertGreaterThanOrEqual(zoneTwo, 1, seed)
    }

    /// `league` lines: each athlete's age-grade awards (the `badge` facts of the map, which give each
    /// holder) follow their own profile, as `evaluate --athlete THEIR_PROFILE` gives them.
    func testLeagueAgeGradesFollowEachAthletesProfile() throws {
        let population = try population(seed: Self.seed)
        let seed = "seed \(population.seed)"
        let league = try CLI.run(["league", "--facts", "--root", population.root.path, "--athlete", population.root.path + "/default.json"] + Self.rules,
                                 stdin: population.lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(league.status, 0, seed + ": " + league.stderr)
        var held: [String: Set<String>] = [:]
        for line in league.stdout.split(separator: "\n") where line.hasPrefix("badge agegrade age-grade ") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            let tier = String(parts[0].dropFirst("badge agegrade age-grade ".count))
            guard parts.count == 2, let object = try JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any],
                  let athlete = object["athlete"] as? String else { continue }
            held[athlete, default: []].insert(tier)
        }
        var graded = 0
        for (index, athlete) in population.athletes.enumerated() {
            let tiers = Set(try evaluateAlone(population, index).awards.filter { $0.hasPrefix("age-grade|") }.map { String($0.split(separator: "|")[1]) })
            XCTAssertEqual(held[athlete.name] ?? [], tiers, "\(seed): \(athlete.name) \(athlete.profile ?? "(no profile)")")
            if !tiers.isEmpty { graded += 1 }
        }
        XCTAssertGreaterThanOrEqual(graded, 3, seed)
    }

    /// `diff --worker-input` reads the same lines the same way: each athlete's candidate awards (here
    /// the age-grade pack, added) are those of their own profile.
    func testDiffWorkerInputUsesEachAthletesProfile() throws {
        let population = try population(seed: Self.seed)
        let seed = "seed \(population.seed)"
        try population.root.write("lines.jsonl", population.lines.joined(separator: "\n") + "\n")
        // The lines' paths are relative to the working folder (diff has no --root).
        let repo = CLI.repository.path
        let diff = try CLI.run(["diff", "--worker-input", population.root.path + "/lines.jsonl", "--athlete", population.root.path + "/default.json",
                                "--rules", repo + "/rules/checkpoints", "--against", repo + "/rules/checkpoints", "--against", repo + "/rules/agegrade",
                                "--badges", repo + "/badges.json", "--tz", "UTC", "--no-cache", "--format", "json"],
                               in: population.root.url)
        XCTAssertTrue([0, 3].contains(diff.status), seed + ": " + diff.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any], seed + ": " + diff.stderr)
        XCTAssertEqual((report["errors"] as? [Any])?.count, 0, seed)
        var gained: [String: Int] = [:]
        for athlete in try XCTUnwrap(report["athletes"] as? [[String: Any]]) {
            gained[athlete["athlete"] as? String ?? ""] = (athlete["counts"] as? [String: Any])?["gained"] as? Int
        }
        var graded = 0
        for (index, athlete) in population.athletes.enumerated() {
            let expected = try evaluateAlone(population, index).awards.filter { $0.hasPrefix("age-grade|") }.count
            XCTAssertEqual(gained[athlete.name] ?? 0, expected, "\(seed): \(athlete.name)")
            if expected > 0 { graded += 1 }
        }
        XCTAssertGreaterThanOrEqual(graded, 3, seed)
    }

    /// An athlete's lines give one profile, their first line's: a later line that gives another (a
    /// field changed, left out of a profile, or given when the first gave none) is an error line
    /// naming the athlete and the field, and only that line is skipped; the worker and
    /// `diff --worker-input` say the same.
    func testLinesThatDisagreeOnAnAthletesProfileAreNamed() throws {
        func line(_ athlete: String, _ day: Int, _ profile: String) -> String {
            #"{"athlete": "\#(athlete)", "summary": {"start": "2024-05-0\#(day)T07:00:00Z", "distance_m": 6000, "duration_s": 1800}\#(profile)}"#
        }
        let input = [
            line("ana", 1, #", "sex": "F", "birth_date": "1968-01-01""#),
            line("ana", 2, #", "sex": "M", "birth_date": "1968-01-01""#),
            line("ana", 3, ""),
            line("ana", 4, #", "birth_date": "1968-01-01""#),
            line("ana", 5, #", "birth_date": "1968-01-01", "sex": "F""#),
            line("ben", 1, ""),
            line("ben", 2, #", "max_hr": 180"#),
            line("ben", 3, #", "birth_date": "1968-02-30""#),
        ].joined(separator: "\n") + "\n"
        let expected: [Int: String] = [
            2: #"athlete 'ana': profile field "sex" is 'M' here but 'F' on line 1, the athlete's first line: an athlete's lines give one profile (the first line's, repeated whole, or none of its fields)"#,
            4: #"athlete 'ana': profile field "sex" is not given here but 'F' on line 1, the athlete's first line: an athlete's lines give one profile (the first line's, repeated whole, or none of its fields)"#,
            7: #"athlete 'ben': profile field "max_hr" is 180 here but not on line 6, the athlete's first line: an athlete's lines give one profile (the first line's, repeated whole, or none of its fields)"#,
            8: "line 8: field 'birth_date': must be a date YYYY-MM-DD",
        ]
        let worker = try CLI.run(["worker"] + Self.rules, stdin: input)
        XCTAssertEqual(worker.status, 2, worker.stderr)
        let output = try objects(worker.stdout)
        var errors: [Int: String] = [:]
        for error in output where error["type"] as? String == "error" { errors[error["line"] as? Int ?? 0] = error["message"] as? String }
        XCTAssertEqual(errors, expected)
        for (athlete, runs) in [("ana", 3), ("ben", 1)] {
            let status = try XCTUnwrap(output.first { $0["type"] as? String == "status" && $0["athlete"] as? String == athlete })
            XCTAssertEqual(status["runs"] as? Int, runs, athlete)
        }
        XCTAssertTrue(worker.stderr.contains("badgectl: line 2: athlete 'ana': profile field \"sex\""), worker.stderr)

        let folder = try TemporaryFolder()
        try folder.write("lines.jsonl", input)
        let diff = try CLI.run(["diff", "--worker-input", folder.path + "/lines.jsonl", "--rules", "rules/checkpoints", "--against", "rules/checkpoints",
                                "--badges", "badges.json", "--tz", "UTC", "--no-cache", "--format", "json"])
        XCTAssertEqual(diff.status, 2, diff.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])
        var diffErrors: [Int: String] = [:]
        for error in try XCTUnwrap(report["errors"] as? [[String: Any]]) { diffErrors[error["line"] as? Int ?? 0] = error["message"] as? String }
        XCTAssertEqual(diffErrors, expected)
    }
}
