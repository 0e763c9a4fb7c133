@testable import RunAnalysis
@testable import RunFiles
import XCTest

/// The fields of measure values are declared once (`MeasureField`, listed per kind by
/// `MeasureKind.fields`): every field a kind lists is declared with a unit and a doc, and every value
/// the analyzer computes has only fields its kind lists (a segment's passes only
/// `MeasureField.segmentEffort`'s). A field written under another name fails here.
final class MeasureFieldTests: XCTestCase {
    typealias G = GeographyTests

    func testEveryKindsFieldsAreDeclaredWithAUnitAndADoc() {
        XCTAssertEqual(Set(MeasureField.declared.map(\.name)).count, MeasureField.declared.count, "one declaration per name")
        for kind in MeasureKind.all {
            XCTAssertEqual(kind.fields, kind.valueFields.map(\.name))
            for field in kind.valueFields {
                XCTAssertTrue(MeasureField.declared.contains(field), "\(kind.name).\(field.name) is not declared in MeasureField")
                XCTAssertFalse(field.unit.isEmpty || field.doc.isEmpty, "\(kind.name).\(field.name) has no unit or doc")
            }
        }
        // A name not declared (as a string literal) is caught by the check above.
        let undeclared: MeasureField = "no_such_field"
        XCTAssertFalse(MeasureField.declared.contains(undeclared))
        XCTAssertTrue(undeclared.doc.isEmpty)
    }

    /// One value of each kind, computed by the analyzer on a run that has what the kind needs.
    func values() -> [(kind: MeasureKind, value: MeasureValue?)] {
        let fast = AnalyticsFixtures.legs([(2000, 0.3), (3000, 0.2), (2000, 0.3)], step: 10)
        func measure(_ track: Track, _ definition: MeasureDefinition) -> MeasureValue? {
            RunAnalyzer(measures: [definition]).summarize(track, id: "t").measures[definition.key]
        }
        let ell = G.run([(-105, 0), (400, 0), (400, 400)])
        let point = G.degrees(400, 0)
        return [
            (.effort, measure(fast, MeasureDefinition(kind: "effort", parameters: ["distance_m": .number(3000)]))),
            (.timeIn, measure(fast, MeasureDefinition(kind: "time_in", parameters: ["channel": .text("speed"), "min": .number(4)]))),
            (.stops, measure(fast, MeasureDefinition(kind: "stops", parameters: ["min_s": .number(10)]))),
            (.sun, RunAnalyzer.sunValue(latitude: 52, longitude: 5, start: 1_700_000_000, end: 1_700_003_600, localDate: nil, offsetSeconds: nil)),
            (.sun, RunAnalyzer.sunValue(latitude: 85, longitude: 5, start: 1_718_000_000, end: 1_718_003_600, localDate: nil, offsetSeconds: nil)),
            (.place, measure(ell, MeasureDefinition(kind: "place", parameters: ["lat": .number(point.0), "lon": .number(point.1), "radius_m": .number(50)]))),
            (.segment, measure(ell, G.segment([(0, 0), (400, 0), (400, 300)]))),
            (.tiles, measure(ell, MeasureDefinition(kind: "tiles", parameters: ["zoom": .number(14)]))),
        ]
    }

    func testComputedValuesHaveOnlyTheirKindsFields() throws {
        for (kind, value) in values() {
            let value = try XCTUnwrap(value, "\(kind.name): no value")
            let names = Set(value.fields.keys)
            XCTAssertFalse(names.isEmpty)
            XCTAssertEqual(names.subtracting(kind.fields), [], "\(kind.name) writes fields its kind does not declare")
            if kind.name == MeasureKind.segment.name {
                guard case .list(let passes)? = value[.efforts] else { XCTFail("segment: no efforts"); continue }
                XCTAssertFalse(passes.isEmpty)
                for pass in passes {
                    guard case .record(let fields) = pass else { XCTFail("segment: a pass is not a record"); continue }
                    XCTAssertEqual(Set(fields.keys), Set(MeasureField.segmentEffort.map(\.name)), "a timed pass has every declared field")
                }
            }
        }
    }
}
