import Foundation

/// What a pack's `pack.lua` declares, read from the table it returned (raw reads only): name,
/// version, description, badges (with their tiers) and themes. Every message names `pack.lua`.
struct PackManifest {
    let lua: LuaState
    var state: OpaquePointer { lua.state }

    /// The pack declared by the table at `table` (what `packFile` returned).
    func parse(table: Int32, packFile: String, directory: String) throws -> RulePack {
        func fail(_ reason: String) -> RulesError { .pack(file: packFile, line: nil, reason: reason) }
        let name = try requiredString(table, "name", fail)
        let version = try requiredString(table, "version", fail)
        let description = try optionalString(table, "description", fail) ?? ""
        var badges: [CatalogueBadge] = []
        if lua.getField(table, "badges") != .nil {
            badges = try readBadges(at: lua.top, label: "badges", declaresTiers: true, fail)
        }
        lua.pop()
        var themes: [String: [CatalogueBadge]] = [:]
        let themesType = lua.getField(table, "themes")
        if themesType != .nil {
            guard themesType == .table else { throw fail("field 'themes' must be a table { <theme> = { badge, ... } }, got \(lua.typeName(at: -1))") }
            let themesIndex = lua.top
            lua.pushNil()
            while lua.next(themesIndex) {
                guard let theme = lua.string(at: -2) else { throw fail("themes: keys must be theme names (strings)") }
                themes[theme] = try readBadges(at: lua.top, label: "themes.\(theme)", fail)
                lua.pop()
            }
        }
        lua.pop()
        for (label, list) in [("badges", badges)] + themes.keys.sorted().map({ ("themes.\($0)", themes[$0] ?? []) }) {
            var seen: Set<String> = []
            for badge in list where !seen.insert(badge.id).inserted {
                throw fail("\(label): duplicate badge id '\(badge.id)'")
            }
        }
        var pack = RulePack(name: name, version: version, description: description, directory: directory, badges: badges, themes: themes)
        pack.measures = try readMeasures(table, packFile: packFile)
        pack.eligibility = try readEligibility(table, fail)
        return pack
    }


    func requiredString(_ table: Int32, _ key: String, _ fail: (String) -> RulesError) throws -> String {
        guard let text = try optionalString(table, key, fail) else { throw fail("missing required field '\(key)'") }
        if text.isEmpty { throw fail("field '\(key)' must not be empty") }
        return text
    }

    /// `LuaState.stringField`, its message through `fail` (which says where).
    func optionalString(_ table: Int32, _ key: String, _ fail: (String) -> RulesError) throws -> String? {
        do { return try lua.stringField(table, key) } catch RulesError.field(let text) { throw fail(text) }
    }

    /// `declaresTiers`: the entries are the pack's own `badges`, which may declare `tiers`.
    func readBadges(at index: Int32, label: String, declaresTiers: Bool = false, _ fail: (String) -> RulesError) throws -> [CatalogueBadge] {
        guard lua.type(at: index) == .table else { throw fail("field '\(label)' must be an array of badges { id =, name =, information =, image = }, got \(lua.typeName(at: index))") }
        let count = lua.rawLength(at: index)
        var badges: [CatalogueBadge] = []
        for i in 1...max(count, 1) where count > 0 {
            lua.getIndex(index, i)
            defer { lua.pop() }
            let entry = lua.top
            func entryFail(_ reason: String) -> RulesError { fail("\(label)[\(i)]: \(reason)") }
            guard lua.type(at: entry) == .table else { throw entryFail("expected a table { id =, name = }, got \(lua.typeName(at: entry))") }
            let id = try requiredString(entry, "id", entryFail)
            let name = try requiredString(entry, "name", entryFail)
            let information = try optionalString(entry, "information", entryFail) ?? ""
            let image = try optionalString(entry, "image", entryFail)
            var distance: Double? = nil
            let distanceType = lua.getField(entry, "distance_m")
            if distanceType != .nil {
                guard let value = lua.number(at: -1), value.isFinite, value >= 0 else {
                    lua.pop()
                    throw entryFail("field 'distance_m' must be a number of metres ≥ 0")
                }
                distance = value
            }
            lua.pop()
            let tiers = declaresTiers ? try readTiers(entry, entryFail) : nil
            badges.append(CatalogueBadge(id: id, name: name, information: information, distanceMeters: distance, image: image, tiers: tiers))
        }
        return badges
    }

    /// The optional `tiers` field of a badge entry: a non-empty list of distinct non-empty strings.
    func readTiers(_ entry: Int32, _ fail: (String) -> RulesError) throws -> [String]? {
        let type = lua.getField(entry, "tiers")
        defer { lua.pop() }
        if type == .nil { return nil }
        let usage = "field 'tiers' must be a list of tier names such as { \"bronze\", \"silver\", \"gold\" }"
        guard type == .table else { throw fail("\(usage), got \(lua.typeName(at: -1))") }
        let list = lua.top
        let count = lua.rawLength(at: list)
        guard count > 0 else { throw fail("\(usage), got an empty table") }
        var tiers: [String] = []
        for i in 1...count {
            lua.getIndex(list, i)
            defer { lua.pop() }
            guard lua.type(at: -1) == .string, let tier = lua.string(at: -1) else {
                throw fail("tiers[\(i)] must be a string, got \(lua.typeName(at: -1))")
            }
            guard !tier.isEmpty, tier.utf8.count <= 40 else { throw fail("tiers[\(i)] must be a short non-empty string") }
            guard !tiers.contains(tier) else { throw fail("tiers: duplicate tier '\(tier)'") }
            tiers.append(tier)
        }
        var keys = 0
        lua.pushNil()
        while lua.next(list) { keys += 1; lua.pop() }
        guard keys == count else { throw fail("\(usage) (an array, without other keys)") }
        return tiers
    }
}
