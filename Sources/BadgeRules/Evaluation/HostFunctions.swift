import Foundation
import RunFiles

/// The host functions rules call (award, ctx.note, print, require, a run's lazy fields), reached
/// through the C trampoline: each returns its result count, or -1 after pushing a message (C raises it).
extension Session {
    // MARK: - Host functions (called from the C trampoline; must never raise)

    func host(fn: Int32, token: Int) -> Int32 {
        lua.ensureStack()
        switch HostFunction(rawValue: fn) {
        case .lazyField:
            guard let key = lua.string(at: 2) else { lua.pushNil(); return 1 }
            guard token >= 1, token <= runs.count else { lua.pushNil(); return 1 }
            if key == "measures" { lua.pushMeasures(run: token); return 1 }
            runs.withUnsafeBufferPointer { marshaller.pushLazyField(of: $0[token - 1], run: token, key: key) }
            return 1
        case .award: return hostAward(token: token)
        case .note: return hostNote(token: token)
        case .print: return hostPrint(pack: token)
        case .require: return hostRequire(pack: token)
        case .measure: return hostMeasure(run: token)
        case .measureWrite: return raise("run.measures is read-only (copy what you need into your own table)")
        case .measureField: return lua.measureField(kindIndex: token, location: lua.whereString(level: 1))
        case .testRun, .testEvaluate, .testFail, .testWhere, .testPrint, .testRequire, nil:
            lua.push("badgectl: unknown host function \(fn)")
            return -1
        }
    }

    /// `run.measures.<name>` for the pack of the rule reading it.
    func hostMeasure(run token: Int) -> Int32 {
        guard let name = lua.string(at: 2), lua.type(at: 2) == .string else {
            return raise("run.measures: measure names are strings, got \(lua.typeName(at: 2))")
        }
        guard let pack = current?.pack, pack < packNames.count else {
            return raise("run.measures: read outside a rule of a pack")
        }
        guard measureTable.names[pack].contains(name) else {
            return raise(LuaState.unknownMeasure(name, pack: packNames[pack], known: measureTable.names[pack]))
        }
        guard token >= 1, token <= runs.count else { lua.pushNil(); return 1 }
        if let rule = current?.rule { measureReads[MeasureRead(rule: rule, run: token), default: []].insert(name) }
        let value = measureTable.value(pack: pack, name: name, in: runs[token - 1])
        if value == nil, nilMeasureReads.count < 8 { nilMeasureReads.append((token, pack, name)) }
        lua.push(measure: value, kind: measureTable.kind(pack: pack, name: name))
        return 1
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
        guard lua.type(at: 1) == .table else {
            return raise("award: expected a table { badge = ..., tier = ..., run = ..., detail = ... }, got \(lua.typeName(at: 1))")
        }
        do {
            var badge = rule.badge
            if let given = try tableString(1, "badge", "award") { badge = given }
            guard let badge else { return raise("award: missing field 'badge' (and the rule has no default 'badge')") }
            guard knownBadges.contains(badge) else {
                let hint = Suggestion.closest(to: badge, in: knownBadges.sorted()).map { "; did you mean '\($0)'?" }
                    ?? " (not in the catalogue nor in any pack's badges or themes)"
                return raise("award: unknown badge '\(badge)'\(hint)")
            }
            let tier = try tableString(1, "tier", "award") ?? "earned"
            guard !tier.isEmpty, tier.utf8.count <= 40 else { return raise("award: field 'tier' must be a short non-empty string") }
            if let problem = undeclaredTier(badge: badge, tier: tier) { return raise("award: " + problem) }
            let detail = try tableString(1, "detail", "award", limit: Session.textLimit) ?? ""
            let progress = try tableProgress(1, "award")
            let evidence = try tableEvidence(1, "award")
            let runType = lua.getField(1, "run")
            var runIndex = 0
            var problem: String? = nil
            switch runType {
            case .nil:
                problem = "award: missing field 'run' (the run that earned it: a run table or a run id)"
            case .string:
                let id = lua.string(at: -1) ?? ""
                if let found = runIndexByID[id] { runIndex = found } else { problem = "award: unknown run '\(id)'" }
            case .userdata, .lightUserdata:
                let found = lua.runIndex(at: -1)
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
            record(rule: rule, badge: badge, tier: tier, runIndex: runIndex, detail: detail, progress: progress, evidence: evidence)
            return 0
        } catch RulesError.field(let message) {
            return raise(message)
        } catch {
            return raise("award: \(error)")
        }
    }

    /// Keeps a note unless its rule already wrote `noteLimit` of them (one line then says so).
    /// `message` is made only for a note that is kept.
    func addNote(pack: String, rule: String?, message: () -> String) {
        let key = pack + "\u{0}" + (rule ?? "")
        let count = (noteCounts[key] ?? 0) + 1
        noteCounts[key] = count
        if count <= Session.noteLimit {
            evaluation.notes.append(RuleNote(pack: pack, rule: rule, message: message()))
        } else if count == Session.noteLimit + 1 {
            evaluation.notes.append(RuleNote(pack: pack, rule: rule, message: "further notes left out (more than \(Session.noteLimit))"))
        }
    }

    /// Text of the value at `index` for notes: strings and numbers as Lua prints them, others by type.
    func noteText(at index: Int32) -> String {
        switch lua.type(at: index) {
        case .string: return lua.string(at: index, limit: Session.textLimit) ?? ""
        case .number:
            return lua.numberText(at: index)
        case .boolean: return lua.boolean(at: index) ? "true" : "false"
        case .nil: return "nil"
        default: return lua.typeName(at: index)
        }
    }

    func hostNote(token: Int) -> Int32 {
        guard token >= 0, token < rules.count else { return 0 }
        var index: Int32 = 1
        if lua.typeName(at: 1) == "ctx" && lua.top >= 2 { index = 2 }  // ctx:note(text)
        let type = lua.type(at: index)
        guard type == .string || type == .number else {
            return raise("ctx.note: expected a string, got \(lua.typeName(at: index))")
        }
        let rule = rules[token]
        addNote(pack: packNames[rule.pack], rule: rule.id) { noteText(at: index) }
        return 0
    }

    func hostPrint(pack: Int) -> Int32 {
        guard pack >= 0, pack < packNames.count else { return 0 }
        let count = lua.top
        var ruleID: String? = nil
        if let current, current.pack == pack, let index = current.rule { ruleID = rules[index].id }
        addNote(pack: packNames[pack], rule: ruleID) {
            var parts: [String] = []
            var bytes = 0
            for i in 1...max(count, 1) where count > 0 && bytes <= Session.textLimit {
                parts.append(noteText(at: i))
                bytes += parts[parts.count - 1].utf8.count
            }
            if parts.count < Int(count) { parts.append("… (\(Int(count) - parts.count) more values)") }
            return parts.joined(separator: "\t")
        }
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
        // Tests are left out of the pack's fingerprint (editing one must not replay a saved state),
        // so what decides awards cannot be read from them.
        if segments.first == "tests" || segments.last?.hasSuffix("_test") == true {
            return raise("require: '\(name)' is a test file: rules cannot require tests (tests/ and *_test.lua do not count in the pack's fingerprint)", level: 2)
        }
        let path = folder + "/" + segments.joined(separator: "/") + ".lua"
        let real: String
        switch PackFiles.resolve(path, folder: folder) {
        case .success(let resolved): real = resolved
        case .failure(let refusal): return raise("require: '\(name)': \(refusal)", level: 2)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue,
              let bytes = Session.read(real) else {
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
