import BadgeRules
import Foundation
import RunAnalysis
import RunFiles

/// `badgectl league`'s cross-athlete stage (docs/league.md; BadgeKit's `BadgeEngine.league`): the facts of each athlete the worker
/// evaluated (segment efforts, run totals, badges held, the line's sex, birth date and team), then
/// crowns, leaderboards, Local Legends, club challenges and rarity, in a fixed order.
///
/// The stage is a map and a reduce (docs/league.md, "Map and reduce"): `facts` turns an evaluated
/// athlete into facts, one per group it is in (a segment, a badge and tier, a team, and the global
/// group); `Reduce` takes the facts sorted by group and computes one group at a time, so its memory
/// is the largest group's facts, not the number of athletes (`FactsSorter` sorts in bounded memory).
/// Inside one process the facts stay typed (`Fact`); facts lines (`KEY<tab>JSON`) are their form
/// between processes (`--facts`, `--from-facts`) and in spill files.
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
    public struct Effort: Codable, Equatable {
        public var elapsedSeconds: Double
        /// When the pass started (epoch seconds).
        public var at: Double
        public var run: String

        enum CodingKeys: String, CodingKey {
            case at, run
            case elapsedSeconds = "elapsed_s"
        }
    }

    /// A run's start and what it adds to its team's totals.
    public struct RunTotals: Codable, Equatable {
        public var at: Double
        public var distance: Double
        public var climb: Double
        public var time: Double
        /// The run's local date (`YYYY-MM-DD`), for the hooks' `group.days`; absent in facts of an
        /// earlier badgectl and for a run without one.
        public var date: String?

        public var totals: [ClubMeasure: Double] { [.distance: distance, .climb: climb, .runs: 1, .time: time] }
    }

    public let options: Options
    /// Segment names (`pack.measure`) and the measure key runs hold them by, sorted by name.
    public let segments: [(name: String, key: String)]
    /// Every badge and tier the packs declare: `pack`, `badge`, `tier`.
    public let declared: [[String]]
    /// The packs' `league.lua` hooks, in pack order.
    public var hooks: [LeagueHook] = []
    /// Why a hook's call failed or a group's facts were refused, in the order they happened.
    public private(set) var failures: [String] = []
    /// The facts `add` took (`lines()` sorts and reduces them): BadgeKit's in-memory path.
    private var taken: [Fact] = []

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

    /// Loads the `league.lua` hook of each of `packs` that has one (`LeagueHook.load`) into `hooks`,
    /// in pack order: the one loading for `badgectl league` and BadgeKit's `BadgeEngine.league`.
    /// Returns why each hook that did not load failed (file:line and the reason), in pack order.
    public func loadHooks(of packs: [RulePack], limits: RuleEngine.Limits) -> [String] {
        var failures: [String] = []
        for pack in packs {
            do {
                if let hook = try LeagueHook.load(pack: pack, limits: limits) { hooks.append(hook) }
            } catch {
                failures.append("\(error)")
            }
        }
        return failures
    }

    // MARK: - The map: facts, one per group an athlete is in

    /// The facts of one evaluated athlete (the runs the rules saw and what they awarded): one fact
    /// per group the athlete is in (`FactsKey`): the global group, each segment it has an effort on,
    /// each badge and tier it holds (when it has a counted run), its team.
    public func facts(athlete: String, profile: Profile, runs: [RunSummary], evaluation: Evaluation) -> [Fact] {
        var latestEnd: Double?
        var totals: [RunTotals] = []
        var best: [String: Effort] = [:]
        var effortTimes: [String: [Double]] = [:]
        for run in runs {
            guard let start = run.startEpochSeconds else { continue }
            let end = start + (run.elapsedSeconds ?? 0)
            latestEnd = max(latestEnd ?? end, end)
            let time = run.movingSeconds ?? run.elapsedSeconds ?? 0
            totals.append(RunTotals(at: start, distance: run.distanceMeters, climb: run.elevation?.gainMeters ?? 0, time: time,
                                    date: run.localDate))
            for segment in segments {
                guard let value = run.measures[segment.key], case .list(let efforts)? = value[MeasureField.efforts] else { continue }
                for effort in efforts {
                    guard let elapsed = League.number(effort[MeasureField.elapsedSeconds]),
                          let offset = League.number(effort[MeasureField.startElapsedSeconds]) else { continue }
                    let pass = Effort(elapsedSeconds: elapsed, at: start + offset, run: run.id)
                    effortTimes[segment.name, default: []].append(pass.at)
                    if let current = best[segment.name], (current.elapsedSeconds, current.at) <= (pass.elapsedSeconds, pass.at) { continue }
                    best[segment.name] = pass
                }
            }
        }
        var out = [FactsKey.global.fact(FactRecord(athlete: athlete, athletes: runs.isEmpty ? 0 : 1, latestEnd: latestEnd))]
        for segment in segments {
            guard let effort = best[segment.name] else { continue }
            out.append(FactsKey.segment(segment.name).fact(FactRecord(
                athlete: athlete, sex: profile.sex, birthDate: profile.birthDate, team: profile.team,
                best: effort, effortTimes: effortTimes[segment.name] ?? [])))
        }
        if !runs.isEmpty {
            var held: Set<[String]> = []
            for award in evaluation.awards { held.insert([award.pack, award.badge, award.tier]) }
            for key in held.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                out.append(FactsKey.badge(key).fact(FactRecord(athlete: athlete)))
            }
        }
        if let team = profile.team { out.append(FactsKey.team(team).fact(FactRecord(athlete: athlete, runs: totals))) }
        return out
    }

    /// One empty fact per segment and per declared badge and tier, so that their groups exist (a
    /// badge nobody holds still has its rarity line, a segment nobody ran still calls the hooks).
    /// Every map writes them; the reduce takes a group's markers as one.
    public func markers() -> [Fact] {
        segments.map { FactsKey.segment($0.name).fact(FactRecord()) } + declared.map { FactsKey.badge($0).fact(FactRecord()) }
    }

    /// Takes one evaluated athlete (BadgeKit's path: `lines()` then sorts and reduces in memory).
    public func add(athlete: String, profile: Profile, runs: [RunSummary], evaluation: Evaluation) {
        taken += facts(athlete: athlete, profile: profile, runs: runs, evaluation: evaluation)
    }

    /// Every line of the athletes `add` took: their facts sorted (`Fact.precedes`, the order of their
    /// lines) and reduced, typed throughout.
    public func lines() -> [LeagueLine] {
        var out: [LeagueLine] = []
        let reduce = Reduce(league: self) { out.append($0) }
        for fact in (markers() + taken).sorted(by: Fact.precedes) { reduce.take(fact) }
        reduce.finish()
        return out
    }

    private static func number(_ scalar: MeasureScalar?) -> Double? {
        switch scalar {
        case .float(let value)?: return value
        case .integer(let value)?: return Double(value)
        default: return nil
        }
    }

    // MARK: - The reduce: one group at a time

    /// The reduce over facts sorted by group key (`FactsSorter`, `Fact.precedes`): the global group
    /// first (its facts summed as they come), then one group at a time, its facts held until the next
    /// key. Its memory is the largest group's facts.
    public final class Reduce {
        let league: League
        let emit: (LeagueLine) -> Void
        private var key: String?
        private var group: [FactRecord] = []
        private var athletes = 0
        private var latestEnd: Double?
        private var lastGlobalAthlete: String?
        private let decoder = JSONTextDecoder()

        public init(league: League, emit: @escaping (LeagueLine) -> Void) {
            self.league = league
            self.emit = emit
        }

        /// The instant the windows end at: `--as-of`'s, else the end of the latest run (nil: no run had a start).
        public var asOf: Double? { league.options.asOf ?? latestEnd }

        /// Takes the next facts line (`KEY<tab>JSON`) of another process: read into a `Fact` and
        /// taken; a line that is not one is refused in `failures`.
        public func take(_ line: String) {
            do {
                take(try Fact(line: line, decoder: decoder))
            } catch {
                league.failures.append(League.Message.notFacts("\(error)"))
            }
        }

        /// Takes the next fact (facts of one key together, the global key first).
        public func take(_ fact: Fact) {
            let lineKey = fact.key
            let record = fact.record
            // Another shard's numbers, checked before any sum or date: 2^63-1 athletes or a 1e19 end never trap.
            if let problem = record.implausibility {
                league.failures.append(League.Message.notFacts(problem))
                return
            }
            if lineKey != key {
                flush()
                key = lineKey
            }
            if lineKey == FactsKey.globalText {
                if let athlete = record.athlete {
                    if athlete == lastGlobalAthlete {
                        league.failures.append(League.Message.factsTwice(athlete))
                        return
                    }
                    lastGlobalAthlete = athlete
                }
                let (sum, overflow) = athletes.addingReportingOverflow(record.athletes ?? 0)
                guard !overflow, sum <= FactRecord.maximumAthletes else {
                    league.failures.append(League.Message.notFacts("the athletes counted come to more than \(FactRecord.maximumAthletes)"))
                    return
                }
                athletes = sum
                if let end = record.latestEnd { latestEnd = max(latestEnd ?? end, end) }
            } else {
                group.append(record)
            }
        }

        /// Ends the last group.
        public func finish() { flush() }

        private func flush() {
            defer { group = [] }
            guard let key, let parsed = FactsKey(key) else { return }
            // An athlete given twice in a group (its lines split between shards): the first counts.
            var seen: Set<String> = []
            let records = group.filter { record in record.athlete.map { seen.insert($0).inserted } ?? false }
            switch parsed {
            case .global: break
            case .segment(let name): segment(name, records)
            case .badge(let parts): badge(parts, records)
            case .team(let name): team(name, records)
            }
        }

        // MARK: Segments

        private func segment(_ name: String, _ records: [FactRecord]) {
            guard league.segments.contains(where: { $0.name == name }) else { return }
            let entries = leaderboard(records.compactMap { record in record.best.map { (record, $0) } })
            board(segment: name, category: nil, entries)
            for category in league.options.categories {
                var groups: [String: [(FactRecord, Effort)]] = [:]
                for entry in entries {
                    guard let value = league.value(of: category, entry.0.profile, asOf: asOf) else { continue }
                    groups[value, default: []].append(entry)
                }
                for value in groups.keys.sorted() {
                    board(segment: name, category: category.rawValue + ":" + value, groups[value] ?? [])
                }
            }
            if let end = asOf { legend(segment: name, records, end: end) }
            let start = asOf.map { $0 - Double(league.options.legendDays) * 86_400 }
            let hookEntries = entries.enumerated().map { index, entry in
                let times = entry.0.effortTimes ?? []
                let recent = start.map { from in times.filter { $0 > from && $0 <= (asOf ?? 0) }.count } ?? 0
                return LeagueHook.SegmentEntry(athlete: entry.0.athlete ?? "", rank: index + 1, bestSeconds: entry.1.elapsedSeconds,
                                               at: LeagueLine.time(entry.1.at), efforts: times.count, recentEfforts: recent)
            }
            for hook in league.hooks {
                call(hook, .segment(name: name, entries: hookEntries), keys: [name]) { $0.segment = name }
            }
        }

        /// `entries` in leaderboard order: fastest first, an equal time by the earlier effort, then by name.
        private func leaderboard(_ entries: [(FactRecord, Effort)]) -> [(FactRecord, Effort)] {
            entries.sorted { a, b in
                (a.1.elapsedSeconds, a.1.at) != (b.1.elapsedSeconds, b.1.at)
                    ? (a.1.elapsedSeconds, a.1.at) < (b.1.elapsedSeconds, b.1.at) : (a.0.athlete ?? "") < (b.0.athlete ?? "")
            }
        }

        /// The leaderboard lines of `sorted` (in leaderboard order).
        private func board(segment: String, category: String?, _ sorted: [(FactRecord, Effort)]) {
            for (index, entry) in sorted.enumerated() {
                for kind in index == 0 ? ["crown", "rank"] : ["rank"] {
                    var line = LeagueLine(kind: kind, keys: [segment, category ?? ""], athlete: entry.0.athlete)
                    line.segment = segment
                    line.category = category
                    line.rank = index + 1
                    line.athletes = sorted.count
                    line.elapsedSeconds = entry.1.elapsedSeconds
                    line.at = LeagueLine.time(entry.1.at)
                    line.run = entry.1.run
                    emit(line)
                }
            }
        }

        /// The Local Legend: most efforts in the window (`legendDays` ending at `end`, later efforts left
        /// out); of equal counts, the athlete who reached the count first (its count-th effort in the
        /// window the earliest), then by name.
        private func legend(segment: String, _ records: [FactRecord], end: Double) {
            let start = end - Double(league.options.legendDays) * 86_400
            var best: (name: String, count: Int, reached: Double)?
            for record in records {
                guard let name = record.athlete else { continue }
                let inWindow = (record.effortTimes ?? []).filter { $0 > start && $0 <= end }.sorted()
                guard let reached = inWindow.last else { continue }
                let candidate = (name, inWindow.count, reached)
                if let current = best {
                    if candidate.1 < current.count { continue }
                    if candidate.1 == current.count, (candidate.2, candidate.0) >= (current.reached, current.name) { continue }
                }
                best = candidate
            }
            guard let legend = best else { return }
            var line = LeagueLine(kind: "legend", keys: [segment], athlete: legend.name)
            line.segment = segment
            line.efforts = legend.count
            line.from = LeagueLine.time(start)
            line.to = LeagueLine.time(end)
            emit(line)
        }

        // MARK: Badges

        /// The badge's rarity (holders over athletes with a counted run; nothing below
        /// `minimumAthletes`), then the hooks' badge calls.
        private func badge(_ key: [String], _ records: [FactRecord]) {
            guard key.count == 3 else { return }
            let holders = records.compactMap(\.athlete).sorted()
            if athletes >= league.options.minimumAthletes, athletes > 0 {
                var line = LeagueLine(kind: "rarity", keys: key, athlete: nil)
                line.pack = key[0]
                line.badge = key[1]
                line.tier = key[2]
                line.holders = holders.count
                line.athletes = athletes
                line.share = Double(holders.count) / Double(athletes)
                emit(line)
            }
            for hook in league.hooks {
                call(hook, .badge(pack: key[0], badge: key[1], tier: key[2], holders: holders, athletes: athletes), keys: key) { line in
                    line.badge = key[1]
                    line.tier = key[2]
                }
            }
        }

        // MARK: Teams

        /// The team's totals over the club period against each goal, then the hooks' team calls;
        /// summed athlete by athlete in name order (the same sums whatever order the facts came in).
        private func team(_ team: String, _ records: [FactRecord]) {
            guard let end = asOf else { return }
            let start = end - Double(league.options.clubDays) * 86_400
            let members = records.sorted { ($0.athlete ?? "") < ($1.athlete ?? "") }
            var totals: [ClubMeasure: Double] = [:]
            for record in members {
                for run in record.runs ?? [] where run.at > start && run.at <= end {
                    for (measure, value) in run.totals { totals[measure, default: 0] += value }
                }
            }
            for goal in league.options.goals {
                let total = totals[goal.measure] ?? 0
                var line = LeagueLine(kind: "club", keys: [team, goal.measure.rawValue, goal.goal.description], athlete: nil)
                line.team = team
                line.measure = goal.measure.rawValue
                line.total = total
                line.goal = goal.goal
                line.achieved = total >= goal.goal
                line.members = members.count
                line.from = LeagueLine.time(start)
                line.to = LeagueLine.time(end)
                emit(line)
            }
            guard !league.hooks.isEmpty else { return }
            // Every run of the members by local date (a dated challenge's window is the pack's own),
            // summed member by member in name order like the totals above.
            var byDate: [String: LeagueHook.TeamDay] = [:]
            for record in members {
                for run in record.runs ?? [] {
                    guard let date = run.date, Athlete.isDate(date) else { continue }
                    var day = byDate[date] ?? LeagueHook.TeamDay(date: date, distanceMeters: 0, climbMeters: 0, runs: 0, timeSeconds: 0)
                    day.distanceMeters += run.distance
                    day.climbMeters += run.climb
                    day.runs += 1
                    day.timeSeconds += run.time
                    byDate[date] = day
                }
            }
            let days = byDate.keys.sorted().compactMap { byDate[$0] }
            for hook in league.hooks {
                call(hook, .team(name: team, members: members.compactMap(\.athlete), distanceMeters: totals[.distance] ?? 0,
                                 climbMeters: totals[.climb] ?? 0, runs: Int(totals[.runs] ?? 0), timeSeconds: totals[.time] ?? 0,
                                 from: LeagueLine.time(start), to: LeagueLine.time(end), days: days), keys: [team]) { $0.team = team }
            }
        }

        /// The awards of a pack's hook on one group; a failed call costs only that group.
        private func call(_ hook: LeagueHook, _ group: LeagueHook.Group, keys: [String], fill: (inout LeagueLine) -> Void) {
            do {
                for award in try hook.call(group) {
                    var line = LeagueLine(kind: award.kind, keys: [hook.pack.name] + keys, athlete: award.athlete)
                    line.pack = hook.pack.name
                    line.detail = award.detail
                    fill(&line)
                    emit(line)
                }
            } catch {
                league.failures.append("\(error)")
            }
        }
    }

    /// Messages of refused facts.
    public enum Message {
        static func factsTwice(_ athlete: String) -> String {
            "athlete \(ShownValue.quoted(athlete))'s facts were given twice (partition the worker's lines by athlete); the second left out"
        }
        public static func notFacts(_ reason: String) -> String { "not a facts line of badgectl league --facts (\(reason)); skipped" }
    }

    /// The athlete's group in `category`; nil when the line did not say.
    public func value(of category: Category, _ profile: Profile, asOf: Double?) -> String? {
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
    public static func time(_ epoch: Double) -> String { Timestamps.iso8601(epoch) }

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
            return "#\(rank ?? 0)/\(athletes ?? 0) \(FigureText.duration(elapsedSeconds ?? 0)) at \(at ?? "?")"
        case "legend":
            return "\(efforts ?? 0) efforts \(from ?? "") to \(to ?? "")"
        case "club":
            return "\(Self.figure(total ?? 0)) of \(Self.figure(goal ?? 0)) \((achieved ?? false) ? "achieved" : "not yet") (\(members ?? 0) members)"
        case "rarity":
            return "\(holders ?? 0)/\(athletes ?? 0) " + FigureText.fixed((share ?? 0) * 100, 1) + "%"
        default:
            return detail ?? ""
        }
    }

    /// A club's total or goal: whole when it is (`120`), else to one decimal (`120.5`), through `FigureText`.
    public static func figure(_ value: Double) -> String {
        value == value.rounded() ? FigureText.whole(value) : FigureText.fixed(value, 1)
    }
}
