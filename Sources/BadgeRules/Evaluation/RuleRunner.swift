import Foundation
import RunFiles

/// Running the loaded rules over the runs: predicates and folds, their results read back raw, the
/// awards they make (`award`, kept under the duplicate policy) and what each rule leaves for the
/// next evaluation (with `FoldStates`). Collects the evaluation.
final class RuleRunner {
    struct Pending {
        var runIndex: Int
        var award: Award
        /// Made in `finish` (such awards can move when a run is added).
        var finish = false
    }

    /// What the rule being run carries between runs and evaluations (see `RuleState`).
    struct RuleCapture {
        var state: StateValue?
        var unsaved: String?
        var earned = false
        var stopped = false
        var progress: Progress?
        var split: [String] = []
        var splitWrites: [String: [StateEntry]] = [:]
    }

    let lua: LuaState
    let sandbox: PackSandbox
    let runs: RunTable
    let loader: RuleLoader
    let notes: NoteLog
    let states: FoldStates

    private var pending: [Pending] = []
    /// The awards the rule being run has made (badge, tier, run id) and the tiers it holds (run "").
    private var pendingKeys: Set<AwardKey> = []
    private var pendingTiers: Set<AwardKey> = []

    /// A badge's tier, on a run or (run "") on any: the duplicate policy's keys.
    struct AwardKey: Hashable {
        let badge, tier, run: String
    }
    private var pendingStatuses: [BadgeStatus] = []
    private var pendingNext: NextBadge?
    private var keyedAwards: [(run: Int, pack: Int, rule: Int, sequence: Int, award: Award)] = []
    private var ruleCapture = RuleCapture()
    /// Which runs each pack's eligibility leaves out, by pack index (`excludedRuns(pack:)`).
    var excludedByPack: [Int: [Bool]] = [:]
    /// Set while a fold's `finish` runs: its awards are marked.
    private var inFinish = false
    private(set) var evaluation = Evaluation()

    /// `--profile`: when set, each rule's calls and time (nanoseconds), by index into `loader.rules`.
    var profiling = false
    private(set) var ruleCalls: [Int: Int] = [:]
    private(set) var ruleNanoseconds: [Int: UInt64] = [:]

    // Incremental evaluation (`RuleEngine.resume`, `evaluate --state`).
    /// Each rule's saved state, by `RuleState.key`, when this evaluation goes on from a saved one.
    var resumed: [String: RuleState]?
    /// The first run (1-based) rules are handed: runs before it are saved runs, there only for the
    /// states and awards that name them.
    var firstRun = 1
    /// Runs of the whole history (saved ones included), for the award limit.
    var historyCount = 0
    /// Whether to copy each rule's state out (plain data) for saving.
    var saving = false
    /// Whether each rule's values outside its state (its functions' upvalues, its pack's globals) are
    /// compared before and after it runs (`FoldStates.changedOutside`), so that a state that would
    /// lose them is not saved (`RuleState.unsaved`). `ReusedEvaluator` turns it off where the reset's
    /// own check stands in for it (an evaluation whose reset finds anything changed is made again in
    /// a fresh state, with it on).
    var checksOutside = true
    /// What each rule leaves for the next evaluation, by index into `loader.rules` (when `saving` or `resumed`).
    private(set) var ruleStates: [Int: RuleState] = [:]

    init(loader: RuleLoader, states: FoldStates) {
        self.lua = loader.lua
        self.sandbox = loader.sandbox
        self.runs = loader.runs
        self.notes = loader.notes
        self.loader = loader
        self.states = states
    }

    /// Runs every loaded rule (after `loader.load()`) and returns the evaluation: the loader's
    /// failures first, then the rules', the awards in run, pack, rule order.
    func run() -> Evaluation {
        evaluation.runOrder = runs.runs.map(\.id)
        evaluation.failures = loader.failures + evaluation.failures
        for ruleIndex in loader.rules.indices {
            runRule(ruleIndex)
        }
        keyedAwards.sort { a, b in
            (a.run, a.pack, a.rule, a.sequence) < (b.run, b.pack, b.rule, b.sequence)
        }
        evaluation.awards = keyedAwards.map(\.award)
        evaluation.notes = notes.notes
        return evaluation
    }

    // MARK: - Running a rule

    func runRule(_ index: Int) {
        let rule = loader.rules[index]
        pending = []
        pendingKeys = []
        pendingTiers = []
        pendingStatuses = []
        pendingNext = nil
        ruleCapture = RuleCapture()
        let tracking = saving || resumed != nil
        let saved = resumed?[RuleState.key(pack: sandbox.packNames[rule.pack], rule: rule.id)]
        if let saved {
            if let failure = saved.failure {
                // It failed on a saved run: a full evaluation fails it again, with no awards.
                evaluation.failures.append(failure)
                ruleStates[index] = saved
                return
            }
            for award in saved.awards {
                pendingKeys.insert(AwardKey(badge: award.badge, tier: award.tier, run: award.run))
                pendingTiers.insert(AwardKey(badge: award.badge, tier: award.tier, run: ""))
            }
            ruleCapture.earned = saved.earned
            ruleCapture.stopped = saved.stopped
            ruleCapture.progress = saved.progress
            ruleCapture.state = saved.state
            ruleCapture.split = saved.split
        }
        sandbox.current = PackSandbox.Current(pack: rule.pack, rule: index)
        defer { sandbox.current = nil }
        let base = lua.top
        defer { lua.setTop(base) }
        let outside = tracking && checksOutside ? states.outsideValues(of: rule) : [:]
        let failed: RuleFailure?
        let started = profiling ? DispatchTime.now().uptimeNanoseconds : 0
        switch rule.shape {
        case .predicate: failed = runPredicate(rule)
        case .fold: failed = runFold(rule)
        }
        if profiling { ruleNanoseconds[index, default: 0] += DispatchTime.now().uptimeNanoseconds - started }
        if let failed {
            evaluation.failures.append(failed)
            if tracking {
                ruleStates[index] = RuleState(pack: sandbox.packNames[rule.pack], rule: rule.id, fold: rule.shape == .fold, failure: failed)
            }
            return
        }
        for (sequence, item) in pending.enumerated() {
            keyedAwards.append((item.runIndex, rule.pack, index, sequence, item.award))
        }
        if tracking {
            var state = RuleState(pack: sandbox.packNames[rule.pack], rule: rule.id, fold: rule.shape == .fold)
            state.state = ruleCapture.state
            state.split = ruleCapture.split
            state.splitWrites = ruleCapture.splitWrites
            state.unsaved = ruleCapture.unsaved ?? (checksOutside ? states.changedOutside(of: rule, before: outside) : nil)
            if let problem = state.unsaved {
                notes.add(pack: sandbox.packNames[rule.pack], rule: rule.id) { "state not saved (an addition replays the history): \(problem)" }
            }
            state.earned = ruleCapture.earned
            state.stopped = ruleCapture.stopped
            state.progress = ruleCapture.progress
            state.awards = (saved?.awards ?? []) + pending.filter { !$0.finish }.map(\.award)
            state.finishAwards = pending.filter(\.finish).map(\.award)
            ruleStates[index] = state
        }
        evaluation.statuses.append(contentsOf: pendingStatuses)
        if let next = pendingNext { evaluation.nexts.append(next) }
    }

    /// The lines between `first` and `last` of `file` that hold a `return` (as a word, outside a
    /// `--` comment): where a function's result came from.
    static func returnLines(in file: String, from first: Int, to last: Int) -> [Int] {
        guard first > 0, last >= first, let bytes = PackSandbox.read(file) else { return [] }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var found: [Int] = []
        for number in first...min(last, lines.count) {
            var code = lines[number - 1]
            if let comment = code.range(of: "--") { code = code[..<comment.lowerBound] }
            let words = code.split { !($0.isLetter || $0.isNumber || $0 == "_") }
            if words.contains("return") { found.append(number) }
        }
        return found
    }

    func fallback(_ rule: RuleLoader.Rule, _ function: String) -> (file: String, line: Int?) {
        if let definition = rule.definitions[function] { return (definition.file, definition.line) }
        return (rule.file, nil)
    }

    /// Calls `rule.function(args...)`; `pushArgs` pushes the arguments and returns their count.
    /// `ref`: the function's registry ref when the caller looked it up once for many calls.
    func invoke(_ rule: RuleLoader.Rule, _ function: String, ref: Int32? = nil, results: Int32, _ pushArgs: () -> Int32) -> RuleFailure? {
        guard let ref = ref ?? rule.functions[function] else { return nil }
        if profiling, let index = sandbox.current?.rule { ruleCalls[index, default: 0] += 1 }
        lua.ensureStack()
        if !runs.nilMeasureReads.isEmpty { runs.nilMeasureReads.removeAll(keepingCapacity: true) }
        lua.push(ref: ref)
        let nargs = pushArgs()
        if let error = lua.call(nargs: nargs, nresults: results) {
            return explainingNilMeasures(loader.failure(pack: rule.pack, rule: rule.id, error: error, fallback: fallback(rule, function)))
        }
        return nil
    }

    func runPredicate(_ rule: RuleLoader.Rule) -> RuleFailure? {
        var earnedOnce = ruleCapture.earned
        defer { ruleCapture.earned = earnedOnce }
        let earned = rule.functions["earned"]
        let definition = fallback(rule, "earned")
        let ctxRef = rule.ctxRef
        let excluded = excludedRuns(pack: rule.pack)
        for index in Swift.stride(from: firstRun, through: runs.count, by: 1) where !ruleCapture.stopped && !excluded[index - 1] {
            if let failed = invoke(rule, "earned", ref: earned, results: 1, {
                runs.pushProxy(index)
                lua.push(ref: ctxRef)
                return 2
            }) { return failed }
            defer { lua.pop() }
            let type = lua.type(at: -1)
            var tier = "earned"
            var detail = ""
            var badge = rule.badge ?? ""
            var progress: Progress? = nil
            var evidence: Evidence? = nil
            func fail(_ message: String) -> RuleFailure {
                RuleFailure(pack: sandbox.packNames[rule.pack], rule: rule.id, file: definition.file, line: definition.line, message: message)
            }
            switch type {
            case .nil: continue
            case .boolean:
                if !lua.boolean(at: -1) { continue }
            case .table:
                let table = lua.top
                do {
                    if let text = try tableString(table, .tier, "earned") { tier = text }
                    if let text = try tableString(table, .detail, "earned", limit: HostFunctions.textLimit) { detail = text }
                    if let text = try tableString(table, .badge, "earned") {
                        guard loader.knownBadges.contains(text) else {
                            let hint = Suggestion.closest(to: text, in: loader.knownBadges.sorted()).map { "; did you mean '\($0)'?" }
                                ?? " (not in the catalogue nor in any pack's badges or themes)"
                            return fail("earned: unknown badge '\(text)'\(hint)")
                        }
                        badge = text
                    }
                    progress = try tableProgress(table, "earned")
                    evidence = try tableEvidence(table, "earned")
                } catch RulesError.field(let message) {
                    return fail(message)
                } catch {
                    return fail("\(error)")
                }
                if tier.isEmpty { return fail("earned: field 'tier' must not be empty") }
            default:
                let message = "earned must return true, false/nil or a table { detail = ..., tier = ... }, got \(lua.typeName(at: -1))"
                // Point at the `return` when the function has one; else at the function, naming its returns.
                let returns = rule.definitions["earned"].map { RuleRunner.returnLines(in: rule.file, from: $0.line, to: $0.lastLine) } ?? []
                if returns.count == 1 {
                    return RuleFailure(pack: sandbox.packNames[rule.pack], rule: rule.id, file: rule.file, line: returns[0], message: message)
                }
                return fail(returns.isEmpty ? message : message + " (from one of its returns, lines \(returns.map(String.init).joined(separator: ", ")))")
            }
            if let problem = loader.undeclaredTier(badge: badge, tier: tier) { return fail("earned: " + problem) }
            earnedOnce = true
            // A tier implies the tiers below it (the badge's declared order, else earned < silver < gold),
            // as a fold's tiers do: a first run at gold takes silver and earned too, each once.
            if !rule.repeatable {
                for lower in RuleRunner.tiers(below: tier, in: loader.declaredTiers[badge]) {
                    record(rule: rule, badge: badge, tier: lower, runIndex: index, detail: detail, progress: progress, evidence: evidence)
                }
            }
            record(rule: rule, badge: badge, tier: tier, runIndex: index, detail: detail, progress: progress, evidence: evidence)
            // A badge with declared tiers keeps its predicate called until every tier is held (a tier
            // already held is ignored by `record`); any other stops at its first award.
            if !rule.repeatable {
                guard let declared = loader.declaredTiers[badge] else { ruleCapture.stopped = true; break }
                if declared.allSatisfy({ pendingTiers.contains(AwardKey(badge: badge, tier: $0, run: "")) }) { ruleCapture.stopped = true; break }
            }
        }
        if !earnedOnce, rule.functions["progress"] != nil, let badge = rule.badge {
            var best: Progress? = ruleCapture.progress
            defer { ruleCapture.progress = best }
            let progressRef = rule.functions["progress"]
            for index in Swift.stride(from: firstRun, through: runs.count, by: 1) where !excluded[index - 1] {
                if let failed = invoke(rule, "progress", ref: progressRef, results: 1, {
                    runs.pushProxy(index)
                    lua.push(ref: rule.ctxRef)
                    return 2
                }) { return failed }
                defer { lua.pop() }
                if lua.type(at: -1) == .nil { continue }
                let value: Progress
                do {
                    lua.newTable(record: 1)
                    lua.swapTop()
                    lua.setField(-2, "progress")
                    guard let parsed = try tableProgress(lua.top, "progress") else { continue }
                    value = parsed
                } catch RulesError.field(let message) {
                    let definition = fallback(rule, "progress")
                    return RuleFailure(pack: sandbox.packNames[rule.pack], rule: rule.id, file: definition.file, line: definition.line,
                                       message: message.replacingOccurrences(of: "progress: field 'progress'", with: "progress: the result")
                                           .replacingOccurrences(of: "progress: progress: ", with: "progress: "))
                } catch { continue }
                func ratio(_ p: Progress) -> Double { p.target > 0 ? p.current / p.target : 0 }
                if best == nil || ratio(value) > ratio(best ?? value) { best = value }
            }
            if let best {
                pendingStatuses.append(BadgeStatus(pack: sandbox.packNames[rule.pack], rule: rule.id, badge: badge, progress: best, hint: rule.title))
            }
        }
        return nil
    }

    func runFold(_ rule: RuleLoader.Rule) -> RuleFailure? {
        if let saved = ruleCapture.state {
            do {
                try states.push(saved)
                try states.attachSavedMaps(ruleCapture.split, rule: RuleState.key(pack: sandbox.packNames[rule.pack], rule: rule.id))
            } catch {
                return RuleFailure(pack: sandbox.packNames[rule.pack], rule: rule.id, file: rule.file, line: nil,
                                   message: "cannot restore the saved state: \(error)")
            }
        } else if rule.functions["init"] != nil {
            if let failed = invoke(rule, "init", results: 1, {
                lua.push(ref: rule.ctxRef)
                return 1
            }) { return failed }
        } else {
            lua.newTable()
        }
        var stateRef = lua.ref()
        defer { lua.unref(stateRef) }
        let onRun = rule.functions["on_run"]
        let awardRef = rule.awardRef, ctxRef = rule.ctxRef  // the closure then captures two integers, not the rule
        let excluded = excludedRuns(pack: rule.pack)
        for index in Swift.stride(from: firstRun, through: runs.count, by: 1) where !excluded[index - 1] {
            if let failed = invoke(rule, "on_run", ref: onRun, results: 1, {
                lua.push(ref: stateRef)
                runs.pushProxy(index)
                lua.push(ref: awardRef)
                lua.push(ref: ctxRef)
                return 4
            }) { return failed }
            if lua.type(at: -1) == .nil {
                lua.pop()
            } else {
                lua.unref(stateRef)
                stateRef = lua.ref()
            }
        }
        if saving || resumed != nil {
            // The state as on_run left it: `finish` then runs on the live one, so what is saved is a
            // copy `finish` never touched (an addition runs `finish` again on it).
            lua.push(ref: stateRef)
            do {
                (ruleCapture.state, ruleCapture.split, ruleCapture.splitWrites) = try states.captureState(
                    at: -1, rule: RuleState.key(pack: sandbox.packNames[rule.pack], rule: rule.id))
            } catch {
                ruleCapture.state = nil
                ruleCapture.split = []
                ruleCapture.splitWrites = [:]
                ruleCapture.unsaved = "\(error)"
            }
            lua.pop()
        }
        inFinish = true
        defer { inFinish = false }
        if let failed = invoke(rule, "finish", results: 0, {
            lua.push(ref: stateRef)
            lua.push(ref: rule.awardRef)
            lua.push(ref: rule.ctxRef)
            return 3
        }) { return failed }
        if rule.functions["status"] != nil {
            if let failed = invoke(rule, "status", results: 1, {
                lua.push(ref: stateRef)
                lua.push(ref: rule.ctxRef)
                return 2
            }) { return failed }
            defer { lua.pop() }
            do {
                try readStatus(rule: rule, at: lua.top)
            } catch RulesError.field(let message) {
                let definition = fallback(rule, "status")
                return RuleFailure(pack: sandbox.packNames[rule.pack], rule: rule.id, file: definition.file, line: definition.line, message: message)
            } catch {
                return nil
            }
        }
        return nil
    }

    func readStatus(rule: RuleLoader.Rule, at index: Int32) throws {
        let type = lua.type(at: index)
        if type == .nil { return }
        guard type == .table else { throw RulesError.field("status must return a table { badges = { ... }, next = { ... } } or nil, got \(lua.typeName(at: index))") }
        let badgesType = lua.getField(index, .badges)
        if badgesType != .nil {
            guard badgesType == .table else { throw RulesError.field("status: field 'badges' must be an array, got \(lua.typeName(at: -1))") }
            let array = lua.top
            let count = lua.rawLength(at: array)
            for i in 1...max(count, 1) where count > 0 {
                lua.getIndex(array, i)
                let entry = lua.top
                func label() -> String { "status: badges[\(i)]" }
                guard lua.type(at: entry) == .table else { throw RulesError.field("\(label()) must be a table { badge = ..., progress = ... }, got \(lua.typeName(at: entry))") }
                guard let badge = try tableString(entry, .badge, label()) else { throw RulesError.field("\(label()): missing required field 'badge'") }
                guard loader.knownBadges.contains(badge) else { throw RulesError.field("\(label()): unknown badge '\(badge)' (not in the catalogue nor in any pack's badges or themes)") }
                let silver = try tableNumber(entry, .silverPace, label())
                let gold = try tableNumber(entry, .goldPace, label())
                let progress = try tableProgress(entry, label())
                let hint = try tableString(entry, .hint, label(), limit: HostFunctions.textLimit)
                var status = BadgeStatus(pack: sandbox.packNames[rule.pack], rule: rule.id, badge: badge,
                                         silverPaceSecondsPerKilometre: silver, goldPaceSecondsPerKilometre: gold,
                                         progress: progress, hint: hint)
                status.target = try tableTarget(entry, label())
                pendingStatuses.append(status)
                lua.pop()
            }
        }
        lua.pop()
        let nextType = lua.getField(index, .next)
        defer { lua.pop() }
        if nextType == .nil { return }
        guard nextType == .table else { throw RulesError.field("status: field 'next' must be a table { badge = ..., remaining_m = ... }, got \(lua.typeName(at: -1))") }
        let next = lua.top
        guard let badge = try tableString(next, .badge, "status: next") else { throw RulesError.field("status: next: missing required field 'badge'") }
        guard loader.knownBadges.contains(badge) else { throw RulesError.field("status: next: unknown badge '\(badge)'") }
        guard let remaining = try tableNumber(next, .remaining, "status: next") else { throw RulesError.field("status: next: missing required field 'remaining_m'") }
        pendingNext = NextBadge(pack: sandbox.packNames[rule.pack], rule: rule.id, badge: badge, remainingMeters: remaining)
    }

    // MARK: - Raw readers of rule-made tables

    /// `LuaState.stringField` with `label: ` before its message; `limit` as there.
    func tableString(_ table: Int32, _ key: TableKey, _ label: @autoclosure () -> String, limit: Int? = nil) throws -> String? {
        do { return try lua.stringField(table, key, limit: limit) } catch RulesError.field(let text) { throw RulesError.field("\(label()): \(text)") }
    }

    /// `LuaState.numberField` with `label: ` before its message.
    func tableNumber(_ table: Int32, _ key: TableKey, _ label: @autoclosure () -> String) throws -> Double? {
        do { return try lua.numberField(table, key) } catch RulesError.field(let text) { throw RulesError.field("\(label()): \(text)") }
    }

    /// A status entry's `target = { tier = ..., distance_m = ..., elapsed_s = ... }` (nil when absent).
    func tableTarget(_ table: Int32, _ label: @autoclosure () -> String) throws -> RunTarget? {
        let type = lua.getField(table, .target)
        defer { lua.pop() }
        if type == .nil { return nil }
        guard type == .table else { throw RulesError.field("\(label()): field 'target' must be a table { tier = ..., distance_m = ..., elapsed_s = ... }, got \(lua.typeName(at: -1))") }
        let inner = lua.top
        let tier = try tableString(inner, .tier, "\(label()): target") ?? "earned"
        guard let distance = try tableNumber(inner, .distance, "\(label()): target") else {
            throw RulesError.field("\(label()): target: missing required field 'distance_m'")
        }
        let elapsed = try tableNumber(inner, .elapsed, "\(label()): target")
        guard distance.isFinite, distance > 0, elapsed.map({ $0.isFinite && $0 > 0 }) ?? true else {
            throw RulesError.field("\(label()): target: distance_m and elapsed_s must be above 0")
        }
        return RunTarget(tier: tier, distanceMeters: distance, elapsedSeconds: elapsed)
    }

    /// The table's `evidence` field (nil when absent), read as plain data (`Evidence`).
    func tableEvidence(_ table: Int32, _ label: @autoclosure () -> String) throws -> Evidence? {
        let type = lua.getField(table, .evidence)
        defer { lua.pop() }
        if type == .nil { return nil }
        do { return try lua.evidence(at: -1) } catch RulesError.field(let text) { throw RulesError.field("\(label()): \(text)") }
    }

    func tableProgress(_ table: Int32, _ label: @autoclosure () -> String) throws -> Progress? {
        let type = lua.getField(table, .progress)
        defer { lua.pop() }
        if type == .nil { return nil }
        guard type == .table else { throw RulesError.field("\(label()): field 'progress' must be a table { current = ..., target = ..., unit = ... }, got \(lua.typeName(at: -1))") }
        let inner = lua.top
        guard let current = try tableNumber(inner, .current, "\(label()): progress") else { throw RulesError.field("\(label()): progress: missing required field 'current'") }
        guard let target = try tableNumber(inner, .target, "\(label()): progress") else { throw RulesError.field("\(label()): progress: missing required field 'target'") }
        let unit = try tableString(inner, .unit, "\(label()): progress") ?? ""
        return Progress(current: current, target: target, unit: unit)
    }

    /// At most this many awards per rule per evaluation (a guard against a rule flooding the host).
    var awardLimit: Int { max(1000, 20 * max(runs.count, historyCount)) }

    /// Keeps an award for the rule being run, applying the duplicate policy.
    /// The tiers below `tier` in `declared` (a badge's tiers in pack.lua, lowest first), else in
    /// earned < silver < gold; none for a tier in neither.
    static func tiers(below tier: String, in declared: [String]?) -> [String] {
        let order = declared ?? ["earned", "silver", "gold"]
        guard let position = order.firstIndex(of: tier) else { return [] }
        return Array(order[..<position])
    }

    func record(rule: RuleLoader.Rule, badge: String, tier: String, runIndex: Int, detail: String, progress: Progress?, evidence: Evidence? = nil) {
        let run = runs.runs[runIndex - 1]
        let key = AwardKey(badge: badge, tier: tier, run: run.id)
        if pendingKeys.contains(key) { return }
        let tierKey = AwardKey(badge: badge, tier: tier, run: "")
        if !rule.repeatable && pendingTiers.contains(tierKey) { return }
        pendingKeys.insert(key)
        pendingTiers.insert(tierKey)
        var award = Award(badge: badge, pack: sandbox.packNames[rule.pack], rule: rule.id, tier: tier, run: run.id, at: run.start,
                          detail: detail, progress: progress, evidence: evidence)
        if rule.pack < loader.packs.count {
            award.packVersion = loader.packs[rule.pack].version
            award.packFingerprint = loader.packs[rule.pack].fingerprint.isEmpty ? nil : loader.packs[rule.pack].fingerprint
        }
        if let ruleIndex = sandbox.current?.rule, let names = runs.measureReads[RunTable.MeasureRead(rule: ruleIndex, run: runIndex)] {
            let declared = loader.packs[rule.pack].measures
            award.measures = names.sorted().map { name in
                AwardMeasure(name: name, kind: declared.first { $0.name == name }?.definition.kind ?? "",
                             value: runs.measureTable.value(pack: rule.pack, name: name, in: run))
            }
        }
        pending.append(Pending(runIndex: runIndex, award: award, finish: inFinish))
    }

    // MARK: - Host functions of rules

    /// The host function `award` of rule `token`.
    func award(token: Int) -> Int32 {
        guard token >= 0, token < loader.rules.count, let current = sandbox.current, current.rule == token else {
            return lua.raise("award: called outside the calls of the rule it was given to")
        }
        let rule = loader.rules[token]
        guard lua.type(at: 1) == .table else {
            return lua.raise("award: expected a table { badge = ..., tier = ..., run = ..., detail = ... }, got \(lua.typeName(at: 1))")
        }
        do {
            var badge = rule.badge
            if let given = try tableString(1, .badge, "award") { badge = given }
            guard let badge else { return lua.raise("award: missing field 'badge' (and the rule has no default 'badge')") }
            guard loader.knownBadges.contains(badge) else {
                let hint = Suggestion.closest(to: badge, in: loader.knownBadges.sorted()).map { "; did you mean '\($0)'?" }
                    ?? " (not in the catalogue nor in any pack's badges or themes)"
                return lua.raise("award: unknown badge '\(badge)'\(hint)")
            }
            let tier = try tableString(1, .tier, "award") ?? "earned"
            guard !tier.isEmpty, tier.utf8.count <= 40 else { return lua.raise("award: field 'tier' must be a short non-empty string") }
            if let problem = loader.undeclaredTier(badge: badge, tier: tier) { return lua.raise("award: " + problem) }
            let detail = try tableString(1, .detail, "award", limit: HostFunctions.textLimit) ?? ""
            let progress = try tableProgress(1, "award")
            let evidence = try tableEvidence(1, "award")
            let runType = lua.getField(1, .run)
            var runIndex = 0
            var problem: String? = nil
            switch runType {
            case .nil:
                problem = "award: missing field 'run' (the run that earned it: a run table or a run id)"
            case .string:
                let id = lua.string(at: -1) ?? ""
                if let found = runs.indexByID[id] { runIndex = found } else { problem = "award: unknown run '\(id)'" }
            case .userdata, .lightUserdata:
                let found = lua.runIndex(at: -1)
                if found >= 1, found <= runs.count { runIndex = found } else {
                    problem = "award: field 'run' must be a run or a run id, got \(lua.typeName(at: -1))"
                }
            default:
                problem = "award: field 'run' must be a run or a run id (a string), got \(lua.typeName(at: -1))"
            }
            lua.pop()
            if let problem { return lua.raise(problem) }
            if pending.count >= awardLimit {
                return lua.raise("award: more than \(awardLimit) awards from one rule (\(runs.count) runs); is a loop awarding too often?")
            }
            record(rule: rule, badge: badge, tier: tier, runIndex: runIndex, detail: detail, progress: progress, evidence: evidence)
            return 0
        } catch RulesError.field(let message) {
            return lua.raise(message)
        } catch {
            return lua.raise("award: \(error)")
        }
    }

    /// The host function `ctx.note` of rule `token`.
    func note(token: Int) -> Int32 {
        guard token >= 0, token < loader.rules.count else { return 0 }
        var index: Int32 = 1
        if lua.typeName(at: 1) == "ctx" && lua.top >= 2 { index = 2 }  // ctx:note(text)
        let type = lua.type(at: index)
        guard type == .string || type == .number else {
            return lua.raise("ctx.note: expected a string, got \(lua.typeName(at: index))")
        }
        let rule = loader.rules[token]
        notes.add(pack: sandbox.packNames[rule.pack], rule: rule.id) { lua.noteText(at: index) }
        return 0
    }
}
