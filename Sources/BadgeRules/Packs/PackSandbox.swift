import Foundation
import RunFiles

/// The packs' environments in one Lua state: the prelude's environment maker, each pack's folder,
/// name, `_ENV` and freeze function, and which pack (and rule) is running. Runs a pack's files in
/// its environment and serves its `require`. Shared by the pack reader (`PackReader`), the rule
/// loader and the rule runner of one evaluation.
final class PackSandbox {
    /// The pack and rule whose code is running (the host functions ask it).
    struct Current {
        var pack: Int
        /// Index into the loader's `rules`; nil while a file's top level runs.
        var rule: Int?
    }

    let lua: LuaState
    private var makeEnvRef: Int32 = LuaState.noRef
    /// The prelude's maker of saved maps (`badgectl_saved_map`): `FoldStates.attachSavedMaps`.
    private(set) var savedMapRef: Int32 = LuaState.noRef
    /// Per pack (index = token of print/require).
    private(set) var folders: [String] = []
    private(set) var packNames: [String] = []
    private(set) var envRefs: [Int32] = []
    /// Per pack: the function that freezes its globals once its files are loaded.
    private(set) var freezeRefs: [Int32] = []
    var current: Current?

    init(lua: LuaState) {
        self.lua = lua
    }

    /// Runs the rules' prelude (the allow-listed base) and keeps its environment maker. After the
    /// host is set on `lua`.
    func loadPrelude() throws {
        try Prelude.runRules(in: lua)
        makeEnvRef = lua.ref()
        lua.takeGlobal("badgectl_saved_map")
        savedMapRef = lua.ref()
    }

    /// Adds a pack and makes its environment (print and require bound to it). Throws when the
    /// environment cannot be made; the pack is then added without one (its index stays valid).
    @discardableResult
    func addPack(name: String, folder: String) throws -> Int {
        let index = packNames.count
        folders.append(folder)
        packNames.append(name)
        lua.ensureStack()
        lua.push(ref: makeEnvRef)
        lua.push(name)
        lua.pushHostFunction(.print, token: index)
        lua.pushHostFunction(.require, token: index)
        if let error = lua.call(nargs: 3, nresults: 2) {
            envRefs.append(LuaState.noRef)
            freezeRefs.append(LuaState.noRef)
            throw RulesError.lua(reason: "cannot make the environment of pack '\(name)': \(error.message)")
        }
        freezeRefs.append(lua.ref())
        envRefs.append(lua.ref())
        return index
    }

    /// Freezes pack `index`'s globals once its files are loaded; the error when that fails.
    func freeze(pack index: Int) -> LuaState.CallError? {
        lua.push(ref: freezeRefs[index])
        return lua.call(nargs: 0, nresults: 0)
    }

    /// A file's bytes, without a UTF-8 byte order mark (editors add one; Lua would read it as code).
    /// A regular file of at most 16 MiB (a rule is kilobytes; a FIFO or a device is never opened
    /// for reading), nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        guard let bytes = try? FileBytes.read(path: path, maximumBytes: 16 << 20) else { return nil }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        return bytes
    }

    /// Loads `file` text-only into pack `pack`'s environment and runs its top level; leaves its one result on the stack.
    /// A file that resolves outside the pack folder (a link leading out) is refused unread (`PackFiles`).
    func runFile(_ file: String, pack: Int) -> (error: LuaState.CallError?, loadMessage: String?) {
        let path: String
        switch PackFiles.resolve(file, folder: folders[pack]) {
        case .success(let real): path = real
        case .failure(let refusal): return (nil, refusal.description)
        }
        guard let bytes = PackSandbox.read(path) else {
            return (nil, "cannot read \(file)")
        }
        if let message = lua.load(bytes, chunkName: "@" + file) {
            return (nil, message)
        }
        lua.setEnvironment(ofFunctionAt: -1, envRef: envRefs[pack])
        let saved = current
        current = Current(pack: pack, rule: nil)
        let error = lua.call(nargs: 0, nresults: 1)
        current = saved
        return (error, nil)
    }

    /// The host function `require` of pack `pack`: loads a module file of the pack (text only, in
    /// the pack's environment) and leaves it on the stack, or pushes why not and returns -1.
    func require(pack: Int) -> Int32 {
        guard pack >= 0, pack < folders.count, pack < envRefs.count else { return lua.raise("require: no pack", level: 2) }
        return PackSandbox.requireModule(lua: lua, folder: folders[pack], packName: packNames[pack], envRef: envRefs[pack])
    }

    /// `require(name)` of code of the pack in `folder` (a rule, a module, a test file), the name at
    /// stack index 1: loads the module file of the pack (text only, inside the pack folder) into the
    /// environment `envRef` and leaves it on the stack, or pushes why not (at the line of the
    /// `require` call: two levels up, past the prelude's `require`) and returns -1. The one module
    /// lookup of rules and tests.
    static func requireModule(lua: LuaState, folder: String, packName: String, envRef: Int32) -> Int32 {
        guard let name = lua.string(at: 1) else { return lua.raise("require: expected a module name (a string)", level: 2) }
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !segments.isEmpty && segments.allSatisfy { segment in
            !segment.isEmpty && segment.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_" || $0 == "-" }
        }
        guard valid else {
            return lua.raise("require: '\(name)' is not a module name of this pack (letters, digits, '_', '-', dots for subfolders)", level: 2)
        }
        // Tests are left out of the pack's fingerprint (editing one must not replay a saved state),
        // so what decides awards cannot be read from them.
        if segments.first == "tests" || segments.last?.hasSuffix("_test") == true {
            return lua.raise("require: '\(name)' is a test file: rules cannot require tests (tests/ and *_test.lua do not count in the pack's fingerprint)", level: 2)
        }
        let path = folder + "/" + segments.joined(separator: "/") + ".lua"
        let real: String
        switch PackFiles.resolve(path, folder: folder) {
        case .success(let resolved): real = resolved
        case .failure(let refusal): return lua.raise("require: '\(name)': \(refusal)", level: 2)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue,
              let bytes = PackSandbox.read(real) else {
            return lua.raise("require: no module '\(name)' in pack '\(packName)' (no file \(path)); rules can require only their own pack's files, system modules (os, io, ...) are not available", level: 2)
        }
        if let message = lua.load(bytes, chunkName: "@" + path) {
            if splitLocation(message) != nil {
                lua.push(message)  // a syntax error: it names the module's file and line
                return -1
            }
            let reason = message.contains("binary chunk") ? "precompiled (binary) chunks are refused, files load as text only" : message
            return lua.raise("require: cannot load \(path): \(reason)", level: 2)
        }
        lua.setEnvironment(ofFunctionAt: -1, envRef: envRef)
        return 1
    }
}
