// What keeps a stopped call stopped and charges C library work to the instruction budget:
// - pcall and xpcall that re-raise a stop (the instruction budget, memory, the allocation budget,
//   the wall clock) at once, without calling the rule's message handler; an error that comes while a
//   denied allocation has not been retried successfully is the memory limit, and a stop too (lauxlib's
//   buffers raise "not enough memory" as an ordinary error after a single denial);
// - the library functions whose loops the VM does not count (table.sort, concat, insert, remove,
//   move, unpack; utf8.len, offset, codepoint; string.byte, pack, unpack, packsize; tonumber),
//   wrapped so that they charge their work first and then run the library's own function in the
//   same call frame (so its argument errors and locations read exactly as before).
// The pattern functions and string.rep come from the carried matcher (lstrlib_patterns.c).
// Coroutines are not opened at all (the sandbox has no `coroutine`), so no other thread can run Lua.
// Whoever adds them must set the count hook on each new thread (lua_sethook is per thread) and make
// resume/wrap re-raise a stop the way finish_protected does.
#include "internal.h"

// MARK: - pcall and xpcall that cannot catch a stop

// As the base library's finishpcall, except that a stop goes on up (the error object is on top).
static int finish_protected(lua_State *state, int status, int extra) {
    if (status != LUA_OK) {
        bclua_control *c = control(state);
        if (c->pending_denial) bclua_internal_mark_stopped(c, BCLUA_STOP_MEMORY);
        if (c->stop) return lua_error(state);
        lua_pushboolean(state, 0);
        lua_pushvalue(state, -2);
        return 2;
    }
    return lua_gettop(state) - extra;
}

static int guarded_pcall(lua_State *state) {
    luaL_checkany(state, 1);
    lua_pushboolean(state, 1);  // first result when there is no error
    lua_insert(state, 1);
    int status = lua_pcall(state, lua_gettop(state) - 2, LUA_MULTRET, 0);
    return finish_protected(state, status, 0);
}

// The message handler xpcall installs: the rule's handler (upvalue 1) runs only for ordinary errors;
// a stop passes through untouched, so a handler that loops or errors cannot hold the call up.
static int guarded_handler(lua_State *state) {
    bclua_control *c = control(state);
    if (c->pending_denial) bclua_internal_mark_stopped(c, BCLUA_STOP_MEMORY);
    if (c->stop) return 1;
    lua_pushvalue(state, lua_upvalueindex(1));
    lua_insert(state, 1);
    lua_call(state, lua_gettop(state) - 1, 1);
    return 1;
}

static int guarded_xpcall(lua_State *state) {
    int n = lua_gettop(state);
    luaL_checktype(state, 2, LUA_TFUNCTION);
    lua_pushvalue(state, 2);
    lua_pushcclosure(state, guarded_handler, 1);
    lua_replace(state, 2);
    lua_pushboolean(state, 1);  // first result
    lua_pushvalue(state, 1);    // the function
    lua_rotate(state, 3, 2);    // both under the arguments
    int status = lua_pcall(state, n - 2, LUA_MULTRET, 2);
    return finish_protected(state, status, 2);
}

// MARK: - Library functions charged before they run

enum {
    CHARGE_SORT = 1, CHARGE_CONCAT, CHARGE_INSERT, CHARGE_REMOVE, CHARGE_MOVE, CHARGE_UNPACK,
    CHARGE_UTF8_SCAN, CHARGE_BYTE, CHARGE_PACK, CHARGE_UNPACK_STRING, CHARGE_TONUMBER
};

// The length the table functions will work with (luaL_len, so a __len metamethod counts as it does
// for them), or 0 when the value is neither a table nor has __len (the function then raises its own error).
static lua_Integer work_length(lua_State *state, int index) {
    if (lua_type(state, index) != LUA_TTABLE) {
        if (luaL_getmetafield(state, index, "__len") == LUA_TNIL) return 0;
        lua_pop(state, 1);
    }
    return luaL_len(state, index);
}

static lua_Integer integer_or(lua_State *state, int index, lua_Integer fallback) {
    int ok = 0;
    lua_Integer value = lua_tointegerx(state, index, &ok);
    return ok ? value : fallback;
}

static long long span(lua_Integer from, lua_Integer to) {
    if (to < from) return 0;
    lua_Unsigned count = (lua_Unsigned)to - (lua_Unsigned)from + 1u;
    return count > (lua_Unsigned)(1LL << 62) ? (1LL << 62) : (long long)count;
}

static long long string_steps(lua_State *state, int index, int bytes_per_step) {
    size_t length = 0;
    if (lua_type(state, index) == LUA_TSTRING) lua_tolstring(state, index, &length);
    return 1 + (long long)(length / (size_t)bytes_per_step);
}

// What `kind` of function will do with these arguments, in instruction steps (an estimate from above;
// deterministic: it depends on the arguments only).
static long long work_of(lua_State *state, int kind) {
    switch (kind) {
    case CHARGE_SORT: {  // n·log2 n comparisons (n clipped: far past any budget, and no overflow from a __len)
        lua_Integer length = work_length(state, 1);
        long long n = length < 0 ? 0 : length > (1LL << 40) ? (1LL << 40) : (long long)length, steps = n, log = 0;
        while (n > 1) { log++; n >>= 1; }
        return steps * (log + 1);
    }
    case CHARGE_CONCAT:
        return 1 + span(integer_or(state, 3, 1), lua_isnoneornil(state, 4) ? work_length(state, 1) : integer_or(state, 4, 0));
    case CHARGE_INSERT:  // elements moved up
        if (lua_gettop(state) != 3) return 1;
        return 1 + span(integer_or(state, 2, 1), work_length(state, 1));
    case CHARGE_REMOVE:  // elements moved down
        if (lua_isnoneornil(state, 2)) return 1;
        return 1 + span(integer_or(state, 2, 1), work_length(state, 1));
    case CHARGE_MOVE:
        return 1 + span(integer_or(state, 2, 1), integer_or(state, 3, 0));
    case CHARGE_UNPACK:
        return 1 + span(integer_or(state, 2, 1), lua_isnoneornil(state, 3) ? work_length(state, 1) : integer_or(state, 3, 0));
    case CHARGE_UTF8_SCAN:  // one step per byte decoded
        return string_steps(state, 1, 1);
    case CHARGE_BYTE:  // one step per value pushed
        return lua_gettop(state) >= 3 ? string_steps(state, 1, 1) : 1;
    case CHARGE_PACK:  // one step per format byte
        return string_steps(state, 1, 1);
    case CHARGE_UNPACK_STRING:  // the format, and the data it may scan ('z')
        return string_steps(state, 1, 1) + string_steps(state, 2, BCLUA_BYTES_PER_STEP);
    case CHARGE_TONUMBER:
        return string_steps(state, 1, 1);
    default:
        return 1;
    }
}

// Upvalue 1: the library's function (a light C function), upvalue 2: the charge kind, upvalue 3: its
// name for the message. The library function runs in this very frame: it sees the same arguments and
// its errors name the same function and line as when the rule calls it directly.
static int charged(lua_State *state) {
    bclua_control *c = control(state);
    int kind = (int)lua_tointeger(state, lua_upvalueindex(2));
    long long steps = work_of(state, kind);
    if (c->stop || steps >= c->remaining) {
        bclua_internal_charge(state, c, steps, lua_tostring(state, lua_upvalueindex(3)));
    }
    c->remaining -= steps;
    lua_CFunction library = lua_tocfunction(state, lua_upvalueindex(1));
    return library(state);
}

// Replaces field `name` of the table on top with its charged version.
static void charge(lua_State *state, const char *library, const char *name, int kind) {
    if (lua_getfield(state, -1, name) != LUA_TFUNCTION || lua_tocfunction(state, -1) == NULL) {
        lua_pop(state, 1);
        return;
    }
    lua_pushinteger(state, kind);
    lua_pushfstring(state, "%s%s%s", library, *library ? "." : "", name);
    lua_pushcclosure(state, charged, 3);
    lua_setfield(state, -2, name);
}

void bclua_internal_guard_libraries(lua_State *state) {
    lua_pushglobaltable(state);
    lua_pushcfunction(state, guarded_pcall);
    lua_setfield(state, -2, "pcall");
    lua_pushcfunction(state, guarded_xpcall);
    lua_setfield(state, -2, "xpcall");
    charge(state, "", "tonumber", CHARGE_TONUMBER);
    lua_pop(state, 1);

    lua_getglobal(state, LUA_TABLIBNAME);
    charge(state, "table", "sort", CHARGE_SORT);
    charge(state, "table", "concat", CHARGE_CONCAT);
    charge(state, "table", "insert", CHARGE_INSERT);
    charge(state, "table", "remove", CHARGE_REMOVE);
    charge(state, "table", "move", CHARGE_MOVE);
    charge(state, "table", "unpack", CHARGE_UNPACK);
    lua_pop(state, 1);

    lua_getglobal(state, LUA_UTF8LIBNAME);
    charge(state, "utf8", "len", CHARGE_UTF8_SCAN);
    charge(state, "utf8", "offset", CHARGE_UTF8_SCAN);
    charge(state, "utf8", "codepoint", CHARGE_UTF8_SCAN);
    lua_pop(state, 1);

    lua_getglobal(state, LUA_STRLIBNAME);
    charge(state, "string", "byte", CHARGE_BYTE);
    charge(state, "string", "pack", CHARGE_PACK);
    charge(state, "string", "packsize", CHARGE_PACK);
    charge(state, "string", "unpack", CHARGE_UNPACK_STRING);
    bclua_internal_register_patterns(state);
    lua_pop(state, 1);
}
