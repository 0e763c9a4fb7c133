import BadgePipeline
import Foundation
import SyntheticRuns
import XCTest

@testable import BadgeKit

/// Below the face: a what-if run's path is invented, so the library's what-if gives it no measure of
/// where (places, segments, tiles) while it keeps the others (efforts). The measure declarations are
/// not BadgeKit's API, hence `@testable` and the pipeline's `WhatIf.whereKinds`.
final class WhatIfMeasuresTests: XCTestCase {
    func testAnInventedPathHasNoMeasuresOfWhere() throws {
        let engine = try BadgeEngine(packs: [BadgeEngineTests.root + "/rules"], catalogue: BadgeEngineTests.root + "/badges.json",
                                     zone: TimeZone(identifier: "UTC") ?? .current)
        var generator = RunGenerator(seed: 3, distanceMeters: 5_200, paceSecondsPerKilometre: 330)
        generator.style = .compact
        let track = generator.track()
        let first = try engine.summary(samples: RunSamples(times: track.times, latitudes: track.latitudes, longitudes: track.longitudes), id: "first")
        let outcome = try engine.whatIf(WhatIfRun(distanceMeters: 10_500, elapsedSeconds: 3_600, startEpochSeconds: (first.startEpochSeconds ?? 0) + 86_400,
                                                  utcOffsetSeconds: 0), history: [first])
        let definitions = engine.pipeline.engine.measureDefinitions
        let whereDefinitions = definitions.filter { WhatIf.whereKinds.contains($0.kind) }
        XCTAssertFalse(whereDefinitions.isEmpty)
        for definition in whereDefinitions { XCTAssertNil(outcome.run.measures[definition.key], definition.key) }
        let efforts = definitions.filter { $0.kind == "effort" }.map(\.key)
        XCTAssertTrue(efforts.contains { outcome.run.measures[$0] != nil }, "no effort measure")
    }
}
