import Foundation

/// Trusted Lua the host runs before any pack code, kept as real `.lua` files in `Lua/` and embedded
/// at build time (Package.swift: `resources: [.embedInCode(...)]`). Their chunk names are their
/// paths in the repository, so errors and tracebacks give a real `file:line`.
struct Prelude {
    /// Each prelude's compiled function as a binary chunk, by chunk name, once the first state
    /// compiled it (`run`). Shared by every thread's states.
    final class Compiled: @unchecked Sendable {
        private let lock = NSLock()
        private var chunks: [String: [UInt8]] = [:]

        func bytes(of chunkName: String) -> [UInt8]? {
            lock.lock(); defer { lock.unlock() }
            return chunks[chunkName]
        }

        func keep(_ bytes: [UInt8], of chunkName: String) {
            lock.lock(); defer { lock.unlock() }
            chunks[chunkName] = bytes
        }
    }

    static let compiled = Compiled()

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

    /// Runs the rules prelude in `lua` with the host functions it hands the helpers (`zone_offset_s`,
    /// the figure texts of `format_*`);
    /// leaves `make_env` on the stack.
    static func runRules(in lua: LuaState) throws {
        try rules.run(in: lua, label: "prelude", nargs: 5) {
            for function in [HostFunction.zoneOffset, .figureDistance, .figureDuration, .figurePace, .figureTierPace] {
                lua.pushHostFunction(function, token: 0)
            }
        }
    }

    /// Loads the prelude into `lua` and calls it with the `nargs` values `pushArgs` pushes; leaves
    /// its one result on the stack. `label` names it
    /// in the error (`prelude`, `test prelude`).
    ///
    /// The text is compiled once per process: the first state loads it as text and keeps the
    /// compiled function as a binary chunk (`LuaState.dumpFunction`), and every later state loads
    /// that (an evaluation makes a state for each pack's `pack.lua` and one for its rules; compiling
    /// the 13 KB prelude cost about 2 million instructions a state, loading the chunk a tenth).
    /// Only these bytes, made here from the host's own source, are ever loaded as binary.
    func run(in lua: LuaState, label: String, nargs: Int32 = 0, _ pushArgs: () -> Void = {}) throws {
        if let compiled = Prelude.compiled.bytes(of: chunkName) {
            if let message = lua.loadOwnBinary(compiled, chunkName: chunkName) {
                throw RulesError.lua(reason: "\(label): \(message)")
            }
        } else {
            if let message = lua.load(bytes, chunkName: chunkName) {
                throw RulesError.lua(reason: "\(label): \(message)")
            }
            if let compiled = lua.dumpFunction() { Prelude.compiled.keep(compiled, of: chunkName) }
        }
        pushArgs()
        if let error = lua.call(nargs: nargs, nresults: 1) { throw RulesError.lua(reason: "\(label): \(error.message)") }
    }
}
