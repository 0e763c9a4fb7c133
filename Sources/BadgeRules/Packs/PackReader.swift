import Foundation

/// Reads a pack's `pack.lua` in its own small sandbox: a Lua state, the pack's environment and the
/// host functions a pack file may call (`print`, ignored here, and `require` of the pack's own
/// modules). No rules, runs or catalogue are involved.
enum PackReader {
    /// What `packFile` declares, as a `RulePack` without its rule and test files.
    static func read(packFile: String, folderName: String, limits: RuleEngine.Limits) throws -> RulePack {
        let lua = try LuaState(limits: limits)
        let sandbox = PackSandbox(lua: lua)
        let host = HostFunctions(lua: lua, sandbox: sandbox)
        try sandbox.loadPrelude()
        let folder = (packFile as NSString).deletingLastPathComponent
        let pack = try sandbox.addPack(name: folderName, folder: folder)
        let base = lua.top
        defer { lua.setTop(base) }
        let (error, loadMessage) = withExtendedLifetime(host) { sandbox.runFile(packFile, pack: pack) }
        if let loadMessage {
            let location = splitLocation(loadMessage)
            throw RulesError.pack(file: location?.file ?? packFile, line: location?.line, reason: location?.rest ?? loadMessage)
        }
        if let error {
            let location = splitLocation(error.message)
            throw RulesError.pack(file: location?.file ?? packFile, line: location?.line, reason: location?.rest ?? error.message)
        }
        guard lua.type(at: -1) == .table else {
            throw RulesError.pack(file: packFile, line: nil, reason: "pack.lua must return a table { name = ..., version = ... }, got \(lua.typeName(at: -1))")
        }
        return try withExtendedLifetime(host) {
            try PackManifest(lua: lua).parse(table: lua.top, packFile: packFile, directory: folder)
        }
    }
}
