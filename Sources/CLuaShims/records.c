// Light records: every other read-only value rules get (splits, efforts, checkpoints, dropped
// entries, elevation, sensors, fastest, ctx), in host memory, read by the types the host gave; and
// the one "did you mean" suggester of the shim.
#include "internal.h"

// MARK: - Suggestions

// Levenshtein distance over bytes. The row is on the stack for names of up to 64 bytes (every
// field name), on the heap beyond; (size_t)-1 when that allocation fails.
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb) {
    size_t small[65];
    size_t *row = small;
    if (lb > 64) {
        row = malloc((lb + 1) * sizeof(size_t));
        if (row == NULL) return (size_t)-1;
    }
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t above = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diagonal + cost;
            if (above + 1 < best) best = above + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    size_t result = row[lb];
    if (row != small) free(row);
    return result;
}

// The `index`th name of a list and its length, NULL to pass over it.
typedef const char *(*name_at)(void *context, size_t index, size_t *length);

// The one suggester: the index of the name closest to `key` (a name that starts with the key or
// that the key starts with, at least 2 bytes in common, first, the nearest in length; else the
// nearest by edit distance within `max_distance`, a third of the key's length between 1 and 3
// when negative); ties go to the first. -1 when none is close enough.
static long suggest(const char *key, size_t key_length, size_t count, name_at at, void *context, long max_distance) {
    long best = -1;
    size_t best_score = (size_t)-1;
    size_t limit = max_distance >= 0 ? (size_t)max_distance
                 : (key_length / 3 < 1 ? 1 : (key_length / 3 > 3 ? 3 : key_length / 3));
    for (int pass = 0; pass < 2 && best < 0; pass++) {
        for (size_t i = 0; i < count; i++) {
            size_t length = 0;
            const char *name = at(context, i, &length);
            if (name == NULL) continue;
            size_t score;
            if (pass == 0) {
                size_t shorter = key_length < length ? key_length : length;
                if (shorter < 2 || memcmp(key, name, shorter) != 0) continue;
                score = length > key_length ? length - key_length : key_length - length;
            } else {
                score = edit_distance(key, key_length, name, length);
                if (score == (size_t)-1 || score > limit) continue;
            }
            if (score < best_score) { best_score = score; best = (long)i; }
        }
    }
    return best;
}

struct name_list { const char *const *names; const size_t *lengths; };

static const char *list_name_at(void *context, size_t index, size_t *length) {
    struct name_list *list = context;
    *length = list->lengths[index];
    return list->names[index];
}

long bclua_suggest(const char *key, size_t key_length, const char *const *names, const size_t *lengths, size_t count, long max_distance) {
    struct name_list list = { names, lengths };
    return suggest(key, key_length, count, list_name_at, &list, max_distance);
}

struct order_table { lua_State *state; int index; };

static const char *order_name_at(void *context, size_t index, size_t *length) {
    struct order_table *order = context;
    lua_rawgeti(order->state, order->index, (lua_Integer)index + 1);
    const char *name = lua_tolstring(order->state, -1, length);
    lua_pop(order->state, 1);  // still anchored by the order table
    return name;
}

// The known name (order table at `order_index`) closest to `key`, or NULL: `suggest` over it.
const char *bclua_internal_suggest(lua_State *state, int order_index, const char *key, size_t key_length) {
    struct order_table order = { state, lua_absindex(state, order_index) };
    size_t count = (size_t)lua_rawlen(state, order.index);
    long best = suggest(key, key_length, count, order_name_at, &order, -1);
    if (best < 0) return NULL;
    size_t length = 0;
    return order_name_at(&order, (size_t)best, &length);
}


// MARK: - Light records

// Splits, efforts, checkpoints and dropped entries of the evaluated runs are light userdata that
// point at records in host-owned memory (an arena freed by bclua_close): no allocation, no
// collection and no finalizer per record, and the same record is the same value for every rule.
// Every light userdata of the state is one of these (rules cannot make light userdata), so the one
// metatable Lua allows for them dispatches on the record's `kind`. They are read-only: no metamethod
// writes, and the memory is never handed to rules as anything but these values.

void *bclua_records(lua_State *state, size_t bytes) {
    bclua_control *c = control(state);
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes == 0) bytes = 16;
    struct arena_chunk *chunk = c->arena;
    if (chunk == NULL || chunk->size - chunk->used < bytes) {
        size_t size = bytes > (size_t)1 << 20 ? bytes : (size_t)1 << 20;
        struct arena_chunk *fresh = (struct arena_chunk *)malloc(sizeof(struct arena_chunk) + 16 + size);
        if (fresh == NULL) return NULL;
        fresh->next = c->arena;
        fresh->used = 0;
        fresh->size = size;
        c->arena = fresh;
        chunk = fresh;
    }
    char *base = (char *)(chunk + 1);
    base += (16 - ((size_t)base & 15)) & 15;
    void *block = base + chunk->used;
    chunk->used += bytes;
    memset(block, 0, bytes);
    return block;
}

int bclua_add_string(lua_State *state, const char *text, size_t length) {
    bclua_control *c = control(state);
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->strings_ref);
    lua_pushlstring(state, text, length);
    c->string_count++;
    lua_rawseti(state, -2, c->string_count);
    lua_pop(state, 1);
    return (int)c->string_count;
}

int bclua_add_value(lua_State *state) {
    bclua_control *c = control(state);
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->strings_ref);
    lua_insert(state, -2);
    c->string_count++;
    lua_rawseti(state, -2, c->string_count);
    lua_pop(state, 1);
    return (int)c->string_count;
}

typedef struct { int kind; int element_kind; lua_Integer count; size_t stride; const char *first; } light_array;

void bclua_push_record_array(lua_State *state, const void *first, size_t stride, size_t count, int array_kind) {
    light_array *array = (light_array *)bclua_records(state, sizeof(light_array));
    if (array == NULL) { lua_pushnil(state); return; }
    array->kind = array_kind;
    array->count = first == NULL ? 0 : (lua_Integer)count;
    array->stride = stride;
    array->first = (const char *)first;
    lua_pushlightuserdata(state, array);
}

static int is_light_array(bclua_control *c, int kind) {
    return kind >= 0 && kind < BCLUA_KIND_MAX && c->light_shape[kind] == BCLUA_SHAPE_RECORD_ARRAY;
}

static int light_kind(lua_State *state, const bclua_control *c, int index) {
    // Only light userdata are records: a full userdata (a run, ctx) must never be read as one.
    if (lua_type(state, index) != LUA_TLIGHTUSERDATA) return -1;
    const int *record = (const int *)lua_touserdata(state, index);
    if (record == NULL) return -1;
    int kind = *record;
    if (kind < 0 || kind >= BCLUA_KIND_MAX || c->light_shape[kind] == 0) return -1;
    return kind;
}

// The field position (1-based) of the key at index 2 in `kind`, or 0.
static int light_position(lua_State *state, bclua_control *c, int kind, int key_index) {
    if (lua_type(state, key_index) != LUA_TSTRING) return 0;
    const char *key = lua_tostring(state, key_index);
    for (int i = 0; i < c->light_field_count[kind]; i++) {
        if (c->light_fields[kind][i] == key) return i + 1;
    }
    return 0;
}

static void push_string_id(lua_State *state, int id) {
    if (id <= 0) { lua_pushnil(state); return; }
    lua_rawgeti(state, lua_upvalueindex(3), id);
}

// Pushes field `position` of the record at index 1 as its kind's types say; absent fields push nil.
static void push_light_field(lua_State *state, bclua_control *c, int kind, int position) {
    const bclua_record *record = (const bclua_record *)lua_touserdata(state, 1);
    if (position < 1 || position > c->light_field_count[kind] || !((record->present >> (position - 1)) & 1u)) {
        lua_pushnil(state);
        return;
    }
    const bclua_slot *slot = &record->slots[position - 1];
    switch (c->light_types[kind][position - 1]) {
    case BCLUA_FIELD_FLOAT: lua_pushnumber(state, slot->number); return;
    case BCLUA_FIELD_INTEGER: lua_pushinteger(state, (lua_Integer)slot->integer); return;
    case BCLUA_FIELD_BOOLEAN: lua_pushboolean(state, slot->integer != 0); return;
    case BCLUA_FIELD_STRING:
    case BCLUA_FIELD_VALUE: push_string_id(state, (int)slot->integer); return;
    case BCLUA_FIELD_RECORD: lua_pushlightuserdata(state, (void *)slot->record); return;
    default: lua_pushnil(state);
    }
}

// Upvalues of the light metamethods: 1 kind names (kind -> name), 2 field orders (kind -> order), 3 strings.
static int light_index(lua_State *state) {
    bclua_control *c = control(state);
    int kind = light_kind(state, c, 1);
    if (kind < 0) return luaL_error(state, "attempt to index a userdata value");
    if (is_light_array(c, kind)) {
        const light_array *array = (const light_array *)lua_touserdata(state, 1);
        int isnum = 0;
        lua_Integer i = lua_tointegerx(state, 2, &isnum);
        if (isnum && lua_type(state, 2) == LUA_TNUMBER) {
            if (i >= 1 && i <= array->count) lua_pushlightuserdata(state, (void *)(array->first + (size_t)(i - 1) * array->stride));
            else lua_pushnil(state);
            return 1;
        }
        lua_rawgeti(state, lua_upvalueindex(1), kind);
        const char *name = lua_tostring(state, -1);
        if (lua_type(state, 2) == LUA_TNUMBER) { lua_pushnil(state); return 1; }
        if (lua_type(state, 2) == LUA_TSTRING) {
            return luaL_error(state, "no field '%s' in %s (an array: index it with 1..#%s)", lua_tostring(state, 2), name, name);
        }
        return luaL_error(state, "%s is an array: index it with 1..#%s", name, name);
    }
    int position = light_position(state, c, kind, 2);
    if (position > 0) {
        push_light_field(state, c, kind, position);
        return 1;
    }
    lua_rawgeti(state, lua_upvalueindex(1), kind);
    const char *name = lua_tostring(state, -1);
    if (lua_type(state, 2) != LUA_TSTRING) {
        return luaL_error(state, "no field [%s] in %s (field names are strings)", luaL_typename(state, 2), name);
    }
    size_t key_length = 0;
    const char *key = lua_tolstring(state, 2, &key_length);
    lua_rawgeti(state, lua_upvalueindex(2), kind);
    const char *best = bclua_internal_suggest(state, lua_gettop(state), key, key_length);
    if (best != NULL) return luaL_error(state, "no field '%s' in %s; did you mean '%s'?", key, name, best);
    return luaL_error(state, "no field '%s' in %s", key, name);
}

static int light_newindex(lua_State *state) {
    bclua_control *c = control(state);
    int kind = light_kind(state, c, 1);
    if (kind < 0) return luaL_error(state, "attempt to index a userdata value");
    lua_rawgeti(state, lua_upvalueindex(1), kind);
    return luaL_error(state, "%s is read-only (copy what you need into your own table)", lua_tostring(state, -1));
}

// Iterator for records: fields in their documented order, nil fields skipped. Upvalue 4: the kind
// pairs() was given; a record of another kind is refused (its fields are other types).
static int light_next(lua_State *state) {
    bclua_control *c = control(state);
    int kind = light_kind(state, c, 1);
    if (kind < 0 || kind != (int)lua_tointeger(state, lua_upvalueindex(4))) return luaL_error(state, "attempt to index a userdata value");
    int position = lua_isnoneornil(state, 2) ? 0 : light_position(state, c, kind, 2);
    for (int i = position + 1; i <= c->light_field_count[kind]; i++) {
        lua_settop(state, 2);
        push_light_field(state, c, kind, i);
        if (lua_isnil(state, -1)) continue;
        lua_rawgeti(state, lua_upvalueindex(2), kind);
        lua_rawgeti(state, -1, i);
        lua_replace(state, -2);
        lua_insert(state, -2);
        return 2;
    }
    lua_pushnil(state);
    return 1;
}

static int light_array_next(lua_State *state) {
    bclua_control *c = control(state);
    int kind = light_kind(state, c, 1);
    if (kind < 0 || !is_light_array(c, kind)) return luaL_error(state, "attempt to index a userdata value");
    const light_array *array = (const light_array *)lua_touserdata(state, 1);
    lua_Integer previous = luaL_optinteger(state, 2, 0);
    if (previous < 0 || previous >= array->count) { lua_pushnil(state); return 1; }
    lua_Integer i = previous + 1;
    lua_pushinteger(state, i);
    lua_pushlightuserdata(state, (void *)(array->first + (size_t)(i - 1) * array->stride));
    return 2;
}

static int light_len(lua_State *state) {
    bclua_control *c = control(state);
    int kind = light_kind(state, c, 1);
    if (kind < 0) return luaL_error(state, "attempt to get length of a userdata value");
    if (!is_light_array(c, kind)) {
        lua_rawgeti(state, lua_upvalueindex(1), kind);
        return luaL_error(state, "attempt to get length of a %s value", lua_tostring(state, -1));
    }
    lua_pushinteger(state, ((const light_array *)lua_touserdata(state, 1))->count);
    return 1;
}

static int light_pairs(lua_State *state) {
    bclua_control *c = control(state);
    int kind = light_kind(state, c, 1);
    if (kind < 0) return luaL_error(state, "attempt to index a userdata value");
    if (is_light_array(c, kind)) {
        lua_pushcfunction(state, light_array_next);
        lua_pushvalue(state, 1);
        lua_pushnil(state);
        return 3;
    }
    for (int i = 1; i <= 3; i++) lua_pushvalue(state, lua_upvalueindex(i));
    lua_pushinteger(state, kind);
    lua_pushcclosure(state, light_next, 4);
    lua_pushvalue(state, 1);
    lua_pushnil(state);
    return 3;
}

static int light_tostring(lua_State *state) {
    bclua_control *c = control(state);
    int kind = light_kind(state, c, 1);
    if (kind < 0) { lua_pushliteral(state, "userdata"); return 1; }
    lua_rawgeti(state, lua_upvalueindex(1), kind);
    if (is_light_array(c, kind)) {
        lua_pushfstring(state, "%s (%d entries)", lua_tostring(state, -1), (int)((const light_array *)lua_touserdata(state, 1))->count);
    }
    return 1;
}

const char *bclua_record_name(lua_State *state, int index) {
    if (lua_type(state, index) != LUA_TLIGHTUSERDATA) return NULL;
    int kind = light_kind(state, control(state), index);
    return kind < 0 ? NULL : control(state)->light_names[kind];
}

// One metatable serves every light userdata (Lua allows one), so it dispatches on the record's kind;
// its upvalues: 1 names (kind -> name), 2 orders (kind -> field order), 3 strings (id -> string).
void bclua_internal_define_light_kinds(lua_State *state, bclua_control *c, const bclua_kind *kinds, int count) {
    int top = lua_gettop(state);
    lua_newtable(state);  // top + 1: names
    lua_newtable(state);  // top + 2: orders
    lua_newtable(state);  // top + 3: strings
    lua_pushvalue(state, top + 3);
    c->strings_ref = luaL_ref(state, LUA_REGISTRYINDEX);
    c->string_count = 0;
    for (int k = 0; k < count; k++) {
        const bclua_kind *spec = &kinds[k];
        if (spec->shape != BCLUA_SHAPE_RECORD && spec->shape != BCLUA_SHAPE_RECORD_ARRAY) continue;
        int kind = spec->kind;
        c->light_shape[kind] = spec->shape;
        lua_pushstring(state, spec->name);
        c->light_names[kind] = lua_tostring(state, -1);  // anchored by the names table
        lua_rawseti(state, top + 1, kind);
        lua_createtable(state, spec->field_count, 0);
        const char *name = spec->fields;
        int fields = spec->shape == BCLUA_SHAPE_RECORD && name != NULL ? spec->field_count : 0;
        for (int i = 0; i < fields; i++) {
            lua_pushstring(state, name);
            c->light_fields[kind][i] = lua_tostring(state, -1);  // interned and anchored by the order table
            c->light_types[kind][i] = spec->types[i];
            lua_rawseti(state, -2, i + 1);
            name += strlen(name) + 1;
        }
        c->light_field_count[kind] = fields;
        lua_rawseti(state, top + 2, kind);
    }
    lua_pushlightuserdata(state, NULL);
    lua_createtable(state, 0, 5);
    int metatable = lua_gettop(state);
    struct { const char *name; lua_CFunction fn; } methods[] = {
        {"__index", light_index}, {"__newindex", light_newindex}, {"__pairs", light_pairs}, {"__tostring", light_tostring},
        {"__len", light_len},
    };
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
        for (int i = 1; i <= 3; i++) lua_pushvalue(state, top + i);
        lua_pushcclosure(state, methods[m].fn, 3);
        lua_setfield(state, metatable, methods[m].name);
    }
    lua_pushliteral(state, "read-only");
    lua_setfield(state, metatable, "__metatable");
    // The base library's messages ("bad argument #1 to 'next' (table expected, got record)") name
    // it; one metatable serves every light userdata, so the kind is in the host's messages only.
    lua_pushliteral(state, "record");
    lua_setfield(state, metatable, "__name");
    lua_setmetatable(state, -2);
    lua_settop(state, top);
}

// ipairs(t) for rules: over a light array (run.splits_km, ...) it returns an iterator that yields
// the records itself (one C call per step instead of ipairs' step plus an __index call); anything
// else goes to the standard ipairs (upvalue 1), so behaviour and messages are Lua's.
int bclua_internal_fast_ipairs(lua_State *state) {
    bclua_control *c = control(state);
    luaL_checkany(state, 1);
    if (lua_type(state, 1) == LUA_TLIGHTUSERDATA) {
        int kind = light_kind(state, c, 1);
        if (kind >= 0 && is_light_array(c, kind)) {
            lua_pushcfunction(state, light_array_next);
            lua_pushvalue(state, 1);
            lua_pushinteger(state, 0);
            return 3;
        }
    }
    lua_settop(state, 1);
    lua_pushvalue(state, lua_upvalueindex(1));
    lua_insert(state, 1);
    lua_call(state, 1, 3);
    return 3;
}
