import Foundation
import RunFiles

/// Loading rule files: each runs in its pack's environment and returns a rule table, checked here.
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
        return RuleFailure(pack: packNames[pack], rule: rule, file: file, line: line, message: message, traceback: error.traceback)
    }

    /// Lua shortens long chunk names to `...tail`; map them back to the file they came from.
    func resolve(_ file: String, fallback: String) -> String {
        guard file.hasPrefix("...") else { return file }
        let tail = String(file.dropFirst(3))
        if fallback.hasSuffix(tail) && !fallback.hasPrefix("...") { return fallback }
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

    /// The 1-based line of `file` where `key = "value"` is written (the first line holding both the key
    /// and the quoted value), for messages about a field's value; nil when no line has both.
    static func line(of key: String, value: String, in file: String) -> Int? {
        guard let bytes = read(file) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains(key) && (line.contains("\"\(value)\"") || line.contains("'\(value)'")) {
            return index + 1
        }
        return nil
    }

    /// The 1-based line of `file` where the field `key` is assigned (`key =`, not `key ==`), for
    /// messages about a misspelt rule-table field; nil when no line assigns it.
    static func line(ofField key: String, in file: String) -> Int? {
        guard let bytes = read(file) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line[...]
            while let range = rest.range(of: key) {
                let before = rest[..<range.lowerBound].last
                let after = rest[range.upperBound...].drop { $0 == " " || $0 == "\t" }
                let startsWord = before.map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true
                if startsWord, after.first == "=", after.dropFirst().first != "=" { return index + 1 }
                rest = rest[range.upperBound...]
            }
        }
        return nil
    }

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
        guard lua.type(at: -1) == .table else {
            fail(fallbackName, "a rule file must return a rule table { id = ..., earned = function ... } or { id = ..., init = ..., on_run = ... }, got \(lua.typeName(at: -1))")
            return
        }
        let table = lua.top
        // id
        let idType = lua.getField(table, "id")
        guard idType != .nil else { fail(fallbackName, "missing required field 'id'"); return }
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
            if type == .nil { continue }
            guard let text = lua.string(at: -1) else { fail(id, "field '\(key)' must be a string, got \(lua.typeName(at: -1))"); return }
            strings[key] = text
        }
        if let badge = strings["badge"], !knownBadges.contains(badge) {
            let hint = Suggestion.closest(to: badge, in: knownBadges.sorted()).map { "; did you mean '\($0)'?" }
                ?? " (not in the catalogue nor in any pack's badges or themes)"
            fail(id, "field 'badge': unknown badge '\(badge)'\(hint)", line: Session.line(of: "badge", value: badge, in: file))
            return
        }
        var repeatable = false
        let repeatableType = lua.getField(table, "repeatable")
        if repeatableType == .boolean { repeatable = lua.boolean(at: -1) } else if repeatableType != .nil {
            fail(id, "field 'repeatable' must be true or false, got \(lua.typeName(at: -1))"); return
        }
        lua.pop()
        var functions: [String: Int32] = [:]
        var definitions: [String: (file: String, line: Int, lastLine: Int)] = [:]
        for key in ["earned", "progress", "init", "on_run", "finish", "status"] {
            let type = lua.getField(table, key)
            if type == .nil { lua.pop(); continue }
            guard type == .function else {
                fail(id, "field '\(key)' must be a function, got \(lua.typeName(at: -1))")
                return
            }
            definitions[key] = lua.definition(ofFunctionAt: -1)
            functions[key] = lua.ref()
        }
        // Misspelt fields of the table (`earn`, `onrun`), for the messages below and the notes.
        var misspelt: [(key: String, meant: String?)] = []
        lua.pushNil()
        while lua.next(table) {
            lua.pop()
            if let key = lua.string(at: -1), !Session.ruleFields.contains(key) {
                let meant = Session.ruleFields.first { $0.hasPrefix(key) || key.hasPrefix($0) }
                    ?? Suggestion.closest(to: key, in: Session.ruleFields)
                misspelt.append((key, meant))
            }
        }
        misspelt.sort { $0.key < $1.key }
        /// "; 'onrun' looks like 'on_run'" for the misspelt fields that look like one of `wanted`.
        func looksLike(_ wanted: [String]) -> String {
            let hits = misspelt.filter { $0.meant.map(wanted.contains) ?? false }
            return hits.isEmpty ? "" : "; did you mean " + hits.map { "'\($0.meant ?? "")' (not '\($0.key)')" }.joined(separator: ", ") + "?"
        }
        /// The line of the first misspelt field that looks like one of `wanted` (where the fix goes).
        func misspeltLine(_ wanted: [String]) -> Int? {
            misspelt.lazy.filter { $0.meant.map(wanted.contains) ?? false }
                .compactMap { Self.line(ofField: $0.key, in: file) }.first
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
            fail(id, "missing required field 'on_run' (a fold is on_run, called for each run; init is optional)" + looksLike(["on_run"]),
                 line: misspeltLine(["on_run"]))
            return
        } else {
            fail(id, "missing required field 'earned' (a per-run predicate) or 'on_run' (a fold over runs)" + looksLike(["earned", "on_run"]),
                 line: misspeltLine(["earned", "on_run"]))
            return
        }
        // Unknown fields: a note, not a failure (a typo like 'earn' would otherwise pass silently).
        for (key, meant) in misspelt {
            let hint = meant.map { "; did you mean '\($0)'?" } ?? ""
            evaluation.notes.append(RuleNote(pack: packNames[pack], rule: id, message: "\(file): unknown field '\(key)' in the rule table is ignored\(hint)"))
        }
        ids[id] = file
        var rule = Rule(pack: pack, id: id, file: file, title: strings["title"], badge: strings["badge"],
                        repeatable: repeatable, shape: shape, functions: functions, definitions: definitions)
        let token = rules.count
        // ctx: the same read-only record for every call of this rule (LuaKinds.ctx, .packInfo, .ruleInfo);
        // its catalogue and note are values (the catalogue proxy, the host function).
        if let ctx = lua.newRecords(kind: LuaKinds.ctx, fields: 5),
           let packInfo = lua.newRecords(kind: LuaKinds.packInfo, fields: 2),
           let ruleInfo = lua.newRecords(kind: LuaKinds.ruleInfo, fields: 3) {
            LuaState.setSlot(packInfo, 0, id: marshaller.recordString(packs[pack].name))
            LuaState.setSlot(packInfo, 1, id: marshaller.recordString(packs[pack].version))
            LuaState.setSlot(ruleInfo, 0, id: marshaller.recordString(id))
            if let title = rule.title { LuaState.setSlot(ruleInfo, 1, id: marshaller.recordString(title)) }
            if let badge = rule.badge { LuaState.setSlot(ruleInfo, 2, id: marshaller.recordString(badge)) }
            lua.push(ref: catalogueRef)
            LuaState.setSlot(ctx, 0, id: lua.addRecordValue())
            LuaState.setSlot(ctx, 1, record: UnsafeRawPointer(packInfo))
            lua.pushHostFunction(.note, token: token)
            LuaState.setSlot(ctx, 2, id: lua.addRecordValue())
            LuaState.setSlot(ctx, 3, record: UnsafeRawPointer(ruleInfo))
            if athleteRef != LuaState.noRef {
                lua.push(ref: athleteRef)
                LuaState.setSlot(ctx, 4, id: lua.addRecordValue())
            }
            lua.push(lightUserdata: ctx)
        } else {
            lua.pushNil()
        }
        rule.ctxRef = lua.ref()
        lua.pushHostFunction(.award, token: token)
        rule.awardRef = lua.ref()
        rules.append(rule)
    }
}
