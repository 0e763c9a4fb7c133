import BadgeRules
import Foundation
import RunFiles

/// `badgectl league`'s cross-athlete stage (docs/league.md; BadgeKit's `BadgeEngine.league`): the facts of each athlete the worker
/// evaluated (segment efforts, run totals, badges held, the line's sex, birth date and team), then
/// crowns, leaderboards, Local Legends, club challenges and rarity, in a fixed order.
///
/// Memory: a few numbers per athlete and segment (each athlete's best effort and effort times), not
/// their runs.
public final class League {
    /// What the stage computes beside the leaderboards.
    public struct Options {
        /// Rarity lines only when at least this many athletes have a counted run.
        public var minimumAthletes = 10
        /// Leaderboards per category too (`--by`).
        public var categories: [Category] = []
        /// Club goals (`--club`).
        public var goals: [ClubGoal] = []
        /// The club period, in days ending at the as-of instant (`--club-days`).
        public var clubDays = 28
        /// The Local Legend window in days ending at the as-of instant.
        public var legendDays = 90
        /// The end of the windows (epoch seconds; later efforts are left out); nil: the end of the latest run.
        public var asOf: Double?

        public init() {}
    }

    /// A leaderboard category taken from the athlete's input line.
    public enum Category: String, CaseIterable {
        case sex, age, team
    }

    /// What a club totals.
    public enum ClubMeasure: String, CaseIterable {
        /// Metres run.
        case distance
        /// Metres climbed (the computed elevation gain).
        case climb
        /// Runs counted.
        case runs
        /// Seconds moving (elapsed when a run has no moving time).
        case time
    }

    /// `--club MEASURE=GOAL`: a team's total of `measure` over the period against `goal` (metres,
    /// runs or seconds).
    public struct ClubGoal: Equatable {
        public var measure: ClubMeasure
        public var goal: Double

        /// Reads `distance=100000`; nil when it is not such a pair.
        public init?(_ text: String) {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let measure = ClubMeasure(rawValue: parts[0]), let goal = Double(parts[1]), goal.isFinite, goal > 0
            else { return nil }
            self.measure = measure
            self.goal = goal
        }
    }

    /// What the input line says of the athlete (its first line that says it).
    public struct Profile: Equatable, Sendable {
        public var sex: String?
        /// `YYYY-MM-DD`.
        public var birthDate: String?
        public var team: String?

        public init(sex: String? = nil, birthDate: String? = nil, team: String? = nil) {
            self.sex = sex; self.birthDate = birthDate; self.team = team
        }
    }

    /// One pass over a segment.
    public struct Effort {
        public var elapsedSeconds: Double
        /// When the pass started (epoch seconds).
        public var at: Double
        public var run: String
    }

    /// What the stage keeps of one athlete.
    public struct Facts {
        public var name: String
        public var profile: Profile
        public var countedRuns = 0
        /// The best effort by segment (`pack.measure`): the fastest, the earlier of equal ones.
        public var best: [String: Effort] = [:]
        /// Every effort's start by segment, in order.
        public var effortTimes: [String: [Double]] = [:]
        /// Each run's start and its totals (the club measures), in order.
        public var runs: [RunTotals] = []
        /// Badges and tiers held: `pack`, `badge`, `tier`.
        public var held: Set<[String]> = []
        /// When the athlete's latest run ended (start plus elapsed), nil when no run had a start.
        public var latestEnd: Double?
    }

    /// A run's start and what it adds to its team's totals.
    public struct RunTotals: Codable, Equatable {
        public var at: Double
        public var distance: Double
        public var climb: Double
        public var time: Double

        public var totals: [ClubMeasure: Double] { [.distance: distance, .climb: climb, .runs: 1, .time: time] }
    }

    public let options: Options
    /// Segment names (`pack.measure`) and the measure key runs hold them by, sorted by name.
    public let segments: [(name: String, key: String)]
    /// Every badge and tier the packs declare: `pack`, `badge`, `tier`.
    public let declared: [[String]]
    private(set) var athletes: [Facts] = []
    /// The packs' `league.lua` hooks, in pack order.
    public var hooks: [LeagueHook] = []
    /// Why a hook's call failed (file:line and the reason), in the order they happened.
    public private(set) var failures: [String] = []
    private var latestEnd: Double?

    public init(packs: [RulePack], options: Options) {
        self.options = options
        var segments: [(String, String)] = []
        var declared: [[String]] = []
        for pack in packs {
            for measure in pack.measures where measure.definition.kind == MeasureKind.segment.name {
                segments.append((pack.name + "." + measure.name, measure.definition.key))
            }
            for badge in pack.allBadges {
                for tier in badge.tiers ?? ["earned"] { declared.append([pack.name, badge.id, tier]) }
            }
        }
        self.segments = segments.sorted { $0.0 < $1.0 }
        self.declared = declared
    }

    /// Takes one evaluated athlete: the runs the rules saw and what they awarded.
    public func add(athlete: String, profile: Profile, runs: [RunSummary], evaluation: Evaluation) {
        var facts = Facts(name: athlete, profile: profile, countedRuns: runs.count)
        for run in runs {
            guard let start = run.startEpochSeconds else { continue }
            let end = start + (run.elapsedSeconds ?? 0)
            latestEnd = max(latestEnd ?? end, end)
            let time = run.movingSeconds ?? run.elapsedSeconds ?? 0
            facts.runs.append(RunTotals(at: start, distance: run.distanceMeters, climb: run.elevation?.gainMeters ?? 0, time: time))
            facts.latestEnd = max(facts.latestEnd ?? end, end)
            for segment in segments {
                guard let value = run.measures[segment.key], case .list(let efforts)? = value[MeasureField.efforts] else { continue }
                for effort in efforts {
                    guard let elapsed = League.number(effort[MeasureField.elapsedSeconds]),
                          let offset = League.number(effort[MeasureField.startElapsedSeconds]) else { continue }
                    let pass = Effort(elapsedSeconds: elapsed, at: start + offset, run: run.id)
                    facts.effortTimes[segment.name, default: []].append(pass.at)
                    if let best = facts.best[segment.name], (best.elapsedSeconds, best.at) <= (pass.elapsedSeconds, pass.at) { continue }
                    facts.best[segment.name] = pass
                }
            }
        }
        for award in evaluation.awards { facts.held.insert([award.pack, award.badge, award.tier]) }
        athletes.append(facts)
    }

    /// Takes an athlete's facts as `badgectl league --emit facts` wrote them (the reduce step of a
    /// distributed job): the lines come out as if the athlete had been evaluated here.
    public func add(_ line: FactsLine) {
        var facts = Facts(name: line.athlete, profile: Profile(sex: line.sex, birthDate: line.birthDate, team: line.team),
                          countedRuns: line.countedRuns)
        facts.best = line.best.mapValues { Effort(elapsedSeconds: $0.elapsedSeconds, at: $0.at, run: $0.run) }
        facts.effortTimes = line.effortTimes
        facts.runs = line.runs
        facts.held = Set(line.held)
        facts.latestEnd = line.latestEnd
        if let end = line.latestEnd { latestEnd = max(latestEnd ?? end, end) }
        athletes.append(facts)
    }

    /// The facts of every athlete taken so far, one line each (`--emit facts`).
    public func factLines() -> [FactsLine] {
        athletes.map { facts in
            FactsLine(athlete: facts.name, sex: facts.profile.sex, birthDate: facts.profile.birthDate, team: facts.profile.team,
                      countedRuns: facts.countedRuns,
                      best: facts.best.mapValues { FactsLine.Best(elapsedSeconds: $0.elapsedSeconds, at: $0.at, run: $0.run) },
                      effortTimes: facts.effortTimes, runs: facts.runs,
                      held: facts.held.sorted { $0.lexicographicallyPrecedes($1) }, latestEnd: facts.latestEnd)
        }
    }

    private static func number(_ scalar: MeasureScalar?) -> Double? {
        switch scalar {
        case .float(let value)?: return value
        case .integer(let value)?: return Double(value)
        default: return nil
        }
    }

    // MARK: - The lines

    /// The instant the windows end at: `--as-of`'s, else the end of the latest run (its start plus
    /// its elapsed time; nil: no run had a start).
    public var asOf: Double? { options.asOf ?? latestEnd }

    /// Every line, in order: per segment (by name) its crowns and ranks (overall, then each category
    /// in `--by` order, groups by value), then Local Legends, clubs (by team, then goal), rarity.
    public func lines() -> [LeagueLine] {
        var out: [LeagueLine] = []
        for segment in segments {
            let entries = athletes.compactMap { facts in facts.best[segment.name].map { (facts, $0) } }
            out += board(segment: segment.name, category: nil, entries)
            for category in options.categories {
                var groups: [String: [(Facts, Effort)]] = [:]
                for entry in entries {
                    guard let value = self.value(of: category, entry.0.profile) else { continue }
                    groups[value, default: []].append(entry)
                }
                for value in groups.keys.sorted() {
                    out += board(segment: segment.name, category: category.rawValue + ":" + value, groups[value] ?? [])
                }
            }
        }
        if let end = asOf {
            for segment in segments { out += legend(segment: segment.name, end: end) }
            out += clubs(end: end)
        }
        out += rarity()
        for hook in hooks { out += packLines(hook) }
        return out
    }

    /// The awards of a pack's hook: its segment groups (by name), badge groups (by pack, badge,
    /// tier), then team groups (by team, over the club period); a failed call costs only its group.
    private func packLines(_ hook: LeagueHook) -> [LeagueLine] {
        var out: [LeagueLine] = []
        func run(_ group: LeagueHook.Group, keys: [String], fill: (inout LeagueLine) -> Void) {
            do {
                for award in try hook.call(group) {
                    var line = LeagueLine(kind: award.kind, keys: [hook.pack.name] + keys, athlete: award.athlete)
                    line.pack = hook.pack.name
                    line.detail = award.detail
                    fill(&line)
                    out.append(line)
                }
            } catch {
                failures.append("\(error)")
            }
        }
        let start = asOf.map { $0 - Double(options.legendDays) * 86_400 }
        for segment in segments {
            let sorted = leaderboard(athletes.compactMap { facts in facts.best[segment.name].map { (facts, $0) } })
            let entries = sorted.enumerated().map { index, entry in
                let times = entry.0.effortTimes[segment.name] ?? []
                let recent = start.map { from in times.filter { $0 > from && $0 <= (asOf ?? 0) }.count } ?? 0
                return LeagueHook.SegmentEntry(athlete: entry.0.name, rank: index + 1, bestSeconds: entry.1.elapsedSeconds,
                                               at: LeagueLine.time(entry.1.at), efforts: times.count, recentEfforts: recent)
            }
            run(.segment(name: segment.name, entries: entries), keys: [segment.name]) { $0.segment = segment.name }
        }
        let counted = athletes.filter { $0.countedRuns > 0 }
        var holders: [[String]: [String]] = [:]
        for key in declared { holders[key] = [] }
        for facts in counted {
            for key in facts.held { holders[key, default: []].append(facts.name) }
        }
        for key in holders.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            run(.badge(pack: key[0], badge: key[1], tier: key[2], holders: (holders[key] ?? []).sorted(), athletes: counted.count),
                keys: key) { line in
                line.badge = key[1]
                line.tier = key[2]
            }
        }
        if let end = asOf {
            let from = end - Double(options.clubDays) * 86_400
            let teams = teamTotals(from: from, to: end)
            for team in teams.keys.sorted() {
                guard let entry = teams[team] else { continue }
                run(.team(name: team, members: entry.members.sorted(), distanceMeters: entry.totals[.distance] ?? 0,
                          climbMeters: entry.totals[.climb] ?? 0, runs: Int(entry.totals[.runs] ?? 0), timeSeconds: entry.totals[.time] ?? 0,
                          from: LeagueLine.time(from), to: LeagueLine.time(end)), keys: [team]) { $0.team = team }
            }
        }
        return out
    }

    /// Each team's members and totals over the runs started in (`from`, `to`], summed athlete by
    /// athlete in name order (the same sums whatever order the athletes came in).
    private func teamTotals(from start: Double, to end: Double) -> [String: (members: [String], totals: [ClubMeasure: Double])] {
        var teams: [String: (members: [String], totals: [ClubMeasure: Double])] = [:]
        for facts in athletes.sorted(by: { $0.name < $1.name }) {
            guard let team = facts.profile.team else { continue }
            var entry = teams[team] ?? ([], [:])
            entry.members.append(facts.name)
            for run in facts.runs where run.at > start && run.at <= end {
                for (measure, value) in run.totals { entry.totals[measure, default: 0] += value }
            }
            teams[team] = entry
        }
        return teams
    }

    /// `entries` in leaderboard order: fastest first, an equal time by the earlier effort, then by name.
    private func leaderboard(_ entries: [(Facts, Effort)]) -> [(Facts, Effort)] {
        entries.sorted { a, b in
            (a.1.elapsedSeconds, a.1.at) != (b.1.elapsedSeconds, b.1.at)
                ? (a.1.elapsedSeconds, a.1.at) < (b.1.elapsedSeconds, b.1.at) : a.0.name < b.0.name
        }
    }

    /// The leaderboard of `entries`: fastest first, an equal time by the earlier effort, then by name.
    private func board(segment: String, category: String?, _ entries: [(Facts, Effort)]) -> [LeagueLine] {
        let sorted = leaderboard(entries)
        var out: [LeagueLine] = []
        for (index, entry) in sorted.enumerated() {
            for kind in index == 0 ? ["crown", "rank"] : ["rank"] {
                var line = LeagueLine(kind: kind, keys: [segment, category ?? ""], athlete: entry.0.name)
                line.segment = segment
                line.category = category
                line.rank = index + 1
                line.athletes = sorted.count
                line.elapsedSeconds = entry.1.elapsedSeconds
                line.at = LeagueLine.time(entry.1.at)
                line.run = entry.1.run
                out.append(line)
            }
        }
        return out
    }

    /// The Local Legend: most efforts in the window (`legendDays` ending at `end`, later efforts left
    /// out); of equal counts, the athlete who reached the count first (its count-th effort in the
    /// window the earliest), then by name.
    private func legend(segment: String, end: Double) -> [LeagueLine] {
        let start = end - Double(options.legendDays) * 86_400
        var best: (name: String, count: Int, reached: Double)?
        for facts in athletes {
            let inWindow = (facts.effortTimes[segment] ?? []).filter { $0 > start && $0 <= end }.sorted()
            guard let reached = inWindow.last else { continue }
            let candidate = (facts.name, inWindow.count, reached)
            if let current = best {
                if candidate.1 < current.count { continue }
                if candidate.1 == current.count, (candidate.2, candidate.0) >= (current.reached, current.name) { continue }
            }
            best = candidate
        }
        guard let legend = best else { return [] }
        var line = LeagueLine(kind: "legend", keys: [segment], athlete: legend.name)
        line.segment = segment
        line.efforts = legend.count
        line.from = LeagueLine.time(start)
        line.to = LeagueLine.time(end)
        return [line]
    }

    /// Each team's totals over the club period (`clubDays` ending at `end`) against each goal.
    private func clubs(end: Double) -> [LeagueLine] {
        guard !options.goals.isEmpty else { return [] }
        let start = end - Double(options.clubDays) * 86_400
        let teams = teamTotals(from: start, to: end)
        var out: [LeagueLine] = []
        for team in teams.keys.sorted() {
            guard let entry = teams[team] else { continue }
            for goal in options.goals {
                let total = entry.totals[goal.measure] ?? 0
                var line = LeagueLine(kind: "club", keys: [team, goal.measure.rawValue, goal.goal.description], athlete: nil)
                line.team = team
                line.measure = goal.measure.rawValue
                line.total = total
                line.goal = goal.goal
                line.achieved = total >= goal.goal
                line.members = entry.members.count
                line.from = LeagueLine.time(start)
                line.to = LeagueLine.time(end)
                out.append(line)
            }
        }
        return out
    }

    /// Each declared badge and tier (and any other awarded): holders over athletes with a counted
    /// run; nothing when fewer than `minimumAthletes` have one.
    private func rarity() -> [LeagueLine] {
        let counted = athletes.filter { $0.countedRuns > 0 }
        guard counted.count >= options.minimumAthletes, !counted.isEmpty else { return [] }
        var holders: [[String]: Int] = [:]
        for key in declared { holders[key] = 0 }
        for facts in counted {
            for key in facts.held { holders[key, default: 0] += 1 }
        }
        return holders.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { key in
            var line = LeagueLine(kind: "rarity", keys: key, athlete: nil)
            line.pack = key[0]
            line.badge = key[1]
            line.tier = key[2]
            line.holders = holders[key] ?? 0
            line.athletes = counted.count
            line.share = Double(holders[key] ?? 0) / Double(counted.count)
            return line
        }
    }

    /// The athlete's group in `category`; nil when the line did not say.
    public func value(of category: Category, _ profile: Profile) -> String? {
        switch category {
        case .sex: return profile.sex
        case .team: return profile.team
        case .age:
            guard let birth = profile.birthDate, let end = asOf else { return nil }
            return League.ageGroup(birthDate: birth, at: end)
        }
    }

    /// The age group (Strava's: under 20, 20-24, 25-34, 35-44, 45-54, 55-64, 65-69, 70-74, 75+) of
    /// someone born on `birthDate` (YYYY-MM-DD) at `instant` (UTC dates).
    public static func ageGroup(birthDate: String, at instant: Double) -> String? {
        let parts = birthDate.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let now = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: instant))
        guard let year = now.year, let month = now.month, let day = now.day else { return nil }
        let age = year - parts[0] - ((month, day) < (parts[1], parts[2]) ? 1 : 0)
        switch age {
        case ..<20: return "under-20"
        case 20...24: return "20-24"
        case 25...34: return "25-34"
        case 35...44: return "35-44"
        case 45...54: return "45-54"
        case 55...64: return "55-64"
        case 65...69: return "65-69"
        case 70...74: return "70-74"
        default: return "75+"
        }
    }
}

/// One athlete's facts (`badgectl league --emit facts`, read back by `--from-facts`): what the stage
/// keeps of the athlete, so that the evaluation (the map) and the stage (the reduce) can run apart.
public struct FactsLine: Codable, Equatable {
    public struct Best: Codable, Equatable {
        public var elapsedSeconds: Double
        public var at: Double
        public var run: String
        enum CodingKeys: String, CodingKey {
            case at, run
            case elapsedSeconds = "elapsed_s"
        }
    }

    public var type = "facts"
    public var athlete: String
    public var sex: String?
    public var birthDate: String?
    public var team: String?
    public var countedRuns: Int
    /// By segment (`pack.measure`).
    public var best: [String: Best]
    public var effortTimes: [String: [Double]]
    public var runs: [League.RunTotals]
    public var held: [[String]]
    public var latestEnd: Double?

    enum CodingKeys: String, CodingKey {
        case type, athlete, sex, team, best, runs, held
        case birthDate = "birth_date"
        case countedRuns = "counted_runs"
        case effortTimes = "effort_times"
        case latestEnd = "latest_end"
    }
}

/// One output line of `badgectl league` (docs/league.md): a `kind`, its keys, its values and an `id`.
public struct LeagueLine: Encodable, Equatable, Sendable {
    public var kind: String
    public var id: String
    public var athlete: String?
    public var segment: String?
    public var category: String?
    public var rank: Int?
    public var athletes: Int?
    public var elapsedSeconds: Double?
    public var at: String?
    public var run: String?
    public var efforts: Int?
    public var from: String?
    public var to: String?
    public var team: String?
    public var measure: String?
    public var total: Double?
    public var goal: Double?
    public var achieved: Bool?
    public var members: Int?
    public var pack: String?
    public var badge: String?
    public var tier: String?
    public var holders: Int?
    public var share: Double?
    /// A pack's award: what its hook said.
    public var detail: String?

    enum CodingKeys: String, CodingKey {
        case kind, id, athlete, segment, category, rank, athletes, at, run, efforts, from, to, team, measure, total, goal, achieved, members
        case pack, badge, tier, holders, share, detail
        case elapsedSeconds = "elapsed_s"
    }

    /// A line of `kind` whose id hashes the kind, the athlete (empty when none) and `keys` (AwardID's
    /// hash: each field followed by a 0 byte, the first 32 hex digits of SHA-256).
    public init(kind: String, keys: [String], athlete: String?) {
        self.kind = kind
        self.athlete = athlete
        var fields = keys + ["", "", ""]
        if keys.count > 3 { fields[2] = keys[2...].joined(separator: "\u{0}") }
        id = AwardID.make(pack: "league:" + kind, athlete: athlete ?? "", badge: fields[0], tier: fields[1], run: fields[2])
    }

    /// An instant as `2024-03-02T08:00:00Z` (whole seconds, UTC).
    public static func time(_ epoch: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: epoch.rounded(.down)))
    }

    /// The key column of the table: the segment (and category), the team and measure, or the badge.
    public var key: String {
        if kind != "crown", kind != "rank", kind != "legend", kind != "club", kind != "rarity", let pack {
            return pack + ": " + (segment ?? team ?? ((badge ?? "") + " " + (tier ?? "")))
        }
        if let segment { return segment + (category.map { " [\($0)]" } ?? "") }
        if let team { return team + " " + (measure ?? "") }
        if let badge { return (pack.map { $0 + "/" } ?? "") + badge + " " + (tier ?? "") }
        return ""
    }

    /// The value column of the table.
    public var value: String {
        switch kind {
        case "crown", "rank":
            return "#\(rank ?? 0)/\(athletes ?? 0) \(Self.clock(elapsedSeconds ?? 0)) at \(at ?? "?")"
        case "legend":
            return "\(efforts ?? 0) efforts \(from ?? "") to \(to ?? "")"
        case "club":
            return "\(Self.figure(total ?? 0)) of \(Self.figure(goal ?? 0)) \((achieved ?? false) ? "achieved" : "not yet") (\(members ?? 0) members)"
        case "rarity":
            return "\(holders ?? 0)/\(athletes ?? 0) " + String(format: "%.1f%%", (share ?? 0) * 100)
        default:
            return detail ?? ""
        }
    }

    public static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%d:%02d", whole / 60, whole % 60)
    }

    public static func figure(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.1f", value)
    }
}
