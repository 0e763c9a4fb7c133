import Foundation
import RunFiles

/// What `badgectl league`'s output (docs/league.md) says of one runner, for the wall: their crowns,
/// ranks and Local Legend lines (and the awards of packs' league hooks naming them), and every
/// badge's rarity. Read from the league's JSON lines by `read(path:athlete:)`.
public struct ReportLeague: Sendable, Equatable {
    /// The athlete the page is about (their `athlete` in the worker's lines).
    public var athlete: String
    /// The athlete's lines, in the file's order.
    public var standings: [ReportStanding]
    /// The rarity lines (every athlete's), in the file's order.
    public var rarity: [ReportRarity]

    public init(athlete: String, standings: [ReportStanding], rarity: [ReportRarity]) {
        self.athlete = athlete; self.standings = standings; self.rarity = rarity
    }

    /// The rarity lines of badge `id`, in the file's order.
    public func rarity(of id: String) -> [ReportRarity] { rarity.filter { $0.badge == id } }

    /// Reads the league lines at `path`, keeping `athlete`'s lines and the rarity lines; a line that
    /// is not a JSON object with a string `kind` is an error naming the file and line.
    public static func read(path: String, athlete: String) throws -> ReportLeague {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReportError.leagueUnreadable(path: path, reason: error.localizedDescription)
        }
        var league = ReportLeague(athlete: athlete, standings: [], rarity: [])
        for (index, slice) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let bytes = Data(slice)
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            guard case .object(let object)? = try? JSONText.parse(Array(bytes), source: path), let kind = string(object["kind"]) else {
                throw ReportError.leagueLine(path: path, line: index + 1, reason: ReportError.notLeagueLine)
            }
            let number = { (key: String) -> Double? in if case .number(let value)? = object[key] { return value } else { return nil } }
            // A count from the file meets Int() only within ±10^15 (1e300 would trap).
            let count = { (key: String) in number(key).flatMap { abs($0) < 1e15 ? Int($0) : nil } }
            let text = { (key: String) in string(object[key]) }
            if kind == "rarity" {
                guard let badge = text("badge"), let tier = text("tier"),
                      let holders = count("holders"), let athletes = count("athletes"), athletes > 0 else {
                    throw ReportError.leagueLine(path: path, line: index + 1, reason: ReportError.rarityFields)
                }
                league.rarity.append(ReportRarity(pack: text("pack") ?? "", badge: badge, tier: tier,
                                                  holders: holders, athletes: athletes))
            } else if text("athlete") == athlete {
                league.standings.append(ReportStanding(
                    kind: kind, segment: text("segment"), category: text("category"),
                    rank: count("rank"), athletes: count("athletes"),
                    elapsedSeconds: number("elapsed_s"), at: text("at"), efforts: count("efforts"),
                    from: text("from"), to: text("to"), pack: text("pack"), detail: text("detail")))
            }
        }
        return league
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }
}

/// One league line naming the runner: a `crown`, a `rank`, a `legend`, or a pack's award.
public struct ReportStanding: Sendable, Equatable {
    public var kind: String
    public var segment: String?
    /// `sex:F`, `age:25-34`, `team:…`; nil on the overall board.
    public var category: String?
    public var rank: Int?
    /// Athletes on the board.
    public var athletes: Int?
    public var elapsedSeconds: Double?
    /// When the best effort started (`2024-03-02T08:00:00Z`).
    public var at: String?
    /// A legend's efforts in its window.
    public var efforts: Int?
    public var from: String?
    public var to: String?
    /// A pack's award: the pack and what its hook said.
    public var pack: String?
    public var detail: String?

    public init(kind: String, segment: String? = nil, category: String? = nil, rank: Int? = nil, athletes: Int? = nil,
                elapsedSeconds: Double? = nil, at: String? = nil, efforts: Int? = nil, from: String? = nil, to: String? = nil,
                pack: String? = nil, detail: String? = nil) {
        self.kind = kind; self.segment = segment; self.category = category; self.rank = rank; self.athletes = athletes
        self.elapsedSeconds = elapsedSeconds; self.at = at; self.efforts = efforts; self.from = from; self.to = to
        self.pack = pack; self.detail = detail
    }
}

/// A badge tier's rarity: holders over athletes with a counted run.
public struct ReportRarity: Sendable, Equatable {
    public var pack: String
    public var badge: String
    public var tier: String
    public var holders: Int
    public var athletes: Int

    public init(pack: String, badge: String, tier: String, holders: Int, athletes: Int) {
        self.pack = pack; self.badge = badge; self.tier = tier; self.holders = holders; self.athletes = athletes
    }

    /// `12%` (whole percent; one decimal below 1%, `0%` only when nobody holds it).
    public var percent: String {
        let share = Double(holders) / Double(max(athletes, 1)) * 100
        return share > 0 && share < 1 ? String(format: "%.1f%%", share) : String(format: "%.0f%%", share)
    }
}
