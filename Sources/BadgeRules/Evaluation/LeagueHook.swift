import Foundation
import RunFiles

/// A pack's `league.lua` (docs/rules.md, "Badges across athletes"): a table of optional functions
/// `segment(group)`, `badge(group)` and `team(group)` that `badgectl league` calls once per group,
/// in a fixed order, each returning a list of awards `{ kind = ..., athlete = ..., detail = ... }`.
///
/// Runs in the rules' sandbox (the same prelude, allow-listed globals, pack environment and
/// `require`), each call under the same budgets as a rule's call (instructions, memory, wall clock).
/// Groups are handed over as plain tables whose arrays are in a fixed order, so the same groups give
/// the same awards.
public final class LeagueHook {
    /// One group handed to the hook.
    public enum Group {
        /// A segment's athletes, leaderboard order (fastest best effort first).
        case segment(name: String, entries: [SegmentEntry])
        /// A badge and tier: its holders (sorted) among the counted athletes.
        case badge(pack: String, badge: String, tier: String, holders: [String], athletes: Int)
        /// A team's totals over the club period, and its members' runs added up per local date (all
        /// of them, date order: a pack's dated challenge totals its own window).
        case team(name: String, members: [String], distanceMeters: Double, climbMeters: Double, runs: Int, timeSeconds: Double,
                  from: String, to: String, days: [TeamDay] = [])

        /// The athletes the group names (a segment's, a badge's holders, a team's members).
        var athletes: Int {
            switch self {
            case .segment(_, let entries): return entries.count
            case .badge(_, _, _, let holders, _): return holders.count
            case .team(_, let members, _, _, _, _, _, _, _): return members.count
            }
        }

        /// At most this many awards from one call on this group: as a rule's awards are capped by the
        /// runs it sees (`max(1000, 20 × runs)`), a hook's are by the athletes its group names.
        public var awardLimit: Int { max(1000, 20 * athletes) }

        var function: String {
            switch self {
            case .segment: return "segment"
            case .badge: return "badge"
            case .team: return "team"
            }
        }
    }

    /// A team's runs on one local date, added up (`group.days[i]`).
    public struct TeamDay: Equatable {
        /// `YYYY-MM-DD`: the runs' local dates (each run's own zone, else the chosen one).
        public var date: String
        public var distanceMeters: Double
        public var climbMeters: Double
        public var runs: Int
        public var timeSeconds: Double
        public init(date: String, distanceMeters: Double, climbMeters: Double, runs: Int, timeSeconds: Double) {
            self.date = date; self.distanceMeters = distanceMeters; self.climbMeters = climbMeters
            self.runs = runs; self.timeSeconds = timeSeconds
        }
    }

    /// One athlete on a segment.
    public struct SegmentEntry: Equatable {
        public var athlete: String
        public var rank: Int
        public var bestSeconds: Double
        /// When the best effort started (`2026-03-01T06:33:14Z`).
        public var at: String
        /// All efforts, and those in the Local Legend window.
        public var efforts: Int
        public var recentEfforts: Int
        public init(athlete: String, rank: Int, bestSeconds: Double, at: String, efforts: Int, recentEfforts: Int) {
            self.athlete = athlete; self.rank = rank; self.bestSeconds = bestSeconds; self.at = at
            self.efforts = efforts; self.recentEfforts = recentEfforts
        }
    }

    /// What a hook returned.
    public struct Award: Equatable {
        public var kind: String
        public var athlete: String?
        public var detail: String
    }

    /// The file name a pack's hook has.
    public static let fileName = "league.lua"

    public let pack: RulePack
    private let session: Session
    private let tableRef: Int32

    /// The hook of `pack`, nil when the pack has no `league.lua`.
    /// - Throws: `RulesError` when the file does not load or does not return a table.
    public static func load(pack: RulePack, limits: RuleEngine.Limits) throws -> LeagueHook? {
        guard FileManager.default.fileExists(atPath: pack.directory + "/" + fileName) else { return nil }
        return try LeagueHook(pack: pack, limits: limits)
    }

    private init(pack: RulePack, limits: RuleEngine.Limits) throws {
        self.pack = pack
        session = try Session(packs: [], catalogue: Catalogue(badges: []), limits: limits, runs: [])
        let lua = session.lua
        let index = try session.sandbox.addPack(name: pack.name, folder: pack.directory)
        let file = pack.directory + "/" + LeagueHook.fileName
        let (error, loadMessage) = session.sandbox.runFile(file, pack: index)
        if let loadMessage { throw RulesError.lua(reason: loadMessage) }
        if let error { throw RulesError.lua(reason: error.message) }
        guard lua.type(at: -1) == .table else {
            lua.pop()
            throw RulesError.lua(reason: "\(file): must return a table of functions (segment, badge, team)")
        }
        tableRef = lua.ref()
        if let error = session.sandbox.freeze(pack: index) { throw RulesError.lua(reason: error.message) }
    }

    /// Calls the hook's function for `group` (nothing when the pack defines none).
    /// - Throws: `RulesError` for an error in the call (file:line and why) or a malformed award.
    public func call(_ group: Group) throws -> [Award] {
        let lua = session.lua
        lua.ensureStack()
        lua.push(ref: tableRef)
        defer { lua.pop() }
        guard lua.getField(-1, group.function) == .function else {
            lua.pop()
            return []
        }
        push(group)
        session.sandbox.current = PackSandbox.Current(pack: 0, rule: nil)
        defer { session.sandbox.current = nil }
        if let error = lua.call(nargs: 1, nresults: 1) {
            throw RulesError.lua(reason: "\(pack.directory)/\(LeagueHook.fileName) \(group.function)(): \(error.message)")
        }
        defer { lua.pop() }
        let context = "\(pack.directory)/\(LeagueHook.fileName) \(group.function)()"
        switch lua.type(at: -1) {
        case .nil: return []
        case .table: break
        default: throw RulesError.lua(reason: "\(context) must return a list of awards, got \(lua.typeName(at: -1))")
        }
        var awards: [Award] = []
        let count = lua.rawLength(at: -1)
        // Counted before any is converted: a list of millions of awards (one table shared by them
        // all costs Lua a few bytes each) never becomes millions of host strings.
        guard count <= group.awardLimit else {
            throw RulesError.lua(reason: "\(context) returned \(count) awards, more than the \(group.awardLimit) one call may give "
                + "(1000, or 20 per athlete of the group's \(group.athletes)); the group's awards are left out")
        }
        awards.reserveCapacity(count)
        for index in stride(from: 1, through: count, by: 1) {
            guard lua.getIndex(lua.absolute(-1), index) == .table else {
                lua.pop()
                throw RulesError.lua(reason: "\(context): award \(index) must be a table { kind = ..., athlete = ..., detail = ... }")
            }
            defer { lua.pop() }
            do {
                guard let kind = try lua.stringField(-1, "kind", limit: 200), !kind.isEmpty else {
                    throw RulesError.field("missing required field 'kind'")
                }
                awards.append(Award(kind: kind, athlete: try lua.stringField(-1, "athlete", limit: 1024),
                                    detail: try lua.stringField(-1, "detail", limit: 1000) ?? ""))
            } catch let error as RulesError {
                throw RulesError.lua(reason: "\(context): award \(index): \(error)")
            }
        }
        return awards
    }

    private func push(_ group: Group) {
        let lua = session.lua
        lua.newTable()
        let table = lua.absolute(-1)
        func set(_ key: String, _ text: String) { lua.push(text); lua.setField(table, key) }
        func set(_ key: String, number: Double) { lua.push(number); lua.setField(table, key) }
        func set(_ key: String, integer: Int) { lua.push(integer: integer); lua.setField(table, key) }
        func set(_ key: String, names: [String]) {
            lua.newTable(array: Int32(min(names.count, 1 << 20)))
            for (index, name) in names.enumerated() { lua.push(name); lua.setIndex(-2, index + 1) }
            lua.setField(table, key)
        }
        switch group {
        case .segment(let name, let entries):
            set("segment", name)
            lua.newTable(array: Int32(min(entries.count, 1 << 20)))
            for (index, entry) in entries.enumerated() {
                lua.newTable(record: 6)
                let row = lua.absolute(-1)
                lua.push(entry.athlete); lua.setField(row, "athlete")
                lua.push(integer: entry.rank); lua.setField(row, "rank")
                lua.push(entry.bestSeconds); lua.setField(row, "best_s")
                lua.push(entry.at); lua.setField(row, "at")
                lua.push(integer: entry.efforts); lua.setField(row, "efforts")
                lua.push(integer: entry.recentEfforts); lua.setField(row, "recent_efforts")
                lua.setIndex(-2, index + 1)
            }
            lua.setField(table, "athletes")
        case .badge(let pack, let badge, let tier, let holders, let athletes):
            set("pack", pack)
            set("badge", badge)
            set("tier", tier)
            set("holders", names: holders)
            set("athletes", integer: athletes)
        case .team(let name, let members, let distance, let climb, let runs, let time, let from, let to, let days):
            set("team", name)
            set("members", names: members)
            set("distance_m", number: distance)
            set("climb_m", number: climb)
            set("runs", integer: runs)
            set("time_s", number: time)
            set("from", from)
            set("to", to)
            lua.newTable(array: Int32(min(days.count, 1 << 20)))
            for (index, day) in days.enumerated() {
                lua.newTable(record: 5)
                let row = lua.absolute(-1)
                lua.push(day.date); lua.setField(row, "date")
                lua.push(day.distanceMeters); lua.setField(row, "distance_m")
                lua.push(day.climbMeters); lua.setField(row, "climb_m")
                lua.push(integer: day.runs); lua.setField(row, "runs")
                lua.push(day.timeSeconds); lua.setField(row, "time_s")
                lua.setIndex(-2, index + 1)
            }
            lua.setField(table, "days")
        }
    }
}
