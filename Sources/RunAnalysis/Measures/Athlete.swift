// The runner's profile (`--athlete FILE`, a worker or league line's fields, `t.evaluate`'s `athlete`):
// heart-rate figures and zones, birth date and sex for age grading, goals. The one parser of profiles.
import Foundation
import RunFiles

/// The runner's profile (`--athlete FILE`): heart rates and zones, birth date and sex. Rules read it as
/// `ctx.athlete`; a `time_in` measure with `zone = n` takes its bounds from `zones`.
public struct Athlete: Sendable, Equatable {
    /// The file it was read from, for messages.
    public var source: String
    public var maxHeartRate: Double?
    public var restingHeartRate: Double?
    /// `YYYY-MM-DD`.
    public var birthDate: String?
    public var sex: String?
    /// Heart-rate zones, 1 first: [lower, upper) in bpm; the last one's upper bound is open (nil).
    public var zones: [(lower: Double, upper: Double?)]
    /// The runner's own goals (`"goals": [...]`), in the file's order: the `goals` pack reads them.
    public var goals: [Goal]

    /// One goal of the profile: a total of `measure` per calendar `period` (local dates).
    public struct Goal: Sendable, Equatable {
        /// What a goal totals: metres, runs or seconds.
        public enum Measure: String, Sendable, CaseIterable { case distance, runs, time }
        /// The calendar period a goal is met in: an ISO week, a month, a year.
        public enum Period: String, Sendable, CaseIterable { case week, month, year }
        /// The goal's name (the file's `id`, else `<measure>-<target>-<per>`), unique in the profile.
        public var id: String
        public var measure: Measure
        /// Metres (`distance`), a count (`runs`) or seconds (`time`): above 0.
        public var target: Double
        public var per: Period

        public init(id: String, measure: Measure, target: Double, per: Period) {
            self.id = id; self.measure = measure; self.target = target; self.per = per
        }
    }

    /// At most this many goals in one profile.
    public static let maximumGoals = 100

    public static func == (a: Athlete, b: Athlete) -> Bool {
        a.source == b.source && a.maxHeartRate == b.maxHeartRate && a.restingHeartRate == b.restingHeartRate
            && a.birthDate == b.birthDate && a.sex == b.sex && a.zones.map(\.lower) == b.zones.map(\.lower)
            && a.zones.map(\.upper) == b.zones.map(\.upper) && a.goals == b.goals
    }

    public init(source: String, maxHeartRate: Double? = nil, restingHeartRate: Double? = nil, birthDate: String? = nil,
                sex: String? = nil, zones: [(lower: Double, upper: Double?)] = [], goals: [Goal] = []) {
        self.source = source; self.maxHeartRate = maxHeartRate; self.restingHeartRate = restingHeartRate
        self.birthDate = birthDate; self.sex = sex; self.zones = zones; self.goals = goals
    }

    public var zoneCount: Int { zones.count }
    public func zone(_ n: Int) -> (lower: Double, upper: Double?)? { n >= 1 && n <= zones.count ? zones[n - 1] : nil }

    /// The five usual zones: 50/60/70/80/90 % of the heart-rate reserve (Karvonen) when the resting rate
    /// is known, else of the maximum.
    public static func defaultZones(max: Double, resting: Double?) -> [(lower: Double, upper: Double?)] {
        let base = resting ?? 0
        let bound = { (share: Double) in (base + share * (max - base)).rounded() }
        return (0..<5).map { i in (bound(0.5 + 0.1 * Double(i)), i == 4 ? nil : bound(0.6 + 0.1 * Double(i))) }
    }

    /// Reads a profile: `{ "max_hr": 190, "resting_hr": 50, "birth_date": "1985-04-02", "sex": "female" }`,
    /// or explicit `"zones": [[100, 130], [130, 150], ...]` (bpm; each zone from its lower bound up to the
    /// next one's). Every problem names the file and the field.
    public static func read(path: String) throws -> Athlete {
        guard let bytes = try? FileBytes.read(path: path, maximumBytes: 1 << 20) else {
            throw ActivityError.unreadable(path: path, reason: "no such athlete profile (or not a readable file of at most 1 MiB)")
        }
        return try parse(Data(bytes), source: path)
    }

    /// `YYYY-MM-DD` with a real month and day.
    public static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day) else { return false }
        return Timestamps.civilFromDays(Timestamps.daysFromCivil(year: year, month: month, day: day)) == (year, month, day)
    }

    public static func parse(_ data: Data, source: String) throws -> Athlete {
        // JSONText, the one JSON reader: a repeated key or invalid UTF-8 is refused, saying where.
        guard case .object(let object) = try JSONText.parse(Array(data), source: source) else {
            throw ActivityError.notFormat(path: source, format: "athlete profile", reason: "expected a JSON object { \"max_hr\": 190, \"resting_hr\": 50, ... }")
        }
        return try parse(fields: object, source: source)
    }

    /// A profile's fields, already parsed (a file's object, or `t.evaluate`'s `athlete` table): the one
    /// check of every field, whoever gives them; a key that is not a profile field is refused.
    public static func parse(fields object: [String: JSONValue], source: String) throws -> Athlete {
        for key in object.keys.sorted() where !fields.contains(key) {
            throw ActivityError.badSummary(path: source, field: key, reason: "unknown field (known: \(fields.joined(separator: ", ")))")
        }
        return try parse(object: object, source: source)
    }

    /// The fields of a profile, in the order messages name them.
    public static let fields = ["birth_date", "sex", "max_hr", "resting_hr", "zones", "goals"]

    /// The profile a JSON object gives with its `fields` (other keys are not looked at: a worker line's
    /// `athlete`, `path`, ...); nil when it gives none of them (all absent or null). The one parser of
    /// profiles: `--athlete FILE` (`parse`) and a worker or league line's fields go through it.
    public static func profile(in object: [String: JSONValue], source: String) throws -> Athlete? {
        guard fields.contains(where: { key in object[key].map { $0 != .null } ?? false }) else { return nil }
        return try parse(object: object, source: source)
    }

    /// The first of `fields` (in that order) whose value differs between two profiles, nil when they
    /// agree (`source` is not compared; zones are compared as resolved, defaults included).
    public func differingField(from other: Athlete) -> String? {
        if birthDate != other.birthDate { return "birth_date" }
        if sex != other.sex { return "sex" }
        if maxHeartRate != other.maxHeartRate { return "max_hr" }
        if restingHeartRate != other.restingHeartRate { return "resting_hr" }
        if zones.map(\.lower) != other.zones.map(\.lower) || zones.map(\.upper) != other.zones.map(\.upper) { return "zones" }
        if goals != other.goals { return "goals" }
        return nil
    }

    private static func parse(object: [String: JSONValue], source: String) throws -> Athlete {
        func bad(_ field: String, _ reason: String) -> ActivityError { .badSummary(path: source, field: field, reason: reason) }
        func rate(_ key: String) throws -> Double? {
            guard let value = object[key], value != .null else { return nil }
            guard case .number(let number) = value, number.isFinite,
                  number >= 20, number <= 260 else { throw bad(key, "must be a heart rate in bpm between 20 and 260") }
            return number
        }
        var athlete = Athlete(source: source, maxHeartRate: try rate("max_hr"), restingHeartRate: try rate("resting_hr"), zones: [])
        if let value = object["birth_date"], value != .null {
            guard case .string(let text) = value, Athlete.isDate(text) else { throw bad("birth_date", "must be a date YYYY-MM-DD") }
            athlete.birthDate = text
        }
        if let value = object["sex"], value != .null {
            // Only the words the age tables know: any other word (`woman`) was read as no sex, silently.
            guard case .string(let text) = value else { throw bad("sex", Athlete.sexWords) }
            if let problem = Athlete.sexProblem(text) { throw bad("sex", problem) }
            athlete.sex = text
        }
        if let resting = athlete.restingHeartRate, let max = athlete.maxHeartRate, resting >= max {
            throw bad("resting_hr", "must be below max_hr (\(Int(max)))")
        }
        if let value = object["zones"], value != .null {
            guard case .array(let list) = value, !list.isEmpty else { throw bad("zones", "must be a non-empty list of [lower, upper] pairs in bpm") }
            var zones: [(lower: Double, upper: Double?)] = []
            for (i, entry) in list.enumerated() {
                guard case .array(let pair) = entry, pair.count == 2, case .number(let lower) = pair[0],
                      case .number(let upper) = pair[1], lower.isFinite, upper.isFinite, lower < upper else {
                    throw bad("zones", "entry \(i + 1) must be [lower, upper] in bpm with lower < upper")
                }
                if let last = zones.last, let lastUpper = last.upper, lower < lastUpper {
                    throw bad("zones", "entry \(i + 1) starts at \(lower), inside zone \(i) (which ends at \(lastUpper))")
                }
                zones.append((lower, upper))
            }
            athlete.zones = zones
        } else if let max = athlete.maxHeartRate {
            athlete.zones = defaultZones(max: max, resting: athlete.restingHeartRate)
        }
        if let value = object["goals"], value != .null {
            athlete.goals = try parseGoals(value, source: source)
        }
        return athlete
    }

    /// `"goals": [{ "id": "year-1000k", "measure": "distance", "target": 1000000, "per": "year" }, ...]`:
    /// each problem names the file and the field (`goals[2].per`).
    static func parseGoals(_ value: JSONValue, source: String) throws -> [Goal] {
        let shape = "a list of { \"measure\": \"distance\", \"target\": 1000000, \"per\": \"year\" } (optional \"id\")"
        guard case .array(let list) = value else {
            throw ActivityError.badSummary(path: source, field: "goals", reason: "must be \(shape)")
        }
        guard list.count <= maximumGoals else {
            throw ActivityError.badSummary(path: source, field: "goals", reason: "at most \(maximumGoals) goals, got \(list.count)")
        }
        var goals: [Goal] = []
        for (index, entry) in list.enumerated() {
            let name = "goals[\(index + 1)]"
            func bad(_ field: String?, _ reason: String) -> ActivityError {
                .badSummary(path: source, field: field.map { name + "." + $0 } ?? name, reason: reason)
            }
            guard case .object(let goal) = entry else { throw bad(nil, "must be an object { \"measure\":, \"target\":, \"per\": }") }
            let fields = ["id", "measure", "target", "per"]
            for key in goal.keys.sorted() where !fields.contains(key) {
                throw bad(key, "unknown field (known: \(fields.joined(separator: ", ")))")
            }
            let measures = Goal.Measure.allCases.map(\.rawValue).joined(separator: ", ")
            guard case .string(let measureText)? = goal["measure"] else { throw bad("measure", "missing: one of \(measures)") }
            guard let measure = Goal.Measure(rawValue: measureText) else {
                throw bad("measure", "unknown measure '\(measureText.prefix(40))' (one of \(measures): metres, a count of runs, seconds)")
            }
            let periods = Goal.Period.allCases.map(\.rawValue).joined(separator: ", ")
            guard case .string(let perText)? = goal["per"] else { throw bad("per", "missing: one of \(periods)") }
            guard let per = Goal.Period(rawValue: perText) else { throw bad("per", "unknown period '\(perText.prefix(40))' (one of \(periods))") }
            let unit: String
            switch measure {
            case .distance: unit = "metres"
            case .runs: unit = "a whole number of runs"
            case .time: unit = "seconds"
            }
            guard let targetValue = goal["target"], targetValue != .null else { throw bad("target", "missing: a number above 0 (\(unit))") }
            guard case .number(let target) = targetValue else { throw bad("target", "must be a number above 0 (\(unit))") }
            // 1e9: a billion metres, runs or seconds, far past any goal; keeps sums and formats finite.
            guard target.isFinite, target > 0, target <= 1e9 else { throw bad("target", "must be above 0 and at most 1e9 (\(unit)), got \(target)") }
            if measure == .runs, target.rounded() != target { throw bad("target", "must be a whole number of runs, got \(target)") }
            var id = "\(measure.rawValue)-\(target.rounded() == target ? String(Int(target)) : String(target))-\(per.rawValue)"
            if let idValue = goal["id"], idValue != .null {
                guard case .string(let text) = idValue, !text.isEmpty, text.utf8.count <= 64,
                      text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                    throw bad("id", "must be a short name (1 to 64 bytes, no control characters)")
                }
                id = text
            }
            if let earlier = goals.firstIndex(where: { $0.id == id }) {
                throw bad("id", "'\(id)' is also goals[\(earlier + 1)]'s id (give each goal its own \"id\")")
            }
            goals.append(Goal(id: id, measure: measure, target: target, per: per))
        }
        return goals
    }
}
