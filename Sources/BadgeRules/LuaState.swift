import CLua
import CLuaShims

/// One Lua state with a memory cap and a per-call instruction budget. Not Sendable: it belongs to the
/// evaluation that made it and is closed when that evaluation ends.
///
/// Everything here reads Lua values with raw accessors only (`lua_rawget`, `lua_next`, `lua_tolstring`
/// on strings), so no metamethod can run and no Lua error can be raised while a Swift frame is on the
/// stack. Lua code runs only through `call`, i.e. `lua_pcall` under the traceback handler.
final class LuaState {
    let state: OpaquePointer
    let limits: RuleEngine.Limits

    init(limits: RuleEngine.Limits) throws {
        guard let state = bclua_newstate(limits.memoryBytes, Int64(limits.instructionsPerCall)) else {
            throw RulesError.lua(reason: "cannot create a Lua state (out of memory)")
        }
        bclua_open_libraries(state)
        guard LuaKinds.shared.define(in: state) else {
            bclua_close(state)
            throw RulesError.lua(reason: "cannot define the read-only kinds")
        }
        self.state = state
        self.limits = limits
    }

    deinit { bclua_close(state) }

    var registry: Int32 { bclua_registryindex() }
    var top: Int32 { lua_gettop(state) }
    func setTop(_ index: Int32) { lua_settop(state, index) }
    func pop(_ n: Int32 = 1) { bclua_pop(state, n) }
    func type(at index: Int32) -> Int32 { lua_type(state, index) }
    func absolute(_ index: Int32) -> Int32 { lua_absindex(state, index) }
    func ensureStack(_ n: Int32 = 40) { _ = lua_checkstack(state, n) }

    /// Pops the top value into the registry.
    func ref() -> Int32 { luaL_ref(state, registry) }
    func push(ref: Int32) { lua_rawgeti(state, registry, lua_Integer(ref)) }

    func push(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = lua_pushlstring(state, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, bytes.count)
        }
    }
    func push(_ number: Double) { lua_pushnumber(state, number) }
    func push(integer: Int) { lua_pushinteger(state, lua_Integer(integer)) }
    func pushNil() { lua_pushnil(state) }
    func pushHostFunction(_ fn: HostFunction, token: Int) { bclua_push_host_function(state, fn.rawValue, Int64(token)) }
    func newTable(array: Int32 = 0, record: Int32 = 0) { lua_createtable(state, array, record) }

    /// `table[key] = <top>` without metamethods; pops the value.
    func setField(_ table: Int32, _ key: String) {
        let t = absolute(table)
        push(key)
        lua_rotate(state, -2, 1)
        lua_rawset(state, t)
    }

    /// Pushes `table[key]` without metamethods and returns its type.
    @discardableResult
    func getField(_ table: Int32, _ key: String) -> Int32 {
        let t = absolute(table)
        push(key)
        return lua_rawget(state, t)
    }

    // MARK: - Typed fields of tables (the one family of readers; raw reads, never a metamethod)

    /// `table[key]` as a string: nil when absent, `RulesError.field` when it is something else.
    func stringField(_ table: Int32, _ key: String) throws -> String? {
        let type = getField(table, key)
        defer { pop() }
        if type == LUA_TNIL { return nil }
        guard let text = string(at: -1) else { throw RulesError.field("field '\(key)' must be a string, got \(typeName(at: -1))") }
        return text
    }

    /// `table[key]` as a finite number: nil when absent, `RulesError.field` when it is something else.
    func numberField(_ table: Int32, _ key: String) throws -> Double? {
        let type = getField(table, key)
        defer { pop() }
        if type == LUA_TNIL { return nil }
        guard let value = number(at: -1), value.isFinite else {
            throw RulesError.field("field '\(key)' must be a finite number, got \(typeName(at: -1))")
        }
        return value
    }

    /// The string at `index` (strings only; numbers are not converted).
    func string(at index: Int32) -> String? {
        guard lua_type(state, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(state, index, &length) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    func number(at index: Int32) -> Double? {
        guard lua_type(state, index) == LUA_TNUMBER else { return nil }
        return lua_tonumberx(state, index, nil)
    }

    /// A Lua type name for messages; our proxies say what they are (`run`, `split`).
    func typeName(at index: Int32) -> String {
        let t = lua_type(state, index)
        if t == LUA_TUSERDATA, lua_getmetatable(state, index) != 0 {
            let kind = getField(-1, "__name")
            let name = kind == LUA_TSTRING ? string(at: -1) : nil
            pop(2)
            if let name { return name }
        }
        if t == LUA_TLIGHTUSERDATA, let name = bclua_record_name(state, index) { return String(cString: name) }
        return String(cString: lua_typename(state, t))
    }

    /// `file:line:` of the Lua function `level` levels up (1 = the caller of the running C function).
    func whereString(level: Int32) -> String {
        luaL_where(state, level)
        let text = string(at: -1) ?? ""
        pop()
        return text
    }

    /// Source and first line of the function at `index`.
    func definition(ofFunctionAt index: Int32) -> (file: String, line: Int)? {
        guard lua_type(state, index) == LUA_TFUNCTION else { return nil }
        lua_pushvalue(state, index)
        var info = lua_Debug()
        guard lua_getinfo(state, ">S", &info) != 0 else { return nil }
        let source = withUnsafeBytes(of: &info.short_src) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return (source, Int(info.linedefined))
    }

    /// Loads text-only Lua under `chunkName` (`@rules/x/y.lua`). On failure the message is returned and the stack is unchanged.
    func load(_ bytes: [UInt8], chunkName: String) -> String? {
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                bclua_load_text(state, chars.baseAddress, chars.count, chunkName)
            }
        }
        if status == LUA_OK { return nil }
        let message = string(at: -1) ?? "cannot load \(chunkName)"
        pop()
        return message
    }

    /// Sets upvalue 1 (`_ENV` of a main chunk) of the function at `function` to the registry value `envRef`.
    func setEnvironment(ofFunctionAt function: Int32, envRef: Int32) {
        let f = absolute(function)
        push(ref: envRef)
        if lua_setupvalue(state, f, 1) == nil { pop() }
    }

    /// The outcome of one protected call.
    struct CallError {
        var message: String
        var traceback: String?
        var budgetExhausted: Bool
        var memoryExceeded: Bool
    }

    /// Calls the function below `nargs` arguments with `lua_pcall` (traceback handler, budget, memory cap).
    /// On success `nresults` values are on the stack; on failure nothing is.
    func call(nargs: Int32, nresults: Int32) -> CallError? {
        let status = bclua_call(state, nargs, nresults)
        if status == LUA_OK { return nil }
        let raw = string(at: -1) ?? "(error object is not a string)"
        pop()
        let exhausted = bclua_budget_exhausted(state) != 0
        let denied = bclua_memory_killed(state) != 0 || status == LUA_ERRMEM
            || (bclua_memory_denied(state) != 0 && raw.contains("not enough memory"))
        bclua_gc_collect(state)
        var message = raw
        var traceback: String? = nil
        if let range = raw.range(of: "\nstack traceback:\n") {
            message = String(raw[raw.startIndex..<range.lowerBound])
            traceback = "stack traceback:\n" + raw[range.upperBound...]
        }
        if denied {
            let megabytes = limits.memoryBytes / (1 << 20)
            message = "memory limit exceeded (\(megabytes) MB for rules in one evaluation)"
            var source: UnsafePointer<CChar>? = nil
            let line = bclua_denied_location(state, &source)
            if line > 0, let source {
                message = "\(String(cString: source)):\(line): " + message
            }
        }
        return CallError(message: message, traceback: traceback, budgetExhausted: exhausted, memoryExceeded: denied)
    }
}

/// Ids of the host functions the C trampoline dispatches to (`bclua_push_host_function`).
/// One table for the evaluation host (`Session`) and the test host (`TestSession`): a run's lazy
/// fields (0) are built by the same marshalling code in both.
enum HostFunction: Int32 {
    /// A run's field built on first read (token: the run's index).
    case lazyField = 0
    /// A rule's `award` / `ctx.note` (token: the rule); `print` / `require` of a pack (token: the pack).
    case award = 1, note, print, require
    /// The test API (`Lua/test_prelude.lua`): `t.run`, `t.evaluate`, expectation failures, `where`,
    /// and a test file's `print` and `require`.
    case testRun = 10, testEvaluate, testFail, testWhere, testPrint, testRequire
}

/// Splits `rules/x/y.lua:12: boom` into file, line and the rest; nil when the text has no such prefix.
func splitLocation(_ message: String) -> (file: String, line: Int, rest: String)? {
    guard let luaRange = message.range(of: ".lua:") else { return nil }
    let file = String(message[message.startIndex..<luaRange.lowerBound]) + ".lua"
    var index = luaRange.upperBound
    var digits = ""
    while index < message.endIndex, let d = message[index].wholeNumberValue, message[index].isASCII {
        digits.append(Character(String(d)))
        index = message.index(after: index)
    }
    guard !digits.isEmpty, let line = Int(digits), index < message.endIndex, message[index] == ":" else { return nil }
    index = message.index(after: index)
    if index < message.endIndex, message[index] == " " { index = message.index(after: index) }
    return (file, line, String(message[index...]))
}
