import Foundation
import RunAnalysis
import RunFiles

/// Builds the `RunSummary` of `t.run{...}` from the Lua table (see TESTAPI.md for the fields), or
/// reads `file = "tests/fixtures/x.gpx"` through the production `RunLoader` and `RunAnalyzer`.
enum RunSpec {
    static let fields: Set<String> = [
        "id", "start", "date", "utc_offset_s", "local_date", "name", "distance_km", "distance_m", "duration",
        "elapsed_s", "timer_s", "moving_s", "sport", "efforts", "splits_km", "elevation_gain_m",
        "elevation_loss_m", "heart_rate_avg", "heart_rate_max", "checkpoints", "file",
    ]

    /// Seconds from a number or "mm:ss" / "h:mm:ss".
    static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard let value = Double(part), value >= 0, value.isFinite else { return nil }
            if i > 0, value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }

    static func build(from session: TestSession, table: Int32, ordinal: Int) throws -> RunSummary {
        let lua = session.lua
        // Unknown keys are typos: say so.
        lua.pushNil()
        while lua.next(table) {
            let key = lua.string(at: -2)
            lua.pop()
            guard let key else {
                lua.pop()
                throw RulesError.field("field names must be strings")
            }
            if !fields.contains(key) {
                lua.pop()
                let known = fields.sorted().joined(separator: ", ")
                throw RulesError.field("unknown field '\(key)' (fields: \(known))")
            }
        }
        func number(_ key: String) throws -> Double? { try lua.numberField(table, key) }
        func string(_ key: String) throws -> String? { try lua.stringField(table, key) }
        func duration(_ key: String) throws -> Double? {
            let type = lua.getField(table, key)
            defer { lua.pop() }
            if type == .nil { return nil }
            if let value = lua.number(at: -1), value.isFinite, value >= 0 { return value }
            if let text = lua.string(at: -1), let value = seconds(text) { return value }
            throw RulesError.field("field '\(key)' must be seconds or \"mm:ss\" / \"h:mm:ss\", got \(lua.string(at: -1).map { "'\($0)'" } ?? lua.typeName(at: -1))")
        }

        let id = try string("id") ?? "run-\(ordinal)"
        if let file = try string("file") {
            return try load(file: file, id: try string("id"), session: session)
        }

        let offset = try number("utc_offset_s").map { Int($0) }
        var startEpoch: Double
        var startOffset = offset
        if let start = try string("start") {
            guard let parsed = Timestamps.parse(start) else {
                throw RulesError.field("field 'start' must be ISO 8601 like 2024-05-01T07:00:00Z, got '\(start)'")
            }
            startEpoch = parsed.epoch
            if startOffset == nil { startOffset = parsed.offsetSeconds }
        } else if let date = try string("date") {
            let parts = date.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, date.count == 10 else { throw RulesError.field("field 'date' must be 'YYYY-MM-DD', got '\(date)'") }
            let days = Timestamps.daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
            let civil = Timestamps.civilFromDays(days)
            guard civil.year == parts[0], civil.month == parts[1], civil.day == parts[2] else {
                throw RulesError.field("field 'date': '\(date)' is not a calendar date")
            }
            startEpoch = Double(days * 86_400 + 7 * 3600 - (offset ?? 0))
        } else {
            // 2024-01-01T07:00:00Z for the first run of a test, a day later for each next one.
            let days = Timestamps.daysFromCivil(year: 2024, month: 1, day: 1) + (ordinal - 1)
            startEpoch = Double(days * 86_400 + 7 * 3600)
        }
        let localDate = try string("local_date") ?? Timestamps.date(startEpoch, offsetSeconds: startOffset ?? 0)

        var distance: Double
        if let km = try number("distance_km") {
            distance = km * 1000
        } else if let m = try number("distance_m") {
            distance = m
        } else {
            throw RulesError.field("a run needs 'distance_km' or 'distance_m' (or 'file')")
        }
        guard distance >= 0 else { throw RulesError.field("distance must be ≥ 0") }
        let elapsed = try duration("duration") ?? duration("elapsed_s")

        var efforts: [Effort] = []
        if lua.getField(table, "efforts") != .nil {
            guard lua.type(at: -1) == .table else { lua.pop(); throw RulesError.field("field 'efforts' must be a table { [\"5km\"] = \"24:10\" }") }
            let effortsIndex = lua.top
            var found: [(String, Double)] = []
            lua.pushNil()
            while lua.next(effortsIndex) {
                let name = lua.string(at: -2)
                var value = lua.number(at: -1)
                if value == nil, let text = lua.string(at: -1) { value = seconds(text) }
                lua.pop()
                guard let name, let value else { lua.pop(2); throw RulesError.field("efforts: each entry must be name = seconds or \"mm:ss\"") }
                found.append((name, value))
            }
            lua.pop()
            for (name, value) in found {
                guard let meters = Effort.standardDistances.first(where: { $0.name == name })?.meters else {
                    throw RulesError.field("efforts: unknown effort '\(name)' (known: \(Effort.standardDistances.map(\.name).joined(separator: ", ")))")
                }
                efforts.append(Effort(name: name, distanceMeters: meters, elapsedSeconds: value, startDistanceMeters: 0, startElapsedSeconds: 0))
            }
            efforts.sort { $0.distanceMeters < $1.distanceMeters }
        } else {
            lua.pop()
        }

        var splits: [Split] = []
        if lua.getField(table, "splits_km") != .nil {
            guard lua.type(at: -1) == .table else { lua.pop(); throw RulesError.field("field 'splits_km' must be an array of seconds per km") }
            let count = lua.rawLength(at: -1)
            var cumulative = 0.0
            for i in 0..<count {
                lua.getIndex(-1, i + 1)
                var value = lua.number(at: -1)
                if value == nil, let text = lua.string(at: -1) { value = seconds(text) }
                lua.pop()
                guard let value else { lua.pop(); throw RulesError.field("splits_km[\(i + 1)] must be seconds or \"mm:ss\"") }
                cumulative += value
                splits.append(Split(index: i + 1, distanceMeters: 1000, elapsedSeconds: value, cumulativeSeconds: cumulative, partial: false))
            }
        }
        lua.pop()

        var checkpoints: [Checkpoint] = []
        if lua.getField(table, "checkpoints") != .nil {
            guard lua.type(at: -1) == .table else { lua.pop(); throw RulesError.field("field 'checkpoints' must be an array of { badge =, distance_m =, elapsed_s = }") }
            let list = lua.top
            for i in 0..<lua.rawLength(at: list) {
                lua.getIndex(list, i + 1)
                let entry = lua.top
                guard lua.type(at: entry) == .table else { lua.pop(2); throw RulesError.field("checkpoints[\(i + 1)] must be a table") }
                lua.getField(entry, "badge"); let badge = lua.string(at: -1); lua.pop()
                lua.getField(entry, "name"); let name = lua.string(at: -1); lua.pop()
                lua.getField(entry, "distance_m"); let meters = lua.number(at: -1); lua.pop()
                lua.getField(entry, "elapsed_s"); let at = lua.number(at: -1); lua.pop()
                lua.pop()
                guard let badge, let meters else { lua.pop(); throw RulesError.field("checkpoints[\(i + 1)] needs badge and distance_m") }
                checkpoints.append(Checkpoint(badge: badge, name: name ?? badge, distanceMeters: meters, latitude: nil, longitude: nil, elapsedSeconds: at))
            }
        }
        lua.pop()

        var elevation: Elevation? = nil
        let gain = try number("elevation_gain_m"), loss = try number("elevation_loss_m")
        if gain != nil || loss != nil {
            elevation = Elevation(gainMeters: gain ?? 0, lossMeters: loss ?? 0, minMeters: 0, maxMeters: gain ?? 0)
        }
        var heartRate: SensorStats? = nil
        let hrAverage = try number("heart_rate_avg"), hrMax = try number("heart_rate_max")
        if hrAverage != nil || hrMax != nil {
            heartRate = SensorStats(average: hrAverage ?? hrMax ?? 0, maximum: hrMax ?? hrAverage ?? 0)
        }
        return RunSummary(
            id: id, start: Timestamps.iso8601(startEpoch), startEpochSeconds: startEpoch, utcOffsetSeconds: startOffset,
            localDate: localDate, name: try string("name"), sport: try string("sport") ?? "running", format: "test",
            distanceMeters: distance, elapsedSeconds: elapsed, timerSeconds: try duration("timer_s"),
            movingSeconds: try duration("moving_s"), checkpoints: checkpoints, splitsKilometre: splits,
            efforts: efforts, elevation: elevation, heartRate: heartRate)
    }

    /// `file = "tests/fixtures/x.gpx"`: pack-relative, inside the pack, read by the production readers.
    static func load(file: String, id: String?, session: TestSession) throws -> RunSummary {
        let parts = file.split(separator: "/")
        guard !file.hasPrefix("/"), !parts.contains("..") else {
            throw RulesError.field("file '\(file)' must be a path inside the pack (no '/' at the start, no '..')")
        }
        let path = session.pack.directory + "/" + file
        guard FileManager.default.fileExists(atPath: path) else { throw RulesError.field("no file \(path)") }
        let targets = session.defaultCatalogue.checkpointTargets
        do {
            let summaries = try RunLoader.load(path: path, id: id ?? file, analyzer: RunAnalyzer(checkpoints: targets), zoneOffsetSeconds: 0)
            guard let first = summaries.first else { throw RulesError.field("\(path) holds no run") }
            return first
        } catch let error as RulesError {
            throw error
        } catch {
            throw RulesError.field("\(error)")
        }
    }
}
