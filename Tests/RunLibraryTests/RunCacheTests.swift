import RunFixtures
import GRDB
@testable import RunAnalysis
@testable import RunFiles
@testable import SyntheticRuns
@testable import RunLibrary
import XCTest

#if canImport(Glibc)
import Glibc
#endif

final class RunCacheTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder = ""
    var cachePath: String { folder + "/cache.sqlite" }
    var runs: String { folder + "/runs" }

    override func setUpWithError() throws {
        temporary = try TemporaryFolder()
        folder = temporary.path
        try FileManager.default.createDirectory(atPath: runs, withIntermediateDirectories: true)
        for index in 1...3 {
            let bytes = RunGenerator(seed: UInt64(index), distanceMeters: 1500 + Double(index) * 500).gpxBytes()
            try Data(bytes).write(to: URL(fileURLWithPath: runs + "/run-\(index).gpx"))
        }
    }

    override func tearDownWithError() throws {
        temporary = nil
    }

    func openCache(_ path: String? = nil) throws -> RunCache {
        var warning: String?
        let cache = RunCache.open(path: path ?? cachePath, warning: &warning)
        XCTAssertNil(warning)
        return try XCTUnwrap(cache)
    }

    /// Replaces a file's bytes with junk of the same size and puts its modification time back,
    /// so only a read of the bytes can tell.
    func replaceKeepingStamp(_ path: String) throws {
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        try Data(repeating: UInt8(ascii: "x"), count: Int(stamp.sizeBytes)).write(to: URL(fileURLWithPath: path))
        setModified(path, nanoseconds: stamp.modifiedNanoseconds)
        XCTAssertEqual(RunCache.stamp(path: path)?.modifiedNanoseconds, stamp.modifiedNanoseconds)
    }

    func setModified(_ path: String, nanoseconds: Int64) {
        let spec = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var times = [spec, spec]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    }

    func testHitReturnsIdenticalSummaries() throws {
        let uncached = try RunFolder.read(runs, zone: TimeZone(identifier: "UTC") ?? .current)
        let cache = try openCache()
        let first = try RunFolder.read(runs, zone: TimeZone(identifier: "UTC") ?? .current, cache: cache)
        XCTAssertEqual(cache.count, 3)
        let second = try RunFolder.read(runs, zone: TimeZone(identifier: "UTC") ?? .current, cache: try openCache())
        XCTAssertEqual(first.runs, uncached.runs)
        XCTAssertEqual(second.runs, uncached.runs)
        XCTAssertEqual(uncached.runs.count, 3)
        // The bytes are junk now, same size and time: a result proves it came from the cache.
        try replaceKeepingStamp(runs + "/run-2.gpx")
        let third = try RunFolder.read(runs, zone: TimeZone(identifier: "UTC") ?? .current, cache: try openCache())
        XCTAssertEqual(third.runs, uncached.runs)
        XCTAssertTrue(third.errors.isEmpty)
        // Without the cache the junk is read and fails.
        let fresh = try RunFolder.read(runs)
        XCTAssertEqual(fresh.errors.map(\.path), ["run-2.gpx"])
    }

    /// The device's totals, its laps and the averages' labels come back from the cache as they went in.
    func testDeviceTotalsAndLapsSurviveTheCache() throws {
        var track = RunGenerator(seed: 9, distanceMeters: 2000).track()
        let start = track.times[0]
        track.laps = [
            Lap(start: start, elapsedSeconds: 330, timerSeconds: 325.5, distanceMeters: 1000, averageHeartRate: 151, trigger: "distance"),
            Lap(start: start + 330, elapsedSeconds: 330, timerSeconds: 330, distanceMeters: 1000, maximumHeartRate: 170, intensity: "rest"),
        ]
        track.deviceAscentMeters = 48; track.deviceDescentMeters = 46; track.deviceMovingSeconds = 640.25
        track.deviceAverageHeartRate = 152; track.deviceMaximumHeartRate = 171; track.deviceLapCount = 2
        try Data(FITWriter.encode(track: track)).write(to: URL(fileURLWithPath: runs + "/watch.fit"))
        let utc = TimeZone(identifier: "UTC") ?? .current
        let uncached = try RunFolder.read(runs, zone: utc)
        let cold = try RunFolder.read(runs, zone: utc, cache: try openCache())
        let warm = try RunFolder.read(runs, zone: utc, cache: try openCache())
        XCTAssertEqual(cold.runs, uncached.runs)
        XCTAssertEqual(warm.runs, uncached.runs)
        let watch = try XCTUnwrap(warm.runs.first { $0.id == "watch.fit" })
        XCTAssertEqual(watch.deviceAscentMeters, 48)
        XCTAssertEqual(watch.deviceMovingSeconds, 640.25)
        XCTAssertEqual(watch.deviceLaps, 2)
        XCTAssertEqual(watch.laps.map(\.trigger), ["distance", nil])
        XCTAssertEqual(watch.laps.map(\.intensity), [nil, "rest"])
        XCTAssertEqual(watch.heartRate?.weighting, .time)
    }

    /// Lookups inside `readingTogether` share one read transaction: they find what a lookup alone
    /// finds, a write inside it ends the transaction and is seen, and once it returns another
    /// connection's write is seen too (no snapshot or lock is left behind).
    func testLookupsReadTogetherSeeWhatLookupsAloneSee() throws {
        let cache = try openCache()
        let other = try openCache()
        func row(_ name: String) -> RunCache.Row {
            RunCache.Row(path: "/x/\(name)", sizeBytes: 10, modifiedNanoseconds: 20, hash: 30, key: "k", id: name, summaries: Data(name.utf8))
        }
        @Sendable func find(_ cache: RunCache, _ name: String) -> String? {
            cache.lookup(path: "/x/\(name)", sizeBytes: 10, modifiedNanoseconds: 20, key: "k").map { String(decoding: $0.summaries, as: UTF8.self) }
        }
        cache.store([row("a")])
        let together: [String?] = cache.readingTogether {
            let first = [find(cache, "a"), find(cache, "b")]
            cache.store([row("b")])  // ends the read transaction first
            return first + [find(cache, "b")]
        }
        XCTAssertEqual(together, ["a", nil, "b"])
        // Nothing is held now: another connection writes, and both see it.
        other.store([row("c")])
        XCTAssertEqual(other.warnings, [])
        XCTAssertEqual(cache.readingTogether { find(cache, "c") }, "c")
        XCTAssertEqual(find(other, "a"), "a")
        XCTAssertEqual(cache.count, 3)
        // And inside, on many threads at once, as a folder's read does.
        let names = (0..<64).map { $0 % 3 == 0 ? "a" : "missing-\($0)" }
        let found = RunFolder.Outcomes(count: names.count)
        cache.readingTogether {
            DispatchQueue.concurrentPerform(iterations: names.count) { index in
                let hit = find(cache, names[index]) == "a"
                found.set(index, hit ? .runs([], nil) : .failed(RunFileError(path: names[index], message: "miss")))
            }
        }
        for (index, outcome) in found.values.enumerated() {
            if case .runs? = outcome { XCTAssertEqual(names[index], "a") } else { XCTAssertNotEqual(names[index], "a") }
        }
        // Reads alone (no write to end the transaction) leave no transaction open either.
        XCTAssertFalse(cache.isInsideTransaction)
        XCTAssertEqual(cache.readingTogether { () -> Bool in find(cache, "c") == "c" && cache.isInsideTransaction }, true)
        XCTAssertFalse(cache.isInsideTransaction)
        other.store([row("d")])
        XCTAssertEqual(other.warnings, [])
        XCTAssertEqual(find(cache, "d"), "d")
    }

    func testTouchedOrChangedFileIsReRead() throws {
        let cache = try openCache()
        let before = try RunFolder.read(runs, cache: cache)
        // Same size, junk bytes, a new modification time: must be read (and fail), not served stale.
        let path = runs + "/run-1.gpx"
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        try replaceKeepingStamp(path)
        setModified(path, nanoseconds: stamp.modifiedNanoseconds + 1_000_000_000)
        let touched = try RunFolder.read(runs, cache: cache)
        XCTAssertEqual(touched.errors.map(\.path), ["run-1.gpx"])
        XCTAssertEqual(touched.runs.count, 2)
        // A different run in its place: the new summary, and it is cached in turn.
        try Data(RunGenerator(seed: 77, distanceMeters: 4200).gpxBytes()).write(to: URL(fileURLWithPath: path))
        let changed = try RunFolder.read(runs, cache: cache)
        XCTAssertTrue(changed.errors.isEmpty)
        let run = try XCTUnwrap(changed.runs.first { $0.id == "run-1.gpx" })
        XCTAssertNotEqual(run.distanceMeters, before.runs.first { $0.id == "run-1.gpx" }?.distanceMeters)
        XCTAssertEqual(run.distanceMeters, 4200, accuracy: 150)
        try replaceKeepingStamp(path)
        XCTAssertEqual(try RunFolder.read(runs, cache: cache).runs.first { $0.id == "run-1.gpx" }, run)
    }

    func testMovedFileIsRecognisedByHash() throws {
        let cache = try openCache()
        let path = runs + "/run-3.gpx"
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        let hash = try XCTUnwrap(RunCache.hash(path: path))
        // A row stored under another path with this file's hash, holding a summary the file cannot give.
        var marker = try XCTUnwrap(RunFolder.read(path).runs.first)
        marker.id = "old/place.gpx"
        marker.distanceMeters = 12_345
        let key = RunCache.key(checkpoints: [])
        cache.store([RunCache.Row(path: "/elsewhere/old/place.gpx", sizeBytes: stamp.sizeBytes, modifiedNanoseconds: 1,
                                  hash: hash, key: key, id: marker.id, summaries: SummaryCodec.encode([marker]))])
        let folder = try RunFolder.read(runs, cache: cache)
        let moved = try XCTUnwrap(folder.runs.first { $0.distanceMeters == 12_345 })
        XCTAssertEqual(moved.id, "run-3.gpx", "the summary takes the file's new id")
        XCTAssertEqual(cache.count, 4, "stored again under its new path")
        // A renamed file: found by hash, stored under its new path.
        try FileManager.default.moveItem(atPath: runs + "/run-2.gpx", toPath: runs + "/renamed.gpx")
        let renamed = try RunFolder.read(runs, cache: cache)
        XCTAssertEqual(renamed.runs.map(\.id).sorted(), ["renamed.gpx", "run-1.gpx", "run-3.gpx"])
        XCTAssertTrue(renamed.errors.isEmpty)
        XCTAssertEqual(cache.count, 5)
    }

    /// A file that is not a badgectl cache, given as the cache (issue S2: it was renamed, a `.corrupt`
    /// folder beside it deleted and its `-wal` removed): left exactly as it was, with everything
    /// around it, and the run goes on without a cache, the warning naming the file.
    func testAFileThatIsNotACacheIsNeverMovedOrDeleted() throws {
        let mine = "this is not a database, just my notes"
        try Data(mine.utf8).write(to: URL(fileURLWithPath: cachePath))
        try FileManager.default.createDirectory(atPath: cachePath + ".corrupt", withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: cachePath + ".corrupt/precious.txt"))
        for suffix in ["-wal", "-shm", "-journal"] { try Data("mine too".utf8).write(to: URL(fileURLWithPath: cachePath + suffix)) }
        var warning: String?
        XCTAssertNil(RunCache.open(path: cachePath, warning: &warning))
        XCTAssertTrue(warning?.contains("the cache \(cachePath) is not a badgectl cache") == true, warning ?? "no warning")
        XCTAssertTrue(warning?.contains("not touching it") == true, warning ?? "no warning")
        XCTAssertEqual(try String(contentsOfFile: cachePath, encoding: .utf8), mine)
        XCTAssertEqual(try String(contentsOfFile: cachePath + ".corrupt/precious.txt", encoding: .utf8), "keep me")
        for suffix in ["-wal", "-shm", "-journal"] {
            XCTAssertEqual(try String(contentsOfFile: cachePath + suffix, encoding: .utf8), "mine too", suffix)
        }
        // The folder still reads, uncached.
        XCTAssertEqual(try RunFolder.read(runs).runs.count, 3)
    }

    /// A damaged cache of badgectl's own (its header carries badgectl's application id) is moved aside,
    /// beside whatever `.corrupt` is there already (never replaced), with its `-wal`; a new one is made.
    func testADamagedCacheOfOursIsMovedAsideWithoutReplacingAnything() throws {
        do {
            let cache = try openCache()
            _ = try RunFolder.read(runs, cache: cache)
        }
        XCTAssertTrue(RunCache.isOurs(cachePath))
        // Damage the schema page past the header (bytes 100 on): SQLite then calls it corrupt or not a database.
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: cachePath))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 3_000))
        try handle.close()
        try Data("an earlier one".utf8).write(to: URL(fileURLWithPath: cachePath + ".corrupt"))
        var warning: String?
        let cache = try XCTUnwrap(RunCache.open(path: cachePath, warning: &warning), warning ?? "")
        XCTAssertEqual(cache.warnings.count, 1, "\(cache.warnings)")
        XCTAssertTrue(cache.warnings.first?.contains("moved it to \(cachePath).corrupt-2") == true, "\(cache.warnings)")
        XCTAssertEqual(try String(contentsOfFile: cachePath + ".corrupt", encoding: .utf8), "an earlier one")
        XCTAssertTrue(RunCache.isOurs(cachePath + ".corrupt-2"))
        XCTAssertEqual(try RunFolder.read(runs, cache: cache).runs.count, 3)
        XCTAssertEqual(cache.count, 3)
    }

    /// A cache damaged inside (its runs table's pages overwritten, the header and schema sound) opens
    /// without a warning (no integrity check reads every page on open), but the first lookup that
    /// reads a damaged page is a miss: the run is read from its file, the cache is moved aside to
    /// `.corrupt` with a warning, and the next open makes a new cache.
    func testCacheDamagedInsideIsMovedAsideWhenALookupFindsIt() throws {
        let utc = TimeZone(identifier: "UTC") ?? .current
        let uncached = try RunFolder.read(runs, zone: utc)
        do {
            let cache = try openCache()
            _ = try RunFolder.read(runs, zone: utc, cache: cache)
            XCTAssertEqual(cache.count, 3)
        }
        // The cache is closed (its WAL checkpointed into the file): overwrite the pages the lookups read.
        let database = try DatabaseQueue(path: cachePath)
        let pageSize = try database.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } ?? 4096
        let roots = try database.read {
            try Int.fetchAll($0, sql: "SELECT rootpage FROM sqlite_master WHERE tbl_name = 'runs' AND rootpage > 0")
        }
        try database.close()
        XCTAssertFalse(roots.isEmpty)
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: cachePath))
        for root in roots {
            try handle.seek(toOffset: UInt64((root - 1) * pageSize))
            try handle.write(contentsOf: Data(repeating: 0xA5, count: pageSize))
        }
        try handle.close()
        let cache = try openCache()
        XCTAssertTrue(cache.warnings.isEmpty, "\(cache.warnings)")
        let read = try RunFolder.read(runs, zone: utc, cache: cache)
        XCTAssertEqual(read.runs, uncached.runs)
        XCTAssertTrue(read.errors.isEmpty)
        XCTAssertEqual(cache.warnings.count, 1, "\(cache.warnings)")
        XCTAssertTrue(cache.warnings.first?.contains("is damaged") == true, "\(cache.warnings)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: cachePath + ".corrupt"))
        let fresh = try openCache()
        XCTAssertEqual(fresh.count, 0)
        XCTAssertEqual(try RunFolder.read(runs, zone: utc, cache: fresh).runs, uncached.runs)
        XCTAssertEqual(fresh.count, 3)
    }

    func testForeignDatabaseIsNotTouched() throws {
        // A valid SQLite file of another program: never read, written or moved aside (it was
        // renamed to .corrupt before: only what SQLite calls not a database, or damaged, is).
        let other = try DatabaseQueue(path: cachePath)
        try other.write { try $0.execute(sql: "CREATE TABLE runs (name TEXT); INSERT INTO runs VALUES ('mine');") }
        try other.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: cachePath))
        var warning: String?
        XCTAssertNil(RunCache.open(path: cachePath, warning: &warning))
        XCTAssertEqual(warning, "the cache \(cachePath) is a SQLite database of another program; not touching it, evaluating without a cache")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath + ".corrupt"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cachePath)), before)
        let again = try DatabaseQueue(path: cachePath)
        XCTAssertEqual(try again.read { try String.fetchAll($0, sql: "SELECT name FROM runs") }, ["mine"])
        try again.close()
        // Another layout of ours is not touched either.
        try FileManager.default.removeItem(atPath: cachePath)
        let newer = try DatabaseQueue(path: cachePath)
        try newer.write { try $0.execute(sql: "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('layout', 'badgectl-run-cache/9');") }
        try newer.close()
        XCTAssertNil(RunCache.open(path: cachePath, warning: &warning))
        XCTAssertEqual(warning, "the cache \(cachePath) is a badgectl cache of another layout (badgectl-run-cache/9); not touching it, evaluating without a cache")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath + ".corrupt"))
    }

    func testCacheOfTheSameLayoutMadeElsewhereIsRead() throws {
        // The layout as the cache has always written it (before GRDB too), made by hand, holding
        // a row the file cannot give: the cache must read it, not move it aside.
        let path = runs + "/run-1.gpx"
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        var marker = try XCTUnwrap(RunFolder.read(path).runs.first)
        marker.distanceMeters = 54_321
        let other = try DatabaseQueue(path: cachePath)
        try other.write { db in
            try db.execute(sql: """
                CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT INTO meta VALUES ('layout', 'badgectl-run-cache/1');
                CREATE TABLE runs (
                    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                    hash INTEGER NOT NULL, key TEXT NOT NULL, id TEXT NOT NULL, summaries BLOB NOT NULL);
                CREATE INDEX runs_by_hash ON runs (hash, size);
                """)
            try db.execute(sql: "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: [RunFolder.absolutePath(path), stamp.sizeBytes, stamp.modifiedNanoseconds, 0,
                                       RunCache.key(checkpoints: []), "run-1.gpx", SummaryCodec.encode([marker])])
        }
        try other.close()
        let cache = try openCache()
        XCTAssertTrue(cache.warnings.isEmpty)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cachePath + ".corrupt"))
        let read = try RunFolder.read(runs, cache: cache)
        XCTAssertEqual(read.runs.first { $0.id == "run-1.gpx" }?.distanceMeters, 54_321)
        XCTAssertEqual(cache.count, 3)
    }

    func testRowOfTheWrongTypesIsAMissNotACrash() throws {
        // Our layout marker, but a summaries column holding a number: the file is read instead.
        _ = try openCache()
        let path = runs + "/run-1.gpx"
        let stamp = try XCTUnwrap(RunCache.stamp(path: path))
        let other = try DatabaseQueue(path: cachePath)
        try other.write {
            try $0.execute(sql: "INSERT INTO runs VALUES (?, ?, ?, 0, ?, 'run-1.gpx', 42)",
                           arguments: [RunFolder.absolutePath(path), stamp.sizeBytes, stamp.modifiedNanoseconds, RunCache.key(checkpoints: [])])
        }
        try other.close()
        let cache = try openCache()
        XCTAssertNil(cache.lookup(path: RunFolder.absolutePath(path), sizeBytes: stamp.sizeBytes,
                                  modifiedNanoseconds: stamp.modifiedNanoseconds, key: RunCache.key(checkpoints: [])))
        XCTAssertEqual(try RunFolder.read(runs, cache: cache).runs, try RunFolder.read(runs).runs)
    }

    /// A cache made before summaries were stored in binary (JSON rows under summary version 6) is
    /// rebuilt silently: its rows are not read (their key is another version's), every file is read
    /// again with no warning, and the new rows, in the binary form, serve the next read.
    func testOldJSONCacheIsRebuiltSilently() throws {
        let zone = TimeZone(identifier: "UTC") ?? .current
        let uncached = try RunFolder.read(runs, zone: zone)
        _ = try openCache()
        let oldKey = RunCache.key(checkpoints: [], version: 6)
        XCTAssertNotEqual(oldKey, RunCache.key(checkpoints: []))
        let other = try DatabaseQueue(path: cachePath)
        for index in 1...3 {
            let path = runs + "/run-\(index).gpx"
            let stamp = try XCTUnwrap(RunCache.stamp(path: path))
            // What version 6 stored: the summaries as JSON, with a distance no read would give.
            var old = try XCTUnwrap(uncached.runs.first { $0.id == "run-\(index).gpx" })
            old.distanceMeters = 1
            let json = try JSONEncoder().encode([old])
            try other.write {
                try $0.execute(sql: "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                               arguments: [RunFolder.absolutePath(path), stamp.sizeBytes, stamp.modifiedNanoseconds,
                                           Int64(index), oldKey, "run-\(index).gpx", json])
            }
        }
        try other.close()
        let cache = try openCache()
        let rebuilt = try RunFolder.read(runs, zone: zone, cache: cache)
        XCTAssertEqual(rebuilt.runs, uncached.runs)
        XCTAssertTrue(rebuilt.errors.isEmpty)
        XCTAssertEqual(cache.warnings, [])
        // The new rows are binary and are what the next read gets (the files are junk now).
        let reader = try DatabaseQueue(path: cachePath)
        let blobs = try reader.read { try Data.fetchAll($0, sql: "SELECT summaries FROM runs WHERE key = ?", arguments: [RunCache.key(checkpoints: [])]) }
        try reader.close()
        XCTAssertEqual(blobs.count, 3)
        XCTAssertTrue(blobs.allSatisfy { $0.starts(with: SummaryCodec.magic) })
        for index in 1...3 { try replaceKeepingStamp(runs + "/run-\(index).gpx") }
        XCTAssertEqual(try RunFolder.read(runs, zone: zone, cache: try openCache()).runs, uncached.runs)
    }

    /// The binary form gives back exactly what went in, nil fields, laps, routes and lists of
    /// optionals included (`SummaryCodecTests` holds it to every field), and a damaged row is an error
    /// (the file is then read again), never a trap.
    func testBinarySummariesRoundTripAndDamageIsAnError() throws {
        let bytes = RunGenerator(seed: 9, distanceMeters: 5_200).gpxBytes()
        try Data(bytes).write(to: URL(fileURLWithPath: runs + "/route.gpx"))
        var summaries = try RunLoader.load(path: runs + "/route.gpx", id: "route.gpx", analyzer: RunAnalyzer(), zoneOffsetSeconds: 0)
        summaries[0].laps = [RunLap(index: 1, startElapsedSeconds: 0, distanceMeters: 1000, elapsedSeconds: 300, trigger: "manual"),
                             RunLap(index: 2)]
        summaries[0].route = RouteTrace(latitudes: [51.5, 51.6], longitudes: [-0.1, -0.2], speedsMetersPerSecond: [nil, 3.5], segmentStarts: [0])
        summaries[0].name = nil
        summaries[0].floatingStart = true
        let encoded = SummaryCodec.encode(summaries)
        XCTAssertEqual(try SummaryCodec.decode(encoded), summaries)
        // The same as a JSON round trip gives (what the cache held before).
        let viaJSON = try JSONDecoder().decode([RunSummary].self, from: try JSONEncoder().encode(summaries))
        XCTAssertEqual(try SummaryCodec.decode(encoded), viaJSON)
        for cut in [0, 3, 4, 10, encoded.count / 2, encoded.count - 1] {
            XCTAssertThrowsError(try SummaryCodec.decode(encoded.prefix(cut)), "cut at \(cut)")
        }
        XCTAssertThrowsError(try SummaryCodec.decode(encoded + [0]), "a byte after the last run")
        var flipped = encoded
        flipped[0] = 0xEE
        XCTAssertThrowsError(try SummaryCodec.decode(flipped))
    }

    /// The cache names a file by its absolute path with `.`, `..` and repeated slashes taken out, and
    /// the folder's walk hands each file's size and time on (a warm read stats a file once): the same
    /// stamp a stat of the file gives.
    func testPathsAndStampsTheLookupUses() throws {
        XCTAssertEqual(RunFolder.absolutePath("/a//b/./c/../d.gpx"), "/a/b/d.gpx")
        XCTAssertEqual(RunFolder.absolutePath("/a/b/.hidden/x.gpx"), "/a/b/.hidden/x.gpx")
        XCTAssertEqual(RunFolder.absolutePath("/a/b/"), "/a/b")
        XCTAssertEqual(RunFolder.absolutePath("/"), "/")
        XCTAssertEqual(RunFolder.absolutePath("x/y.gpx"), FileManager.default.currentDirectoryPath + "/x/y.gpx")
        let found = try RunLoader.discover(directory: runs)
        XCTAssertEqual(found.runs.count, 3)
        for id in found.runs {
            let stamp = try XCTUnwrap(RunCache.stamp(path: runs + "/" + id))
            XCTAssertEqual(found.stamps[id], RunLoader.Stamp(sizeBytes: stamp.sizeBytes, modifiedNanoseconds: stamp.modifiedNanoseconds))
        }
    }

    /// A new cache is made with 16 KiB pages (rows and measure sets then share pages instead of taking
    /// one each); a cache made with the old 4 KiB pages keeps them and is read as before.
    func testNewCachesUseLargePagesAndOldOnesStillRead() throws {
        let uncached = try RunFolder.read(runs)
        let cache = try openCache()
        XCTAssertEqual(try RunFolder.read(runs, cache: cache).runs, uncached.runs)
        let reader = try DatabaseQueue(path: cachePath)
        XCTAssertEqual(try reader.read { try Int.fetchOne($0, sql: "PRAGMA page_size") }, RunCache.pageSize)
        try reader.close()
        let oldPath = folder + "/old.sqlite"
        let old = try DatabaseQueue(path: oldPath)
        // A file of 4 KiB pages with no table yet (what a cache made before was): open makes its tables.
        try old.inDatabase { try $0.execute(sql: "PRAGMA page_size = 4096; PRAGMA user_version = 1") }
        try old.close()
        let reopened = try openCache(oldPath)
        XCTAssertEqual(try RunFolder.read(runs, cache: reopened).runs, uncached.runs)
        for index in 1...3 { try replaceKeepingStamp(runs + "/run-\(index).gpx") }
        XCTAssertEqual(try RunFolder.read(runs, cache: try openCache(oldPath)).runs, uncached.runs, "served from the old cache")
        let check = try DatabaseQueue(path: oldPath)
        XCTAssertEqual(try check.read { try Int.fetchOne($0, sql: "PRAGMA page_size") }, 4096)
        try check.close()
    }

    func testFailedWriteWarnsAndResultsStand() throws {
        // A cache whose inserts fail (a trigger stands in for a full disk): one warning, no row
        // stored (one transaction), every run still read, and later writes are not tried.
        _ = try openCache()
        let other = try DatabaseQueue(path: cachePath)
        try other.write {
            try $0.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'no room'); END;")
        }
        try other.close()
        let cache = try openCache()
        let uncached = try RunFolder.read(runs)
        let read = try RunFolder.read(runs, cache: cache)
        XCTAssertEqual(read.runs, uncached.runs)
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.warnings.count, 1)
        XCTAssertTrue(cache.warnings.first?.contains("no room") ?? false, cache.warnings.first ?? "")
        _ = try RunFolder.read(runs, cache: cache)
        XCTAssertEqual(cache.warnings.count, 1)
    }

    func testUnwritableLocationGivesNoCacheAndAWarning() throws {
        var warning: String?
        // A path under a regular file can never be created (even by root).
        let cache = RunCache.open(path: runs + "/run-1.gpx/cache.sqlite", warning: &warning)
        XCTAssertNil(cache)
        XCTAssertNotNil(warning)
        XCTAssertEqual(try RunFolder.read(runs, cache: cache).runs.count, 3)
    }

    func testVersionOrCheckpointChangeInvalidates() throws {
        let cache = try openCache()
        _ = try RunFolder.read(runs, cache: cache)
        let path = runs + "/run-1.gpx"
        try replaceKeepingStamp(path)
        let current = RunCache.key(checkpoints: [])
        guard case .runs = RunFolder.readOne(path: path, id: "run-1.gpx", analyzer: RunAnalyzer(), cache: cache, key: current) else {
            return XCTFail("the current key hits")
        }
        let bumped = RunCache.key(checkpoints: [], version: RunCache.summaryVersion + 1)
        guard case .failed = RunFolder.readOne(path: path, id: "run-1.gpx", analyzer: RunAnalyzer(), cache: cache, key: bumped) else {
            return XCTFail("another summary version must read the file again")
        }
        let targets = [RunAnalyzer.CheckpointTarget(badge: "5k", name: "5 km", distanceMeters: 5000)]
        XCTAssertNotEqual(RunCache.key(checkpoints: targets), current)
        guard case .failed = RunFolder.readOne(path: path, id: "run-1.gpx", analyzer: RunAnalyzer(checkpoints: targets),
                                               cache: cache, key: RunCache.key(checkpoints: targets)) else {
            return XCTFail("other checkpoint targets must read the file again")
        }
    }

    func testHashDoesNotDependOnTheReadSize() throws {
        // Several read buffers' worth plus a ragged tail: the same as hashing the bytes in one go,
        // so rows stored with another buffer size still match.
        let path = folder + "/big"
        let bytes = Data((0..<(3 * 1_048_576 + 12_345)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        try bytes.write(to: URL(fileURLWithPath: path))
        var whole = Hasher64()
        bytes.withUnsafeBytes { whole.update($0) }
        XCTAssertEqual(RunCache.hash(path: path), whole.finish())
    }

    func testHashSeesEveryByte() throws {
        let path = folder + "/bytes"
        var bytes = Data((0..<10_003).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let a = try XCTUnwrap(RunCache.hash(path: path))
        for position in [0, 5_000, 10_002] {
            bytes[position] ^= 1
            try bytes.write(to: URL(fileURLWithPath: path))
            XCTAssertNotEqual(RunCache.hash(path: path), a, "byte \(position)")
            bytes[position] ^= 1
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(RunCache.hash(path: path), a)
    }

    func testHashingWhileReadingGivesTheSameHashInPiecesOfAnySize() throws {
        let path = folder + "/pieces"
        let bytes = (0..<(200_003)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let expected = try XCTUnwrap(RunCache.hash(path: path))
        for pieces in [[1], [31, 1, 33], [7, 64, 1000], [65_536], [200_003]] {
            let hasher = ContentHasher()
            var position = 0, k = 0
            while position < bytes.count {
                let n = min(pieces[k % pieces.count], bytes.count - position)
                bytes[position..<(position + n)].withUnsafeBytes { hasher.update($0) }
                position += n; k += 1
            }
            XCTAssertEqual(hasher.finish(), expected, "pieces \(pieces)")
        }
        XCTAssertEqual(ContentHasher().finish(), Hasher64().finish(), "an empty file")
    }

    func testAColdReadStoresTheHashOfEveryFormatAsAWholeFileHashWouldGiveIt() throws {
        // Each format is read once, hashed on the way; a GPX file with bytes after </gpx> too.
        let generator = RunGenerator(seed: 9, distanceMeters: 1200)
        var gpx = generator.gpxBytes()
        gpx += Array("\n<!-- written after the root element -->\n".utf8)
        try Data(gpx).write(to: URL(fileURLWithPath: runs + "/tail.gpx"))
        try Data(try Gzip.compress(generator.gpxBytes())).write(to: URL(fileURLWithPath: runs + "/zipped.gpx.gz"))
        try Data(FITWriter.encode(track: generator.track())).write(to: URL(fileURLWithPath: runs + "/watch.fit"))
        try Data(generator.summaryJSON().utf8).write(to: URL(fileURLWithPath: runs + "/treadmill.json"))
        let cache = try openCache()
        let first = try RunFolder.read(runs, cache: cache)
        XCTAssertTrue(first.errors.isEmpty, "\(first.errors)")
        XCTAssertEqual(cache.count, 7)
        // Every file renamed: each must be found by the hash stored on the cold read, not read again.
        for name in ["tail.gpx", "zipped.gpx.gz", "watch.fit", "treadmill.json", "run-1.gpx"] {
            let path = runs + "/" + name
            let stamp = try XCTUnwrap(RunCache.stamp(path: path))
            let hash = try XCTUnwrap(RunCache.hash(path: path))
            XCTAssertNotNil(cache.lookup(hash: hash, sizeBytes: stamp.sizeBytes, key: RunCache.key(checkpoints: [])), name)
        }
    }
}
