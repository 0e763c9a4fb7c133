import BadgeKit
import Foundation
import RunFixtures
import XCTest

/// The library's API end to end on the shipped packs: samples and files give the same summary,
/// a history evaluates, a saved state takes one more run.
final class BadgeEngineTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func engine() throws -> BadgeEngine {
        try BadgeEngine(packs: [Self.root + "/rules"], catalogue: Self.root + "/badges.json", zone: TimeZone(identifier: "UTC") ?? .current)
    }

    func testSamplesGiveTheSameSummaryAsTheFile() throws {
        let engine = try engine()
        XCTAssertEqual(engine.loadFailures, [])
        XCTAssertEqual(engine.packs.map(\.name), ["checkpoints", "explorer", "habits", "lifetime", "places", "segments"])
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
        let outcome = try engine.whatIf(WhatIf.Run(distanceMeters: 10_500, elapsedSeconds: 3_600, startEpochSeconds: start, utcOffsetSeconds: 0),
                                    history: [first])
        XCTAssertEqual(outcome.run.distanceMeters, 10_500, accuracy: 2)
        XCTAssertTrue(outcome.awards.contains { $0.badge == "ten-k" && $0.tier == "earned" }, "\(outcome.awards)")
        XCTAssertFalse(outcome.awards.contains { $0.badge == "fifteen-k" })
        XCTAssertFalse(outcome.before.awards.contains { $0.badge == "ten-k" })
        // Its path is invented: no place, segment or tile is counted (the explorer pack's first
        // tiles would otherwise be "earned" on a made-up route).
        let whereDefinitions = engine.rules.measureDefinitions.filter { WhatIf.whereKinds.contains($0.kind) }
        XCTAssertFalse(whereDefinitions.isEmpty)
        for definition in whereDefinitions { XCTAssertNil(outcome.run.measures[definition.key], definition.key) }
        XCTAssertFalse(outcome.awards.contains { $0.pack == "explorer" || $0.pack == "places" }, "\(outcome.awards)")
        XCTAssertFalse(engine.rules.measureDefinitions.filter { $0.kind == "effort" }.allSatisfy { outcome.run.measures[$0.key] == nil })
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

    func testStateTakesOneMoreRun() throws {
        let engine = try engine()
        let folder = NSTemporaryDirectory() + "badgekit-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
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
        XCTAssertEqual(added.evaluation.awards.map(IncrementalEvaluator.identity), engine.evaluate(runs).awards.map(IncrementalEvaluator.identity))
        XCTAssertFalse(saved.evaluation.awards.isEmpty)
        XCTAssertThrowsError(try engine.add([runs[2]], toStateIn: folder + "/none")) { error in
            XCTAssertTrue("\(error)".contains("no saved state here"), "\(error)")
        }
    }
}
