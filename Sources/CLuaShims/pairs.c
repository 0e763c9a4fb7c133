// Deterministic iteration for rules: pairs in a fixed key order (string hashes are seeded per
// state, so Lua's own order varies), and the opening of the allow-listed libraries.
#include "internal.h"

// MARK: - Deterministic pairs

typedef struct { int rank; lua_Integer integer; double number; int is_integer; const char *text; size_t length; int order; } sort_key;

static int compare_keys(const void *pa, const void *pb) {
    const sort_key *a = (const sort_key *)pa, *b = (const sort_key *)pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->rank == 0) {  // numbers
        if (a->is_integer && b->is_integer) {
            if (a->integer != b->integer) return a->integer < b->integer ? -1 : 1;
        } else {
            double x = a->is_integer ? (double)a->integer : a->number;
            double y = b->is_integer ? (double)b->integer : b->number;
            if (x != y) return x < y ? -1 : 1;
            if (a->is_integer != b->is_integer) return a->is_integer ? -1 : 1;
        }
    } else if (a->rank == 1) {  // strings, bytewise
        size_t n = a->length < b->length ? a->length : b->length;
        int d = memcmp(a->text, b->text, n);
        if (d != 0) return d;
        if (a->length != b->length) return a->length < b->length ? -1 : 1;
    } else if (a->rank == 2) {  // booleans
        if (a->integer != b->integer) return a->integer < b->integer ? -1 : 1;
    }
    return a->order < b->order ? -1 : (a->order > b->order ? 1 : 0);
}

static int sorted_next(lua_State *state) {
    // upvalue 1: sorted keys, upvalue 2: position
    lua_Integer position = lua_tointeger(state, lua_upvalueindex(2));
    for (;;) {
        position++;
        if (lua_rawgeti(state, lua_upvalueindex(1), position) == LUA_TNIL) {
            lua_pushinteger(state, position);
            lua_replace(state, lua_upvalueindex(2));
            return 1;
        }
        lua_pushvalue(state, -1);
        if (lua_rawget(state, 1) != LUA_TNIL) {
            lua_pushinteger(state, position);
            lua_replace(state, lua_upvalueindex(2));
            return 2;
        }
        lua_pop(state, 2);  // removed while iterating
    }
}

// pairs(t): honours __pairs; otherwise keys in a fixed order: numbers ascending, then strings
// bytewise, then false, true, then other keys (tables, functions) in table order.
static int sorted_pairs(lua_State *state) {
    luaL_checkany(state, 1);
    if (luaL_getmetafield(state, 1, "__pairs") != LUA_TNIL) {
        lua_pushvalue(state, 1);
        lua_call(state, 1, 3);
        return 3;
    }
    luaL_checktype(state, 1, LUA_TTABLE);
    lua_settop(state, 1);
    lua_Integer count = 0;
    lua_pushnil(state);
    while (lua_next(state, 1) != 0) { lua_pop(state, 1); count++; }
    lua_createtable(state, (int)count, 0);  // 2: keys in table order
    sort_key *keys = (sort_key *)lua_newuserdatauv(state, sizeof(sort_key) * (size_t)(count > 0 ? count : 1), 0);  // 3
    lua_Integer n = 0;
    lua_pushnil(state);
    while (lua_next(state, 1) != 0) {
        lua_pop(state, 1);
        n++;
        lua_pushvalue(state, -1);
        lua_rawseti(state, 2, n);
        sort_key *k = &keys[n - 1];
        memset(k, 0, sizeof *k);
        k->order = (int)n;
        switch (lua_type(state, -1)) {
        case LUA_TNUMBER:
            k->rank = 0;
            k->is_integer = lua_isinteger(state, -1);
            if (k->is_integer) k->integer = lua_tointeger(state, -1); else k->number = lua_tonumber(state, -1);
            break;
        case LUA_TSTRING:
            k->rank = 1;
            k->text = lua_tolstring(state, -1, &k->length);  // anchored by the keys table
            break;
        case LUA_TBOOLEAN:
            k->rank = 2;
            k->integer = lua_toboolean(state, -1);
            break;
        default:
            k->rank = 3;
        }
    }
    long long steps = n, log = 0;  // the sort's n·log2 n comparisons, charged to the call's budget
    for (lua_Integer m = n; m > 1; m >>= 1) log++;
    bclua_internal_charge(state, control(state), steps * (log + 1), "pairs");
    qsort(keys, (size_t)n, sizeof(sort_key), compare_keys);
    lua_createtable(state, (int)n, 0);  // 4: sorted keys
    for (lua_Integer i = 0; i < n; i++) {
        lua_rawgeti(state, 2, keys[i].order);
        lua_rawseti(state, 4, i + 1);
    }
    lua_pushinteger(state, 0);
    lua_pushcclosure(state, sorted_next, 2);
    lua_pushvalue(state, 1);
    lua_pushnil(state);
    return 3;
}

void bclua_open_libraries(lua_State *state) {
    luaL_requiref(state, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(state, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(state, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(state, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(state, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    lua_pop(state, 5);
    bclua_internal_guard_libraries(state);
    lua_pushcfunction(state, sorted_pairs);
    lua_setglobal(state, "badgectl_sorted_pairs");
    lua_getglobal(state, "ipairs");
    lua_pushcclosure(state, bclua_internal_fast_ipairs, 1);
    lua_setglobal(state, "badgectl_ipairs");
    bclua_internal_register_geo(state);
    // Rules make many short-lived tables per call; the generational collector suits that best.
    lua_gc(state, LUA_GCINC, 200, 100, 0);
}
