import Foundation
import CLua
import CLuaShims

/// Lua's value types, as `LuaState.type(at:)` and the raw reads return them.
enum LuaType: Int32 {
    case none = -1, `nil` = 0, boolean, lightUserdata, number, string, table, function, userdata, thread
}

/// One Lua state with a memory cap and a per-call instruction budget. Not Sendable: it belongs to the
/// evaluation that made it and is closed when that evaluation ends.
///
/// Everything here reads Lua values with raw accessors only (`lua_rawget`, `lua_next`, `lua_tolstring`
/// on strings), so no metamethod can run and no Lua error can be raised while a Swift frame is on the
/// stack. Lua code runs only through `call`, i.e. `lua_pcall` under the traceback handler.
///
/// The only file of the module that imports CLua and CLuaShims: the rest of the rules host talks to
/// Lua through this type.
final class LuaState {
    /// A registry reference that refers to nothing.
    static let noRef: Int32 = LUA_NOREF

    let state: OpaquePointer
    let limits: RuleEngine.Limits
    /// Registry references of the metatables that make measure values strict, by index in `MeasureKind.all`.
    var measureMetatables: [Int: Int32] = [:]
    /// Registry references of the `TableKey` strings, by raw value (LuaState+Fields.swift).
    private let keyRefs: [Int32]

    init(limits: RuleEngine.Limits) throws {
        guard let state = bclua_newstate(limits.memoryBytes, Int64(limits.instructionsPerCall),
                                         limits.allocationBytesPerCall, limits.callSeconds) else {
            throw RulesError.lua(reason: "cannot create a Lua state (out of memory)")
        }
        bclua_open_libraries(state)
        guard Self.defineKinds(LuaKinds.shared.specs, in: state) else {
            bclua_close(state)
            throw RulesError.lua(reason: "cannot define the read-only kinds")
        }
        self.keyRefs = TableKey.allCases.map { key in
            key.text.utf8CString.withUnsafeBufferPointer { _ = lua_pushstring(state, $0.baseAddress) }
            return luaL_ref(state, bclua_registryindex())
        }
        self.state = state
        self.limits = limits
    }

    deinit { bclua_close(state) }

    // MARK: - One loaded state for many evaluations (reuse.c)

    /// Marks the loaded state: what is made from here on is an evaluation's. False when the
    /// fingerprint could not be taken (the state is then not reused).
    func reuseMark() -> Bool { bclua_reuse_mark(state) != 0 }
    /// Before an evaluation of a reused state: the memory cap as in a fresh state.
    func reuseBegin() { bclua_reuse_begin(state) }
    /// After an evaluation (its refs released): true when the state is exactly as marked.
    func reuseReset() -> Bool { bclua_reuse_reset(state) != 0 }

    var registry: Int32 { bclua_registryindex() }
    var top: Int32 { lua_gettop(state) }
    func setTop(_ index: Int32) { lua_settop(state, index) }
    func pop(_ n: Int32 = 1) { bclua_pop(state, n) }
    func type(at index: Int32) -> LuaType { LuaType(rawValue: lua_type(state, index)) ?? .none }
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
    /// Pushes UTF-8 bytes as a string (no Swift string made).
    func push(bytes: UnsafeRawBufferPointer) {
        _ = lua_pushlstring(state, bytes.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) }, bytes.count)
    }
    func push(_ number: Double) { lua_pushnumber(state, number) }
    func push(integer: Int) { lua_pushinteger(state, lua_Integer(integer)) }
    func pushNil() { lua_pushnil(state) }
    func pushHostFunction(_ fn: HostFunction, token: Int) { bclua_push_host_function(state, fn.rawValue, Int64(token)) }
    func newTable(array: Int32 = 0, record: Int32 = 0) { lua_createtable(state, array, record) }
    /// Pops a table and makes it the metatable of the value at `index`.
    func setMetatable(_ index: Int32) { lua_setmetatable(state, index) }

    /// `table[key] = <top>` without metamethods; pops the value.
    func setField(_ table: Int32, _ key: String) {
        let t = absolute(table)
        push(key)
        lua_rotate(state, -2, 1)
        lua_rawset(state, t)
    }

    /// `table[key] = <top>` without metamethods, the key given as UTF-8 (no Swift string made); pops the value.
    func setField(_ table: Int32, utf8 key: UnsafeRawBufferPointer) {
        let t = absolute(table)
        _ = lua_pushlstring(state, key.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) }, key.count)
        lua_rotate(state, -2, 1)
        lua_rawset(state, t)
    }

    /// Pushes `table[key]` without metamethods and returns its type.
    @discardableResult
    func getField(_ table: Int32, _ key: String) -> LuaType {
        let t = absolute(table)
        push(key)
        return LuaType(rawValue: lua_rawget(state, t)) ?? .none
    }

    /// `getField` with one of the host's keys (`TableKey`), pushed from its registry ref.
    @discardableResult
    func getField(_ table: Int32, _ key: TableKey) -> LuaType {
        let t = absolute(table)
        lua_rawgeti(state, registry, lua_Integer(keyRefs[key.rawValue]))
        return LuaType(rawValue: lua_rawget(state, t)) ?? .none
    }

    // MARK: - Raw table access and the stack

    /// Pushes `table[i]` without metamethods and returns its type.
    @discardableResult
    func getIndex(_ table: Int32, _ i: Int) -> LuaType { LuaType(rawValue: lua_rawgeti(state, table, lua_Integer(i))) ?? .none }
    /// `table[i] = <top>` without metamethods; pops the value.
    func setIndex(_ table: Int32, _ i: Int) { lua_rawseti(state, table, lua_Integer(i)) }
    /// `table[key] = value` without metamethods, key and value on top (both popped).
    func rawSet(_ table: Int32) { lua_rawset(state, table) }
    /// Pops a key and pushes `table[key]` without metamethods.
    func rawGet(_ table: Int32) { lua_rawget(state, table) }
    /// The raw length (`#` without `__len`) of the value at `index`.
    func rawLength(at index: Int32) -> Int { Int(lua_rawlen(state, index)) }
    /// `lua_next`: pops a key, pushes the next key and value; false (nothing pushed) at the end.
    func next(_ table: Int32) -> Bool { lua_next(state, table) != 0 }
    func boolean(at index: Int32) -> Bool { lua_toboolean(state, index) != 0 }
    func push(boolean: Bool) { lua_pushboolean(state, boolean ? 1 : 0) }
    func push(lightUserdata pointer: UnsafeMutableRawPointer) { lua_pushlightuserdata(state, pointer) }
    func remove(at index: Int32) { bclua_remove(state, index) }
    /// Moves the top value below the one under it.
    func swapTop() { lua_rotate(state, -2, 1) }
    func unref(_ ref: Int32) { luaL_unref(state, registry, ref) }
    /// Pushes a copy of the value at `index`.
    func pushCopy(of index: Int32) { lua_pushvalue(state, index) }
    /// Pushes the global `name` and sets it to nil (a value trusted Lua hands the host).
    func takeGlobal(_ name: String) {
        lua_getglobal(state, name)
        lua_pushnil(state)
        lua_setglobal(state, name)
    }
    func collectGarbage() { bclua_gc_collect(state) }
    /// A number as Lua prints it (`tostring`), without changing the value at `index`.
    func numberText(at index: Int32) -> String {
        lua_pushvalue(state, index)
        _ = lua_tolstring(state, -1, nil)
        let text = string(at: -1) ?? ""
        pop()
        return text
    }

    // MARK: - The host and the read-only values (CLuaShims)

    /// Routes the C trampolines to `host` with `context` (see `bclua_host_fn`).
    func setHost(_ host: bclua_host_fn, context: UnsafeMutableRawPointer) { bclua_set_host(state, host, context) }
    /// The 1-based host index of the run at `index`, or 0 when it is no run.
    func runIndex(at index: Int32) -> Int { Int(bclua_run_index(state, index)) }
    /// Zeroed host memory for light records that lives as long as the state; nil when out of memory.
    func records(bytes: Int) -> UnsafeMutableRawPointer? { bclua_records(state, bytes) }
    /// Keeps a string for the light records; its id.
    func addRecordString(_ bytes: UnsafeBufferPointer<CChar>) -> Int32 { Int32(bclua_add_string(state, bytes.baseAddress, bytes.count)) }
    /// Replaces the table on top with a read-only proxy of `kind` (`LuaKinds`).
    func makeProxy(kind: Int32) { bclua_make_proxy(state, kind) }
    /// Pops the value on top (a host function, a proxy) into the light records' values; its id.
    func addRecordValue() -> Int32 { Int32(bclua_add_value(state)) }

    /// `count` light records of `kind` with `fields` slots each (all nil), contiguous; nil when out of memory.
    func newRecords(kind: Int32, fields: Int, count: Int = 1) -> UnsafeMutableRawPointer? {
        let stride = Self.recordStride(fields: fields)
        guard let base = records(bytes: stride * max(count, 1)) else { return nil }
        for i in 0..<count { (base + i * stride).storeBytes(of: kind, as: Int32.self) }
        return base
    }
    /// Bytes of one light record: kind and presence bits, then an 8-byte slot per field.
    static func recordStride(fields: Int) -> Int { 8 + 8 * fields }
    /// Sets slot `field` of `record` and marks it present.
    static func setSlot(_ record: UnsafeMutableRawPointer, _ field: Int, float: Double) {
        (record + 8 + 8 * field).storeBytes(of: float, as: Double.self); markPresent(record, field)
    }
    static func setSlot(_ record: UnsafeMutableRawPointer, _ field: Int, id: Int32) {
        (record + 8 + 8 * field).storeBytes(of: Int64(id), as: Int64.self); markPresent(record, field)
    }
    static func setSlot(_ record: UnsafeMutableRawPointer, _ field: Int, record value: UnsafeRawPointer) {
        (record + 8 + 8 * field).storeBytes(of: value, as: UnsafeRawPointer.self); markPresent(record, field)
    }
    /// Empties slot `field` of `record` (marks it absent: the field reads as nil).
    static func clearSlot(_ record: UnsafeMutableRawPointer, _ field: Int) {
        (record + 8 + 8 * field).storeBytes(of: Int64(0), as: Int64.self)
        let present = (record + 4).load(as: UInt32.self) & ~(1 << UInt32(field))
        (record + 4).storeBytes(of: present, as: UInt32.self)
    }
    private static func markPresent(_ record: UnsafeMutableRawPointer, _ field: Int) {
        let present = (record + 4).load(as: UInt32.self) | (1 << UInt32(field))
        (record + 4).storeBytes(of: present, as: UInt32.self)
    }

    /// Pushes a read-only array of `count` light records `stride` bytes apart (kind `arrayKind`).
    func pushRecordArray(_ first: UnsafeRawPointer?, stride: Int, count: Int, kind arrayKind: Int32) {
        bclua_push_record_array(state, first, stride, count, arrayKind)
    }

    /// Defines the kinds of read-only values in `state` (names, fields and types as the shim takes
    /// them). False when the shim refused a spec.
    static func defineKinds(_ specs: [LuaKinds.Spec], in state: OpaquePointer) -> Bool {
        var storage: [UnsafeMutablePointer<CChar>] = []
        defer { storage.forEach { $0.deallocate() } }
        func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, byte) in bytes.enumerated() { pointer[i] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            storage.append(pointer)
            return pointer
        }
        let kinds = specs.map { spec -> bclua_kind in
            var kind = bclua_kind()
            kind.kind = spec.kind
            switch spec.shape {
            case .proxy: kind.shape = Int32(BCLUA_SHAPE_PROXY)
            case .record: kind.shape = Int32(BCLUA_SHAPE_RECORD)
            case .recordArray: kind.shape = Int32(BCLUA_SHAPE_RECORD_ARRAY)
            }
            kind.name = UnsafePointer(copy(Array(spec.name.utf8)))
            if let fields = spec.fields {
                kind.fields = UnsafePointer(copy(fields.flatMap { Array($0.utf8) + [0] }))
                kind.field_count = Int32(fields.count)
            }
            if !spec.types.isEmpty {
                kind.types = UnsafePointer(copy(spec.types.map { type -> UInt8 in
                    switch type {
                    case .float: return UInt8(BCLUA_FIELD_FLOAT)
                    case .integer: return UInt8(BCLUA_FIELD_INTEGER)
                    case .boolean: return UInt8(BCLUA_FIELD_BOOLEAN)
                    case .string: return UInt8(BCLUA_FIELD_STRING)
                    case .value: return UInt8(BCLUA_FIELD_VALUE)
                    case .record: return UInt8(BCLUA_FIELD_RECORD)
                    }
                }))
            }
            kind.lazy = spec.lazy
            kind.label_field = spec.labelField
            return kind
        }
        return kinds.withUnsafeBufferPointer { bclua_define_kinds(state, $0.baseAddress, Int32($0.count)) } != 0
    }

    /// One value of a run's field for `pushRun` (a `bclua_value`).
    typealias FieldValue = bclua_value
    static func fieldValue(string length: Int) -> FieldValue { var v = FieldValue(); v.type = Int32(BCLUA_VALUE_STRING); v.length = length; return v }
    static func fieldValue(integer: Int64) -> FieldValue { var v = FieldValue(); v.type = Int32(BCLUA_VALUE_INTEGER); v.integer = integer; return v }
    static func fieldValue(float: Double) -> FieldValue { var v = FieldValue(); v.type = Int32(BCLUA_VALUE_FLOAT); v.number = float; return v }
    static func fieldValue(boolean: Bool) -> FieldValue { var v = FieldValue(); v.type = Int32(BCLUA_VALUE_BOOLEAN); v.integer = boolean ? 1 : 0; return v }
    static func fieldValue(record: UnsafeMutableRawPointer) -> FieldValue {
        var v = FieldValue(); v.type = Int32(BCLUA_VALUE_RECORD); v.record = UnsafeRawPointer(record); return v
    }
    /// Pushes a run proxy of `kind` from one value per field (see `bclua_push_run`).
    func pushRun(kind: Int32, values: UnsafeBufferPointer<FieldValue>, index: Int) {
        bclua_push_run(state, kind, values.baseAddress, Int32(values.count), Int64(index))
    }

    /// The string at `index` (strings only; numbers are not converted).
    func string(at index: Int32) -> String? {
        guard lua_type(state, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(state, index, &length) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// The string at `index`, cut after `limit` bytes (on a character boundary) with "… (N bytes)" after
    /// it: text the host keeps from a rule (notes, details, hints) costs the host at most that much,
    /// however long the rule's string (the rules' memory cap does not cover host memory).
    func string(at index: Int32, limit: Int) -> String? {
        guard lua_type(state, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(state, index, &length) else { return nil }
        guard length > limit else { return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self) }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        var end = limit
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a UTF-8 sequence
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self) + "… (\(length) bytes)"
    }

    /// The integer at `index` when it is a Lua integer (not a float), for the fold-state copy.
    func integer(at index: Int32) -> Int64? {
        guard lua_type(state, index) == LUA_TNUMBER, lua_isinteger(state, index) != 0 else { return nil }
        return Int64(lua_tointegerx(state, index, nil))
    }

    /// The bytes of the string at `index`, or nil when it is not valid UTF-8 (or not a string).
    func utf8String(at index: Int32) -> String? {
        guard lua_type(state, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(state, index, &length) else { return nil }
        return String(validating: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// An identity for the table at `index` (its address), to find a table reached twice.
    func identity(at index: Int32) -> UnsafeRawPointer? { lua_topointer(state, index) }

    /// Whether the value at `index` has a metatable (pushes nothing).
    func hasMetatable(at index: Int32) -> Bool {
        guard lua_getmetatable(state, index) != 0 else { return false }
        pop()
        return true
    }

    /// Name and value of upvalue `n` (1-based) of the function at `index`, pushing the value; nil
    /// (pushing nothing) past the last one. C functions' upvalues have the name "".
    func pushUpvalue(ofFunctionAt index: Int32, _ n: Int32) -> String? {
        guard let name = lua_getupvalue(state, index, n) else { return nil }
        return String(cString: name)
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
            let name = kind == .string ? string(at: -1) : nil
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
    func definition(ofFunctionAt index: Int32) -> (file: String, line: Int, lastLine: Int)? {
        guard lua_type(state, index) == LUA_TFUNCTION else { return nil }
        lua_pushvalue(state, index)
        var info = lua_Debug()
        guard lua_getinfo(state, ">S", &info) != 0 else { return nil }
        let source = withUnsafeBytes(of: &info.short_src) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return (source, Int(info.linedefined), Int(info.lastlinedefined))
    }

    /// Loads text-only Lua under `chunkName` (`@rules/x/y.lua`). On failure the message is returned and the stack is unchanged.
    func load(_ bytes: [UInt8], chunkName: String) -> String? {
        loadChunk(bytes, chunkName: chunkName, with: bclua_load_text)
    }

    /// The function on top of the stack as a binary chunk (debug information kept), nil when it
    /// cannot be dumped. For the host's own preludes only (`Prelude.run`).
    func dumpFunction() -> [UInt8]? {
        var length = 0
        guard let bytes = bclua_dump_function(state, &length) else { return nil }
        defer { free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Loads a binary chunk `dumpFunction` made in this process from trusted host code; nil or the
    /// message, as `load`. Never for bytes from a file or a rule: those load as text only.
    func loadOwnBinary(_ bytes: [UInt8], chunkName: String) -> String? {
        loadChunk(bytes, chunkName: chunkName, with: bclua_load_own_binary)
    }

    /// `load` and `loadOwnBinary`: `loader` is the shim that fixes the chunk's mode.
    private func loadChunk(_ bytes: [UInt8], chunkName: String,
                           with loader: (OpaquePointer?, UnsafePointer<CChar>?, Int, UnsafePointer<CChar>?) -> Int32) -> String? {
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                chunkName.withCString { loader(state, chars.baseAddress, chars.count, $0) }
            }
        }
        if status == LUA_OK { return nil }
        // A syntax error quotes the token it stopped at: a whole unfinished long string, however long.
        let message = errorText(at: -1).map { Self.capped($0, limit: Self.errorMessageLimit) } ?? "cannot load \(chunkName)"
        pop()
        return message
    }

    /// The most bytes of a rule's error message the host keeps (4 KiB): `error(string.rep("H", 30e6))`
    /// otherwise went whole to stderr, into the JSON and onto every worker line that names the failure.
    /// Cut here, where a Lua error becomes a Swift value, so that no writer has to remember to.
    static let errorMessageLimit = 4096
    /// The most bytes of a traceback kept (a function named by a long constant key makes long lines).
    static let tracebackLimit = 8192

    /// The bytes of the string at `index`, read in place (nil when it is not a string). Valid while
    /// the value stays on the stack.
    private func errorText(at index: Int32) -> UnsafeRawBufferPointer? {
        guard lua_type(state, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let pointer = lua_tolstring(state, index, &length) else { return nil }
        return UnsafeRawBufferPointer(start: pointer, count: length)
    }

    /// `bytes` as text, cut after `limit` bytes (on a character boundary) with "… (N bytes cut)" after it.
    static func capped(_ bytes: UnsafeRawBufferPointer, limit: Int) -> String {
        guard bytes.count > limit else { return String(decoding: bytes, as: UTF8.self) }
        var end = limit
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a UTF-8 sequence
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self) + "… (\(bytes.count - end) bytes cut)"
    }

    /// `text` cut as `capped(_:limit:)` cuts bytes.
    static func capped(_ text: String, limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var copy = text
        return copy.withUTF8 { capped(UnsafeRawBufferPointer($0), limit: limit) }
    }

    /// The string at `index` as an error message (capped at `errorMessageLimit`); nil when it is not a string.
    func errorMessage(at index: Int32) -> String? {
        errorText(at: index).map { Self.capped($0, limit: Self.errorMessageLimit) }
    }

    /// Sets upvalue 1 (`_ENV` of a main chunk) of the function at `function` to the registry value `envRef`.
    func setEnvironment(ofFunctionAt function: Int32, envRef: Int32) {
        let f = absolute(function)
        push(ref: envRef)
        if lua_setupvalue(state, f, 1) == nil { pop() }
    }

    /// How the messages of the instruction budget and the wall-clock backstop begin (sandbox.c writes them).
    static let instructionsStopped = "instruction budget exhausted"
    static let wallClockStopped = "stopped by the wall-clock backstop"

    /// The limit that stopped a call (`bclua_stop_reason`).
    enum Stop: Equatable {
        case instructions, memory, allocation, wallClock
    }

    /// The outcome of one protected call.
    struct CallError {
        var message: String
        var traceback: String?
        /// Which limit stopped the call; nil for an ordinary error.
        var stop: Stop?
    }

    /// Calls the function below `nargs` arguments with `lua_pcall` (traceback handler, budgets, memory cap).
    /// On success `nresults` values are on the stack; on failure nothing is.
    func call(nargs: Int32, nresults: Int32) -> CallError? {
        let status = bclua_call(state, nargs, nresults)
        if status == LUA_OK { return nil }
        // The message handler appended a traceback: split it off in place, then keep at most
        // `errorMessageLimit` bytes of the message and `tracebackLimit` of the traceback.
        var message = "(error object is not a string)"
        var traceback: String? = nil
        if let raw = errorText(at: -1) {
            let marker = Array("\nstack traceback:\n".utf8)
            var split: Int? = nil
            if let base = raw.baseAddress {
                // The first newline that starts the marker (memchr: a 30 MB message is scanned at memory speed).
                var offset = 0
                while split == nil, offset + marker.count <= raw.count,
                      let hit = memchr(base + offset, 0x0A, raw.count - marker.count + 1 - offset) {
                    let at = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + at, marker, marker.count) == 0 { split = at }
                    offset = at + 1
                }
            }
            if let split {
                message = Self.capped(UnsafeRawBufferPointer(rebasing: raw[0..<split]), limit: Self.errorMessageLimit)
                traceback = "stack traceback:\n" + Self.capped(UnsafeRawBufferPointer(rebasing: raw[(split + marker.count)...]), limit: Self.tracebackLimit)
            } else {
                message = Self.capped(raw, limit: Self.errorMessageLimit)
            }
        }
        pop()
        var stop: Stop? = nil
        switch bclua_stop_reason(state) {
        case Int32(BCLUA_STOP_INSTRUCTIONS): stop = .instructions
        case Int32(BCLUA_STOP_MEMORY): stop = .memory
        case Int32(BCLUA_STOP_ALLOCATION): stop = .allocation
        case Int32(BCLUA_STOP_WALL_CLOCK): stop = .wallClock
        default:
            // A memory error Lua raised for an allocation denied once (the retry after a collection was not
            // attempted, or a pcall-less path): still the memory cap.
            if status == LUA_ERRMEM || (bclua_memory_denied(state) != 0 && message.contains("not enough memory")) { stop = .memory }
        }
        bclua_gc_collect(state)
        if stop == .instructions, !message.contains(Self.instructionsStopped) {
            // The rule's code replaced the stop's error object on its way out (a `__close` handler raising its own).
            message = "\(Self.instructionsStopped) (\(limits.instructionsPerCall) instructions per call)"
        } else if stop == .wallClock, !message.contains(Self.wallClockStopped) {
            message = "\(Self.wallClockStopped) (\(limits.callSeconds) s per call)"
        } else if stop == .memory || stop == .allocation {
            // Lua raises memory errors without a location or a message handler: say which limit, and
            // where the first denied allocation happened.
            message = stop == .memory
                ? "memory limit exceeded (\(limits.memoryBytes / (1 << 20)) MB for rules in one evaluation)"
                : "allocation budget exhausted (\(limits.allocationBytesPerCall / (1 << 20)) MB allocated per call)"
            var source: UnsafePointer<CChar>? = nil
            let line = bclua_denied_location(state, &source)
            if line > 0, let source {
                message = "\(String(cString: source)):\(line): " + message
            }
        }
        return CallError(message: message, traceback: traceback, stop: stop)
    }
}

/// Ids of the host functions the C trampoline dispatches to (`bclua_push_host_function`).
/// One table, dispatched in one place (`HostFunctions.dispatch`) for evaluations, pack files and test
/// files: a run's lazy fields (0) and measures are answered by the same `RunTable` in all of them.
enum HostFunction: Int32 {
    /// A run's field built on first read (token: the run's index).
    case lazyField = 0
    /// A rule's `award` / `ctx.note` (token: the rule); `print` / `require` of a pack (token: the pack).
    case award = 1, note, print, require
    /// The test API (`Lua/test_prelude.lua`): `t.run`, `t.evaluate`, expectation failures, `where`,
    /// and a test file's `print` and `require`.
    case testRun = 10, testEvaluate, testFail, testWhere, testPrint, testRequire
    /// A read of `run.measures.<name>` and a write to it (token: the run's index); a read of a field
    /// a measure value does not have (token: the kind's index in `MeasureKind.all`).
    case measure = 20, measureWrite, measureField
    /// A saved map's key read, and all its keys (token: the map's handle in `FoldStates`).
    case savedMapKey = 30, savedMapAll
    /// `badgectl.zone_offset_s(zone, epoch_s)`: a zone's UTC offset at an instant (no token).
    case zoneOffset = 40
    /// `badgectl.format_distance`, `format_duration`, `format_pace`, `format_tier_pace`: a figure's
    /// text by `FigureText` (no token; the prelude checked the argument is a number).
    case figureDistance = 41, figureDuration, figurePace, figureTierPace
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

extension LuaState {
    /// The index of the candidate closest to `word` by the shim's suggester (`bclua_suggest`, the one
    /// the unknown-field errors of run values use inside their C calls), nil when none is close enough.
    /// `maxDistance` nil: the shim's own limit. SuggestionTests holds `Suggestion` (Swift) to it.
    static func closestIndex(to word: String, in candidates: [String], maxDistance: Int?) -> Int? {
        guard !candidates.isEmpty else { return nil }
        var bytes: [UInt8] = []
        var starts: [Int] = []
        var lengths: [Int] = []
        for candidate in candidates {
            starts.append(bytes.count)
            lengths.append(candidate.utf8.count)
            bytes.append(contentsOf: candidate.utf8)
        }
        bytes.append(0)  // never empty, so the buffer has an address
        let keyLength = word.utf8.count
        let index: Int = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else { return -1 }
            let names: [UnsafePointer<CChar>?] = starts.map { UnsafePointer(base + $0) }
            return word.withCString { key in
                Int(bclua_suggest(key, keyLength, names, lengths, candidates.count, maxDistance ?? -1))
            }
        }
        return index >= 0 ? index : nil
    }
}
