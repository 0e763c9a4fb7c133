import BadgeRules
import Foundation
import RunFiles

/// The group a facts line belongs to; its text is the line's sort key (`KEY<tab>JSON`): `0` (the
/// global group: counted athletes and the latest run's end, first in byte order), `badge PACK BADGE
/// TIER`, `seg SEGMENT`, `team TEAM`, each part percent-encoded (`%`, space, tab and control
/// characters), so that the key never holds a tab and its parts never a space.
public enum FactsKey: Equatable {
    case global
    case segment(String)
    case badge([String])
    case team(String)

    public static let globalText = "0"

    public var text: String {
        switch self {
        case .global: return FactsKey.globalText
        case .segment(let name): return "seg " + FactsKey.escape(name)
        case .badge(let parts): return (["badge"] + parts.map(FactsKey.escape)).joined(separator: " ")
        case .team(let name): return "team " + FactsKey.escape(name)
        }
    }

    /// Reads a key's text; nil when it is none.
    public init?(_ text: String) {
        if text == FactsKey.globalText { self = .global; return }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
        switch (parts.first, parts.count) {
        case ("seg"?, 2): self = .segment(parts[1])
        case ("team"?, 2): self = .team(parts[1])
        case ("badge"?, 4): self = .badge(Array(parts[1...]))
        default: return nil
        }
    }

    /// The facts line of `record` in this group.
    func line(_ record: FactRecord) -> String { text + "\t" + record.json }

    static func escape(_ part: String) -> String {
        var out = ""
        for scalar in part.unicodeScalars {
            if scalar == "%" || scalar == " " || scalar.value < 0x20 || scalar.value == 0x7F {
                out += String(format: "%%%02X", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// One facts line's JSON: what the stage keeps of an athlete in one group (docs/league.md, "Map and
/// reduce"). The global group's line: `athlete`, `athletes` (1 when the athlete has a counted run,
/// else 0; a pre-summed line may give any count and no athlete), `latest_end`; a segment's: the
/// athlete's profile, `best`, `effort_times`; a badge's: the holder; a team's: the member and its
/// runs' totals. A line without `athlete` (a marker) only makes its group exist.
public struct FactRecord: Codable, Equatable {
    public var athlete: String?
    public var athletes: Int?
    public var latestEnd: Double?
    public var sex: String?
    public var birthDate: String?
    public var team: String?
    public var best: League.Effort?
    public var effortTimes: [Double]?
    public var runs: [League.RunTotals]?

    public init(athlete: String? = nil, athletes: Int? = nil, latestEnd: Double? = nil, sex: String? = nil, birthDate: String? = nil,
                team: String? = nil, best: League.Effort? = nil, effortTimes: [Double]? = nil, runs: [League.RunTotals]? = nil) {
        self.athlete = athlete; self.athletes = athletes; self.latestEnd = latestEnd
        self.sex = sex; self.birthDate = birthDate; self.team = team
        self.best = best; self.effortTimes = effortTimes; self.runs = runs
    }

    enum CodingKeys: String, CodingKey {
        case athlete, athletes, sex, team, best, runs
        case birthDate = "birth_date"
        case effortTimes = "effort_times"
        case latestEnd = "latest_end"
    }

    var profile: League.Profile { League.Profile(sex: sex, birthDate: birthDate, team: team) }

    /// The most athletes a facts line (or their sum) may count: 2^31 - 1, far past any league and far
    /// below where a sum of counts overflows.
    public static let maximumAthletes = Int(Int32.max)

    /// What in the line's numbers no badgectl shard writes, in words (the field and its value): a
    /// count beyond `maximumAthletes` or below 0, an instant not from 1900–2200, an effort's time,
    /// a run's distance, climb or time that is no run's. nil when every number is plausible.
    public var implausibility: String? {
        if let athletes, !(0...Self.maximumAthletes).contains(athletes) {
            return "field 'athletes': \(athletes) is not a count of athletes (0 to \(Self.maximumAthletes))"
        }
        func instant(_ field: String, _ value: Double) -> String? {
            Plausible.isEpoch(value) ? nil : "field '\(field)': \(value) is not an instant from \(Plausible.years)"
        }
        func figure(_ field: String, _ value: Double, _ check: (Double?) -> Double?) -> String? {
            check(value) == nil ? "field '\(field)': \(value) is not a plausible figure" : nil
        }
        if let latestEnd, let problem = instant("latest_end", latestEnd) { return problem }
        if let best {
            if let problem = instant("best.at", best.at) ?? figure("best.elapsed_s", best.elapsedSeconds, Plausible.duration) { return problem }
        }
        for time in effortTimes ?? [] {
            if let problem = instant("effort_times", time) { return problem }
        }
        for run in runs ?? [] {
            if let problem = instant("runs.at", run.at) ?? figure("runs.distance", run.distance, Plausible.distance)
                ?? figure("runs.climb", run.climb, { Plausible.within($0, 0...Plausible.maximumClimbMeters) })
                ?? figure("runs.time", run.time, Plausible.duration) {
                return problem
            }
        }
        return nil
    }

    /// One line, keys sorted.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
