import RunFixtures
import Foundation
import RunFiles
import XCTest

@testable import BadgeRules

/// `RunSchema` is the one declaration of a run's fields: the guide's table, the JSON and the Lua
/// run proxy must all say what it says.
final class RunSchemaTests: XCTestCase {
    /// The rows of the guide's run field table ("| field | type | |" after "### The run"):
    /// name -> (type, description). A row may name several fields (`pace_s_per_km`, `pace_s_per_mile`).
    func guideRows() throws -> [String: (type: String, doc: String)] {
        let guide = Repository.root.appendingPathComponent("docs/rules.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| field | type |") }) else {
            XCTFail("docs/rules.md has no run field table ('| field | type | |')")
            return [:]
        }
        var rows: [String: (type: String, doc: String)] = [:]
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.dropFirst().dropLast().components(separatedBy: " | ").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(cells.count, 3, "a row of the guide's run table: \(line)")
            guard cells.count == 3 else { continue }
            for name in cells[0].components(separatedBy: ", ") {
                let bare = name.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                XCTAssertNil(rows[bare], "the guide lists '\(bare)' twice")
                rows[bare] = (cells[1], cells[2])
            }
        }
        return rows
    }

    func testGuideTableIsTheSchema() throws {
        let rows = try guideRows()
        XCTAssertEqual(Set(rows.keys), Set(RunSchema.fields.map(\.name)), "the guide's run fields and RunSchema.fields differ")
        for field in RunSchema.fields {
            guard let row = rows[field.name] else { continue }
            XCTAssertEqual(row.type, field.typeText, "type of '\(field.name)' in the guide")
            XCTAssertEqual(row.doc, field.doc, "description of '\(field.name)' in the guide")
        }
    }

    /// JSON writes the schema's fields, nulls included (the output sorts keys), and reads back the same run
    /// (decoding goes through RunSummary.CodingKeys, so a name that differs from the schema fails here).
    func testJSONIsTheSchema() throws {
        var run = makeRun("a.gpx", day: 1, distance: 6_000)
        run.deviceDistanceMeters = 6_010
        run.deviceAscentMeters = 120; run.deviceDescentMeters = 118; run.deviceMovingSeconds = 1700
        run.deviceAverageHeartRate = 151; run.deviceMaximumHeartRate = 173; run.deviceLaps = 1
        run.laps = [RunLap(index: 1, startElapsedSeconds: 0, distanceMeters: 6_000, timerSeconds: 1790, trigger: "session_end")]
        run.heartRate = SensorStats(average: 150, maximum: 171)
        run.cadence = SensorStats(average: 84, maximum: 90)
        run.splitsMile = [Split(index: 1, distanceMeters: 1609.344, elapsedSeconds: 480, cumulativeSeconds: 480, partial: false)]
        let encoder = JSONEncoder()
        let data = try encoder.encode(run)
        XCTAssertEqual(try JSONDecoder().decode(RunSummary.self, from: data), run)
        let empty = try encoder.encode(RunSummary(id: "x", format: "gpx", distanceMeters: 0))
        let object = try JSONSerialization.jsonObject(with: empty) as? [String: Any] ?? [:]
        XCTAssertEqual(Set(object.keys), Set(RunSchema.jsonFields.map(\.name)), "nil fields are written as null")
    }

    /// A run saved before laps, device totals and `avg_weighting` existed (a saved state's runs.jsonl)
    /// reads back as having none of them, its averages by time (all averages were by time then).
    func testASummarySavedBeforeTheDeviceTotalsReadsBack() throws {
        var run = makeRun("a.gpx", day: 1, distance: 6_000)
        run.heartRate = SensorStats(average: 150, maximum: 171)
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(run)) as? [String: Any] ?? [:]
        for key in ["laps", "device_ascent_m", "device_descent_m", "device_moving_s", "device_avg_heart_rate_bpm",
                    "device_max_heart_rate_bpm", "device_laps"] {
            XCTAssertNotNil(object.removeValue(forKey: key), key)
        }
        object["heart_rate"] = ["avg": 150, "max": 171]
        let old = try JSONDecoder().decode(RunSummary.self, from: JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(old, run)
        XCTAssertEqual(old.laps, [])
        XCTAssertEqual(old.heartRate?.weighting, .time)
    }

    /// Every record a rule reads (pairs over splits, efforts, checkpoints, dropped entries, elevation,
    /// heart rate, cadence) holds the JSON's fields, in the JSON's order, with the JSON's values.
    func testLuaRecordsAreTheJSONRecords() throws {
        var run = makeRun("a.gpx", day: 1, distance: 6_000)
        run.heartRate = SensorStats(average: 150, maximum: 171)
        run.cadence = SensorStats(average: 84, maximum: 90)
        run.checkpoints.append(Checkpoint(badge: "10k", name: "10K", distanceMeters: 10_000, latitude: nil, longitude: nil, elapsedSeconds: nil))
        run.cadence?.weighting = .sample
        run.laps = [
            RunLap(index: 1, startElapsedSeconds: 0, distanceMeters: 1000, elapsedSeconds: 250, timerSeconds: 240,
                   averageHeartRate: 161, maximumHeartRate: 172, trigger: "distance", intensity: "active"),
            RunLap(index: 2, startElapsedSeconds: 250, elapsedSeconds: 90, trigger: "manual"),
        ]
        let fixture = try PackFixture()
        try fixture.pack("dump", files: ["dump.lua": """
            local function dump(ctx, label, record)
              local parts = {}
              for k, v in pairs(record) do parts[#parts + 1] = k .. "=" .. tostring(v) end
              ctx.note(label .. " " .. table.concat(parts, ";"))
            end
            return { id = "dump", on_run = function(state, run, award, ctx)
              for _, key in ipairs({ "checkpoints", "splits_km", "efforts", "laps", "dropped" }) do
                for i, record in ipairs(run[key]) do dump(ctx, key .. "." .. i, record) end
              end
              for _, key in ipairs({ "elevation", "heart_rate", "cadence" }) do dump(ctx, key, run[key]) end
            end }
            """])
        let result = fixture.engine(["dump"]).evaluate(runs: [run])
        XCTAssertEqual(result.failures, [])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(run)) as? [String: Any] ?? [:]
        var expected: [String] = []
        func line(_ label: String, _ object: [String: Any], _ schema: RecordSchema) -> String {
            let parts = schema.fields.compactMap { field -> String? in
                guard let value = object[field.name], !(value is NSNull) else { return nil }
                switch field.kind {
                case .string: return "\(field.name)=\(value)"
                case .boolean: return "\(field.name)=\((value as? Bool) == true)"
                case .integer: return "\(field.name)=\((value as? NSNumber)?.intValue ?? 0)"
                case .float:
                    let number = (value as? NSNumber)?.doubleValue ?? .nan
                    return "\(field.name)=\(number.rounded() == number && abs(number) < 1e15 ? String(format: "%.1f", number) : "\(number)")"
                }
            }
            return label + " " + parts.joined(separator: ";")
        }
        for (key, schema) in [("checkpoints", RecordSchema.checkpoint), ("splits_km", .split), ("efforts", .effort), ("laps", .lap), ("dropped", .dropped)] {
            for (i, object) in ((json[key] as? [[String: Any]]) ?? []).enumerated() { expected.append(line("\(key).\(i + 1)", object, schema)) }
        }
        for (key, schema) in [("elevation", RecordSchema.elevation), ("heart_rate", .sensor), ("cadence", .sensor)] {
            expected.append(line(key, json[key] as? [String: Any] ?? [:], schema))
        }
        XCTAssertEqual(result.notes.map(\.message), expected)
    }
}
