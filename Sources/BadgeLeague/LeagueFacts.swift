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

    /// `record` in this group, as a fact of this process.
    func fact(_ record: FactRecord) -> Fact { Fact(self, record) }

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

/// One fact: a group's key and what an athlete brings to the group (`FactRecord`), typed from the
/// map to the reduce inside one process. A facts line (`KEY<tab>JSON`) is its form between processes
/// (`--facts`, `--from-facts`) and in the sorter's spill files: `line` writes it, `init(line:)` reads it.
/// Not writing and reading JSON in between took `badgectl league` over 3,000 athletes from 0.87 to
/// 0.70 CPU seconds with a warm cache, 1.21 to 1.05 without (BENCHMARKS.md, "League").
public struct Fact {
    /// The group key's text (`FactsKey.text`, or as a line gave it).
    public let key: String
    public let record: FactRecord
    /// The JSON a line gave, as given: a fact read from another process (or a spill) keeps its
    /// place among its group's facts by these bytes. nil: made in this process.
    public let text: String?

    /// A fact made in this process.
    public init(_ key: FactsKey, _ record: FactRecord) {
        self.key = key.text
        self.record = record
        text = nil
    }

    /// A fact of a line's `key` and JSON `text`, decoded by `decoder`.
    /// - Throws: the decoder's error when `text` is no facts object.
    public init(key: String, text: String, decoder: JSONTextDecoder) throws {
        record = try decoder.decode(FactRecord.self, from: Array(text.utf8), source: "JSON")
        self.key = key
        self.text = text
    }

    /// A facts line read back: `KEY<tab>JSON`.
    /// - Throws: `Fact.LineError` when the line has no tab; the decoder's error when its JSON is no facts object.
    public init(line: String, decoder: JSONTextDecoder = JSONTextDecoder()) throws {
        guard let tab = line.firstIndex(of: "\t") else { throw LineError(reason: "no tab after the group key") }
        try self.init(key: String(line[..<tab]), text: String(line[line.index(after: tab)...]), decoder: decoder)
    }

    /// A line that is no facts line: why.
    public struct LineError: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The facts line (`KEY<tab>JSON`): for another process (`--facts`) or a spill file, the only
    /// places a fact of this process is written as JSON.
    public var line: String { key + "\t" + (text ?? record.json) }

    /// About the bytes the fact holds (its strings, numbers and arrays, and 64 besides): what the
    /// sorter counts against its buffer.
    var heldBytes: Int {
        var bytes = 64 + key.utf8.count + (text?.utf8.count ?? 0)
        bytes += (record.athlete?.utf8.count ?? 0) + (record.sex?.utf8.count ?? 0) + (record.birthDate?.utf8.count ?? 0)
        bytes += (record.team?.utf8.count ?? 0) + (record.best.map { 32 + $0.run.utf8.count } ?? 0) + (record.effortTimes?.count ?? 0) * 8
        for run in record.runs ?? [] { bytes += 48 + (run.date?.utf8.count ?? 0) }
        return bytes
    }

    /// Whether `a` comes before `b` in the byte order of their facts lines (`FactsSorter.precedes`,
    /// `LC_ALL=C sort`'s order, Spark's), without writing a line: by key (as followed by its tab),
    /// then by the JSON. Facts of this process are compared as their JSON would be (`FactRecord.json`:
    /// keys sorted, `athlete` first when present), by the athlete's name as JSON escapes it; the
    /// whole JSON is written only for an athlete's two facts in one group (facts given twice) and
    /// for a fact beside one a line gave.
    public static func precedes(_ a: Fact, _ b: Fact) -> Bool {
        switch keyOrder(a.key, b.key) {
        case .some(let less): return less
        case nil: break
        }
        if let left = a.text, let right = b.text { return left.utf8.lexicographicallyPrecedes(right.utf8) }
        if a.text == nil, b.text == nil {
            switch (a.record.athlete, b.record.athlete) {
            case (let left?, let right?):
                if let less = FactRecord.escapedOrder(left, right) { return less }
            // `{"athlete":` sorts before any other first key (`athletes`, `best`, ...) and before `{}`.
            case (_?, nil): return true
            case (nil, _?): return false
            case (nil, nil):
                if a.record.isMarker && b.record.isMarker { return false }
            }
        }
        return (a.text ?? a.record.json).utf8.lexicographicallyPrecedes((b.text ?? b.record.json).utf8)
    }

    /// The order of two keys as the lines hold them, each followed by a tab (below every byte a key
    /// holds: `FactsKey` escapes control characters): true when `a` comes first, false when `b`
    /// does, nil when they are the same.
    static func keyOrder(_ a: String, _ b: String) -> Bool? {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (let x?, let y?): if x != y { return x < y }
            case (nil, nil): return nil
            case (nil, let y?): return 0x09 < y
            case (let x?, nil): return x < 0x09
            }
        }
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

    /// A marker's record: nothing in it.
    var isMarker: Bool {
        athlete == nil && athletes == nil && latestEnd == nil && sex == nil && birthDate == nil && team == nil && best == nil
            && effortTimes == nil && runs == nil
    }

    /// The order of two different athletes' names as `json` writes them, each followed by its
    /// closing quote: true when `a` comes first, false when `b` does, nil when the bytes are the
    /// same. JSONEncoder escapes `"`, `\` and control characters (`\b`, `\t`, `\n`, `\f`, `\r`,
    /// else `\u00xx` in lower case) and writes every other byte as it is (FactsOrderTests holds
    /// this to the encoder's bytes), so the first byte that differs decides, through its escape.
    static func escapedOrder(_ a: String, _ b: String) -> Bool? {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            let x = left.next(), y = right.next()
            if x == y {
                if x == nil { return nil }
                continue
            }
            return escaped(x) < escaped(y)
        }
    }

    /// The bytes that decide the order of a name's byte (nil: the closing quote) as JSON writes it:
    /// itself, or a backslash, the escape's letter and the byte (`\u00xx`'s hex digits in the byte's order).
    private static func escaped(_ byte: UInt8?) -> (UInt8, UInt8, UInt8) {
        guard let byte else { return (0x22, 0, 0) }
        let backslash: UInt8 = 0x5C
        switch byte {
        case 0x22, 0x5C: return (backslash, byte, 0)
        case 0x08: return (backslash, UInt8(ascii: "b"), 0)
        case 0x09: return (backslash, UInt8(ascii: "t"), 0)
        case 0x0A: return (backslash, UInt8(ascii: "n"), 0)
        case 0x0C: return (backslash, UInt8(ascii: "f"), 0)
        case 0x0D: return (backslash, UInt8(ascii: "r"), 0)
        case ..<0x20: return (backslash, UInt8(ascii: "u"), byte)
        default: return (byte, 0, 0)
        }
    }

    /// One line, keys sorted.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
