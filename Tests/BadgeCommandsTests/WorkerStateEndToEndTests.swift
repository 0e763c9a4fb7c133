import RunFixtures
import Foundation
import GRDB
import SyntheticRuns
import XCTest

/// `badgectl worker --state-dir DIR` (issue 51, N, items 3 and 4), through the built binary: uploads
/// for many athletes, out of order, with removals, changed and re-typed runs, cut into batches at
/// random; the awards given and not withdrawn, across every batch, are what `worker` gives over each
/// athlete's final history (itself `evaluate`'s, by EntryPointsTests), award ids included.
final class WorkerStateEndToEndTests: XCTestCase {
    static let common = ["--rules", CLI.repository.path + "/rules", "--badges", CLI.repository.path + "/badges.json", "--tz", "UTC", "--no-cache"]

    struct Run: Equatable {
        var id: String
        var start: Double
        var meters: Double
        var seconds: Double
        var sport = "running"

        func line(_ athlete: String) -> String {
            let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: start))
            return #"{"athlete": "\#(athlete)", "id": "\#(id)", "summary": {"start": "\#(iso)", "distance_m": \#(Int(meters)), "duration_s": \#(Int(seconds)), "sport": "\#(sport)"}}"#
        }
    }

    /// `sql`'s rows (as text) in every shard of the worker's store in `directory` (`~store`), in shard order.
    static func storeRows(_ directory: String, _ sql: String) throws -> [[String]] {
        let shards = try FileManager.default.contentsOfDirectory(atPath: directory + "/~store").filter { $0.hasSuffix(".sqlite") }.sorted()
        XCTAssertTrue(!shards.isEmpty && shards.count <= 16, "\(shards)")  // (made when first written to)
        return try shards.flatMap { shard in
            try DatabaseQueue(path: directory + "/~store/" + shard).write { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { value in
                    switch value.storage {
                    case .blob(let data): return String(decoding: data, as: UTF8.self)
                    case .null: return "NULL"
                    case .string(let text): return text
                    default: return value.description
                    }
                } }
            }
        }
    }

    func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func key(_ line: [String: Any]) -> String {
        ["athlete", "award_id", "pack", "rule", "badge", "tier", "run"].map { "\(line[$0] ?? "")" }.joined(separator: "/")
    }

    func testBatchesOfUploadsAndRemovalsGiveTheWholeHistorysAwards() throws {
        let text = ProcessInfo.processInfo.environment["BADGECTL_STREAM_SEEDS"] ?? ""
        let bounds = text.components(separatedBy: "...").compactMap { UInt64($0) }
        let seeds: [UInt64] = bounds.count == 2 && bounds[0] <= bounds[1] ? Array(bounds[0]...bounds[1]) : [1, 2]
        for seed in seeds { try check(seed: seed) }
    }

    func check(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let athletes = ["ana", "ben", "Cleo Ödön", "d/../../etc", "eve"]
        // Each athlete's uploads, in the order they happen: new runs in any order, changes, removals.
        var events: [(athlete: String, line: String)] = []
        var final: [String: [String: Run]] = [:]
        for athlete in athletes {
            var pool: [Run] = []
            for index in 0..<9 {
                let meters = 2_000 + random.uniform() * 24_000
                pool.append(Run(id: "r\(index)", start: 1_772_366_400 + Double(index) * 86_400 + Double(random.below(30_000)),
                                meters: meters, seconds: meters / 1000 * (270 + random.uniform() * 120)))
            }
            var held: [String: Run] = [:]
            var order = pool.indices.map { $0 }
            for i in order.indices.reversed() { order.swapAt(i, random.below(i + 1)) }
            for index in order {
                var run = pool[index]
                events.append((athlete, run.line(athlete)))
                held[run.id] = run
                let roll = random.uniform()
                let ids = held.keys.sorted()
                if roll < 0.15, !ids.isEmpty {
                    let id = ids[random.below(ids.count)]
                    events.append((athlete, #"{"athlete": "\#(athlete)", "remove": "\#(id)"}"#))
                    held[id] = nil
                } else if roll < 0.3 {
                    run.meters *= 0.5 + random.uniform()
                    run.seconds *= 0.9 + random.uniform() * 0.3
                    events.append((athlete, run.line(athlete)))
                    held[run.id] = run
                } else if roll < 0.4 {
                    run.sport = "cycling"
                    events.append((athlete, run.line(athlete)))
                    held[run.id] = run
                }
            }
            final[athlete] = held
        }
        // Athletes' uploads interleaved (each athlete's in its order), cut into batches at random.
        var queues = athletes.map { athlete in events.filter { $0.athlete == athlete } }
        var stream: [(athlete: String, line: String)] = []
        while queues.contains(where: { !$0.isEmpty }) {
            let open = queues.indices.filter { !queues[$0].isEmpty }
            let pick = open[random.below(open.count)]
            stream.append(queues[pick].removeFirst())
        }
        let folder = try TemporaryFolder()
        let state = folder.path + "/athletes"
        var active: [String: String] = [:]
        var position = 0, batches = 0
        while position < stream.count {
            let end = min(stream.count, position + 1 + random.below(12))
            // A batch's lines of one athlete together, in their order.
            let batch = stream[position..<end]
            let names = batch.map(\.athlete).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            let input = names.flatMap { name in batch.filter { $0.athlete == name }.map(\.line) }.joined(separator: "\n") + "\n"
            let result = try CLI.run(["worker", "--state-dir", state] + Self.common, stdin: input)
            XCTAssertEqual(result.status, 0, "seed \(seed), batch \(batches): \(result.stderr)")
            for line in lines(result.stdout) {
                guard let type = line["type"] as? String, let id = line["award_id"] as? String else { continue }
                if type == "award" {
                    XCTAssertNil(active[id], "seed \(seed): award \(id) given twice")
                    active[id] = key(line)
                } else if type == "withdrawn" {
                    XCTAssertNotNil(active[id], "seed \(seed): award \(id) withdrawn but never given")
                    active[id] = nil
                }
            }
            position = end
            batches += 1
        }
        // The batch answer: each athlete's final history, whole, in start order.
        let whole = athletes.flatMap { athlete in
            (final[athlete] ?? [:]).values.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.map { $0.line(athlete) }
        }.joined(separator: "\n") + "\n"
        let expected = try CLI.run(["worker"] + Self.common, stdin: whole)
        XCTAssertEqual(expected.status, 0, expected.stderr)
        let awards = lines(expected.stdout).filter { $0["type"] as? String == "award" }.map(key)
        XCTAssertFalse(awards.isEmpty)
        XCTAssertEqual(active.values.sorted(), awards.sorted(), "seed \(seed), \(batches) batches of \(stream.count) lines")
        // No athlete's name reached outside the folder: the store alone, each athlete once.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state), ["~store"])
        let made = try Self.storeRows(state, "SELECT athlete FROM header WHERE athlete <> '' AND key = 'state'").map { $0[0] }
        XCTAssertEqual(Set(made).count, athletes.count, "\(made)")
        XCTAssertTrue(made.allSatisfy { !$0.contains("/") && !$0.hasPrefix(".") }, "\(made)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path + "/etc"))
    }

    /// A long-lived worker fed one athlete at a time (the streaming job's): `{"flush": true}` writes
    /// the athlete read so far and lets them come again; `--any-order` takes their runs in any order,
    /// and gives what the same runs in start order give.
    func testFlushAndAnyOrder() throws {
        let late = Run(id: "late", start: 1_772_500_000, meters: 10_500, seconds: 3_000)
        let early = Run(id: "early", start: 1_772_400_000, meters: 5_200, seconds: 1_700)
        let ordered = try CLI.run(["worker"] + Self.common, stdin: [early.line("ana"), late.line("ana")].joined(separator: "\n") + "\n")
        XCTAssertEqual(ordered.status, 0, ordered.stderr)
        let refused = try CLI.run(["worker"] + Self.common, stdin: [late.line("ana"), early.line("ana")].joined(separator: "\n") + "\n")
        XCTAssertEqual(refused.status, 2, refused.stderr)
        let input = [late.line("ana"), early.line("ana"), #"{"flush": true}"#, late.line("ana"), #"{"flush": true}"#].joined(separator: "\n") + "\n"
        let any = try CLI.run(["worker", "--any-order"] + Self.common, stdin: input)
        XCTAssertEqual(any.status, 0, any.stderr)
        let output = lines(any.stdout)
        let statuses = output.indices.filter { output[$0]["type"] as? String == "status" }
        XCTAssertEqual(statuses.count, 2, any.stdout)
        let first = output[..<statuses[0]].filter { $0["type"] as? String == "award" }.map(key)
        XCTAssertEqual(first, lines(ordered.stdout).filter { $0["type"] as? String == "award" }.map(key))
        XCTAssertEqual(output[statuses[1]]["runs"] as? Int, 1)
        // Each flush ends with its own line, after the athlete's status, even with no athlete read.
        XCTAssertEqual(output.filter { $0["type"] as? String == "flushed" }.count, 2)
        XCTAssertEqual(output.last?["type"] as? String, "flushed")
        let empty = try CLI.run(["worker"] + Self.common, stdin: #"{"flush": true}"# + "\n" + #"{"athlete": 5}"# + "\n" + #"{"flush": true}"# + "\n")
        XCTAssertEqual(lines(empty.stdout).compactMap { $0["type"] as? String }, ["header", "flushed", "error", "flushed"], empty.stdout)
    }

    /// `--threads N` changes N athletes' states at once: the output is the one thread's, line for
    /// line, with error lines between athletes (a bad line, a state that cannot be read), a flush,
    /// removals and re-typed runs; and the states left are the same. With `--max-errors`, no athlete
    /// past the line where the worker stopped is saved, whatever `--threads` says.
    func testThreadsWriteWhatOneThreadWrites() throws {
        var random = SplitMix64(seed: 51)
        let athletes = (0..<14).map { "a\($0)" }
        func upload(_ athlete: String, _ index: Int, sport: String = "running") -> String {
            let meters = 3_000 + random.uniform() * 20_000
            return Run(id: "r\(index)", start: 1_772_366_400 + Double(index) * 86_400 + Double(random.below(30_000)), meters: meters,
                       seconds: meters / 1000 * (260 + random.uniform() * 140), sport: sport).line(athlete)
        }
        // The second batch, between and among athletes: a line that holds no run (a3), a removal
        // (a5), a re-typed run (a8), a flush (after a9: the athletes before it written first), and an
        // athlete whose state cannot be read (a10).
        var first: [String] = [], second: [String] = []
        for athlete in athletes {
            for index in 0..<6 { first.append(upload(athlete, index)) }
            second.append(upload(athlete, 6))
            switch athlete {
            case "a3": second.append(#"{"athlete": "a3", "summary": 5}"#)
            case "a5": second.append(#"{"athlete": "a5", "remove": "r0"}"#)
            case "a8": second.append(#"{"athlete": "a8", "id": "r0", "summary": {"start": "2026-03-01T10:00:00Z", "distance_m": 9000, "duration_s": 2500, "sport": "cycling"}}"#)
            default: break
            }
            second.append(upload(athlete, 7))
            if athlete == "a9" { second.append(#"{"flush": true}"#) }
        }
        let batches = [first.joined(separator: "\n") + "\n", second.joined(separator: "\n") + "\n"]
        let folder = try TemporaryFolder()
        var outputs: [Int: [(status: Int32, stdout: String, stderr: String)]] = [:]
        for threads in [1, 4] {
            let state = folder.path + "/threads-\(threads)"
            for (index, batch) in batches.enumerated() {
                if index == 1 {
                    // a10's state is damaged: that athlete's error, the others go on.
                    let changed = try Self.storeRows(state, "UPDATE header SET value = 'not json' WHERE athlete = 'a10' AND key = 'state' RETURNING athlete")
                    XCTAssertEqual(changed, [["a10"]])
                }
                let result = try CLI.run(["worker", "--state-dir", state, "--threads", "\(threads)"] + Self.common, stdin: batch)
                outputs[threads, default: []].append((result.status, result.stdout, result.stderr))
            }
        }
        for index in batches.indices {
            // The same but for the state folder's name in the damaged state's error.
            let (one, four) = (outputs[1]![index], outputs[4]![index])
            let unnamed = { (text: String) in text.replacingOccurrences(of: "/threads-4/", with: "/threads-1/") }
            XCTAssertTrue(unnamed(four.stdout) == one.stdout, "batch \(index): the output of --threads 4 is not the one of --threads 1")
            XCTAssertEqual(unnamed(four.stderr), one.stderr, "batch \(index)")
            XCTAssertEqual(four.status, one.status, "batch \(index)")
        }
        let written = lines(outputs[1]![1].stdout)
        let types = written.compactMap { $0["type"] as? String }
        let errors = written.filter { $0["type"] as? String == "error" }.map { "\($0["athlete"] ?? ""): \($0["message"] ?? "")" }
        XCTAssertEqual(outputs[1]![1].status, 2)
        XCTAssertEqual(types.filter { $0 == "status" }.count, athletes.count)
        XCTAssertEqual(errors.count, 2, "\(errors)")
        XCTAssertTrue(types.contains("award") && types.contains("withdrawn") && types.contains("flushed"), "\(types)")
        // The histories saved are the same, byte for byte.
        let histories = "SELECT athlete, pos, id, line FROM run ORDER BY athlete, pos"
        let (a, b) = (try Self.storeRows(folder.path + "/threads-1", histories), try Self.storeRows(folder.path + "/threads-4", histories))
        XCTAssertEqual(Set(a.map { $0[0] }).count, athletes.count)
        XCTAssertTrue(a == b, "the histories --threads 4 saved are not those of --threads 1")
        // --max-errors: the worker stops at the bad line; athletes after it are not saved.
        for threads in [1, 4] {
            let state = folder.path + "/stopped-\(threads)"
            let result = try CLI.run(["worker", "--state-dir", state, "--threads", "\(threads)", "--max-errors", "0"] + Self.common, stdin: batches[1])
            XCTAssertEqual(result.status, 1, result.stderr)
            let saved = try Self.storeRows(state, "SELECT athlete FROM header WHERE athlete <> '' AND key = 'state'").map { $0[0] }.sorted()
            XCTAssertEqual(saved, ["a0", "a1", "a2"], "--threads \(threads)")
        }
    }

    /// The store through the commands users take: a state folder (here made by `evaluate --state`,
    /// as the worker made one per athlete before the store) named as a worker's athlete moves into the
    /// store with their first upload; then `remove --state DIR/KEY`, `explain --state DIR/KEY` and
    /// `add --state DIR/KEY` address them in the store, and taking the upload back leaves exactly the
    /// awards `evaluate` gives over the folder.
    func testAStoredAthleteIsAddressedAsTheirFolderWas() throws {
        let folder = try TemporaryFolder()
        let runs = folder.path + "/runs"
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        let samples = try FileManager.default.contentsOfDirectory(atPath: CLI.repository.path + "/runs").filter { $0.hasSuffix(".gpx") }.sorted().prefix(3)
        for name in samples { try FileManager.default.copyItem(atPath: CLI.repository.path + "/runs/" + name, toPath: runs + "/" + name) }
        let state = folder.path + "/athletes"
        let evaluated = try CLI.run(["evaluate", runs, "--state", state + "/ana", "--format", "json"] + Self.common)
        XCTAssertEqual(evaluated.status, 0, evaluated.stderr)
        let upload = #"{"athlete": "ana", "id": "new1", "summary": {"start": "2027-01-02T07:00:00Z", "distance_m": 12000, "duration_s": 3300}}"#
        let worked = try CLI.run(["worker", "--state-dir", state] + Self.common, stdin: upload + "\n")
        XCTAssertEqual(worked.status, 0, worked.stderr)
        let status = lines(worked.stdout).first { $0["type"] as? String == "status" }
        XCTAssertEqual(status?["runs"] as? Int, samples.count + 1, worked.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state).sorted(), ["~imported", "~store"])
        let removed = try CLI.run(["remove", "--state", state + "/ana", "new1", "--format", "json", "--all-awards"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        func keys(_ json: String) throws -> [String] {
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            return (object?["awards"] as? [[String: Any]] ?? []).map { "\($0["pack"] ?? "") \($0["badge"] ?? "") \($0["tier"] ?? "") \($0["run"] ?? "")" }.sorted()
        }
        XCTAssertFalse(try keys(evaluated.stdout).isEmpty)
        XCTAssertEqual(try keys(removed.stdout), try keys(evaluated.stdout))
        // What the removal took back, as `explain` names it.
        let explained = try CLI.run(["explain", "ten-k", runs, "--state", state + "/ana"] + Self.common)
        XCTAssertEqual(explained.status, 0, explained.stderr)
        XCTAssertTrue(explained.stdout.contains("new1"), explained.stdout)
        // And the worker goes on from what `remove` left.
        let again = try CLI.run(["worker", "--state-dir", state] + Self.common, stdin: upload + "\n")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(lines(again.stdout).first { $0["type"] as? String == "status" }?["runs"] as? Int, samples.count + 1)
    }

    /// `{"athlete": ..., "forget": true}` takes an athlete's whole state away: a `withdrawn` line for
    /// each award they held (the ids they were given under), none of their rows left, the others'
    /// untouched; their runs sent again give the same awards, as to an athlete never seen.
    func testForgetTakesAnAthletesStateAway() throws {
        let folder = try TemporaryFolder()
        let state = folder.path + "/athletes"
        let runs = (0..<4).map { Run(id: "r\($0)", start: 1_772_366_400 + Double($0) * 86_400, meters: 4_000 + Double($0) * 3_000, seconds: 1_500 + Double($0) * 1_000) }
        let both = (runs.map { $0.line("ana") } + runs.map { $0.line("bob") }).joined(separator: "\n") + "\n"
        let first = try CLI.run(["worker", "--state-dir", state] + Self.common, stdin: both)
        XCTAssertEqual(first.status, 0, first.stderr)
        let given = { (text: String, athlete: String, type: String) in
            self.lines(text).filter { $0["athlete"] as? String == athlete && $0["type"] as? String == type }.compactMap { $0["award_id"] as? String }.sorted()
        }
        XCTAssertFalse(given(first.stdout, "ana", "award").isEmpty)
        let forgotten = try CLI.run(["worker", "--state-dir", state] + Self.common, stdin: #"{"athlete": "ana", "forget": true}"# + "\n")
        XCTAssertEqual(forgotten.status, 0, forgotten.stderr)
        XCTAssertEqual(given(forgotten.stdout, "ana", "withdrawn"), given(first.stdout, "ana", "award"))
        XCTAssertEqual(lines(forgotten.stdout).first { $0["type"] as? String == "status" }?["runs"] as? Int, 0)
        XCTAssertEqual(try Self.storeRows(state, "SELECT DISTINCT athlete FROM run ORDER BY athlete"), [["bob"]])
        XCTAssertEqual(try Self.storeRows(state, "SELECT count(*) FROM header WHERE athlete = 'ana'"), Array(repeating: ["0"], count: try Self.storeRows(state, "SELECT 1").count))
        // Sent again (with a forget first, as the streaming job resyncs): what an athlete never seen gets.
        let again = try CLI.run(["worker", "--state-dir", state] + Self.common,
                                stdin: #"{"athlete": "ana", "forget": true}"# + "\n" + runs.map { $0.line("ana") }.joined(separator: "\n") + "\n")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(given(again.stdout, "ana", "award"), given(first.stdout, "ana", "award"))
        XCTAssertEqual(given(again.stdout, "ana", "withdrawn"), [])
        // Refused: without a state, not `true`, with a run or a removal.
        let plain = try CLI.run(["worker"] + Self.common, stdin: #"{"athlete": "ana", "forget": true}"# + "\n")
        XCTAssertEqual(plain.status, 2)
        XCTAssertTrue(plain.stderr.contains("\"forget\" takes an athlete's saved state away: it needs --state-dir"), plain.stderr)
        for (line, message) in [(#"{"athlete": "ana", "forget": "yes"}"#, "\"forget\" must be true"),
                                (#"{"athlete": "ana", "forget": true, "remove": "r1"}"#, "give \"forget\" alone")] {
            let refused = try CLI.run(["worker", "--state-dir", state] + Self.common, stdin: line + "\n")
            XCTAssertEqual(refused.status, 2, line)
            XCTAssertTrue(refused.stderr.contains(message), refused.stderr)
        }
    }

    /// A `remove` line needs a state; a line with `remove` and a run is refused, naming it.
    func testRemoveLinesNeedAState() throws {
        let plain = try CLI.run(["worker"] + Self.common, stdin: #"{"athlete": "ana", "remove": "r1"}"# + "\n")
        XCTAssertEqual(plain.status, 2, plain.stdout + plain.stderr)
        XCTAssertTrue(plain.stderr.contains("\"remove\" takes a run back from a saved state: it needs --state-dir"), plain.stderr)
        let folder = try TemporaryFolder()
        let both = try CLI.run(["worker", "--state-dir", folder.path] + Self.common,
                               stdin: #"{"athlete": "ana", "remove": "r1", "summary": {"start": "2026-01-01T07:00:00Z", "distance_m": 5000, "duration_s": 1500}}"# + "\n")
        XCTAssertEqual(both.status, 2, both.stdout + both.stderr)
        XCTAssertTrue(both.stderr.contains("give \"remove\" (a run id) alone"), both.stderr)
    }
}
