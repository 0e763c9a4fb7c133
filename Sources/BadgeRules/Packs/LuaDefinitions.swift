import Foundation
import RunAnalysis
import RunFiles

/// The editor files for rule authors, generated from the declarations the engine itself uses, never
/// written by hand (`badgectl editor` writes them; the shipped `rules/badgectl.d.lua` and
/// `rules/.luacheckrc` are its output, and a test fails when they differ from it):
///
/// - `badgectl.d.lua`: a Lua language server (LuaLS) definition file (`---@meta`): the run
///   (`RunSchema.fields` with their records), each measure kind's value (`MeasureKind.all`), `ctx` and
///   what it holds (`LuaKinds`' ctx, pack, rule, athlete and catalogue records), the `award` function and
///   its table, the `badgectl.*` helpers (the prelude's), and the test API (`test`, `skip`, `t.*`: the test
///   prelude's).
/// - `.luacheckrc`: luacheck's configuration with the globals a pack may read (the sandbox's, from the
///   prelude) and, in `*_test.lua`, `test` and `skip`.
public enum LuaDefinitions {
    /// The definition file's name beside the packs.
    public static let fileName = "badgectl.d.lua"

    /// The type of a run field in LuaLS's notation.
    static func type(of field: RunField) -> String {
        let element = field.element.map { className($0.name) }
        var base: String
        switch field.kind {
        case .string: base = "string"
        case .integer: base = "integer"
        case .float: base = "number"
        case .boolean: base = "boolean"
        case .array: base = (element ?? "table") + "[]"
        case .table:
            if field.name == "fastest" { base = "table<string, \(element ?? "table")>" } else if field.name == "measures" {
                base = "badgectl.Measures"
            } else { base = element ?? "table" }
        }
        return field.optional ? base + "?" : base
    }

    static func className(_ name: String) -> String {
        "badgectl." + name.split(whereSeparator: { $0 == " " || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func luaType(_ kind: RecordSchema.Kind) -> String {
        switch kind {
        case .float: return "number"
        case .integer: return "integer"
        case .boolean: return "boolean"
        case .string: return "string"
        }
    }

    /// One line of text for a `---@field` comment: the doc without newlines.
    static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ")
    }

    /// The type of a measure value's field in LuaLS's notation, from its unit: counts are integers,
    /// other numbers floats, `text` a string; the lists are a segment's passes and tile keys.
    static func type(of field: MeasureField) -> String {
        if MeasureValue.countFields.contains(field.name) { return "integer" }
        switch field.unit {
        case "integer": return "integer"
        case "boolean": return "boolean"
        case "text": return "string"
        case "list": return field.name == MeasureField.efforts.name ? className("segment effort") + "[]" : "integer[]"
        default: return "number"
        }
    }

    /// The names of `function <table>.<name>(` and `<table>.<name> =` in a prelude's text, in order.
    static func functionNames(in source: [UInt8], table: String) -> [String] {
        let text = String(decoding: source, as: UTF8.self)
        var names: [String] = []
        for line in text.split(separator: "\n") {
            var rest = Substring(line.trimmingCharacters(in: .whitespaces))
            if rest.hasPrefix("function \(table).") { rest = rest.dropFirst("function \(table).".count) } else if rest.hasPrefix("\(table).") {
                rest = rest.dropFirst(table.count + 1)
                guard rest.contains(" = ") else { continue }
            } else { continue }
            let name = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            if !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The globals a pack's environment holds (prelude.lua: the `allowed` list and every `env.<name> =`).
    public static var sandboxGlobals: [String] {
        let text = String(decoding: PackageResources.prelude_lua, as: UTF8.self)
        var names: [String] = []
        if let start = text.range(of: "local allowed = {"), let end = text[start.upperBound...].range(of: "}") {
            for part in text[start.upperBound..<end.lowerBound].split(separator: ",") {
                let name = part.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"\t"))
                if !name.isEmpty { names.append(name) }
            }
        }
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("env."), let equals = trimmed.range(of: " = ") else { continue }
            let name = String(trimmed[trimmed.index(trimmed.startIndex, offsetBy: 4)..<equals.lowerBound])
            if !name.contains("["), !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The `badgectl.*` helpers (prelude.lua's `helpers` table).
    public static var helpers: [String] { functionNames(in: PackageResources.prelude_lua, table: "helpers") }
    /// The test object's functions (`t.run`, `t.evaluate`, `t.expect_eq`, ...: test_prelude.lua's).
    public static var testFunctions: [String] { functionNames(in: PackageResources.test_prelude_lua, table: "t") }

    /// The fields of a ctx record as `LuaKinds` declares them.
    static func kindFields(_ kind: Int32) -> [String] { LuaKinds.shared.specs.first { $0.kind == kind }?.fields ?? [] }

    /// The LuaLS definition file.
    public static func definitions() -> String {
        var out: [String] = [
            "---@meta badgectl",
            "-- Generated by `badgectl editor` from badgectl's own declarations (RunSchema, MeasureKind, the preludes). Do not edit:",
            "-- run `badgectl editor --dir <packs folder>` again after upgrading badgectl.",
            "",
        ]
        // Records inside a run.
        var seen: Set<String> = []
        for field in RunSchema.fields {
            guard let element = field.element, seen.insert(element.name).inserted else { continue }
            out.append("---@class \(className(element.name))")
            for f in element.fields { out.append("---@field \(f.name) \(luaType(f.kind))?") }
            out.append("")
        }
        out.append("--- A run, read-only: docs/rules.md, \"The run table\".")
        out.append("---@class badgectl.Run")
        for field in RunSchema.fields { out.append("---@field \(field.name) \(type(of: field)) \(oneLine(field.doc))") }
        out.append("")
        // Measures, one class per kind; a field is nil when the run has no such value (a sun's polar).
        out.append("--- One pass of a segment (`measures.<segment>.efforts[i]`).")
        out.append("---@class \(className("segment effort"))")
        for field in MeasureField.segmentEffort { out.append("---@field \(field.name) \(type(of: field)) \(oneLine(field.doc))") }
        out.append("")
        out.append("--- One table distance an age grade covers (`measures.<age grade>.efforts[i]`).")
        out.append("---@class \(className("age grade effort"))")
        for (name, doc) in [("distance_m", "the table's distance"), ("elapsed_s", "the run's fastest time over it"),
                            ("age_standard_s", "the age standard's time for the runner's age and sex"), ("percent", "the age grade over it, 0 to 100+")] {
            out.append("---@field \(name) number \(doc)")
        }
        out.append("")
        for kind in MeasureKind.all {
            out.append("--- `kind = \"\(kind.name)\"`: \(oneLine(kind.doc)).")
            out.append("---@class \(className("measure " + kind.name))")
            for field in kind.valueFields {
                // An age grade's `efforts` share the segment's name, not its records.
                if kind.name == MeasureKind.ageGrade.name, field.name == MeasureField.efforts.name {
                    out.append("---@field efforts \(className("age grade effort"))[]? one per table distance the run covers")
                    continue
                }
                out.append("---@field \(field.name) \(type(of: field))? \(oneLine(field.doc))")
            }
            out.append("")
        }
        out.append("--- `run.measures.<name>`: the measures the pack declares in pack.lua (nil when the run cannot have one).")
        out.append("---@class badgectl.Measures")
        out.append("---@field [string] " + MeasureKind.all.map { className("measure " + $0.name) }.joined(separator: "|") + "|nil")
        out.append("")
        // ctx.
        let records: [(name: String, kind: Int32)] = [("catalogue badge", LuaKinds.catalogueBadge), ("pack info", LuaKinds.packInfo),
                                                      ("rule info", LuaKinds.ruleInfo), ("athlete zone", LuaKinds.athleteZone),
                                                      ("athlete goal", LuaKinds.athleteGoal)]
        // What ctx's records hold (docs/rules.md, "ctx"); a field the host may leave out is optional.
        let recordTypes = ["catalogue badge": ["id": "string", "name": "string", "information": "string", "image": "string?", "distance_m": "number?"],
                           "pack info": ["name": "string", "version": "string"],
                           "rule info": ["id": "string", "title": "string?", "badge": "string?"],
                           "athlete zone": ["min": "number", "max": "number?"],
                           "athlete goal": ["id": "string", "measure": "string", "target": "number", "per": "string"]]
        for record in records {
            out.append("---@class \(className(record.name))")
            for field in kindFields(record.kind) { out.append("---@field \(field) \(recordTypes[record.name]?[field] ?? "any")") }
            out.append("")
        }
        let athleteTypes = ["max_hr": "number", "resting_hr": "number", "birth_date": "string", "sex": "string", "zones": "badgectl.AthleteZone[]", "goals": "badgectl.AthleteGoal[]"]
        out.append("---@class badgectl.Athlete")
        for field in kindFields(LuaKinds.athlete) {
            out.append("---@field \(field) " + (athleteTypes[field] ?? "any") + "?")
        }
        out.append("")
        out.append("--- A rule's ctx: docs/rules.md, \"ctx\".")
        out.append("---@class badgectl.Ctx")
        let ctxTypes = ["catalogue": "badgectl.CatalogueBadge[]", "pack": "badgectl.PackInfo", "rule": "badgectl.RuleInfo",
                        "athlete": "badgectl.Athlete?", "note": "fun(text: string|number)", "zone": "string"]
        for field in kindFields(LuaKinds.ctx) { out.append("---@field \(field) \(ctxTypes[field] ?? "any")") }
        out.append("")
        out.append("---@class badgectl.Progress")
        out.append("---@field current number")
        out.append("---@field target number")
        out.append("---@field unit string")
        out.append("")
        out.append("--- What `award { ... }` takes: docs/rules.md, \"Awarding\".")
        out.append("---@class badgectl.AwardSpec")
        out.append("---@field run badgectl.Run|string")
        for (field, type) in [("badge", "string?"), ("tier", "string?"), ("detail", "string?"), ("progress", "badgectl.Progress?"), ("evidence", "table?")] {
            out.append("---@field \(field) \(type)")
        }
        out.append("")
        out.append("---@alias badgectl.Award fun(spec: badgectl.AwardSpec)")
        out.append("")
        out.append("--- A rule file returns one: docs/rules.md, \"A rule\".")
        out.append("---@class badgectl.Rule")
        let ruleTypes = ["earned": "fun(run: badgectl.Run, ctx: badgectl.Ctx): boolean|table|nil",
                         "progress": "fun(run: badgectl.Run, ctx: badgectl.Ctx): badgectl.Progress|nil",
                         "init": "fun(ctx: badgectl.Ctx): table",
                         "on_run": "fun(state: table, run: badgectl.Run, award: badgectl.Award, ctx: badgectl.Ctx)",
                         "finish": "fun(state: table, award: badgectl.Award, ctx: badgectl.Ctx)",
                         "status": "fun(state: table, ctx: badgectl.Ctx): table|nil",
                         "repeatable": "boolean"]
        // Only `id` is always required (a predicate needs `badge` and `earned`, a fold `on_run`: the loader
        // says which is missing), so a table with some of the others still checks as a Rule.
        for field in RuleLoader.ruleFields {
            out.append("---@field \(field)\(field == "id" ? "" : "?") \(ruleTypes[field] ?? "string")")
        }
        out.append("")
        out.append("--- Safe helpers (docs/rules.md, \"badgectl helpers\").")
        out.append("---@class badgectl.Helpers")
        for name in helpers { out.append("---@field \(name) function") }
        out.append("")
        out.append("---@type badgectl.Helpers")
        out.append("badgectl = {}")
        out.append("")
        out.append("--- The test object (docs/rules.md, \"Testing rule packs\").")
        out.append("---@class badgectl.Test")
        for name in testFunctions { out.append("---@field \(name) function") }
        out.append("")
        out.append("--- Declares a test (in *_test.lua).")
        out.append("---@param name string")
        out.append("---@param fn fun(t: badgectl.Test)")
        out.append("function test(name, fn) end")
        out.append("")
        out.append("--- Declares a test that is skipped.")
        out.append("---@param name string")
        out.append("---@param fn fun(t: badgectl.Test)")
        out.append("function skip(name, fn) end")
        return out.joined(separator: "\n") + "\n"
    }

    /// luacheck's configuration: the sandbox's globals (read-only), `test` and `skip` in test files.
    public static func luacheckrc() -> String {
        func list(_ names: [String]) -> String { "{ " + names.map { "\"\($0)\"" }.joined(separator: ", ") + " }" }
        return """
            -- Generated by `badgectl editor` from badgectl's sandbox (prelude.lua). Do not edit.
            -- Rule functions take (state, run, award, ctx) by position: unused ones are not warnings.
            stds.badgectl = { read_globals = \(list(sandboxGlobals)) }
            stds.badgectl_test = { read_globals = { "test", "skip" } }
            std = "badgectl"
            unused_args = false
            max_line_length = 160
            files["**/*_test.lua"] = { std = "badgectl+badgectl_test" }
            exclude_files = { "**/\(fileName)" }

            """
    }

    /// The `.luarc.json` of a pack folder one level under the definitions (`badgectl new pack`).
    public static func luarc() -> String {
        """
        {
          "runtime.version": "Lua 5.4",
          "workspace.library": ["../\(fileName)"],
          "diagnostics.globals": \("[" + (sandboxGlobals + ["test", "skip"]).map { "\"\($0)\"" }.joined(separator: ", ") + "]")
        }

        """
    }

    /// The run fields, measure kinds' fields, ctx fields and helpers `text` (a definition file) does not
    /// declare in their classes: empty when it covers the schema.
    public static func missing(in text: String) -> [String] {
        var classes: [String: Set<String>] = [:]
        var current = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("---@class ") { current = String(line.dropFirst("---@class ".count)).split(separator: " ").first.map(String.init) ?? "" }
            if line.hasPrefix("---@field ") {
                let name = line.dropFirst("---@field ".count).split(separator: " ").first.map(String.init) ?? ""
                classes[current, default: []].insert(name)
            }
        }
        var missing: [String] = []
        for field in RunSchema.fields where !(classes["badgectl.Run"]?.contains(field.name) ?? false) { missing.append("run." + field.name) }
        for kind in MeasureKind.all {
            for field in kind.fields where !(classes[className("measure " + kind.name)]?.contains(field) ?? false) {
                missing.append("measure \(kind.name).\(field)")
            }
        }
        for field in kindFields(LuaKinds.ctx) where !(classes["badgectl.Ctx"]?.contains(field) ?? false) { missing.append("ctx." + field) }
        for name in helpers where !(classes["badgectl.Helpers"]?.contains(name) ?? false) { missing.append("badgectl." + name) }
        for name in testFunctions where !(classes["badgectl.Test"]?.contains(name) ?? false) { missing.append("t." + name) }
        return missing
    }
}
