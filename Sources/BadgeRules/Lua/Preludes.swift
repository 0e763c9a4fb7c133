/// Trusted Lua the host runs before any pack code, kept as real `.lua` files in `Lua/` and embedded
/// at build time (Package.swift: `resources: [.embedInCode(...)]`). Their chunk names are their
/// paths in the repository, so errors and tracebacks give a real `file:line`.
struct Prelude {
    let bytes: [UInt8]
    /// `@` plus the file's path in the repository.
    let chunkName: String
    /// `file:` as Lua prints it in messages and tracebacks (the chunk name without `@`, plus `:`).
    var locationPrefix: String { String(chunkName.dropFirst()) + ":" }

    /// Strips `string.dump`, protects the string metatable, defines the `badgectl` helpers and
    /// returns `make_env(pack_name, print, loader)` (see `Lua/prelude.lua`).
    static let rules = Prelude(bytes: PackageResources.prelude_lua, chunkName: "@Sources/BadgeRules/Lua/prelude.lua")
    /// The test API (`test`, `skip`, the `t` object); run after `rules` in a test state (see `Lua/test_prelude.lua`).
    static let tests = Prelude(bytes: PackageResources.test_prelude_lua, chunkName: "@Sources/BadgeRules/Lua/test_prelude.lua")

    /// Loads the prelude into `lua` and calls it with the `nargs` values `pushArgs` pushes; leaves
    /// its one result on the stack. `label` names it
    /// in the error (`prelude`, `test prelude`).
    func run(in lua: LuaState, label: String, nargs: Int32 = 0, _ pushArgs: () -> Void = {}) throws {
        if let message = lua.load(bytes, chunkName: chunkName) {
            throw RulesError.lua(reason: "\(label): \(message)")
        }
        pushArgs()
        if let error = lua.call(nargs: nargs, nresults: 1) { throw RulesError.lua(reason: "\(label): \(error.message)") }
    }
}
