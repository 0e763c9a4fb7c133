import Foundation
import RunAnalysis
import RunFiles
import RunLibrary

/// Builds the `RunSummary` of `t.run{...}` from the Lua table (see TESTAPI.md for the fields), or
/// reads `file = "tests/fixtures/x.gpx"` as `evaluate` reads a file (`RunFolder.read`: the readers,
/// archives, the analyzer, `RunAnalyzer.localise`).
enum RunSpec {
    /// What a test may write instead of a run's own fields: `date`, `distance_km`, `duration`, the
    /// flat elevation and heart-rate figures, and `file` (a run file read by the production readers).
    static let conveniences = [
        "date", "distance_km", "duration", "elevation_gain_m", "elevation_loss_m", "heart_rate_avg", "heart_rate_max", "file",
        "measures", "athlete",
    ]

    /// A real run's fields that a test does not set, and why: computed from the others, or the host's.
    static let computed: [String: String] = [
        "start_epoch_s": "is computed from 'start' (or 'date')",
        "speed_m_per_s": "is computed from the others (distance and times): set those instead",
        "pace_s_per_km": "is computed from the others (distance and times): set those instead",
        "pace_s_per_mile": "is computed from the others (distance and times): set those instead",
        "moving_pace_s_per_km": "is computed from the others (distance and times): set those instead",
        "format": "is 'test' for a run made by t.run (read a file with 'file =' for a real format)",
    ]

    /// Every field `t.run` accepts: the run's own, from `RunSchema`, and the conveniences.
    static let fields: Set<String> = Set(RunSchema.jsonFields.map(\.name)).subtracting(computed.keys).union(conveniences)

    /// The fields `t.run` applies to a run read from `file`: its id, name and sport, and the offset
    /// it is read in (`local_offset_s`, as `--tz` in a fixed offset).
    static let withFile: Set<String> = ["file", "id", "name", "sport", "local_offset_s", "athlete"]

    /// Why `key` cannot be given with `file`.
    static func fileRefusal(_ key: String) -> String {
        let applied = "with 'file', t.run takes only 'id', 'name', 'sport', 'local_offset_s' and 'athlete'"
        switch key {
        case "utc_offset_s":
            return "field 'utc_offset_s' cannot be given with 'file': the file's own offset is read from its times (+09:00); "
                + "to read it in a zone, as --tz does, give local_offset_s (\(applied))"
        case "local_date", "local_start":
            return "field '\(key)' cannot be given with 'file': it is computed from the file's start and local_offset_s (\(applied))"
        default:
            return "field '\(key)' cannot be given with 'file': the run's figures are read from the file (\(applied); "
                + "or leave 'file' out and describe the run by its fields)"
        }
    }

    /// A whole number of seconds (`local_offset_s`), checked: within a day either way.
    static func whole(_ seconds: Double, field: String = "local_offset_s") throws -> Int {
        guard seconds.isFinite, seconds == seconds.rounded(), abs(seconds) <= 86_400 else {
            throw RulesError.field("field '\(field)' must be whole seconds within a day (32400 for +09:00), got \(seconds)")
        }
        return Int(seconds)
    }

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
            if let reason = computed[key] {
                lua.pop()
                throw RulesError.field("field '\(key)' \(reason)")
            }
            if !fields.contains(key) {
                lua.pop()
                let known = fields.sorted().joined(separator: ", ")
                throw RulesError.field("unknown field '\(key)' (fields: \(known))")
            }
        }
        func number(_ key: String) throws -> Double? { try lua.numberField(table, key) }
        func string(_ key: String) throws -> String? { try lua.stringField(table, key) }
        func flag(_ key: String) throws -> Bool? {
            let type = lua.getField(table, key)
            defer { lua.pop() }
            if type == .nil { return nil }
            guard type == .boolean else { throw RulesError.field("field '\(key)' must be true or false, got \(lua.typeName(at: -1))") }
            return lua.boolean(at: -1)
        }
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
            // Every other field is applied or refused, never ignored: the run's figures come from the file.
            lua.pushNil()
            while lua.next(table) {
                let key = lua.string(at: -2) ?? ""
                lua.pop()
                guard withFile.contains(key) else {
                    lua.pop()
                    throw RulesError.field(fileRefusal(key))
                }
            }
            let localOffset = try number("local_offset_s").map { try whole($0) }, runAthlete = try athlete(session: session, table: table)
            session.pendingFixesLocalTime = localOffset != nil
            var run = try load(file: file, id: try string("id"), localOffset: localOffset, athlete: runAthlete, session: session)
            session.pendingFileRun = TestSession.FileRun(file: file, id: try string("id"), localOffset: localOffset, ownAthlete: runAthlete != nil)
            if let name = try string("name") { run.name = name }
            if let sport = try string("sport") {
                // As the readers read a file's sport word: one table (`Sport`), `treadmill` is running, indoors.
                run.sport = Sport.normalise(sport)
                if Sport.isIndoorWord(sport) { run.indoor = true }
            }
            return run
        }

        let offset = try number("utc_offset_s").map { try whole($0, field: "utc_offset_s") }
        var startEpoch: Double
        var startOffset = offset
        if let start = try string("start") {
            if try string("date") != nil {
                throw RulesError.field("give 'start' or 'date', not both ('date' is the day of a run starting at 07:00)")
            }
            guard let parsed = Timestamps.parse(start) else {
                throw RulesError.field("field 'start' must be ISO 8601 like 2024-05-01T07:00:00Z, got '\(start)'")
            }
            startEpoch = parsed.epoch
            // As the readers: `Z` is UTC and says nothing of the runner's zone (no utc_offset_s); `+02:00` is kept.
            let zulu = start.hasSuffix("Z") || start.hasSuffix("z")
            if startOffset == nil, !zulu { startOffset = parsed.offsetSeconds }
        } else if let date = try string("date") {
            let parts = date.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, date.count == 10 else { throw RulesError.field("field 'date' must be 'YYYY-MM-DD', got '\(date)'") }
            let days = Timestamps.daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
            let civil = Timestamps.civilFromDays(days)
            guard civil.year == parts[0], civil.month == parts[1], civil.day == parts[2] else {
                throw RulesError.field("field 'date': '\(date)' is not a calendar date")
            }
            // 07:00 on that day where the run was: the offset of the run's zone (utc_offset_s, else local_offset_s).
            let dayOffset = try offset ?? number("local_offset_s").map { try whole($0) } ?? 0
            startEpoch = Double(days * 86_400 + 7 * 3600 - dayOffset)
        } else {
            // 2024-01-01T07:00:00Z for the first run of a test, a day later for each next one.
            let days = Timestamps.daysFromCivil(year: 2024, month: 1, day: 1) + (ordinal - 1)
            startEpoch = Double(days * 86_400 + 7 * 3600)
        }
        // A test's zone is UTC: a start with no offset (and no utc_offset_s / local_offset_s) is 07:00Z.
        let localOffset = try number("local_offset_s").map { try whole($0) } ?? startOffset ?? 0
        session.pendingFixesLocalTime = try number("local_offset_s") != nil || string("local_date") != nil || string("local_start") != nil
        let localDate = try string("local_date") ?? Timestamps.date(startEpoch, offsetSeconds: localOffset)
        let localStart = try string("local_start") ?? Timestamps.localTime(startEpoch, offsetSeconds: localOffset)

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

        let splitsKilometre = try splits("splits_km", unit: 1000, unitText: "1000 m")
        let splitsMile = try splits("splits_mile", unit: Units.metresPerMile, unitText: "1609.344 m")

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
                lua.getField(entry, "lat"); let latitude = lua.number(at: -1); lua.pop()
                lua.getField(entry, "lon"); let longitude = lua.number(at: -1); lua.pop()
                lua.pop()
                guard let badge, let meters else { lua.pop(); throw RulesError.field("checkpoints[\(i + 1)] needs badge and distance_m") }
                checkpoints.append(Checkpoint(badge: badge, name: name ?? badge, distanceMeters: meters, latitude: latitude,
                                              longitude: longitude, elapsedSeconds: at))
            }
        }
        lua.pop()

        var elevation: Elevation? = try record("elevation", Elevation.self)
        let gain = try number("elevation_gain_m"), loss = try number("elevation_loss_m")
        if gain != nil || loss != nil {
            guard elevation == nil else { throw RulesError.field("give 'elevation' or 'elevation_gain_m'/'elevation_loss_m', not both") }
            elevation = Elevation(gainMeters: gain ?? 0, lossMeters: loss ?? 0, minMeters: 0, maxMeters: gain ?? 0)
        }
        var heartRate: SensorStats? = try record("heart_rate", SensorStats.self)
        let hrAverage = try number("heart_rate_avg"), hrMax = try number("heart_rate_max")
        if hrAverage != nil || hrMax != nil {
            guard heartRate == nil else { throw RulesError.field("give 'heart_rate' or 'heart_rate_avg'/'heart_rate_max', not both") }
            heartRate = SensorStats(average: hrAverage ?? hrMax ?? 0, maximum: hrMax ?? hrAverage ?? 0)
        }
        let points = try number("points").map { value -> Int in
            guard value >= 0, value == value.rounded(), value < 1e15 else { throw RulesError.field("field 'points' must be a whole number ≥ 0") }
            return Int(value)
        }
        var run = RunSummary(
            id: id, start: Timestamps.iso8601(startEpoch), startEpochSeconds: startEpoch, utcOffsetSeconds: startOffset,
            localDate: localDate, name: try string("name"), sport: Sport.normalise(try string("sport")), format: "test",
            points: points ?? 0, distanceMeters: distance, elapsedSeconds: elapsed, timerSeconds: try duration("timer_s"),
            movingSeconds: try duration("moving_s"), deviceDistanceMeters: try number("device_distance_m"),
            checkpoints: checkpoints, splitsKilometre: splitsKilometre, splitsMile: splitsMile, efforts: efforts,
            elevation: elevation, heartRate: heartRate, cadence: try record("cadence", SensorStats.self),
            dropped: try records("dropped", Dropped.self))
        run.localStart = localStart
        run.localOffsetSeconds = localOffset
        run.zoneSource = try string("zone_source") ?? (startOffset == nil ? "tz" : "file")
        run.deviceTimerSeconds = try duration("device_timer_s")
        run.deviceElapsedSeconds = try duration("device_elapsed_s")
        run.deviceMovingSeconds = try duration("device_moving_s")
        run.deviceAscentMeters = try number("device_ascent_m")
        run.deviceDescentMeters = try number("device_descent_m")
        run.deviceAverageHeartRate = try number("device_avg_heart_rate_bpm")
        run.deviceMaximumHeartRate = try number("device_max_heart_rate_bpm")
        run.deviceLaps = try number("device_laps").map { value -> Int in
            guard value >= 0, value == value.rounded(), value < 1e15 else { throw RulesError.field("field 'device_laps' must be a whole number ≥ 0") }
            return Int(value)
        }
        // Laps are numbered in order and their pace computed, as the analyzer does.
        run.laps = try records("laps", RunLap.self).enumerated().map { n, lap in
            RunLap(index: n + 1, startElapsedSeconds: lap.startElapsedSeconds, distanceMeters: lap.distanceMeters,
                   elapsedSeconds: lap.elapsedSeconds, timerSeconds: lap.timerSeconds, averageHeartRate: lap.averageHeartRate,
                   maximumHeartRate: lap.maximumHeartRate, trigger: lap.trigger, intensity: lap.intensity)
        }
        // A run described by its fields was recorded outdoors with a GPS unless the test says otherwise.
        run.gps = try flag("gps") ?? true
        // The sport word says indoors as it does in a file (`treadmill`, `VirtualRun`); `indoor` given wins.
        run.indoor = try flag("indoor") ?? (Sport.isIndoorWord(try string("sport")) ? true : nil)
        run.manual = try flag("manual") ?? false
        run.device = try string("device")
        run.measures = try measures(session: session, table: table)
        try grade(&run, athlete: try athlete(session: session, table: table), session: session)
        return run

        /// `key` as an array of split times (seconds or "mm:ss"), each a whole `unit`; the last may
        /// be a table `{ distance_m =, elapsed_s = }` for a shorter, partial split.
        func splits(_ key: String, unit: Double, unitText: String) throws -> [Split] {
            defer { lua.pop() }
            guard lua.getField(table, key) != .nil else { return [] }
            guard lua.type(at: -1) == .table else { throw RulesError.field("field '\(key)' must be an array of seconds per split") }
            let count = lua.rawLength(at: -1)
            var cumulative = 0.0
            var splits: [Split] = []
            for i in 0..<count {
                lua.getIndex(-1, i + 1)
                defer { lua.pop() }
                if i == count - 1, lua.type(at: -1) == .table {
                    let entry = lua.top
                    guard let meters = try lua.numberField(entry, "distance_m"), meters > 0, meters < unit,
                          let seconds = try lua.numberField(entry, "elapsed_s"), seconds >= 0 else {
                        throw RulesError.field("\(key)[\(i + 1)]: a partial last split is { distance_m = <less than \(unitText)>, elapsed_s = <seconds> }")
                    }
                    cumulative += seconds
                    splits.append(Split(index: i + 1, distanceMeters: meters, elapsedSeconds: seconds, cumulativeSeconds: cumulative, partial: true))
                    continue
                }
                var value = lua.number(at: -1)
                if value == nil, let text = lua.string(at: -1) { value = seconds(text) }
                guard let value else { throw RulesError.field("\(key)[\(i + 1)] must be seconds or \"mm:ss\"") }
                cumulative += value
                splits.append(Split(index: i + 1, distanceMeters: unit, elapsedSeconds: value, cumulativeSeconds: cumulative, partial: false))
            }
            return splits
        }

        /// `key` as one record of `schema`'s fields (`elevation = { gain_m = 120, ... }`), decoded
        /// as the JSON of a run file would be: every field the schema names, nothing else.
        func record<Record: Decodable & SchemaRecord>(_ key: String, _ type: Record.Type) throws -> Record? {
            defer { lua.pop() }
            guard lua.getField(table, key) != .nil else { return nil }
            return try decodeRecord(at: lua.top, label: key, type)
        }

        /// `key` as an array of records (`dropped = { { reason = "teleport", count = 2 } }`).
        func records<Record: Decodable & SchemaRecord>(_ key: String, _ type: Record.Type) throws -> [Record] {
            defer { lua.pop() }
            guard lua.getField(table, key) != .nil else { return [] }
            guard lua.type(at: -1) == .table else { throw RulesError.field("field '\(key)' must be an array of \(Record.schema.name) tables") }
            let list = lua.top
            var records: [Record] = []
            for i in 0..<lua.rawLength(at: list) {
                lua.getIndex(list, i + 1)
                defer { lua.pop() }
                records.append(try decodeRecord(at: lua.top, label: "\(key)[\(i + 1)]", type))
            }
            return records
        }

        func decodeRecord<Record: Decodable & SchemaRecord>(at index: Int32, label: String, _ type: Record.Type) throws -> Record {
            let schema = Record.schema
            let names = schema.fields.map(\.name).joined(separator: ", ")
            guard lua.type(at: index) == .table else { throw RulesError.field("field '\(label)' must be a table { \(names) }") }
            var object: [String: JSONValue] = [:]
            lua.pushNil()
            while lua.next(index) {
                let name = lua.string(at: -2)
                guard let name, let field = schema.fields.first(where: { $0.name == name }) else {
                    let shown = name ?? lua.typeName(at: -2)
                    lua.pop(2)
                    throw RulesError.field("\(label): unknown field '\(shown)' (fields: \(names))")
                }
                switch field.kind {
                case .float, .integer:
                    guard let value = lua.number(at: -1), value.isFinite else {
                        lua.pop(2)
                        throw RulesError.field("\(label).\(name) must be a finite number")
                    }
                    if field.kind == .integer {
                        guard let whole = Int(exactly: value) else { lua.pop(2); throw RulesError.field("\(label).\(name) must be a whole number") }
                        object[name] = .number(Double(whole))
                    } else {
                        object[name] = .number(value)
                    }
                case .string:
                    guard let value = lua.string(at: -1) else { lua.pop(2); throw RulesError.field("\(label).\(name) must be a string") }
                    object[name] = .string(value)
                case .boolean:
                    object[name] = .bool(lua.boolean(at: -1))
                }
                lua.pop()
            }
            do {
                return try JSONTextDecoder().decode(Record.self, from: .object(object), source: label)
            } catch {
                throw RulesError.field("\(label) must give \(names)")
            }
        }
    }

    /// `measures = { best3k = { elapsed_s = 590 }, ... }`: values of the pack's declared measures, by name
    /// (a name the pack does not declare, or a field its kind does not have, is an error with a suggestion).
    static func measures(session: TestSession, table: Int32) throws -> [String: MeasureValue] {
        let lua = session.lua
        guard lua.getField(table, "measures") != .nil else { lua.pop(); return [:] }
        defer { lua.pop() }
        guard lua.type(at: -1) == .table else { throw RulesError.field("field 'measures' must be a table { <name> = { <field> = value, ... } }") }
        let list = lua.top
        let declared = session.pack.measures
        var result: [String: MeasureValue] = [:]
        lua.pushNil()
        while lua.next(list) {
            defer { lua.pop() }
            guard let name = lua.string(at: -2), lua.type(at: -2) == .string else { throw RulesError.field("measures: keys must be measure names") }
            guard let measure = declared.first(where: { $0.name == name }) else {
                throw RulesError.field("measures: " + LuaState.unknownMeasure(name, pack: session.pack.name, known: declared.map(\.name)))
            }
            guard lua.type(at: -1) == .table else { throw RulesError.field("measures.\(name) must be a table of its fields, got \(lua.typeName(at: -1))") }
            let fields = MeasureKind.named(measure.definition.kind)?.fields ?? []
            let entry = lua.top
            var value = MeasureValue()
            lua.pushNil()
            while lua.next(entry) {
                defer { lua.pop() }
                guard let field = lua.string(at: -2), lua.type(at: -2) == .string else { throw RulesError.field("measures.\(name): keys must be field names") }
                guard fields.contains(field) else {
                    let hint = Suggestion.closest(to: field, in: fields).map { "; did you mean '\($0)'?" } ?? ""
                    throw RulesError.field("measures.\(name): no field '\(field)' in a \(measure.definition.kind) measure (fields: \(fields.joined(separator: ", ")))\(hint)")
                }
                switch lua.type(at: -1) {
                case .boolean: value[field] = .boolean(lua.boolean(at: -1))
                case .string:
                    // Times of day may be given as "mm:ss" / "h:mm:ss" for the seconds fields.
                    let text = lua.string(at: -1) ?? ""
                    if field.hasSuffix("_s"), let number = seconds(text) { value[field] = .float(number) } else { value[field] = .string(text) }
                case .number:
                    let number = lua.number(at: -1) ?? 0
                    value[field] = MeasureValue.countFields.contains(field) && number == number.rounded() && abs(number) < 1e15
                        ? .integer(Int(number)) : .float(number)
                case .table:
                    value[field] = try nested(lua: lua, at: lua.top, label: "measures.\(name).\(field)", depth: 0)
                default:
                    throw RulesError.field("measures.\(name).\(field) must be a number, a string, a boolean or a table, got \(lua.typeName(at: -1))")
                }
            }
            result[measure.definition.key] = value
        }
        return result
    }

    /// A table in a measure's value: an array (`tiles = { key, ... }`, `efforts = { { elapsed_s = 300 }, ... }`)
    /// is a list, anything else a record of named fields. Whole numbers in Lua's integer form stay
    /// integers (tile keys), others are floats.
    static func nested(lua: LuaState, at index: Int32, label: String, depth: Int) throws -> MeasureScalar {
        guard depth < 8 else { throw RulesError.field("\(label): tables nested too deep") }
        func element(_ at: Int32, _ label: String) throws -> MeasureScalar {
            switch lua.type(at: at) {
            case .boolean: return .boolean(lua.boolean(at: at))
            case .string: return .string(lua.string(at: at) ?? "")
            case .number:
                if let integer = lua.integer(at: at) { return .integer(Int(integer)) }
                return .float(lua.number(at: at) ?? 0)
            case .table: return try nested(lua: lua, at: at, label: label, depth: depth + 1)
            default: throw RulesError.field("\(label) must be a number, a string, a boolean or a table, got \(lua.typeName(at: at))")
            }
        }
        let length = lua.rawLength(at: index)
        var keys = 0
        lua.pushNil()
        while lua.next(index) { keys += 1; lua.pop() }
        if keys == length {
            var values: [MeasureScalar] = []
            for i in 0..<length {
                lua.getIndex(index, i + 1)
                defer { lua.pop() }
                values.append(try element(lua.top, "\(label)[\(i + 1)]"))
            }
            return .list(values)
        }
        var fields: [String: MeasureScalar] = [:]
        lua.pushNil()
        while lua.next(index) {
            defer { lua.pop() }
            guard lua.type(at: -2) == .string, let key = lua.string(at: -2) else { throw RulesError.field("\(label): keys must be all names or an array") }
            fields[key] = try element(lua.top, "\(label).\(key)")
        }
        return .record(fields)
    }

    /// `athlete = { birth_date = "1970-05-01", sex = "female" }`: the runner of this run, as `--athlete`
    /// gives it (the profile's `birth_date` and `sex`), for the pack's `age_grade` measures; nil without.
    static func athlete(session: TestSession, table: Int32) throws -> Athlete? {
        let lua = session.lua
        let type = lua.getField(table, "athlete")
        defer { lua.pop() }
        if type == .nil { return nil }
        let shape = "a table { birth_date = \"1970-05-01\", sex = \"female\" }"
        guard type == .table else { throw RulesError.field("field 'athlete' must be \(shape), got \(lua.typeName(at: -1))") }
        let at = lua.top
        lua.pushNil()
        while lua.next(at) {
            let key = lua.string(at: -2) ?? ""
            lua.pop()
            guard key == "birth_date" || key == "sex" else {
                lua.pop()
                throw RulesError.field("athlete: unknown field '\(key)' (fields: birth_date, sex)")
            }
        }
        let birth = try lua.stringField(at, "birth_date"), sex = try lua.stringField(at, "sex")
        guard let birth, Athlete.isDate(birth) else {
            throw RulesError.field("athlete: birth_date must be a date YYYY-MM-DD, got \(birth.map { "'\($0)'" } ?? "nothing")")
        }
        guard Athlete.tableSex(sex) != nil else {
            throw RulesError.field("athlete: sex must be \"male\" or \"female\" (or M, F), got \(sex.map { "'\($0)'" } ?? "nothing")")
        }
        return Athlete(source: "t.run's athlete", birthDate: birth, sex: sex)
    }

    /// With an `athlete`, the pack's `age_grade` measures of a run described by its fields, computed by
    /// the core on an even-paced run of its distance and elapsed time on its local date
    /// (`RunAnalyzer.ageGrade(_:evenRunMeters:elapsedSeconds:localDate:)`). A value the test sets in
    /// `measures` is kept.
    static func grade(_ run: inout RunSummary, athlete: Athlete?, session: TestSession) throws {
        guard let athlete else { return }
        for measure in session.pack.measures where measure.definition.kind == MeasureKind.ageGrade.name {
            guard run.measures[measure.definition.key] == nil else { continue }
            switch measure.definition.resolved(athlete: athlete) {
            case .failure(let problem): throw RulesError.field("athlete: \(problem.reason)")
            case .success(let definition):
                guard let elapsed = run.elapsedSeconds, let date = run.localDate else { continue }
                run.measures[measure.definition.key] = RunAnalyzer.ageGrade(definition, evenRunMeters: run.distanceMeters,
                                                                            elapsedSeconds: elapsed, localDate: date)
            }
        }
    }

    /// `file = "tests/fixtures/x.gpx"`: pack-relative, inside the pack, read by the production readers,
    /// in `localOffset` (seconds east of UTC, as `--tz` in a fixed offset; UTC when nil) for a file
    /// whose times carry no offset: its local date and start, and the sun's day of its measures.
    static func load(file: String, id: String?, localOffset: Int? = nil, athlete: Athlete? = nil, session: TestSession) throws -> RunSummary {
        let parts = file.split(separator: "/")
        guard !file.hasPrefix("/"), !parts.contains("..") else {
            throw RulesError.field("file '\(file)' must be a path inside the pack (no '/' at the start, no '..')")
        }
        let path = session.pack.directory + "/" + file
        if case .failure(let refusal) = PackFiles.resolve(path, folder: session.pack.directory) {
            throw RulesError.field("file '\(file)': \(refusal)")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw RulesError.field("no file \(path)" + PackManifest.missingFileHint(file, folder: session.pack.directory))
        }
        let targets = session.defaultCatalogue.checkpointTargets
        do {
            // The pack's measures are computed as an evaluation computes them (age grades with `athlete`;
            // zones need --athlete's heart rates: none here).
            var analyzer = RunAnalyzer(checkpoints: targets, measures: PackMeasureTable.definitions(of: [session.pack], athlete: athlete))
            // Read as `evaluate` reads a file (RunFolder.read: the readers, archives, then the run
            // localised by RunAnalyzer.localise), in the test's zone: UTC, or `local_offset_s` as --tz
            // in a fixed offset; `t.evaluate{ zone = }` may date it again.
            let zone = TimeZone(secondsFromGMT: localOffset ?? 0) ?? TimeZone(identifier: "UTC") ?? .current
            if !analyzer.measures.isEmpty { analyzer.zone = zone }
            let read = RunFolder.read(files: [(path, id ?? file)], analyzer: analyzer, zone: zone, serial: true)
            if let error = read.errors.first { throw RulesError.field(error.message) }
            guard var first = read.runs.first else { throw RulesError.field("\(path) holds no run") }
            // A test's measures are read by their declaration (the session has no profile): an age grade
            // computed with `athlete` moves there from its resolved key.
            for measure in session.pack.measures {
                guard case .success(let resolved) = measure.definition.resolved(athlete: athlete),
                      resolved.key != measure.definition.key else { continue }
                first.measures[measure.definition.key] = first.measures.removeValue(forKey: resolved.key)
            }
            return first
        } catch let error as RulesError {
            throw error
        } catch {
            throw RulesError.field("\(error)")
        }
    }
}
