import Foundation
import RunFiles

/// Which runs count for a pack (`eligibility = { ... }` in `pack.lua`), applied by the core before any of
/// the pack's rules sees a run: a run that fails it is left out of every rule of the pack (`earned`,
/// `on_run`, `progress`) and listed in the evaluation's `exclusions` with the reason (`explain` shows it).
///
/// ```lua
/// eligibility = { gps = true, indoor = false, manual = false, sports = { "running" },
///                 min_distance_m = 1000, min_duration_s = 600, after = "2024-12-31" },
/// ```
public struct Eligibility: Sendable, Equatable {
    /// `gps = true`: only runs with positions (`run.gps`); `false`: only runs without.
    public var gps: Bool?
    /// `indoor = false`: not a run the file says was indoors (`run.indoor`); `true`: only those.
    public var indoor: Bool?
    /// `manual = false`: not a run entered by hand (`run.manual`); `true`: only those.
    public var manual: Bool?
    /// Only these sports (`run.sport`, as normalised: `running`, `walking`, ...).
    public var sports: [String]?
    /// At least this distance (m) and this elapsed time (s).
    public var minDistanceMeters: Double?
    public var minDurationSeconds: Double?
    /// Only runs whose local date is after this one (`YYYY-MM-DD`, itself left out).
    public var after: String?

    public init(gps: Bool? = nil, indoor: Bool? = nil, manual: Bool? = nil, sports: [String]? = nil,
                minDistanceMeters: Double? = nil, minDurationSeconds: Double? = nil, after: String? = nil) {
        self.gps = gps; self.indoor = indoor; self.manual = manual; self.sports = sports
        self.minDistanceMeters = minDistanceMeters; self.minDurationSeconds = minDurationSeconds; self.after = after
    }

    /// The keys `eligibility` takes.
    public static let keys = ["gps", "indoor", "manual", "sports", "min_distance_m", "min_duration_s", "after"]

    /// Why `run` does not count (`indoor`, `no GPS`, `sport cycling`, `under 1.00 km`...), nil when it does.
    public func exclusion(of run: RunSummary) -> String? {
        if let gps, (run.gps ?? false) != gps { return gps ? "no GPS" : "has GPS" }
        if let indoor, (run.indoor ?? false) != indoor { return indoor ? "not indoor" : "indoor" }
        if let manual, (run.manual ?? false) != manual { return manual ? "not manual" : "manual" }
        if let sports, !sports.contains(run.sport) { return "sport \(run.sport)" }
        if let minimum = minDistanceMeters, run.distanceMeters < minimum {
            return "under \(Self.distance(minimum))"
        }
        if let minimum = minDurationSeconds, (run.elapsedSeconds ?? 0) < minimum {
            return "under \(ClockText.of(minimum))"
        }
        if let after {
            guard let date = run.localDate else { return "no date (counts after \(after))" }
            if date <= after { return "on \(date), not after \(after)" }
        }
        return nil
    }

    static func distance(_ meters: Double) -> String {
        meters >= 1000 ? String(format: "%.2f km", meters / 1000) : String(format: "%.0f m", meters)
    }

}

/// A run a pack's eligibility left out (`Evaluation.exclusions`).
public struct Exclusion: Sendable, Equatable, Codable {
    public var pack: String
    public var run: String
    /// `indoor`, `no GPS`, `sport cycling`, `under 1.00 km`, ...
    public var reason: String
    public init(pack: String, run: String, reason: String) { self.pack = pack; self.run = run; self.reason = reason }
}

extension PackManifest {
    /// The optional `eligibility` table of `pack.lua` (`Eligibility`): known keys (a misspelt one gets a
    /// suggestion), booleans, a list of sport words, numbers ≥ 0, a date.
    func readEligibility(_ table: Int32, _ fail: (String) -> RulesError) throws -> Eligibility? {
        let type = lua.getField(table, "eligibility")
        defer { lua.pop() }
        if type == .nil { return nil }
        let usage = "field 'eligibility' must be a table { gps = true, indoor = false, manual = false, sports = { \"running\" }, "
            + "min_distance_m = 1000, min_duration_s = 600, after = \"2024-12-31\" }"
        guard type == .table else { throw fail("\(usage), got \(lua.typeName(at: -1))") }
        let index = lua.top
        lua.pushNil()
        while lua.next(index) {
            defer { lua.pop() }
            guard lua.type(at: -2) == .string, let key = lua.string(at: -2) else { throw fail("eligibility: keys must be names (\(Eligibility.keys.joined(separator: ", ")))") }
            if !Eligibility.keys.contains(key) {
                let hint = Suggestion.closest(to: key, in: Eligibility.keys).map { "; did you mean '\($0)'?" } ?? ""
                throw fail("eligibility: unknown key '\(key)' (known: \(Eligibility.keys.joined(separator: ", ")))\(hint)")
            }
        }
        var result = Eligibility()
        func flag(_ key: String) throws -> Bool? {
            let type = lua.getField(index, key)
            defer { lua.pop() }
            if type == .nil { return nil }
            guard type == .boolean else { throw fail("eligibility.\(key) must be true or false, got \(lua.typeName(at: -1))") }
            return lua.boolean(at: -1)
        }
        func number(_ key: String) throws -> Double? {
            let type = lua.getField(index, key)
            defer { lua.pop() }
            if type == .nil { return nil }
            guard let value = lua.number(at: -1), lua.type(at: -1) == .number, value.isFinite, value >= 0 else {
                throw fail("eligibility.\(key) must be a number ≥ 0, got \(lua.typeName(at: -1))")
            }
            return value
        }
        result.gps = try flag("gps")
        result.indoor = try flag("indoor")
        result.manual = try flag("manual")
        result.minDistanceMeters = try number("min_distance_m")
        result.minDurationSeconds = try number("min_duration_s")
        if lua.getField(index, "sports") != .nil {
            guard lua.type(at: -1) == .table, lua.rawLength(at: -1) > 0 else {
                lua.pop()
                throw fail("eligibility.sports must be a list of sports such as { \"running\", \"walking\" }")
            }
            let list = lua.top
            var sports: [String] = []
            for i in 1...lua.rawLength(at: list) {
                lua.getIndex(list, i)
                defer { lua.pop() }
                guard lua.type(at: -1) == .string, let word = lua.string(at: -1), !word.isEmpty else {
                    throw fail("eligibility.sports[\(i)] must be a sport name, got \(lua.typeName(at: -1))")
                }
                sports.append(Sport.normalise(word))
            }
            result.sports = sports
        }
        lua.pop()
        if let after = try optionalString(index, "after", { fail("eligibility: \($0)") }) {
            guard Self.isDate(after) else { throw fail("eligibility.after must be a date YYYY-MM-DD, got '\(after)'") }
            result.after = after
        }
        return result
    }

    /// `YYYY-MM-DD` with a real month and day.
    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month), (1...31).contains(day)
        else { return false }
        return Timestamps.civilFromDays(Timestamps.daysFromCivil(year: year, month: month, day: day)) == (year, month, day)
    }
}

extension RuleRunner {
    /// For the pack at `pack`, whether each run (0-based, in evaluation order) is left out by its eligibility.
    /// Made once per pack and kept (`excludedByPack`): every rule of the pack gets the same array.
    func excludedRuns(pack: Int) -> [Bool] {
        if let made = excludedByPack[pack] { return made }
        let packs = loader.packs
        var excluded = Array(repeating: false, count: runs.count)
        if pack >= 0, pack < packs.count, let eligibility = packs[pack].eligibility {
            // Read in place: mapping the array of summaries would copy each one.
            runs.runs.withUnsafeBufferPointer { runs in
                for i in runs.indices where eligibility.exclusion(of: runs[i]) != nil { excluded[i] = true }
            }
        }
        excludedByPack[pack] = excluded
        return excluded
    }
}

extension RuleEngine {
    /// The runs each pack's eligibility leaves out, and why (in pack, then run order).
    static func exclusions(packs: [RulePack], runs: [RunSummary]) -> [Exclusion] {
        var result: [Exclusion] = []
        for pack in packs {
            guard let eligibility = pack.eligibility else { continue }
            for run in runs {
                if let reason = eligibility.exclusion(of: run) { result.append(Exclusion(pack: pack.name, run: run.id, reason: reason)) }
            }
        }
        return result
    }
}
