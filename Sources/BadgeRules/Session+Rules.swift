import Activities
import CLua
import CLuaShims
import Foundation

extension Session {
    static let ruleFields = ["id", "title", "description", "badge", "repeatable", "earned", "progress",
                             "init", "on_run", "finish", "status"]

    func stem(_ file: String) -> String {
        let base = (file as NSString).lastPathComponent
        return base.hasSuffix(".lua") ? String(base.dropLast(4)) : base
    }

    /// A failure from a protected call: the location from the message when it has one, else `fallback`.
    func failure(pack: Int, rule: String, error: LuaState.CallError, fallback: (file: String, line: Int?)) -> RuleFailure {
        var file = fallback.file
        var line = fallback.line
        var message = error.message
        if let location = splitLocation(error.message) {
            file = resolve(location.file, fallback: fallback.file); line = location.line; message = location.rest
        }
        if error.budgetExhausted && !message.contains("instruction budget exhausted") {
            message = "instruction budget exhausted (\(lua.limits.instructionsPerCall) instructions per call)"
        }
        return RuleFailure(pack: packNames[pack], rule: rule, file: file, line: line, message: message, traceback: error.traceback)
    }

    /// Lua shortens long chunk names to `...tail`; map them back to the file they came from.
    func resolve(_ file: String, fallback: String) -> String {
        guard file.hasPrefix("...") else { return file }
        let tail = String(file.dropFirst(3))
        if fallback.hasSuffix(tail) { return fallback }
        for pack in packs {
            if let match = pack.ruleFiles.first(where: { $0.hasSuffix(tail) }) { return match }
            let packFile = pack.directory + "/pack.lua"
            if packFile.hasSuffix(tail) { return packFile }
        }
        for folder in folders {
            if let entries = FileManager.default.enumerator(atPath: folder) {
                for case let entry as String in entries where (folder + "/" + entry).hasSuffix(tail) { return folder + "/" + entry }
            }
        }
        return file
    }

    // MARK: - Loading a rule file

    func loadRule(file: String, pack: Int, ids: inout [String: String]) {
        let base = lua.top
        defer { lua.setTop(base) }
        let fallbackName = stem(file)
        let (error, loadMessage) = runFile(file, pack: pack)
        if let loadMessage {
            let location = splitLocation(loadMessage)
            let binary = loadMessage.contains("attempt to load a binary chunk")
            evaluation.failures.append(RuleFailure(pack: packNames[pack], rule: fallbackName,
                                                   file: location.map { resolve($0.file, fallback: file) } ?? file,
                                                   line: location?.line ?? (binary ? 1 : nil),
                                                   message: binary ? "precompiled (binary) chunks are refused: rule files are loaded as text only" : (location?.rest ?? loadMessage)))
            return
        }
        if let error {
            evaluation.failures.append(failure(pack: pack, rule: fallbackName, error: error, fallback: (file, nil)))
            return
        }
        func fail(_ rule: String, _ message: String, line: Int? = nil) {
            evaluation.failures.append(RuleFailure(pack: packNames[pack], rule: rule, file: file, line: line, message: message))
        }
        guard lua.type(at: -1) == LUA_TTABLE else {
            fail(fallbackName, "a rule file must return a rule table { id = ..., earned = function ... } or { id = ..., init = ..., on_run = ... }, got \(lua.typeName(at: -1))")
            return
        }
        let table = lua.top
        // id
        let idType = lua.getField(table, "id")
        guard idType != LUA_TNIL else { fail(fallbackName, "missing required field 'id'"); return }
        guard let id = lua.string(at: -1), !id.isEmpty else { fail(fallbackName, "field 'id' must be a non-empty string, got \(lua.typeName(at: -1))"); return }
        lua.pop()
        if let other = ids[id] {
            fail(id, "duplicate rule id '\(id)' (also in \(other))")
            return
        }
        var strings: [String: String] = [:]
        for key in ["title", "description", "badge"] {
            let type = lua.getField(table, key)
            defer { lua.pop() }
            if type == LUA_TNIL { continue }
            guard let text = lua.string(at: -1) else { fail(id, "field '\(key)' must be a string, got \(lua.typeName(at: -1))"); return }
            strings[key] = text
        }
        if let badge = strings["badge"], !knownBadges.contains(badge) {
            fail(id, "field 'badge': unknown badge '\(badge)' (not in the catalogue nor in any pack's badges or themes)")
            return
        }
        var repeatable = false
        let repeatableType = lua.getField(table, "repeatable")
        if repeatableType == LUA_TBOOLEAN { repeatable = lua_toboolean(state, -1) != 0 } else if repeatableType != LUA_TNIL {
            fail(id, "field 'repeatable' must be true or false, got \(lua.typeName(at: -1))"); return
        }
        lua.pop()
        var functions: [String: Int32] = [:]
        var definitions: [String: (file: String, line: Int)] = [:]
        for key in ["earned", "progress", "init", "on_run", "finish", "status"] {
            let type = lua.getField(table, key)
            if type == LUA_TNIL { lua.pop(); continue }
            guard type == LUA_TFUNCTION else {
                fail(id, "field '\(key)' must be a function, got \(lua.typeName(at: -1))")
                return
            }
            definitions[key] = lua.definition(ofFunctionAt: -1)
            functions[key] = lua.ref()
        }
        let shape: Shape
        if functions["earned"] != nil {
            if functions["init"] != nil || functions["on_run"] != nil {
                fail(id, "a rule is either a predicate ('earned') or a fold ('init' and 'on_run'), not both")
                return
            }
            guard strings["badge"] != nil else { fail(id, "missing required field 'badge' (the badge 'earned' awards)"); return }
            shape = .predicate
        } else if functions["on_run"] != nil {
            shape = .fold
        } else if functions["init"] != nil {
            fail(id, "missing required field 'on_run' (a fold needs init and on_run)")
            return
        } else {
            fail(id, "missing required field 'earned' (a per-run predicate) or 'on_run' (a fold over runs)")
            return
        }
        // Unknown fields: a note, not a failure (a typo like 'earn' would otherwise pass silently).
        lua.pushNil()
        while lua_next(state, table) != 0 {
            lua.pop()
            if let key = lua.string(at: -1), !Session.ruleFields.contains(key) {
                let hint = Session.ruleFields.first { $0.hasPrefix(key) || key.hasPrefix($0) }.map { "; did you mean '\($0)'?" } ?? ""
                evaluation.notes.append(RuleNote(pack: packNames[pack], rule: id, message: "\(file): unknown field '\(key)' in the rule table is ignored\(hint)"))
            }
        }
        ids[id] = file
        var rule = Rule(pack: pack, id: id, file: file, title: strings["title"], badge: strings["badge"],
                        repeatable: repeatable, shape: shape, functions: functions, definitions: definitions)
        let token = rules.count
        // ctx: the same read-only table for every call of this rule.
        lua.newTable(record: 4)
        lua.push(ref: catalogueRef); lua.setField(-2, "catalogue")
        lua.newTable(record: 2)
        lua.push(packs[pack].name); lua.setField(-2, "name")
        lua.push(packs[pack].version); lua.setField(-2, "version")
        bclua_make_proxy(state, LuaKinds.packInfo)
        lua.setField(-2, "pack")
        lua.newTable(record: 3)
        lua.push(id); lua.setField(-2, "id")
        if let title = rule.title { lua.push(title); lua.setField(-2, "title") }
        if let badge = rule.badge { lua.push(badge); lua.setField(-2, "badge") }
        bclua_make_proxy(state, LuaKinds.ruleInfo)
        lua.setField(-2, "rule")
        lua.pushHostFunction(.note, token: token)
        lua.setField(-2, "note")
        bclua_make_proxy(state, LuaKinds.ctx)
        rule.ctxRef = lua.ref()
        lua.pushHostFunction(.award, token: token)
        rule.awardRef = lua.ref()
        rules.append(rule)
    }

    // MARK: - Running a rule

    func runRule(_ index: Int) {
        let rule = rules[index]
        pending = []
        pendingKeys = []
        pendingTiers = []
        pendingStatuses = []
        pendingNext = nil
        current = Current(pack: rule.pack, rule: index)
        defer { current = nil }
        let base = lua.top
        defer { lua.setTop(base) }
        let failed: RuleFailure?
        let started = profiling ? DispatchTime.now().uptimeNanoseconds : 0
        switch rule.shape {
        case .predicate: failed = runPredicate(rule)
        case .fold: failed = runFold(rule)
        }
        if profiling { ruleNanoseconds[index, default: 0] += DispatchTime.now().uptimeNanoseconds - started }
        if let failed {
            evaluation.failures.append(failed)
            return
        }
        for (sequence, item) in pending.enumerated() {
            keyedAwards.append((item.runIndex, rule.pack, index, sequence, item.award))
        }
        evaluation.statuses.append(contentsOf: pendingStatuses)
        if let next = pendingNext { evaluation.nexts.append(next) }
    }

    func fallback(_ rule: Rule, _ function: String) -> (file: String, line: Int?) {
        if let definition = rule.definitions[function] { return (definition.file, definition.line) }
        return (rule.file, nil)
    }

    /// Calls `rule.function(args...)`; `pushArgs` pushes the arguments and returns their count.
    /// `ref`: the function's registry ref when the caller looked it up once for many calls.
    func invoke(_ rule: Rule, _ function: String, ref: Int32? = nil, results: Int32, _ pushArgs: () -> Int32) -> RuleFailure? {
        guard let ref = ref ?? rule.functions[function] else { return nil }
        if profiling, let index = current?.rule { ruleCalls[index, default: 0] += 1 }
        lua.ensureStack()
        lua.push(ref: ref)
        let nargs = pushArgs()
        if let error = lua.call(nargs: nargs, nresults: results) {
            return failure(pack: rule.pack, rule: rule.id, error: error, fallback: fallback(rule, function))
        }
        return nil
    }

    func pushRunProxy(_ index: Int) {
        lua.push(ref: runsRef)
        lua_rawgeti(state, -1, lua_Integer(index))
        bclua_remove(state, -2)
    }

    func runPredicate(_ rule: Rule) -> RuleFailure? {
        var earnedOnce = false
        let earned = rule.functions["earned"]
        let definition = fallback(rule, "earned")
        let ctxRef = rule.ctxRef
        for index in 1...max(runs.count, 1) where !runs.isEmpty {
            if let failed = invoke(rule, "earned", ref: earned, results: 1, {
                pushRunProxy(index)
                lua.push(ref: ctxRef)
                return 2
            }) { return failed }
            defer { lua.pop() }
            let type = lua.type(at: -1)
            var tier = "earned"
            var detail = ""
            var badge = rule.badge ?? ""
            var progress: Progress? = nil
            func fail(_ message: String) -> RuleFailure {
                RuleFailure(pack: packNames[rule.pack], rule: rule.id, file: definition.file, line: definition.line, message: message)
            }
            switch type {
            case LUA_TNIL: continue
            case LUA_TBOOLEAN:
                if lua_toboolean(state, -1) == 0 { continue }
            case LUA_TTABLE:
                let table = lua.top
                do {
                    if let text = try tableString(table, "tier", "earned") { tier = text }
                    if let text = try tableString(table, "detail", "earned") { detail = text }
                    if let text = try tableString(table, "badge", "earned") {
                        guard knownBadges.contains(text) else { return fail("earned: unknown badge '\(text)' (not in the catalogue nor in any pack's badges or themes)") }
                        badge = text
                    }
                    progress = try tableProgress(table, "earned")
                } catch RulesError.field(let message) {
                    return fail(message)
                } catch {
                    return fail("\(error)")
                }
                if tier.isEmpty { return fail("earned: field 'tier' must not be empty") }
            default:
                return fail("earned must return true, false/nil or a table { detail = ..., tier = ... }, got \(lua.typeName(at: -1))")
            }
            if let problem = undeclaredTier(badge: badge, tier: tier) { return fail("earned: " + problem) }
            earnedOnce = true
            record(rule: rule, badge: badge, tier: tier, runIndex: index, detail: detail, progress: progress)
            if !rule.repeatable { break }
        }
        if !earnedOnce, rule.functions["progress"] != nil, let badge = rule.badge {
            var best: Progress? = nil
            let progressRef = rule.functions["progress"]
            for index in 1...max(runs.count, 1) where !runs.isEmpty {
                if let failed = invoke(rule, "progress", ref: progressRef, results: 1, {
                    pushRunProxy(index)
                    lua.push(ref: rule.ctxRef)
                    return 2
                }) { return failed }
                defer { lua.pop() }
                if lua.type(at: -1) == LUA_TNIL { continue }
                let value: Progress
                do {
                    lua.newTable(record: 1)
                    lua_rotate(state, -2, 1)
                    lua.setField(-2, "progress")
                    guard let parsed = try tableProgress(lua.top, "progress") else { continue }
                    value = parsed
                } catch RulesError.field(let message) {
                    let definition = fallback(rule, "progress")
                    return RuleFailure(pack: packNames[rule.pack], rule: rule.id, file: definition.file, line: definition.line,
                                       message: message.replacingOccurrences(of: "progress: field 'progress'", with: "progress: the result"))
                } catch { continue }
                func ratio(_ p: Progress) -> Double { p.target > 0 ? p.current / p.target : 0 }
                if best == nil || ratio(value) > ratio(best ?? value) { best = value }
            }
            if let best {
                pendingStatuses.append(BadgeStatus(pack: packNames[rule.pack], rule: rule.id, badge: badge, progress: best, hint: rule.title))
            }
        }
        return nil
    }

    func runFold(_ rule: Rule) -> RuleFailure? {
        if rule.functions["init"] != nil {
            if let failed = invoke(rule, "init", results: 1, {
                lua.push(ref: rule.ctxRef)
                return 1
            }) { return failed }
        } else {
            lua.newTable()
        }
        var stateRef = lua.ref()
        defer { luaL_unref(state, lua.registry, stateRef) }
        let onRun = rule.functions["on_run"]
        let awardRef = rule.awardRef, ctxRef = rule.ctxRef  // the closure then captures two integers, not the rule
        for index in 1...max(runs.count, 1) where !runs.isEmpty {
            if let failed = invoke(rule, "on_run", ref: onRun, results: 1, {
                lua.push(ref: stateRef)
                pushRunProxy(index)
                lua.push(ref: awardRef)
                lua.push(ref: ctxRef)
                return 4
            }) { return failed }
            if lua.type(at: -1) == LUA_TNIL {
                lua.pop()
            } else {
                luaL_unref(state, lua.registry, stateRef)
                stateRef = lua.ref()
            }
        }
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
                return RuleFailure(pack: packNames[rule.pack], rule: rule.id, file: definition.file, line: definition.line, message: message)
            } catch {
                return nil
            }
        }
        return nil
    }

    func readStatus(rule: Rule, at index: Int32) throws {
        let type = lua.type(at: index)
        if type == LUA_TNIL { return }
        guard type == LUA_TTABLE else { throw RulesError.field("status must return a table { badges = { ... }, next = { ... } } or nil, got \(lua.typeName(at: index))") }
        let badgesType = lua.getField(index, "badges")
        if badgesType != LUA_TNIL {
            guard badgesType == LUA_TTABLE else { throw RulesError.field("status: field 'badges' must be an array, got \(lua.typeName(at: -1))") }
            let array = lua.top
            let count = Int(lua_rawlen(state, array))
            for i in 1...max(count, 1) where count > 0 {
                lua_rawgeti(state, array, lua_Integer(i))
                let entry = lua.top
                let label = "status: badges[\(i)]"
                guard lua.type(at: entry) == LUA_TTABLE else { throw RulesError.field("\(label) must be a table { badge = ..., progress = ... }, got \(lua.typeName(at: entry))") }
                guard let badge = try tableString(entry, "badge", label) else { throw RulesError.field("\(label): missing required field 'badge'") }
                guard knownBadges.contains(badge) else { throw RulesError.field("\(label): unknown badge '\(badge)' (not in the catalogue nor in any pack's badges or themes)") }
                let silver = try tableNumber(entry, "silver_pace_s_per_km", label)
                let gold = try tableNumber(entry, "gold_pace_s_per_km", label)
                let progress = try tableProgress(entry, label)
                let hint = try tableString(entry, "hint", label)
                pendingStatuses.append(BadgeStatus(pack: packNames[rule.pack], rule: rule.id, badge: badge,
                                                   silverPaceSecondsPerKilometre: silver, goldPaceSecondsPerKilometre: gold,
                                                   progress: progress, hint: hint))
                lua.pop()
            }
        }
        lua.pop()
        let nextType = lua.getField(index, "next")
        defer { lua.pop() }
        if nextType == LUA_TNIL { return }
        guard nextType == LUA_TTABLE else { throw RulesError.field("status: field 'next' must be a table { badge = ..., remaining_m = ... }, got \(lua.typeName(at: -1))") }
        let next = lua.top
        guard let badge = try tableString(next, "badge", "status: next") else { throw RulesError.field("status: next: missing required field 'badge'") }
        guard knownBadges.contains(badge) else { throw RulesError.field("status: next: unknown badge '\(badge)'") }
        guard let remaining = try tableNumber(next, "remaining_m", "status: next") else { throw RulesError.field("status: next: missing required field 'remaining_m'") }
        pendingNext = NextBadge(pack: packNames[rule.pack], rule: rule.id, badge: badge, remainingMeters: remaining)
    }

    // MARK: - Raw readers of rule-made tables

    /// `LuaState.stringField` with `label: ` before its message.
    func tableString(_ table: Int32, _ key: String, _ label: String) throws -> String? {
        do { return try lua.stringField(table, key) } catch RulesError.field(let text) { throw RulesError.field("\(label): \(text)") }
    }

    /// `LuaState.numberField` with `label: ` before its message.
    func tableNumber(_ table: Int32, _ key: String, _ label: String) throws -> Double? {
        do { return try lua.numberField(table, key) } catch RulesError.field(let text) { throw RulesError.field("\(label): \(text)") }
    }

    func tableProgress(_ table: Int32, _ label: String) throws -> Progress? {
        let type = lua.getField(table, "progress")
        defer { lua.pop() }
        if type == LUA_TNIL { return nil }
        guard type == LUA_TTABLE else { throw RulesError.field("\(label): field 'progress' must be a table { current = ..., target = ..., unit = ... }, got \(lua.typeName(at: -1))") }
        let inner = lua.top
        guard let current = try tableNumber(inner, "current", "\(label): progress") else { throw RulesError.field("\(label): progress: missing required field 'current'") }
        guard let target = try tableNumber(inner, "target", "\(label): progress") else { throw RulesError.field("\(label): progress: missing required field 'target'") }
        let unit = try tableString(inner, "unit", "\(label): progress") ?? ""
        return Progress(current: current, target: target, unit: unit)
    }

    /// At most this many awards per rule per evaluation (a guard against a rule flooding the host).
    var awardLimit: Int { max(1000, 20 * runs.count) }

    /// Keeps an award for the rule being run, applying the duplicate policy.
    func record(rule: Rule, badge: String, tier: String, runIndex: Int, detail: String, progress: Progress?) {
        let key = "\(badge)\u{0}\(tier)\u{0}\(runIndex)"
        if pendingKeys.contains(key) { return }
        let tierKey = "\(badge)\u{0}\(tier)"
        if !rule.repeatable && pendingTiers.contains(tierKey) { return }
        pendingKeys.insert(key)
        pendingTiers.insert(tierKey)
        let run = runs[runIndex - 1]
        pending.append(Pending(runIndex: runIndex, award: Award(badge: badge, pack: packNames[rule.pack], rule: rule.id, tier: tier,
                                                                run: run.id, at: run.start, detail: detail, progress: progress)))
    }

    // MARK: - Host functions (called from the C trampoline; must never raise)

    func host(fn: Int32, token: Int) -> Int32 {
        lua.ensureStack()
        switch HostFunction(rawValue: fn) {
        case .lazyField:
            guard let key = lua.string(at: 2) else { lua.pushNil(); return 1 }
            guard token >= 1, token <= runs.count else { lua.pushNil(); return 1 }
            runs.withUnsafeBufferPointer { marshaller.pushLazyField(of: $0[token - 1], run: token, key: key) }
            return 1
        case .award: return hostAward(token: token)
        case .note: return hostNote(token: token)
        case .print: return hostPrint(pack: token)
        case .require: return hostRequire(pack: token)
        case .testRun, .testEvaluate, .testFail, .testWhere, .testPrint, .testRequire, nil:
            lua.push("badgectl: unknown host function \(fn)")
            return -1
        }
    }

    func raise(_ message: String, level: Int32 = 1) -> Int32 {
        lua.push(lua.whereString(level: level) + message)
        return -1
    }

    func hostAward(token: Int) -> Int32 {
        guard token >= 0, token < rules.count, let current, current.rule == token else {
            return raise("award: called outside the calls of the rule it was given to")
        }
        let rule = rules[token]
        guard lua.type(at: 1) == LUA_TTABLE else {
            return raise("award: expected a table { badge = ..., tier = ..., run = ..., detail = ... }, got \(lua.typeName(at: 1))")
        }
        do {
            var badge = rule.badge
            if let given = try tableString(1, "badge", "award") { badge = given }
            guard let badge else { return raise("award: missing field 'badge' (and the rule has no default 'badge')") }
            guard knownBadges.contains(badge) else {
                return raise("award: unknown badge '\(badge)' (not in the catalogue nor in any pack's badges or themes)")
            }
            let tier = try tableString(1, "tier", "award") ?? "earned"
            guard !tier.isEmpty, tier.utf8.count <= 40 else { return raise("award: field 'tier' must be a short non-empty string") }
            if let problem = undeclaredTier(badge: badge, tier: tier) { return raise("award: " + problem) }
            let detail = try tableString(1, "detail", "award") ?? ""
            let progress = try tableProgress(1, "award")
            let runType = lua.getField(1, "run")
            var runIndex = 0
            var problem: String? = nil
            switch runType {
            case LUA_TNIL:
                problem = "award: missing field 'run' (the run that earned it: a run table or a run id)"
            case LUA_TSTRING:
                let id = lua.string(at: -1) ?? ""
                if let found = runIndexByID[id] { runIndex = found } else { problem = "award: unknown run '\(id)'" }
            case LUA_TUSERDATA, LUA_TLIGHTUSERDATA:
                let found = Int(bclua_run_index(state, -1))
                if found >= 1, found <= runs.count { runIndex = found } else {
                    problem = "award: field 'run' must be a run or a run id, got \(lua.typeName(at: -1))"
                }
            default:
                problem = "award: field 'run' must be a run or a run id (a string), got \(lua.typeName(at: -1))"
            }
            lua.pop()
            if let problem { return raise(problem) }
            if pending.count >= awardLimit {
                return raise("award: more than \(awardLimit) awards from one rule (\(runs.count) runs); is a loop awarding too often?")
            }
            record(rule: rule, badge: badge, tier: tier, runIndex: runIndex, detail: detail, progress: progress)
            return 0
        } catch RulesError.field(let message) {
            return raise(message)
        } catch {
            return raise("award: \(error)")
        }
    }

    /// Keeps a note unless its rule already wrote `noteLimit` of them (one line then says so).
    func addNote(pack: String, rule: String?, message: String) {
        let key = pack + "\u{0}" + (rule ?? "")
        let count = (noteCounts[key] ?? 0) + 1
        noteCounts[key] = count
        if count <= Session.noteLimit {
            evaluation.notes.append(RuleNote(pack: pack, rule: rule, message: message))
        } else if count == Session.noteLimit + 1 {
            evaluation.notes.append(RuleNote(pack: pack, rule: rule, message: "further notes left out (more than \(Session.noteLimit))"))
        }
    }

    /// Text of the value at `index` for notes: strings and numbers as Lua prints them, others by type.
    func noteText(at index: Int32) -> String {
        switch lua.type(at: index) {
        case LUA_TSTRING: return lua.string(at: index) ?? ""
        case LUA_TNUMBER:
            lua_pushvalue(state, index)
            _ = lua_tolstring(state, -1, nil)
            let text = lua.string(at: -1) ?? ""
            lua.pop()
            return text
        case LUA_TBOOLEAN: return lua_toboolean(state, index) != 0 ? "true" : "false"
        case LUA_TNIL: return "nil"
        default: return lua.typeName(at: index)
        }
    }

    func hostNote(token: Int) -> Int32 {
        guard token >= 0, token < rules.count else { return 0 }
        var index: Int32 = 1
        if lua.type(at: 1) == LUA_TUSERDATA && lua.top >= 2 { index = 2 }  // ctx:note(text)
        let type = lua.type(at: index)
        guard type == LUA_TSTRING || type == LUA_TNUMBER else {
            return raise("ctx.note: expected a string, got \(lua.typeName(at: index))")
        }
        let rule = rules[token]
        addNote(pack: packNames[rule.pack], rule: rule.id, message: noteText(at: index))
        return 0
    }

    func hostPrint(pack: Int) -> Int32 {
        guard pack >= 0, pack < packNames.count else { return 0 }
        let count = lua.top
        var parts: [String] = []
        for i in 1...max(count, 1) where count > 0 { parts.append(noteText(at: i)) }
        var ruleID: String? = nil
        if let current, current.pack == pack, let index = current.rule { ruleID = rules[index].id }
        addNote(pack: packNames[pack], rule: ruleID, message: parts.joined(separator: "\t"))
        return 0
    }

    func hostRequire(pack: Int) -> Int32 {
        guard pack >= 0, pack < folders.count, pack < envRefs.count else { return raise("require: no pack", level: 2) }
        guard let name = lua.string(at: 1) else { return raise("require: expected a module name (a string)", level: 2) }
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !segments.isEmpty && segments.allSatisfy { segment in
            !segment.isEmpty && segment.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_" || $0 == "-" }
        }
        let folder = folders[pack]
        guard valid else {
            return raise("require: '\(name)' is not a module name of this pack (letters, digits, '_', '-', dots for subfolders)", level: 2)
        }
        let path = folder + "/" + segments.joined(separator: "/") + ".lua"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let bytes = Session.read(path) else {
            return raise("require: no module '\(name)' in pack '\(packNames[pack])' (no file \(path)); rules can require only their own pack's files, system modules (os, io, ...) are not available", level: 2)
        }
        if let message = lua.load(bytes, chunkName: "@" + path) {
            if splitLocation(message) != nil {
                lua.push(message)  // a syntax error: it names the module's file and line
                return -1
            }
            let reason = message.contains("binary chunk") ? "precompiled (binary) chunks are refused, files load as text only" : message
            return raise("require: cannot load \(path): \(reason)", level: 2)
        }
        lua.setEnvironment(ofFunctionAt: -1, envRef: envRefs[pack])
        return 1
    }
}
