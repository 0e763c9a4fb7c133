import Foundation
import GRDB
import RunFiles

/// A state database (state format 2): what `state.json` and `runs.index` held, in rows an addition
/// reads and writes one by one, so that adding a run costs the same at 1,000 and 100,000 saved runs.
/// A state folder's `state.sqlite` holds one state; a shard of a worker's store (`AthleteStore`,
/// `worker --state-dir`) holds many athletes' states, each in the same rows: every row starts with
/// `athlete` (`""` in a state folder, the athlete's key in a shard), and a `StateDatabase` reads and
/// writes one athlete's (`athlete`).
///
/// - `header(athlete, key, value)`: `layout` (this layout's name, athlete `""`) and `state` (the
///   `SavedState` without its rules, as JSON: zone, folder, packs, run count, last run, bytes of
///   `runs.jsonl`).
/// - `rule(idx, ...)`: one row per rule: the fold state (JSON of a `StateValue`) without its saved
///   maps, `split` (their names), earned, stopped, progress, why unsaved, failure, and `next_seq`
///   (how many `on_run` awards it has made).
/// - `state_key(rule, path, key, value)`: the saved maps (`SavedMaps`), one key a row: a fold's
///   large maps (a total per day, per week) that an addition reads and writes by key.
/// - `award(rule, phase, seq, pos, run, badge, tier, json)`: phase 0 (`on_run`/`earned`) rows are
///   only ever appended; phase 1 (`finish`) rows of a rule are replaced when they change. `pos` is
///   the run's position in the history, for the evaluation order.
/// - `held(rule, badge, tier, seq)`: the first award of each badge and tier a rule holds (what its
///   duplicate policy needs), so that an addition does not read every award.
/// - `run(pos, id, start, elapsed, distance, offset, length, line)`: what `runs.index` held, indexed
///   by id and by start (the duplicate checks are queries); `line`: the run's line itself in a shard
///   (a state folder keeps it in `runs.jsonl`, at `offset`).
/// - `withdrawn(at, why, json)`: every award an addition or a removal took back, when and why
///   (`Withdrawal`), in order; kept when the state is saved whole again.
///
/// Layout 3 (a state folder's, before the `athlete` column) is moved to this one when opened.
/// Not thread-safe beyond GRDB's queue; a `StateStore` of a folder opens one per call, under the
/// folder's lock; a shard's connection is kept by its `AthleteStore`, one per thread.
final class StateDatabase: SavedMapSource {
    /// The layout name kept in `header`.
    static let layout = "badgectl-state/4"
    /// The layout before it, moved to `layout` when opened (`migrate3`).
    static let layout3 = "badgectl-state/3"

    let path: String
    let queue: DatabaseQueue
    /// Whose rows this reads and writes: `""` in a state folder, the athlete's key in a shard.
    let athlete: String

    /// Rows written by this connection (inserted, updated or deleted), for tests: an addition must
    /// touch only what changed.
    var rowsWritten: Int { connected { $0.totalChangesCount } }

    init(path: String, queue: DatabaseQueue, athlete: String = "") { self.path = path; self.queue = queue; self.athlete = athlete }

    /// The rows of `athlete` over this database's connection (a shard's, `AthleteStore`), named
    /// `name` in messages (the athlete's address: the store's folder and their key).
    func scoped(to athlete: String, name: String) -> StateDatabase { StateDatabase(path: name, queue: queue, athlete: athlete) }

    /// Whether the database holds this athlete's state (a header).
    func holdsState() throws -> Bool {
        try guarded {
            try reading { db in
                try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM header WHERE athlete = ? AND key = 'state'"), arguments: [athlete]) ?? 0 > 0
            }
        }
    }

    // MARK: - Transactions

    /// The connection of the transaction in progress (`transaction`): every read and write joins it.
    private var current: Database?

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), committed when it returns and rolled
    /// back when it throws: every read and write of this database in `body` joins it. An addition is
    /// one transaction rather than one per read (each a `BEGIN`, two pragmas, a `COMMIT`, and the
    /// file's locks taken and released again), and is applied whole or not at all.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        if current != nil { return try body() }
        return try guarded {
            try queue.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    current = db
                    defer { current = nil }
                    result = try body()
                    return .commit
                }
                return result!
            }
        }
    }

    /// `body` with the connection: in the transaction in progress, else in a read transaction of its own.
    /// (Not GRDB's `read`: it sets `PRAGMA query_only` before and after, and a pragma expires every
    /// prepared statement of the connection, which a shard's connection keeps, `AthleteStore`.)
    private func reading<T>(_ body: (Database) throws -> T) throws -> T {
        if let db = current { return try body(db) }
        return try queue.inDatabase { db in
            var result: T?
            try db.inTransaction(.deferred) {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }

    /// `body` with the connection: in the transaction in progress, else in a write transaction of its own.
    private func writing<T>(_ body: (Database) throws -> T) throws -> T {
        if let db = current { return try body(db) }
        return try queue.write(body)
    }

    /// `body` with the connection, in the transaction in progress if there is one.
    func connected<T>(_ body: (Database) throws -> T) rethrows -> T {
        if let db = current { return try body(db) }
        return try queue.inDatabase(body)
    }

    /// Runs `body`, any database error becoming `RulesError.state` naming the file.
    func guarded<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw StateDatabase.damaged(path, error, advice: rebuildAdvice) }
    }

    // MARK: - Encoding

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try StateStore.encoder().encode(value), as: UTF8.self)
    }

    /// `texts` as a JSON array of strings, for `json_each` (a query's set of ids), in any order:
    /// written directly, as an addition names a few hundred (the strings its states hold).
    static func jsonArray(_ texts: Set<String>) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(16 * texts.count + 2)
        for (i, text) in texts.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.append(text, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    func decode<T: Decodable>(_ type: T.Type, _ text: String, _ what: String) throws -> T {
        do { return try StateStore.decoder().decode(type, from: Array(text.utf8), source: path) } catch {
            throw RulesError.state(path: path, reason: "damaged: \(what): \(StateStore.describe(error)): \(rebuildAdvice)")
        }
    }

    // MARK: - Reading

    /// Column `index` of `row` (the query's own list of columns; `name` for messages) as `T`. A value
    /// of another kind (a tampered file's real in an integer column, a NULL) is the file's damage,
    /// named, not a trap (GRDB's subscript stops the process on a value it cannot convert).
    /// By position: GRDB's lookup by name compares lowercased names, and an addition reads some 400
    /// columns (4 % of its time went to finding them).
    func column<T: DatabaseValueConvertible>(_ row: Row, _ index: Int, _ name: String, _ type: T.Type = T.self) throws -> T {
        let value = StateDatabase.value(row, index)
        // (GRDB makes an integer of a real by cutting its fraction: 1.5 would count as 1.)
        var fractional = false
        if T.self == Int.self, case .double(let real) = value.storage { fractional = real != real.rounded(.towardZero) }
        guard !fractional, let converted = T.fromDatabaseValue(value) else {
            let kind = T.self == String.self ? "text" : T.self == Int.self ? "an integer" : T.self == Bool.self ? "a boolean" : "a number"
            throw RulesError.state(path: path, reason: "damaged: column '\(name)' holds \(value), not \(kind): \(rebuildAdvice)")
        }
        return converted
    }

    /// `column`, NULL as nil.
    func optionalColumn<T: DatabaseValueConvertible>(_ row: Row, _ index: Int, _ name: String, _ type: T.Type = T.self) throws -> T? {
        StateDatabase.value(row, index).isNull ? nil : try column(row, index, name, T.self)
    }

    /// Column `index` of `row` as it is (NULL past the row's end).
    static func value(_ row: Row, _ index: Int) -> DatabaseValue {
        guard index >= 0, index < row.count else { return .null }
        return row[row.index(row.startIndex, offsetBy: index)].1
    }

    /// The header: the saved state without its rules.
    func header() throws -> SavedState {
        // The header and how many runs the table holds, in one statement.
        let row = try guarded {
            try reading { db in
                try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT value, (SELECT coalesce(max(pos) + 1, 0) FROM run WHERE athlete = ?) AS held FROM header WHERE athlete = ? AND key = 'state'
                    """), arguments: [athlete, athlete])
            }
        }
        let text = try row.flatMap { try optionalColumn($0, 0, "value", String.self) }
        guard let text else { throw RulesError.state(path: path, reason: "damaged: no header: \(rebuildAdvice)") }
        let state = try decode(SavedState.self, text, "the header")
        guard state.format == StateStore.format else {
            throw RulesError.state(path: path, reason: "format \(state.format); this badgectl reads format \(StateStore.format) (evaluate with --state again)")
        }
        // Counts and sizes a tampered file could make absurd.
        for (field, value) in [("run_count", state.runCount), ("runs_bytes", state.runsBytes)] where value < 0 {
            throw RulesError.state(path: path, reason: "field '\(field)': \(value) is negative: damaged: \(rebuildAdvice)")
        }
        // (A row id past 2^63 - 2 makes the count a real, not an integer: damaged.)
        let counted = row.map { StateDatabase.value($0, 1) } ?? .null
        guard let held = Int.fromDatabaseValue(counted), state.runCount == held else {
            throw RulesError.state(path: path, reason: "field 'run_count': \(state.runCount) runs, the database holds \(counted): damaged: \(rebuildAdvice)")
        }
        runsBytes = state.runsBytes
        return state
    }

    /// `runs.jsonl`'s bytes that belong to the state (from the header), once read.
    private var runsBytes: Int?

    /// Which awards `rules(awards:)` reads.
    enum Awards {
        /// None: only `finish` awards, as keys (badge, tier, run), their rows' JSON kept apart
        /// (`finishRows`): an addition compares them by it and decodes only those it takes back.
        case none
        /// All.
        case all
    }

    /// Every rule's state in order, with its `finish` awards and the `on_run` awards `awards` says;
    /// `nextSequence[i]`: how many `on_run` awards rule `i` has made (the next row's `seq`).
    func rules(awards: Awards) throws -> (rules: [RuleState], nextSequence: [Int]) {
        var (rules, next) = try readRules(awards: awards)
        // A whole state (not for an addition): the saved maps put back.
        if case .all = awards {
            for (i, rule) in rules.enumerated() where !rule.split.isEmpty {
                var maps: [String: [StateEntry]] = [:]
                for path in rule.split { maps[path] = try savedEntries(index: i, path: path) }
                rules[i].state = SavedMaps.merged(rule.state, maps)
                rules[i].split = []
            }
        }
        return (rules, next)
    }

    /// Adds to `rules`, as `rules(awards: .none)` read them, the `on_run` awards an addition's
    /// duplicate policies need to go on (their order does not matter): the first award of each badge
    /// and tier a rule holds, through the primary key, and every award of the runs `runs` (the saved
    /// runs handed to the rules again), through the index by run.
    ///
    /// They are read as keys only (pack, rule, badge, tier, run; no time, detail or evidence), from
    /// the award rows' own columns: the duplicate policy reads nothing else, and an addition writes
    /// and reports only the awards after them (`IncrementalEvaluator.addLocked` drops the first
    /// `seeds[i]`), so their JSON is never decoded.
    func addSeeds(to rules: inout [RuleState], runs: Set<String>) throws {
        try guarded {
            try reading { db in
                var seen = Set<[Int]>()
                try readAwardKeys(db, into: &rules, seen: &seen, """
                    SELECT a.rule, a.seq, a.run, a.badge, a.tier FROM held h
                        JOIN award a ON a.athlete = h.athlete AND a.rule = h.rule AND a.phase = 0 AND a.seq = h.seq WHERE h.athlete = ?
                    UNION ALL SELECT rule, seq, run, badge, tier FROM award WHERE athlete = ? AND run IN (SELECT value FROM json_each(?)) AND phase = 0
                    """, [athlete, athlete, StateDatabase.jsonArray(runs)])
            }
        }
    }

    /// Appends the awards `sql` selects (rule, seq, run, badge, tier, in this order) to their rules as
    /// keys, each row once (`seen`): `on_run` awards (`addSeeds`), or with `finish` the `finish`
    /// awards, whose JSON (a sixth column) is kept (`finishRows`).
    private func readAwardKeys(_ db: Database, into rules: inout [RuleState], seen: inout Set<[Int]>, finish: Bool = false, _ sql: String,
                               _ arguments: StatementArguments = []) throws {
        for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments) {
            let index = try column(row, 0, "rule", Int.self), seq = try column(row, 1, "seq", Int.self)
            guard index >= 0, index < rules.count else { continue }
            guard seen.insert([index, finish ? 1 : 0, seq]).inserted else { continue }
            let award = Award(badge: try column(row, 3, "badge"), pack: rules[index].pack, rule: rules[index].rule,
                              tier: try column(row, 4, "tier"), run: try column(row, 2, "run"), at: nil, detail: "")
            guard finish else {
                rules[index].awards.append(award)
                continue
            }
            let text: String = try column(row, 5, "json")
            rules[index].finishAwards.append(award)
            finishRows[index, default: []].append(text)
            finishJSON[IncrementalEvaluator.identity(award)] = text
        }
    }

    /// `RuleState.key` to the rule's row, for the saved maps.
    var ruleIndex: [String: Int] = [:]

    /// The most awards a rule's `next_seq` may count (2^31 - 1): far past what any history makes, far
    /// below where adding to it overflows.
    static let maximumSequence = Int(Int32.max)

    private func readRules(awards: Awards) throws -> (rules: [RuleState], nextSequence: [Int]) {
        // (What a read as keys kept is this read's alone.)
        finishRows = [:]
        finishJSON = [:]
        return try guarded {
            try reading { db in
                var rules: [RuleState] = []
                var next: [Int] = []
                for row in try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT idx, pack, rule, fold, state, unsaved, earned, stopped, progress, failure, split, next_seq FROM rule WHERE athlete = ? ORDER BY idx
                    """), arguments: [athlete]) {
                    let index = try column(row, 0, "idx", Int.self)
                    guard index == rules.count else { throw RulesError.state(path: path, reason: "damaged: rule \(index) is out of order: \(rebuildAdvice)") }
                    var rule = RuleState(pack: try column(row, 1, "pack"), rule: try column(row, 2, "rule"), fold: try column(row, 3, "fold"))
                    if let text = try optionalColumn(row, 4, "state", String.self) {
                        do { rule.state = try StateJSON.state(in: Data(text.utf8), source: path) } catch let error as ActivityError {
                            throw RulesError.state(path: path, reason: "damaged: the state of rule '\(rule.rule)': \(error.reason): \(rebuildAdvice)")
                        }
                    }
                    rule.unsaved = try optionalColumn(row, 5, "unsaved")
                    rule.earned = try column(row, 6, "earned")
                    rule.stopped = try column(row, 7, "stopped")
                    if let text = try optionalColumn(row, 8, "progress", String.self) { rule.progress = try decode(Progress.self, text, "the progress of rule '\(rule.rule)'") }
                    if let text = try optionalColumn(row, 9, "failure", String.self) { rule.failure = try decode(RuleFailure.self, text, "the failure of rule '\(rule.rule)'") }
                    if let text = try optionalColumn(row, 10, "split", String.self) { rule.split = try decode([String].self, text, "the saved maps of rule '\(rule.rule)'") }
                    // A count of awards made: a damaged or hostile row's 2^63-1 would overflow `add`'s sums.
                    let sequence = try column(row, 11, "next_seq", Int.self)
                    guard (0...StateDatabase.maximumSequence).contains(sequence) else {
                        throw RulesError.state(path: path, reason: "damaged: rule '\(rule.rule)' has next_seq \(sequence), not a count of awards (0 to \(StateDatabase.maximumSequence)): \(rebuildAdvice)")
                    }
                    ruleIndex[rule.key] = index
                    rules.append(rule)
                    next.append(sequence)
                }
                var seen = Set<[Int]>()
                switch awards {
                case .none:
                    try readAwardKeys(db, into: &rules, seen: &seen, finish: true,
                                      "SELECT rule, seq, run, badge, tier, json FROM award WHERE athlete = ? AND phase = 1 ORDER BY rule, seq", [athlete])
                case .all:
                    try readAwards(db, into: &rules, seen: &seen, "SELECT rule, phase, seq, json FROM award WHERE athlete = ? ORDER BY rule, phase, seq", [athlete])
                }
                return (rules, next)
            }
        }
    }

    /// The `finish` awards' rows `rules(awards: .none)` read, by rule: their JSON in order (what
    /// `add` compares a rule's new `finish` awards with) and, by `IncrementalEvaluator.identity`,
    /// each one's JSON (what `complete` decodes).
    private var finishRows: [Int: [String]] = [:]
    private var finishJSON: [String: String] = [:]

    /// `award` whole: a `finish` award `rules(awards: .none)` read as a key, decoded from its row;
    /// any other as it is.
    func complete(_ award: Award) throws -> Award {
        guard let text = finishJSON[IncrementalEvaluator.identity(award)] else { return award }
        return try decode(Award.self, text, "a finish award of rule '\(award.rule)'")
    }

    /// Appends the awards `sql` selects (rule, phase, seq, json, in this order) to their rules, each row once (`seen`).
    private func readAwards(_ db: Database, into rules: inout [RuleState], seen: inout Set<[Int]>, _ sql: String,
                            _ arguments: StatementArguments = []) throws {
        for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments) {
            let index = try column(row, 0, "rule", Int.self), phase = try column(row, 1, "phase", Int.self), seq = try column(row, 2, "seq", Int.self)
            guard index >= 0, index < rules.count else { continue }
            guard seen.insert([index, phase, seq]).inserted else { continue }
            let award = try decode(Award.self, try column(row, 3, "json"), "award \(seq) of rule '\(rules[index].rule)'")
            if phase == 0 { rules[index].awards.append(award) } else { rules[index].finishAwards.append(award) }
        }
    }

    /// Every award in evaluation order: by run, then rule, then `on_run`'s before `finish`'s, then the order made.
    func awards() throws -> [Award] {
        try guarded {
            try reading { db in
                try Row.fetchAll(db, sql: """
                    SELECT json FROM award WHERE athlete = ? AND rule IN (SELECT idx FROM rule WHERE athlete = ? AND failure IS NULL)
                    ORDER BY pos, rule, phase, seq
                    """, arguments: [athlete, athlete])
                    .map { try decode(Award.self, try column($0, 0, "json"), "an award") }
            }
        }
    }

    /// Every award of rule `index` (`on_run`'s, then `finish`'s), for withdrawing them when it fails.
    func awards(ofRule index: Int) throws -> [Award] {
        try guarded {
            try reading { db in
                try Row.fetchAll(db, sql: "SELECT json FROM award WHERE athlete = ? AND rule = ? ORDER BY phase, seq", arguments: [athlete, index])
                    .map { try decode(Award.self, try column($0, 0, "json"), "an award") }
            }
        }
    }

    /// Every saved run in history order.
    func allRuns() throws -> [StateStore.IndexEntry] {
        try runs(sql: "SELECT \(StateDatabase.runColumns) FROM run WHERE athlete = ? ORDER BY pos", [athlete])
    }

    /// The saved runs whose ids are in `ids`, in history order, with their positions.
    func runs(ids: Set<String>) throws -> [StateStore.IndexEntry] {
        try runs(sql: "SELECT \(StateDatabase.runColumns) FROM run WHERE athlete = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY pos", [athlete, StateDatabase.jsonArray(ids)])
    }

    /// The saved runs that start within `seconds` of `start`, in history order.
    func runs(near start: Double, within seconds: Double) throws -> [StateStore.IndexEntry] {
        try runs(sql: "SELECT \(StateDatabase.runColumns) FROM run WHERE athlete = ? AND start BETWEEN ? AND ? ORDER BY pos", [athlete, start - seconds, start + seconds])
    }

    /// The columns `runs(sql:)` reads, in its order.
    static let runColumns = "id, start, elapsed, distance, offset, length, pos, line"

    /// The runs `sql` selects (`runColumns`).
    private func runs(sql: String, _ arguments: StatementArguments = []) throws -> [StateStore.IndexEntry] {
        try guarded {
            try reading { db in
                try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                    let entry = StateStore.IndexEntry(id: try column(row, 0, "id"), startSeconds: try optionalColumn(row, 1, "start"),
                                                      elapsedSeconds: try optionalColumn(row, 2, "elapsed"), distanceMeters: try column(row, 3, "distance"),
                                                      offset: try column(row, 4, "offset"), length: try column(row, 5, "length"), position: try column(row, 6, "pos"),
                                                      line: try optionalColumn(row, 7, "line", Data.self))
                    // Figures the duplicate check computes with: a damaged row's nan or 1e308 is refused by name.
                    for (field, value) in [("start", entry.startSeconds), ("elapsed", entry.elapsedSeconds), ("distance", entry.distanceMeters)] {
                        guard let value, !(value.isFinite && abs(value) < 1e12) else { continue }
                        throw RulesError.state(path: path, reason: "run \(entry.position) ('\(ShownName.of(entry.id))'): its \(field) \(value) is not a plausible figure: damaged: \(rebuildAdvice)")
                    }
                    if entry.line == nil, let limit = runsBytes, entry.offset < 0 || entry.length < 0 || entry.offset > limit || entry.length > limit - entry.offset {
                        throw RulesError.state(path: path, reason: "run \(entry.position) ('\(entry.id)'): bytes \(entry.offset)+\(entry.length) are outside runs.jsonl's \(limit): damaged: \(rebuildAdvice)")
                    }
                    return entry
                }
            }
        }
    }

    // MARK: - Writing

    /// Replaces everything with `state` (its header and rules) over the runs `index` (history order).
    func replaceAll(_ state: SavedState, index: [StateStore.IndexEntry]) throws {
        var position: [String: Int] = [:]
        position.reserveCapacity(index.count)
        for (i, entry) in index.enumerated() { position[entry.id] = i }
        try guarded {
            try writing { db in
                // (The header's `state` row is replaced; `layout` stays.)
                for table in ["rule", "state_key", "award", "held", "run", "withdrawn"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE athlete = ?", arguments: [athlete])
                }
                try writeHeader(db, state)
                let insertRun = try db.cachedStatement(sql: "INSERT INTO run VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                for (i, entry) in index.enumerated() {
                    try insertRun.execute(arguments: [athlete, i, entry.id, entry.startSeconds, entry.elapsedSeconds, entry.distanceMeters, entry.offset,
                                                      entry.length, entry.line])
                }
                for (i, whole) in state.rules.enumerated() {
                    var rule = whole
                    let (kept, maps) = SavedMaps.split(rule.state) { keys in keys.filter { position[$0] != nil } }
                    rule.state = kept
                    rule.split = maps.keys.sorted()
                    try insertMaps(db, rule: i, maps)
                    try writeRule(db, i, rule, nextSequence: rule.awards.count)
                    try insertAwards(db, rule: i, phase: 0, from: 0, rule.awards, position: position)
                    try insertAwards(db, rule: i, phase: 1, from: 0, rule.finishAwards, position: position)
                }
            }
        }
    }

    /// One addition in one transaction: the header; the new runs (`added`, positions from
    /// `firstPosition`); for each rule, its row when it changed (`old` as read), its new `on_run`
    /// awards (`rules[i].awards` after the first `seeds[i]`), its `finish` awards when they changed;
    /// a rule that failed now loses its awards. `position`: the positions of the runs the new awards name.
    func add(_ state: SavedState, added: [StateStore.IndexEntry], firstPosition: Int, old: [RuleState], rules: [RuleState],
             seeds: [Int], nextSequence: [Int], position: [String: Int], withdrawals: [Withdrawal] = []) throws {
        try guarded {
            try writing { db in
                try writeHeader(db, state)
                try insertWithdrawals(db, withdrawals)
                let insertRun = try db.cachedStatement(sql: "INSERT INTO run VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
                for (i, entry) in added.enumerated() {
                    try insertRun.execute(arguments: [athlete, firstPosition + i, entry.id, entry.startSeconds, entry.elapsedSeconds, entry.distanceMeters,
                                                      entry.offset, entry.length, entry.line])
                }
                for (i, var rule) in rules.enumerated() {
                    let before = i < old.count ? old[i] : nil
                    try updateMaps(db, rule: i, &rule, before: before)
                    if rule.failure != nil {
                        if before?.failure == nil {
                            try db.execute(sql: "DELETE FROM award WHERE athlete = ? AND rule = ?", arguments: [athlete, i])
                            try db.execute(sql: "DELETE FROM held WHERE athlete = ? AND rule = ?", arguments: [athlete, i])
                            try writeRule(db, i, rule, nextSequence: 0)
                        }
                        continue
                    }
                    let fresh = Array(rule.awards.dropFirst(i < seeds.count ? seeds[i] : 0))
                    let next = (i < nextSequence.count ? nextSequence[i] : 0)
                    if before.map({ !StateDatabase.sameRow($0, rule) }) ?? true || !fresh.isEmpty {
                        try writeRule(db, i, rule, nextSequence: next + fresh.count)
                    }
                    try insertAwards(db, rule: i, phase: 0, from: next, fresh, position: position)
                    // (By their rows' JSON when they were read as keys, `finishRows`.)
                    let finish = rule.finishAwards.map(AwardJSON.text)
                    if (finishRows[i] ?? before?.finishAwards.map(AwardJSON.text) ?? []) != finish {
                        try db.cachedStatement(sql: "DELETE FROM award WHERE athlete = ? AND rule = ? AND phase = 1").execute(arguments: [athlete, i])
                        try insertAwards(db, rule: i, phase: 1, from: 0, rule.finishAwards, texts: finish, position: position)
                    }
                }
            }
        }
    }

    /// Deletes every row of this athlete (`StateStore.forget`), the header included.
    func forget() throws {
        try guarded {
            try writing { db in
                for table in ["header", "rule", "state_key", "award", "held", "run", "withdrawn"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE athlete = ?", arguments: [athlete])
                }
            }
        }
    }

    // MARK: - Withdrawals

    private func insertWithdrawals(_ db: Database, _ withdrawals: [Withdrawal]) throws {
        guard !withdrawals.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT INTO withdrawn VALUES (?, ?, ?, ?)")
        for withdrawal in withdrawals {
            try insert.execute(arguments: [athlete, withdrawal.at, withdrawal.why, try StateDatabase.json(withdrawal.award)])
        }
    }

    /// Records `withdrawals` (after the state was saved whole: a replay), in one transaction.
    func record(_ withdrawals: [Withdrawal]) throws {
        guard !withdrawals.isEmpty else { return }
        try guarded { try writing { db in try insertWithdrawals(db, withdrawals) } }
    }

    /// Every award taken back so far, in the order they were.
    func withdrawals() throws -> [Withdrawal] {
        try guarded {
            try reading { db in
                try Row.fetchAll(db, sql: "SELECT at, why, json FROM withdrawn WHERE athlete = ? ORDER BY rowid", arguments: [athlete]).map { row in
                    Withdrawal(award: try decode(Award.self, try column(row, 2, "json"), "a withdrawn award"), at: try column(row, 0, "at"), why: try column(row, 1, "why"))
                }
            }
        }
    }

    /// Whether `a` and `b` would write the same `rule` row (awards apart).
    static func sameRow(_ a: RuleState, _ b: RuleState) -> Bool {
        a.pack == b.pack && a.rule == b.rule && a.fold == b.fold && a.state == b.state && a.split == b.split && a.unsaved == b.unsaved && a.earned == b.earned
            && a.stopped == b.stopped && a.progress == b.progress && a.failure == b.failure
    }

    private func writeHeader(_ db: Database, _ state: SavedState) throws {
        var head = state
        head.rules = []
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO header VALUES (?, 'state', ?)").execute(arguments: [athlete, try StateDatabase.json(head)])
    }

    private func writeRule(_ db: Database, _ index: Int, _ rule: RuleState, nextSequence: Int) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO rule VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [
            athlete, index, rule.pack, rule.rule, rule.fold, rule.state.map(StateJSON.text), rule.unsaved, rule.earned, rule.stopped,
            try rule.progress.map(StateDatabase.json), try rule.failure.map(StateDatabase.json), nextSequence,
            rule.split.isEmpty ? nil : try StateDatabase.json(rule.split),
        ])
    }

    /// `texts`: the awards' JSON when already written (`AwardJSON`).
    private func insertAwards(_ db: Database, rule: Int, phase: Int, from first: Int, _ awards: [Award], texts: [String]? = nil,
                              position: [String: Int]) throws {
        guard !awards.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT INTO award VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let hold = try db.cachedStatement(sql: "INSERT OR IGNORE INTO held VALUES (?, ?, ?, ?, ?)")
        for (i, award) in awards.enumerated() {
            try insert.execute(arguments: [athlete, rule, phase, first + i, position[award.run] ?? Int(Int32.max), award.run, award.badge, award.tier,
                                           texts?[i] ?? AwardJSON.text(award)])
            if phase == 0 { try hold.execute(arguments: [athlete, rule, award.badge, award.tier, first + i]) }
        }
    }
}
