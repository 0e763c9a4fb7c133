import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// What the author of a six-badge pack met (issue P), each fixed: evidence numbers as written, a
/// missing segment file with a suggestion, a rule that indexes a nil measure told which run and why.
final class AuthorFindingsTests: XCTestCase {
    /// `explain` printed `sunrise_epoch_s=1.78198e+09`: six significant digits lose the time of day.
    func testEvidenceNumbersAreWrittenAsGiven() {
        XCTAssertEqual(Evidence.number(1_781_981_234.5).text, "1781981234.5")
        XCTAssertEqual(Evidence.number(1_781_981_234).text, "1781981234")
        XCTAssertEqual(Evidence.number(0.1).text, "0.1")
        XCTAssertEqual(Evidence.number(2.0 / 3).text, "0.6666666666666666")
        XCTAssertEqual(Evidence.record(["sunrise_epoch_s": .number(1_781_981_234.25), "lead_s": .number(-1.5)]).text,
                       "lead_s=-1.5, sunrise_epoch_s=1781981234.25")
    }

    /// `bridge-spam.gpx` for `bridge-span.gpx`: the message names the file that is there.
    func testAMissingSegmentFileSuggestsTheClosestName() throws {
        let fixture = try PackFixture()
        let folder = try fixture.pack("p", packLua: """
            return { name = "p", version = "1", badges = { { id = "b", name = "B" } },
              measures = { bridge = { kind = "segment", file = "segments/bridge-spam.gpx" } } }
            """, files: ["segments/bridge-span.gpx": #"<gpx><rte><rtept lat="52.0" lon="5.0"/><rtept lat="52.0" lon="5.01"/></rte></gpx>"#,
                         "segments/notes.txt": "x"])
        XCTAssertThrowsError(try RulePack.load(directory: folder)) { error in
            XCTAssertTrue("\(error)".hasSuffix("no segment file \(folder)/segments/bridge-spam.gpx (a GPX route or track drawn in any GPX editor); "
                                               + "did you mean 'segments/bridge-span.gpx'?"), "\(error)")
        }
    }

    /// "attempt to index a nil value (local 'band')" named neither the run nor that it has no heart rate.
    func testARuleIndexingANilMeasureIsToldTheRunAndWhy() throws {
        let fixture = try PackFixture()
        try fixture.pack("hr", packLua: """
            return { name = "hr", version = "1", badges = { { id = "band", name = "Band" } },
              measures = { band = { kind = "time_in", channel = "heart_rate", min = 130, max = 150 },
                           sun = { kind = "sun" } } }
            """, files: ["band.lua": """
            return { id = "band", badge = "band", earned = function(run)
              local sun = run.measures.sun
              local band = run.measures.band
              return band.seconds > 600
            end }
            """])
        var withBand = makeRun("r1.gpx", day: 2, distance: 5000)
        let key = "time_in(channel=\"heart_rate\",max=150,min=130)"
        withBand.measures[key] = MeasureValue(["seconds": .float(900), "longest_s": .float(900), "share": .float(0.5)])
        let without = makeRun("r2.gpx", day: 1, distance: 5000)
        let evaluation = fixture.engine(["hr"]).evaluate(runs: [withBand, without])
        XCTAssertEqual(evaluation.failures.count, 1)
        let message = evaluation.failures.first?.message ?? ""
        XCTAssertTrue(message.hasPrefix("attempt to index a nil value (local 'band'): measure 'band' is nil in run 'r2.gpx' (the run has no heart rate); "
                                        + "measure 'sun' is nil in run 'r2.gpx' (the run has no position or no start time)"), message)
    }
}
