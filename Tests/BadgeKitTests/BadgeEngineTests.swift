import BadgeKit
import Foundation
import RunFixtures
import SyntheticRuns
import XCTest

/// The library's API end to end on the shipped packs: samples and files give the same summary,
/// a history evaluates, a saved state takes one more run.
final class BadgeEngineTests: XCTestCase {
    static let root = Repository.root.path

    /// An award by what makes it that award: pack, rule, badge, tier and run.
    static func identity(_ award: Award) -> String { [award.pack, award.rule, award.badge, award.tier, award.run].joined(separator: "/") }

    func engine() throws -> BadgeEngine {
        try BadgeEngine(packs: [Self.root + "/rules"], catalogue: Self.root + "/badges.json", zone: TimeZone(identifier: "UTC") ?? .current)
    }

    func testSamplesGiveTheSameSummaryAsTheFile() throws {
        let engine = try engine()
        XCTAssertEqual(engine.loadFailures, [])
        XCTAssertEqual(engine.packs.map(\.name), ["agegrade", "challenges", "checkpoints", "explorer", "goals", "habits", "lifetime", "places", "segments"])
        XCTAssertTrue(engine.packs.allSatisfy { $0.fingerprint.hasPrefix("sha256:") })
        var generator = RunGenerator(seed: 7, distanceMeters: 10_500, paceSecondsPerKilometre: 300)
        generator.style = .compact
        let track = generator.track()
        let samples = RunSamples(times: track.times, latitudes: track.latitudes, longitudes: track.longitudes,
                                 elevations: track.elevations, heartRates: track.heartRates, name: track.name)
        var fromSamples = try engine.summary(samples: samples, id: "run.gpx")
        let fromBytes = try engine.summaries(bytes: generator.gpxBytes(), fileName: "run.gpx")
        XCTAssertEqual(fromBytes.count, 1)
        XCTAssertEqual(fromSamples.format, RunSamples.format)
        fromSamples.format = fromBytes[0].format
        XCTAssertEqual(fromSamples.splitsKilometre, fromBytes[0].splitsKilometre)
        XCTAssertEqual(fromSamples.efforts, fromBytes[0].efforts)
        XCTAssertEqual(fromSamples.measures, fromBytes[0].measures)
        XCTAssertEqual(fromSamples.distanceMeters, fromBytes[0].distanceMeters)
        let evaluation = engine.evaluate([fromSamples])
        XCTAssertTrue(evaluation.awards.contains { $0.badge == "ten-k" && $0.tier == "earned" })
        XCTAssertNotNil(evaluation.next)
    }

    /// The library's what-if: a 10.5 km run after a 5.2 km one earns ten-k (and nothing it did not
    /// run), and moves nothing the history holds that it cannot beat.
    func testWhatIfOfTheNextRun() throws {
        let engine = try engine()
        var generator = RunGenerator(seed: 3, distanceMeters: 5_200, paceSecondsPerKilometre: 330)
        generator.style = .compact
        let track = generator.track()
        let first = try engine.summary(samples: RunSamples(times: track.times, latitudes: track.latitudes, longitudes: track.longitudes), id: "first")
        let start = (first.startEpochSeconds ?? 0) + 86_400
        let outcome = try engine.whatIf(WhatIfRun(distanceMeters: 10_500, elapsedSeconds: 3_600, startEpochSeconds: start, utcOffsetSeconds: 0),
                                        history: [first])
        XCTAssertEqual(outcome.run.distanceMeters, 10_500, accuracy: 2)
        XCTAssertTrue(outcome.awards.contains { $0.badge == "ten-k" && $0.tier == "earned" }, "\(outcome.awards)")
        XCTAssertFalse(outcome.awards.contains { $0.badge == "fifteen-k" })
        XCTAssertFalse(outcome.before.awards.contains { $0.badge == "ten-k" })
        // Its path is invented: no place, segment or tile is counted (the explorer pack's first
        // tiles would otherwise be "earned" on a made-up route; WhatIfMeasuresTests checks the measures).
        XCTAssertFalse(outcome.awards.contains { $0.pack == "explorer" || $0.pack == "places" }, "\(outcome.awards)")
    }

    /// The library selects runs as `badgectl evaluate` does (issue P: it only removed duplicates, so a
    /// ride and a "run" faster than the world record earned awards): running only, implausible runs
    /// out, one activity once; each an option.
    func testTheLibrarySelectsRunsAsTheCommandLineDoes() throws {
        var engine = try engine()
        func samples(_ generator: RunGenerator, sport: String) -> RunSamples {
            let track = generator.track()
            return RunSamples(times: track.times, latitudes: track.latitudes, longitudes: track.longitudes, sport: sport)
        }
        var run = RunGenerator(seed: 11, distanceMeters: 10_500, paceSecondsPerKilometre: 330)
        run.style = .compact
        var ride = RunGenerator(seed: 12, distanceMeters: 25_000, paceSecondsPerKilometre: 120)
        ride.startEpochSeconds += 86_400
        var impossible = RunGenerator(seed: 13, distanceMeters: 5_200, paceSecondsPerKilometre: 120)
        impossible.startEpochSeconds += 2 * 86_400
        let history = [
            try engine.summary(samples: samples(run, sport: "running"), id: "run"),
            try engine.summaries(bytes: run.gpxBytes(), fileName: "run.gpx", id: "run-export")[0],
            try engine.summary(samples: samples(ride, sport: "cycling"), id: "ride"),
            try engine.summary(samples: samples(impossible, sport: "running"), id: "impossible"),
        ]
        let selected = engine.select(history)
        XCTAssertEqual(selected.selected.count, 1)
        XCTAssertEqual(Set(selected.excluded.map(\.id)), ["ride", "impossible"])
        XCTAssertTrue(selected.excluded.first { $0.id == "impossible" }?.reason.hasPrefix("implausible for a runner") ?? false)
        XCTAssertEqual(selected.duplicates.count, 1)
        let awarded = Set(engine.evaluate(history).awards.map(\.run))
        XCTAssertEqual(awarded.count, 1, "\(awarded)")
        XCTAssertTrue(awarded.isDisjoint(with: ["ride", "impossible"]))

        engine.selection = BadgeEngine.Selection(sports: nil, excludesImplausible: false, removesDuplicates: false)
        XCTAssertEqual(engine.select(history).selected.map(\.id), ["run", "run-export", "ride", "impossible"])
        let everything = Set(engine.evaluate(history).awards.map(\.run))
        XCTAssertTrue(everything.isSuperset(of: ["run", "ride", "impossible"]), "\(everything)")
    }

    /// A folder of packs is expanded as `--rules` expands it (`RulePack.folders(in:)`): every
    /// sub-folder is a pack, so one without pack.lua is a load failure saying so (the library skipped
    /// it silently, and the command line did not).
    func testAFolderOfPacksIsExpandedAsTheCommandLineExpandsIt() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        try FileManager.default.createDirectory(atPath: folder + "/drafts", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.root + "/rules/checkpoints", toPath: folder + "/checkpoints")
        let engine = try BadgeEngine(packs: [folder + "/"], catalogue: Self.root + "/badges.json")
        XCTAssertEqual(engine.packs.map(\.name), ["checkpoints"])
        XCTAssertEqual(engine.loadFailures.map(\.pack), ["drafts"])
    }

    func testBadSamplesNameThePoint() throws {
        let engine = try engine()
        XCTAssertThrowsError(try engine.summary(samples: RunSamples(times: [0, 1], latitudes: [0, 91], longitudes: [0, 0]), id: "x")) { error in
            XCTAssertEqual("\(error)", "run x: sample 1: latitude 91.0 is not from -90 to 90")
        }
        XCTAssertThrowsError(try engine.summary(samples: RunSamples(times: [0, 1], latitudes: [0], longitudes: [0, 0]), id: "x")) { error in
            XCTAssertEqual("\(error)", "run x: 1 latitudes for 2 times (one per sample)")
        }
        XCTAssertThrowsError(try engine.summaries(bytes: [1, 2], fileName: "x.doc")) { error in
            XCTAssertTrue("\(error)".hasPrefix("run x.doc: unknown format"), "\(error)")
        }
    }

    func testAZipUploadIsReadAsItsFiles() throws {
        let engine = try engine()
        let gpx = RunGenerator(seed: 5).gpxBytes()
        let zip = ZipWriter([ZipWriter.Entry("activities/a.gpx", gpx), ZipWriter.Entry("notes.txt", Array("hi".utf8))]).finish()
        let fromZip = try engine.summaries(bytes: zip, fileName: "export.zip")
        let fromFile = try engine.summaries(bytes: gpx, fileName: "a.gpx")
        XCTAssertEqual(fromZip.map(\.id), ["export.zip/activities/a.gpx"])
        XCTAssertEqual(fromZip.first?.distanceMeters, fromFile.first?.distanceMeters)
        let bad = ZipWriter([ZipWriter.Entry("a.gpx", gpx, wrongCRC: true)]).finish()
        XCTAssertThrowsError(try engine.summaries(bytes: bad, fileName: "bad.zip")) { error in
            XCTAssertTrue("\(error)".contains("bad.zip: a.gpx: damaged zip entry"), "\(error)")
        }
    }

    func testStateTakesOneMoreRun() throws {
        let engine = try engine()
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path + "/state"
        let runs = try (0..<3).map { i -> RunSummary in
            var generator = RunGenerator(seed: UInt64(i), distanceMeters: 5200 + Double(i) * 2000, paceSecondsPerKilometre: 330 - Double(i) * 20)
            generator.startEpochSeconds += Double(i) * 86_400
            let track = generator.track()
            return try engine.summary(samples: RunSamples(times: track.times, latitudes: track.latitudes, longitudes: track.longitudes), id: "run-\(i)")
        }
        let saved = try engine.saveState(of: Array(runs[..<2]), in: folder)
        let added = try engine.add([runs[2]], toStateIn: folder)
        XCTAssertNil(added.replayed)
        XCTAssertEqual(added.runCount, 3)
        XCTAssertEqual(try engine.awards(inStateIn: folder).map(Self.identity), engine.evaluate(runs).awards.map(Self.identity))
        XCTAssertEqual(added.awardCount, engine.evaluate(runs).awards.count)
        XCTAssertFalse(saved.evaluation.awards.isEmpty)
        XCTAssertThrowsError(try engine.add([runs[2]], toStateIn: folder + "/none")) { error in
            XCTAssertTrue("\(error)".contains("no saved state here"), "\(error)")
        }
    }

    /// The library's explain: `badgectl explain` as a value (an award with its run's numbers, or what
    /// would earn the badge), a badge found by id or name, and a misspelt one named with the closest.
    func testExplainByIdOrNameAndTheClosestForATypo() throws {
        let engine = try engine()
        var generator = RunGenerator(seed: 9, distanceMeters: 10_300, paceSecondsPerKilometre: 330)
        generator.style = .compact
        let track = generator.track()
        let run = try engine.summary(samples: RunSamples(times: track.times, latitudes: track.latitudes, longitudes: track.longitudes), id: "run")
        let explained = try engine.explain("ten-k", history: [run])
        XCTAssertTrue(explained.earned)
        XCTAssertEqual(explained.awards.first?.run, "run")
        XCTAssertEqual(try XCTUnwrap(explained.awards.first?.distanceMeters), run.distanceMeters, accuracy: 1e-9)
        let notYet = try engine.explain("fifteen-k", history: [run])
        XCTAssertFalse(notYet.earned)
        XCTAssertFalse(notYet.statuses.isEmpty && notYet.targets.isEmpty && notYet.remainingMeters == nil, "nothing says what would earn it")
        XCTAssertEqual(try engine.explain(explained.name, history: [run]).badge, "ten-k")
        XCTAssertThrowsError(try engine.explain("ten-kk", history: [run])) { error in
            XCTAssertEqual(error as? BadgeKitError, .unknownBadge(id: "ten-kk", suggestion: "ten-k"))
            XCTAssertEqual("\(error)", "unknown badge 'ten-kk'; did you mean 'ten-k'?")
        }
    }
}
