import BadgeKit
import Foundation
import RunFiles
import RunFixtures
import SyntheticRuns
import XCTest

/// Every entry point gives the same awards (issue P, item 6): random histories, made from a seed,
/// through `badgectl evaluate` (cold and through a cache), BadgeKit, `badgectl worker`, `evaluate
/// --state` then `add` one run at a time in a shuffled order, and `--as-of` cuts (evaluate's and the
/// worker's flag, BadgeKit's option, and a folder holding only the runs up to the date).
///
/// A history holds runs, rides, walks, "runs" faster than the world record, one activity exported
/// twice in two formats, files written in two zones (+09:00 and -03:00) beside files in UTC and JSON
/// summaries with no zone (read in `--tz`), spread over a few weeks at any hour, so that local dates
/// differ from UTC ones. The seeds are fixed: a failure names its seed and is reproduced by it.
final class EntryPointsTests: XCTestCase {
    static let repository = Repository.root
    static let rules = repository.appendingPathComponent("rules").path
    static let badges = repository.appendingPathComponent("badges.json").path
    static let zone = "America/New_York"

    static var binary: URL { BuiltProducts.executable() }

    /// The seeds run on every `swift test` (each history takes a few seconds);
    /// `BADGECTL_ENTRY_SEEDS=4...40` (or `7,9`) runs others, to search or to reproduce one.
    static var seeds: [UInt64] {
        guard let text = ProcessInfo.processInfo.environment["BADGECTL_ENTRY_SEEDS"], !text.isEmpty else { return [1, 2, 3] }
        let bounds = text.components(separatedBy: "...").compactMap { UInt64($0) }
        if bounds.count == 2, bounds[0] <= bounds[1] { return Array(bounds[0]...bounds[1]) }
        return text.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
    }

    func testEveryEntryPointGivesTheSameAwards() throws {
        for seed in Self.seeds {
            try checkHistory(seed: seed)
        }
    }

    // MARK: - A history

    /// One file of a history: its name (relative to the folder) and bytes.
    struct File {
        var name: String
        var bytes: [UInt8]
    }

    /// The files of a random history (`seed`): about a dozen activities over five weeks.
    static func history(seed: UInt64) -> [File] {
        var random = SplitMix64(seed: seed)
        var files: [File] = []
        let base = 1_772_366_400.0  // 2026-03-01T12:00:00Z
        var day = 0
        for index in 0..<12 {
            day += 1 + random.below(3)
            let start = base + Double(day) * 86_400 + Double(random.below(20 * 3600)) - 6 * 3600
            let roll = random.uniform()
            var generator: RunGenerator
            var kind = "run"
            if roll < 0.15 {
                kind = "ride"
                generator = RunGenerator(seed: seed * 100 + UInt64(index), distanceMeters: 15_000 + random.uniform() * 20_000,
                                         paceSecondsPerKilometre: 110 + random.uniform() * 40)
                generator.sport = "cycling"
            } else if roll < 0.25 {
                kind = "walk"
                generator = RunGenerator(seed: seed * 100 + UInt64(index), distanceMeters: 3_000 + random.uniform() * 5_000,
                                         paceSecondsPerKilometre: 600 + random.uniform() * 150)
                generator.sport = "walking"
            } else if roll < 0.35 {
                kind = "impossible"
                generator = RunGenerator(seed: seed * 100 + UInt64(index), distanceMeters: 5_100 + random.uniform() * 6_000,
                                         paceSecondsPerKilometre: 120 + random.uniform() * 20)
            } else {
                generator = RunGenerator(seed: seed * 100 + UInt64(index), distanceMeters: 3_000 + random.uniform() * 19_000,
                                         paceSecondsPerKilometre: 260 + random.uniform() * 140)
            }
            generator.startEpochSeconds = start
            generator.sampling = .every(2)
            let name = String(format: "%02d-%@", index + 1, kind)
            let zones: [Int?] = [32_400, -10_800, nil]
            let offset = zones[random.below(zones.count)]
            switch random.below(kind == "run" ? 5 : 3) {
            case 0:
                generator.utcOffsetSeconds = offset
                files.append(File(name: name + ".gpx", bytes: generator.gpxBytes()))
            case 1:
                files.append(File(name: name + ".fit", bytes: FITWriter.encode(track: generator.track(), sport: fitSport(generator.sport),
                                                                              utcOffsetSeconds: offset)))
            case 2:
                files.append(File(name: name + ".tcx", bytes: TCXWriter.encode(track: generator.track(), sport: tcxSport(generator.sport))))
            default:
                // A summary whose start names no zone: a wall-clock time read in --tz.
                let local = RunGeneratorClock.wallClock(start, offset: -4 * 3600)
                let text = #"{"start":"\#(local)","distance_m":\#(Int(generator.distanceMeters)),"duration_s":\#(Int(generator.distanceMeters / 1000 * generator.paceSecondsPerKilometre)),"sport":"\#(generator.sport)"}"#
                files.append(File(name: name + ".json", bytes: Array(text.utf8)))
            }
            // One activity in two formats now and then: the watch's file and a GPX export.
            if kind == "run", random.uniform() < 0.3 {
                generator.utcOffsetSeconds = offset
                files.append(File(name: name + "-export.gpx", bytes: generator.gpxBytes()))
            }
        }
        return files
    }

    static func fitSport(_ sport: String) -> UInt8 { sport == "cycling" ? 2 : sport == "walking" ? 11 : 1 }
    static func tcxSport(_ sport: String) -> String { sport == "cycling" ? "Biking" : sport == "walking" ? "Other" : "Running" }

    // MARK: - The entry points

    func checkHistory(seed: UInt64) throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let root = temporary.path
        let folder = root + "/all"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let files = Self.history(seed: seed)
        for file in files { try Data(file.bytes).write(to: URL(fileURLWithPath: folder + "/" + file.name)) }
        let common = ["--rules", Self.rules, "--badges", Self.badges, "--tz", Self.zone]
        let context = "seed \(seed), files \(files.map(\.name))"

        // 1. evaluate, without a cache, then twice through one (cold and warm).
        let evaluated = try json(try run(["evaluate", folder, "--format", "json", "--no-cache"] + common), context)
        let awards = Self.identities(evaluated["awards"])
        XCTAssertFalse(awards.isEmpty, context)
        let cache = root + "/runs.sqlite"
        for pass in ["cold", "warm"] {
            let cached = try json(try run(["evaluate", folder, "--format", "json", "--cache", cache] + common), context)
            XCTAssertEqual(Self.identities(cached["awards"]), awards, "evaluate through the cache (\(pass)), \(context)")
        }
        // The runs no rule saw (the JSON's `excluded` also lists those a pack's eligibility left out, with `pack`).
        let excluded = Set(((evaluated["excluded"] as? [[String: Any]]) ?? []).filter { $0["pack"] == nil }.compactMap { $0["id"] as? String })
        let duplicates = Set(((evaluated["duplicates"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })

        // 2. BadgeKit: each file read (through the same cache) with its name as id, the history evaluated.
        guard let tz = TimeZone(identifier: Self.zone) else { return XCTFail("no zone \(Self.zone)") }
        let engine = try BadgeEngine(packs: [Self.rules], catalogue: Self.badges, zone: tz, cache: cache)
        XCTAssertEqual(engine.loadFailures, [])
        var runs: [RunSummary] = []
        for file in files { runs += try engine.summaries(file: folder + "/" + file.name, id: file.name) }
        XCTAssertEqual(Self.identities(engine.evaluate(runs).awards), awards, "BadgeKit, \(context)")
        let selection = engine.select(runs)
        XCTAssertEqual(Set(selection.excluded.map(\.id)), excluded, "BadgeKit's excluded runs, \(context)")
        XCTAssertEqual(Set(selection.duplicates.map(\.id)), duplicates, "BadgeKit's duplicates, \(context)")

        // 3. The worker: one athlete's lines in start order (ties by id), paths with their ids.
        let ordered = runs.sorted { ($0.startEpochSeconds ?? 0, $0.id) < ($1.startEpochSeconds ?? 0, $1.id) }
        let lines = ordered.map { #"{"athlete": "a", "path": "\#(folder)/\#($0.id)", "id": "\#($0.id)"}"# }.joined(separator: "\n") + "\n"
        let worker = try run(["worker", "--cache", cache] + common, stdin: lines)
        let workerAwards = worker.split(separator: "\n").compactMap { line -> [String: Any]? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["type"] as? String == "award" else { return nil }
            return object
        }
        XCTAssertEqual(Self.identities(workerAwards), awards, "the worker, \(context)")

        // 4. evaluate --state on the first file of a shuffled order, then add the others one at a time
        //    (into the folder evaluated, so that they are named as evaluate names them).
        var random = SplitMix64(seed: seed ^ 0x5EED)
        var order = files.map(\.name)
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, random.below(i + 1)) }
        let history = root + "/history", state = root + "/state"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder + "/" + order[0], toPath: history + "/" + order[0])
        _ = try run(["evaluate", history, "--state", state, "--no-cache"] + common)
        var added: [String: Any] = [:]
        var replays = 0
        for name in order.dropFirst() {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: history + "/" + name)
            added = try json(try run(["add", "--state", state, history + "/" + name, "--format", "json", "--no-cache"]), "\(context), adding \(name)")
            if added["replayed"] is String { replays += 1 }
        }
        // An addition prints what it changed and the count; --all-awards reads the whole list from the state.
        XCTAssertNil(added["awards"], "\(context)")
        XCTAssertEqual(added["award_count"] as? Int, awards.count, "evaluate --state + add one at a time in the order \(order), \(context)")
        let listed = try json(try run(["add", "--state", state, "--all-awards", "--format", "json", "--no-cache"]), "\(context), --all-awards")
        XCTAssertEqual(Self.identities(listed["awards"]), awards, "evaluate --state + add one at a time in the order \(order), \(context)")
        // What this history covered (so that a seed that stopped covering something shows).
        print("seed \(seed): \(files.count) files, \(awards.count) awards, excluded \(excluded.sorted()), duplicates \(duplicates.sorted()), "
              + "\(replays) of \(order.count - 1) additions replayed")

        // 5. --as-of: at two local dates inside the history, the flag, BadgeKit's option and a folder
        //    holding only the files whose runs are all up to the date agree.
        let dates = Array(Set(runs.compactMap(\.localDate))).sorted()
        for date in [dates[dates.count / 3], dates[2 * dates.count / 3]] {
            let cut = try json(try run(["evaluate", folder, "--as-of", date, "--format", "json", "--no-cache"] + common), context)
            let cutAwards = Self.identities(cut["awards"])
            var asOf = engine
            asOf.selection.asOf = date
            XCTAssertEqual(Self.identities(asOf.evaluate(runs).awards), cutAwards, "BadgeKit as of \(date), \(context)")
            let workerCut = try run(["worker", "--as-of", date, "--no-cache"] + common, stdin: lines)
            XCTAssertEqual(Self.identities(workerCut.split(separator: "\n").compactMap { line -> [String: Any]? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["type"] as? String == "award" else { return nil }
                return object
            }), cutAwards, "the worker as of \(date), \(context)")
            let before = root + "/as-of-" + date
            try FileManager.default.createDirectory(atPath: before, withIntermediateDirectories: true)
            for file in files where runs.filter({ $0.id == file.name }).allSatisfy({ ($0.localDate ?? "9999") <= date }) {
                try FileManager.default.copyItem(atPath: folder + "/" + file.name, toPath: before + "/" + file.name)
            }
            let copy = try json(try run(["evaluate", before, "--format", "json", "--no-cache"] + common), context)
            XCTAssertEqual(Self.identities(copy["awards"]), cutAwards, "a folder cut at \(date), \(context)")
        }
    }

    // MARK: - Helpers

    /// Awards as `pack/rule/badge/tier/run`, sorted (the entry points list them in their own orders).
    static func identities(_ list: Any?) -> [String] {
        ((list as? [[String: Any]]) ?? []).map { award in
            ["pack", "rule", "badge", "tier", "run"].map { "\(award[$0] ?? "")" }.joined(separator: "/")
        }.sorted()
    }

    static func identities(_ awards: [Award]) -> [String] {
        awards.map { [$0.pack, $0.rule, $0.badge, $0.tier, $0.run].joined(separator: "/") }.sorted()
    }

    func json(_ text: String, _ context: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw NSError(domain: "EntryPointsTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "not a JSON object: \(text.prefix(300)) (\(context))"])
        }
        return object
    }

    /// Runs the built badgectl; its stdout. A status other than 0 fails the test (with stderr).
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try ChildProcess.run(Self.binary, arguments, in: Repository.root, stdin: stdin, environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(result.status, 0, "badgectl \(arguments.joined(separator: " ")): \(result.stderr)", file: file, line: line)
        return result.stdout
    }
}

/// A wall-clock time `YYYY-MM-DDThh:mm:ss` (no zone) of an instant seen at `offset`.
enum RunGeneratorClock {
    static func wallClock(_ epoch: Double, offset: Int) -> String {
        let seconds = Int(epoch.rounded()) + offset
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let rest = seconds - days * 86_400
        let (year, month, day) = Timestamps.civilFromDays(days)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, rest / 3600, rest / 60 % 60, rest % 60)
    }
}
