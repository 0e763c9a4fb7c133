// Table proxies: a userdata over a table, read-only. Runs (bclua_push_run: each with a metatable of
// its own whose __index is the data table, so a present field is a plain read in the VM; lazy fields
// built by the host on first read) and the catalogue (bclua_make_proxy).
#include "internal.h"

// Every name here (kinds, fields) comes from Swift through bclua_define_kinds: the run schema is
// declared once, in Swift. The host's index of a run sits in its data table under this key (a
// light userdata: no rule can spell it, and pairs lists the declared fields only).
static const char run_index_key = 0;

// The key at index 2 is not in the table at `data` (a proxy's or a run's data). A lazy
// field (upvalue 4) is built by the host once and kept in `data`; another known field (upvalue 2)
// reads nil; an unknown name raises, with a suggestion from the field order (upvalue 3).
static int missing_field(lua_State *state, int data, const char *kind) {
    int top = lua_gettop(state);
    lua_pushvalue(state, 2);
    if (lua_rawget(state, lua_upvalueindex(2)) != LUA_TNIL) {  // known field
        lua_settop(state, top);
        if (!lua_isnil(state, lua_upvalueindex(4))) {
            lua_pushvalue(state, 2);
            if (lua_rawget(state, lua_upvalueindex(4)) != LUA_TNIL) {  // lazy: ask the host to build it
                lua_settop(state, top);
                lua_rawgetp(state, data, &run_index_key);
                long long run_index = (long long)lua_tointeger(state, -1);
                lua_settop(state, top);
                int results = bclua_internal_call_host(state, 0, run_index);
                if (results < 0) return lua_error(state);
                lua_settop(state, top + 1);
                lua_pushvalue(state, 2);
                lua_pushvalue(state, top + 1);
                lua_rawset(state, data);
                return 1;
            }
        }
        lua_pushnil(state);
        return 1;
    }
    size_t key_length = 0;
    const char *key = lua_tolstring(state, 2, &key_length);
    const char *best = bclua_internal_suggest(state, lua_upvalueindex(3), key, key_length);
    if (best != NULL) return luaL_error(state, "no field '%s' in %s; did you mean '%s'?", key, kind, best);
    return luaL_error(state, "no field '%s' in %s", key, kind);
}

// __index(proxy, key). Upvalues: 1 kind name, 2 known set (name -> position) or nil for arrays,
// 3 field order, 4 lazy set or nil.
static int proxy_index(lua_State *state) {
    lua_settop(state, 2);
    lua_getiuservalue(state, 1, 1);  // 3: data
    lua_pushvalue(state, 2);
    if (lua_rawget(state, 3) != LUA_TNIL) return 1;
    lua_pop(state, 1);
    const char *kind = lua_tostring(state, lua_upvalueindex(1));
    if (lua_isnil(state, lua_upvalueindex(2))) {  // array
        if (lua_type(state, 2) == LUA_TNUMBER) { lua_pushnil(state); return 1; }
        if (lua_type(state, 2) == LUA_TSTRING) {
            return luaL_error(state, "no field '%s' in %s (an array: index it with 1..#%s)", lua_tostring(state, 2), kind, kind);
        }
        return luaL_error(state, "%s is an array: index it with 1..#%s", kind, kind);
    }
    if (lua_type(state, 2) != LUA_TSTRING) {
        return luaL_error(state, "no field [%s] in %s (field names are strings)", luaL_typename(state, 2), kind);
    }
    return missing_field(state, 3, kind);
}

static int proxy_newindex(lua_State *state) {
    const char *kind = lua_tostring(state, lua_upvalueindex(1));
    return luaL_error(state, "%s is read-only (copy what you need into your own table)", kind);
}

static int proxy_len(lua_State *state) {
    lua_getiuservalue(state, 1, 1);
    lua_pushinteger(state, (lua_Integer)lua_rawlen(state, -1));
    return 1;
}

// Iterator for records: fields in their documented order, nil fields skipped.
static int proxy_record_next(lua_State *state) {
    // upvalues: 1 known set, 2 order
    lua_Integer position = 0;
    if (!lua_isnoneornil(state, 2)) {
        lua_pushvalue(state, 2);
        lua_rawget(state, lua_upvalueindex(1));
        position = lua_tointeger(state, -1);
        lua_pop(state, 1);
    }
    lua_Integer count = (lua_Integer)lua_rawlen(state, lua_upvalueindex(2));
    for (lua_Integer i = position + 1; i <= count; i++) {
        lua_rawgeti(state, lua_upvalueindex(2), i);
        lua_pushvalue(state, -1);
        if (lua_gettable(state, 1) != LUA_TNIL) return 2;
        lua_pop(state, 2);
    }
    lua_pushnil(state);
    return 1;
}

static int proxy_array_next(lua_State *state) {
    // Rules can call this iterator (from pairs) with anything: only an array proxy, whose first
    // user value is its table, may be read; anything else is a Lua error, never a crash.
    if (lua_type(state, 1) != LUA_TUSERDATA) return luaL_error(state, "attempt to iterate over a %s value", luaL_typename(state, 1));
    lua_Integer previous = luaL_optinteger(state, 2, 0);
    if (lua_getiuservalue(state, 1, 1) != LUA_TTABLE) return luaL_error(state, "attempt to iterate over a userdata value");
    if (previous < 0 || previous >= LUA_MAXINTEGER) { lua_pushnil(state); return 1; }
    lua_Integer i = previous + 1;
    if (lua_rawgeti(state, -1, i) == LUA_TNIL) { lua_pushnil(state); return 1; }
    lua_pushinteger(state, i);
    lua_insert(state, -2);
    return 2;
}

static int proxy_pairs(lua_State *state) {
    if (lua_isnil(state, lua_upvalueindex(2))) {
        lua_pushcfunction(state, proxy_array_next);
    } else {
        lua_pushvalue(state, lua_upvalueindex(2));
        lua_pushvalue(state, lua_upvalueindex(3));
        lua_pushcclosure(state, proxy_record_next, 2);
    }
    lua_pushvalue(state, 1);
    lua_pushnil(state);
    return 3;
}

// Upvalues: 1 kind name, 2 known set (nil for arrays), 3 the label field's name or nil.
static int proxy_tostring(lua_State *state) {
    const char *kind = lua_tostring(state, lua_upvalueindex(1));
    lua_getiuservalue(state, 1, 1);
    if (!lua_isnil(state, lua_upvalueindex(3))) {  // "run <id>"
        lua_pushvalue(state, lua_upvalueindex(3));
        lua_rawget(state, -2);
        lua_pushfstring(state, "%s %s", kind, lua_tostring(state, -1) ? lua_tostring(state, -1) : "?");
    } else if (lua_isnil(state, lua_upvalueindex(2))) {
        lua_pushfstring(state, "%s (%d entries)", kind, (int)lua_rawlen(state, -1));
    } else {
        lua_pushstring(state, kind);
    }
    return 1;
}

// __index(data, key) of a run's data table: the key is not (yet) in it. A run's own metatable has
// the data table as __index, so present fields are read by the VM without a call; this handles the
// rest as proxy_index does: lazy arrays are built once and kept, known nil fields read nil, unknown
// names raise with a suggestion. Upvalues as proxy_index.
static int run_missing(lua_State *state) {
    lua_settop(state, 2);
    const char *kind = lua_tostring(state, lua_upvalueindex(1));
    if (lua_type(state, 2) != LUA_TSTRING) {
        return luaL_error(state, "no field [%s] in %s (field names are strings)", luaL_typename(state, 2), kind);
    }
    return missing_field(state, 1, kind);
}

// The names of a spec, NUL-separated, as a known set (name -> position) and an order (position -> name),
// pushed in that order; for an array kind, nil and an empty order.
static void push_field_tables(lua_State *state, const bclua_kind *spec) {
    if (spec->fields == NULL) {
        lua_pushnil(state);
        lua_newtable(state);
        return;
    }
    lua_createtable(state, 0, spec->field_count);
    lua_createtable(state, spec->field_count, 0);
    const char *name = spec->fields;
    for (int i = 0; i < spec->field_count; i++) {
        lua_pushstring(state, name);
        lua_pushinteger(state, i + 1);
        lua_rawset(state, -4);
        lua_pushstring(state, name);
        lua_rawseti(state, -2, i + 1);
        name += strlen(name) + 1;
    }
}

// A table proxy kind: a userdata whose user value is its table (bclua_make_proxy), or a run
// (bclua_push_run: a metatable of its own whose __index is the data table).
static void define_proxy_kind(lua_State *state, bclua_control *c, const bclua_kind *spec) {
    lua_createtable(state, 0, 8);  // metatable
    int metatable = lua_gettop(state);
    // upvalues shared by the metamethods
    lua_pushstring(state, spec->name);                            // first: kind name
    push_field_tables(state, spec);                               // + 1 known set, + 2 order
    if (spec->lazy != 0) {                                        // + 3 lazy set
        lua_newtable(state);
        for (int i = 0; i < spec->field_count && i < 64; i++) {
            if (!((spec->lazy >> i) & 1u)) continue;
            lua_rawgeti(state, metatable + 3, i + 1);
            lua_pushboolean(state, 1);
            lua_rawset(state, -3);
        }
    } else {
        lua_pushnil(state);
    }
    int first = metatable + 1;
    for (int i = 0; i < 4; i++) lua_pushvalue(state, first + i);
    lua_pushcclosure(state, proxy_index, 4);
    lua_setfield(state, metatable, "__index");
    // The metatable of the data tables of bclua_push_run: present fields are plain reads in the VM.
    lua_createtable(state, 0, 1);
    for (int i = 0; i < 4; i++) lua_pushvalue(state, first + i);
    lua_pushcclosure(state, run_missing, 4);
    lua_setfield(state, -2, "__index");
    c->data_metatables[spec->kind] = luaL_ref(state, LUA_REGISTRYINDEX);
    lua_pushvalue(state, first + 2);
    c->orders[spec->kind] = luaL_ref(state, LUA_REGISTRYINDEX);
    lua_pushvalue(state, first);
    lua_pushcclosure(state, proxy_newindex, 1);
    lua_setfield(state, metatable, "__newindex");
    lua_pushcfunction(state, proxy_len);
    lua_setfield(state, metatable, "__len");
    for (int i = 0; i < 3; i++) lua_pushvalue(state, first + i);
    lua_pushcclosure(state, proxy_pairs, 3);
    lua_setfield(state, metatable, "__pairs");
    lua_pushvalue(state, first);
    lua_pushvalue(state, first + 1);
    if (spec->label_field > 0 && spec->label_field <= spec->field_count) lua_rawgeti(state, first + 2, spec->label_field);
    else lua_pushnil(state);
    lua_pushcclosure(state, proxy_tostring, 3);
    lua_setfield(state, metatable, "__tostring");
    lua_pushstring(state, spec->name);
    lua_setfield(state, metatable, "__name");
    lua_pushliteral(state, "read-only");
    lua_setfield(state, metatable, "__metatable");
    lua_settop(state, metatable);
    c->kinds[spec->kind] = luaL_ref(state, LUA_REGISTRYINDEX);
}


int bclua_define_kinds(lua_State *state, const bclua_kind *kinds, int count) {
    bclua_control *c = control(state);
    for (int k = 0; k < count; k++) {
        const bclua_kind *spec = &kinds[k];
        if (spec->kind < 0 || spec->kind >= BCLUA_KIND_MAX || spec->field_count < 0) return 0;
        if (spec->shape == BCLUA_SHAPE_RECORD && (spec->field_count > BCLUA_RECORD_MAX_FIELDS || spec->types == NULL)) return 0;
        if (spec->shape == BCLUA_SHAPE_PROXY) define_proxy_kind(state, c, spec);
    }
    bclua_internal_define_light_kinds(state, c, kinds, count);
    return 1;
}

void bclua_make_proxy(lua_State *state, int kind) {
    bclua_control *c = control(state);
    lua_newuserdatauv(state, 0, 1);
    lua_insert(state, -2);
    lua_setiuservalue(state, -2, 1);
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->kinds[kind]);
    lua_setmetatable(state, -2);
}

// A key only runs' metatables hold (each run has its own metatable; see bclua_push_run).
static const char run_marker = 0;

long long bclua_run_index(lua_State *state, int index) {
    index = lua_absindex(state, index);
    if (lua_type(state, index) != LUA_TUSERDATA) return 0;
    if (!lua_getmetatable(state, index)) return 0;
    int same = lua_rawgetp(state, -1, &run_marker) == LUA_TBOOLEAN;
    lua_pop(state, 2);
    if (!same) return 0;
    lua_getiuservalue(state, index, 1);
    lua_rawgetp(state, -1, &run_index_key);
    long long value = (long long)lua_tointeger(state, -1);
    lua_pop(state, 2);
    return value;
}

void bclua_push_run(lua_State *state, int kind, const bclua_value *values, int count, long long index) {
    bclua_control *c = control(state);
    lua_createtable(state, 0, count + 2);
    int data = lua_gettop(state);
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->orders[kind]);  // data + 1: the field names
    for (int i = 0; i < count; i++) {
        const bclua_value *value = &values[i];
        if (value->type == BCLUA_VALUE_NIL) continue;
        lua_rawgeti(state, data + 1, i + 1);
        switch (value->type) {
        case BCLUA_VALUE_FLOAT: lua_pushnumber(state, value->number); break;
        case BCLUA_VALUE_INTEGER: lua_pushinteger(state, (lua_Integer)value->integer); break;
        case BCLUA_VALUE_STRING: lua_pushlstring(state, value->text, value->length); break;
        case BCLUA_VALUE_RECORD: lua_pushlightuserdata(state, (void *)value->record); break;
        case BCLUA_VALUE_BOOLEAN: lua_pushboolean(state, value->integer != 0); break;
        default: lua_pushnil(state);
        }
        lua_rawset(state, data);
    }
    lua_pop(state, 1);
    lua_pushinteger(state, (lua_Integer)index);
    lua_rawsetp(state, data, &run_index_key);
    // The proxy keeps the data table as its user value (pairs, tostring and run_index read it there)
    // and has a metatable of its own: the shared run metamethods with __index = the data table, so a
    // present field is a plain table read in the VM. Missing keys fall to the data table's metatable.
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->data_metatables[kind]);
    lua_setmetatable(state, data);
    lua_newuserdatauv(state, 0, 1);                                    // data + 1: proxy
    lua_pushvalue(state, data);
    lua_setiuservalue(state, data + 1, 1);
    lua_createtable(state, 0, 10);                                     // data + 2: its metatable
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->kinds[kind]);               // data + 3: the shared one
    lua_pushnil(state);
    while (lua_next(state, data + 3) != 0) {
        lua_pushvalue(state, -2);
        lua_insert(state, -2);
        lua_rawset(state, data + 2);
    }
    lua_pop(state, 1);
    lua_pushvalue(state, data);
    lua_setfield(state, data + 2, "__index");
    lua_pushboolean(state, 1);
    lua_rawsetp(state, data + 2, &run_marker);
    lua_setmetatable(state, data + 1);
    lua_replace(state, data);
}
