// One loaded state for many evaluations (the worker's athletes): a mark after the packs are loaded,
// a reset after each evaluation, and a check at each reset that everything Lua code could reach
// between evaluations is as at the mark. The mark walks the state once and lists every reachable
// object with a keyed hash of its own contents (entries, upvalues, user values and bytes, metatable);
// a reset compares those hashes, and the registry's and the two outside metatables'. Whatever a rule
// leaves behind in state shared between evaluations (a global, a module's table or upvalue, a
// library table, a metatable, a C iterator's position) changes one of them, and the host then throws
// the state away: the next evaluation starts from a fresh one.
//
// A table's hash covers its layout too, not only its entries: a table grown and emptied holds what it
// held, but where its next keys land, so the order `next` gives and the border `#` finds, follow from
// its sizes and slots (issue S2). The C API does not show them, so they are read from Lua 5.4's own
// `Table` and `Node` (lobject.h, the same from 5.4.0 to 5.4.7), after a check on tables of known shape
// that this library lays them out so; where it does not, no state is reused (each athlete gets a
// fresh one: the same answers, slower).
#include "internal.h"
#include <stddef.h>
#include <sys/random.h>

// Lua 5.4's Value, Node and Table as lobject.h declares them; read only once `layout_known` holds.
typedef union { void *gc; void *p; lua_CFunction f; lua_Integer i; lua_Number n; } lua54_value;
typedef union {
    struct { lua54_value value; unsigned char value_tt; unsigned char key_tt; int next; lua54_value key; } u;
    struct { lua54_value value; unsigned char tt; } i_val;
} lua54_node;
typedef struct {
    void *gc_next; unsigned char tt; unsigned char marked;
    unsigned char flags; unsigned char lsizenode; unsigned int alimit;
    void *array; lua54_node *node; lua54_node *lastfree; void *metatable; void *gclist;
} lua54_table;
enum { LUA54_LIMIT_IS_HINT = 1 << 7 /* BITRAS: alimit is #'s hint, not the array's size */, LUA54_VNUMINT = LUA_TNUMBER | (0 << 4), LUA54_VSHRSTR = LUA_TSTRING | (0 << 4),
       LUA54_COLLECTABLE = 1 << 6 };

// 1 when this Lua lays tables out as lua54_table says (checked once per process), -1 when it does not.
static int layout_known;

// A keyed mix (splitmix64's finaliser): the key is random per process, so rule code, which can see
// addresses (tostring of a table), cannot aim a change at an unchanged fingerprint.
static unsigned long long fingerprint_key;

static unsigned long long mix(unsigned long long x) {
    x += fingerprint_key + 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

// Visited objects: an open-addressing set of pointers.
typedef struct { const void **slots; size_t capacity, count; } pointer_set;

static int set_insert(pointer_set *set, const void *p) {
    if ((set->count + 1) * 2 > set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 1024;
        const void **slots = (const void **)calloc(capacity, sizeof(void *));
        if (slots == NULL) return -1;
        for (size_t i = 0; i < set->capacity; i++) {
            const void *q = set->slots[i];
            if (q == NULL) continue;
            size_t j = (size_t)mix((unsigned long long)(uintptr_t)q) & (capacity - 1);
            while (slots[j] != NULL) j = (j + 1) & (capacity - 1);
            slots[j] = q;
        }
        free(set->slots);
        set->slots = slots;
        set->capacity = capacity;
    }
    size_t j = (size_t)mix((unsigned long long)(uintptr_t)p) & (set->capacity - 1);
    while (set->slots[j] != NULL) {
        if (set->slots[j] == p) return 0;
        j = (j + 1) & (set->capacity - 1);
    }
    set->slots[j] = p;
    set->count++;
    return 1;
}

static int is_object(int type) {
    return type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TUSERDATA || type == LUA_TTHREAD;
}

// Per type (and one more for integers, apart from floats), a keyed constant the held word of a value
// is combined with: values of different types never hash alike by a choice of bits (rule code can
// pick an integer equal to a table's address; it cannot know the constants).
static unsigned long long type_keys[LUA_NUMTYPES + 1];

// The hash of one value as it is held: objects by identity (their contents are hashed apart, per
// object), strings by identity, numbers by value and subtype. One mix per value.
static unsigned long long value_hash(lua_State *state, int index) {
    // Objects, strings, C functions and light userdata by their address alone, without asking the
    // type: no two such values share one while both are held (every value the mark saw is anchored
    // by its list, so no address of it is reused), and these are most keys and values.
    const void *address = lua_topointer(state, index);
    if (address != NULL) return mix(type_keys[LUA_TLIGHTUSERDATA] ^ (unsigned long long)(uintptr_t)address);
    // Integers next, without asking the type (array keys, the host functions' tokens).
    if (lua_isinteger(state, index)) return mix(type_keys[LUA_NUMTYPES] ^ (unsigned long long)lua_tointeger(state, index));
    int type = lua_type(state, index);
    unsigned long long word;
    switch (type) {
    case LUA_TNIL: word = 0; break;
    case LUA_TBOOLEAN: word = (unsigned long long)lua_toboolean(state, index); break;
    case LUA_TNUMBER: {
        lua_Number n = lua_tonumber(state, index);
        memcpy(&word, &n, sizeof word);
        break;
    }
    // Strings by identity: short strings are interned (equal text, same object), and a long string
    // held somewhere changes object only when something stores another (a write, which must show).
    // A string reachable from the roots is never collected, so its address stays.
    default: word = (unsigned long long)(uintptr_t)lua_topointer(state, index); break;
    }
    return mix(type_keys[type] ^ word);
}

// The entry on top of the stack (key at -2, value at -1).
static inline unsigned long long entry_hash(lua_State *state) {
    return value_hash(state, -2) * (value_hash(state, -1) | 1);
}

// Folds the value on top, held in slot `n` (an upvalue, a user value), into `h`: a bijection of `h`
// for a given value, so that a different value in any one slot gives a different result.
static inline unsigned long long slot_hash(unsigned long long h, lua_State *state, int n) {
    return (h ^ value_hash(state, -1)) * 0x100000001B3ULL + (unsigned long long)n;
}

// Checks lua54_table and lua54_node against tables this state makes with known sizes and entries:
// lua_createtable's sizes, an empty table's shared dummy node, and a string key with an integer
// value found in its slot. Leaves the stack as it was.
static int check_layout(lua_State *state) {
    if (lua_version(state) < 504 || lua_version(state) >= 505 || !lua_checkstack(state, 4)) return 0;
    int ok = 1;
    lua_createtable(state, 3, 5);
    const lua54_table *sized = (const lua54_table *)lua_topointer(state, -1);
    ok = ok && sized != NULL && sized->alimit == 3 && sized->lsizenode == 3 && sized->node != NULL
        && sized->lastfree == sized->node + 8 && (sized->flags & LUA54_LIMIT_IS_HINT) == 0;
    lua_pushliteral(state, "badgectl-layout");
    const void *key = lua_topointer(state, -1);
    lua_pushinteger(state, 0x5A17);
    lua_rawset(state, -3);
    int found = 0;
    for (int i = 0; ok && i < 8; i++) {
        const lua54_node *n = &sized->node[i];
        if (n->u.key_tt == (LUA54_VSHRSTR | LUA54_COLLECTABLE) && n->u.key.gc == key) {
            found = n->u.value_tt == LUA54_VNUMINT && n->u.value.i == 0x5A17;
        }
    }
    ok = ok && found;
    lua_pop(state, 1);
    lua_newtable(state);
    const lua54_table *empty = (const lua54_table *)lua_topointer(state, -1);
    lua_newtable(state);
    const lua54_table *other = (const lua54_table *)lua_topointer(state, -1);
    // Both use the one dummy node, which marks it (lastfree NULL), and hold no array.
    ok = ok && empty->alimit == 0 && empty->lsizenode == 0 && empty->lastfree == NULL && empty->node == other->node;
    lua_pop(state, 2);
    return ok;
}

// A table's layout: its array size (and whether `alimit` is that size or `#`'s hint), its node
// count, where its next free slot is sought from, and per slot the key it holds (also a removed
// entry's, which keeps its slot until the table is rebuilt), whether a value is there, and its chain
// link. With the entries (contents_hash), that is everything a lookup, an insert, `next` or `#` reads.
static unsigned long long layout_hash(lua_State *state, int object) {
    const lua54_table *t = (const lua54_table *)lua_topointer(state, object);
    unsigned long long h = mix(((unsigned long long)t->alimit << 9) ^ ((unsigned long long)(t->flags & LUA54_LIMIT_IS_HINT) << 1)
                               ^ t->lsizenode ^ 0x7368ULL);
    if (t->lastfree == NULL) return h;  // the shared dummy node: nothing in the hash part
    size_t size = (size_t)1 << t->lsizenode;
    h = mix(h ^ (unsigned long long)(t->lastfree - t->node));
    for (size_t i = 0; i < size; i++) {
        const lua54_node *n = &t->node[i];
        unsigned long long key;
        memcpy(&key, &n->u.key, sizeof key);
        unsigned long long slot = (unsigned long long)n->u.key_tt | (unsigned long long)(n->u.value_tt & 0x0F) << 8
            | (unsigned long long)(unsigned int)n->u.next << 16;
        h = (h ^ slot) * 0x100000001B3ULL;
        h = (h ^ key) * 0x100000001B3ULL;
        h ^= h >> 29;
    }
    return mix(h);
}

// The hash of one object's own contents, not of what it holds: its identity, its entries (a table),
// upvalues (a function) or user values (a userdata), and its metatable, each held value by
// `value_hash`. Threads: by identity only (the main thread's stack is the host's).
static unsigned long long contents_hash(lua_State *state, int object, const void *layout_exempt) {
    int type = lua_type(state, object);
    unsigned long long h = value_hash(state, object);
    if (type == LUA_TTABLE) {
        unsigned long long entries = 0;
        lua_pushnil(state);
        while (lua_next(state, object)) {
            // the sum of the entries, in whatever order lua_next gives them: each the product of its
            // key's and its value's keyed hashes (odd), so that no two entries can trade values unseen
            entries += entry_hash(state);
            lua_pop(state, 1);
        }
        h = mix(h ^ entries ^ (lua_topointer(state, object) == layout_exempt ? 0 : layout_hash(state, object)));
    } else if (type == LUA_TFUNCTION) {
        // C closures too: one may keep its position in an upvalue (the sorted pairs iterator).
        for (int n = 1; lua_getupvalue(state, object, n) != NULL; n++) {
            h = slot_hash(h, state, n);
            lua_pop(state, 1);
        }
    } else if (type == LUA_TUSERDATA) {
        for (int n = 1;; n++) {
            if (lua_getiuservalue(state, object, n) == LUA_TNONE) { lua_pop(state, 1); break; }
            h = slot_hash(h, state, n);
            lua_pop(state, 1);
        }
        // Its bytes too: C code keeps state there (string.gmatch's iterator keeps its position in a
        // userdata upvalue; an iterator made at load and called by a rule moves it).
        const unsigned char *bytes = (const unsigned char *)lua_touserdata(state, object);
        size_t size = (size_t)lua_rawlen(state, object);
        unsigned long long words = h;
        for (size_t i = 0; bytes != NULL && i < size; i += 8) {
            unsigned long long word = 0;
            memcpy(&word, bytes + i, size - i < 8 ? size - i : 8);
            words = (words ^ word) * 0x100000001B3ULL;
            words ^= words >> 29;
        }
        h = mix(h ^ mix(words + size));
    }
    if ((type == LUA_TTABLE || type == LUA_TUSERDATA) && lua_getmetatable(state, object)) {
        h = mix(h ^ value_hash(state, -1) ^ 0x6D74ULL);
        lua_pop(state, 1);
    }
    return h;
}

// The host's table of light strings (records.c): its entries past the mark are cleared at each reset,
// but its array part keeps the size they took. Rules cannot reach it (it hangs from the registry
// alone), so its layout is left out of its hash; its entries are not.
static const void *host_strings(lua_State *state, const bclua_control *c) {
    if (c->strings_ref == LUA_NOREF) return NULL;
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->strings_ref);
    const void *table = lua_topointer(state, -1);
    lua_pop(state, 1);
    return table;
}

// The registry's own entries, but not the slots of free registry refs (integers: the free list, which
// refs made and released by an evaluation change).
static unsigned long long registry_hash(lua_State *state) {
    int registry = lua_gettop(state) + 1;
    lua_pushvalue(state, LUA_REGISTRYINDEX);
    unsigned long long entries = 0;
    lua_pushnil(state);
    while (lua_next(state, registry)) {
        if (!(lua_type(state, -2) == LUA_TNUMBER && lua_type(state, -1) == LUA_TNUMBER)) {
            entries += entry_hash(state);
        }
        lua_pop(state, 1);
    }
    lua_pop(state, 1);
    return mix(entries ^ 0x7265ULL);
}

// The metatables outside the registry (of strings and of light userdata): by identity.
static const void *root_metatable(lua_State *state, int probe) {
    if (probe == 0) lua_pushliteral(state, ""); else lua_pushlightuserdata(state, &fingerprint_key);
    const void *metatable = NULL;
    if (lua_getmetatable(state, -1)) {
        metatable = lua_topointer(state, -1);
        lua_pop(state, 1);
    }
    lua_pop(state, 1);
    return metatable;
}

// The walk that finds every object Lua code could reach between evaluations, once, at the mark.
typedef struct { lua_State *state; pointer_set seen; int base; int failed; int list; lua_Integer count; } walk;

// Queues the object at `index` (absolute) when the walk has not met it.
static void reach(walk *w, int index) {
    int type = lua_type(w->state, index);
    if (!is_object(type)) return;
    int fresh = set_insert(&w->seen, lua_topointer(w->state, index));
    if (fresh < 0) { w->failed = 1; return; }
    if (fresh == 0) return;
    if (!lua_checkstack(w->state, 4)) { w->failed = 1; return; }
    lua_pushvalue(w->state, index);
}

// Puts the object on top in the list, queues what it holds (its entries, metatable, upvalues, user
// values), and pops it. Left out of the list, as their contents cannot change: threads (see
// contents_hash) and C functions without upvalues.
static void visit(walk *w) {
    lua_State *state = w->state;
    int object = lua_gettop(state);
    int type = lua_type(state, object);
    int listed = type != LUA_TTHREAD;
    if (type == LUA_TFUNCTION && lua_iscfunction(state, object)) {
        listed = lua_getupvalue(state, object, 1) != NULL;
        lua_settop(state, object);
    }
    if (listed) {
        lua_pushvalue(state, object);
        lua_rawseti(state, w->list, ++w->count);
    }
    if (type == LUA_TTABLE) {
        lua_pushnil(state);
        while (!w->failed && lua_next(state, object)) {
            int top = lua_gettop(state);
            lua_pushvalue(state, top - 1);
            lua_pushvalue(state, top);
            // Queued objects sit below the key while lua_next goes on: move them under the table.
            int before = lua_gettop(state);
            reach(w, before - 1);
            reach(w, before);
            int queued = lua_gettop(state) - before;
            lua_remove(state, before - 1);
            lua_remove(state, before - 1);
            for (int i = 0; i < queued; i++) lua_rotate(state, object, 1);
            object += queued;
            lua_pop(state, 1);  // the value; the key stays for lua_next
        }
    }
    if ((type == LUA_TTABLE || type == LUA_TUSERDATA) && !w->failed && lua_getmetatable(state, object)) {
        int top = lua_gettop(state);
        reach(w, top);
        if (lua_gettop(state) > top) { lua_rotate(state, object, 1); object++; }
        lua_settop(state, object);  // drops the metatable (or keeps only what was queued below)
    }
    if (type == LUA_TFUNCTION) {
        for (int n = 1; !w->failed; n++) {
            if (lua_getupvalue(state, object, n) == NULL) break;
            int top = lua_gettop(state);
            reach(w, top);
            if (lua_gettop(state) > top) { lua_rotate(state, object, 1); object++; }
            lua_settop(state, object);
        }
    } else if (type == LUA_TUSERDATA) {
        for (int n = 1; !w->failed; n++) {
            if (lua_getiuservalue(state, object, n) == LUA_TNONE) { lua_pop(state, 1); break; }
            int top = lua_gettop(state);
            reach(w, top);
            if (lua_gettop(state) > top) { lua_rotate(state, object, 1); object++; }
            lua_settop(state, object);
        }
    }
    lua_settop(state, object - 1);
}

// Fills the table at `list` (absolute) with every object reachable from the registry (the globals,
// the packs' environments and rules, ctx values, the kinds' metatables, light strings) and from the
// string metatable and the light userdata's; the registry itself and the list are left out. 0 when
// the walk failed.
static int discover(lua_State *state, int list, lua_Integer *count) {
    if (!lua_checkstack(state, 64)) return 0;
    walk w = { state, { NULL, 0, 0 }, lua_gettop(state), 0, list, 0 };
    int registry = lua_gettop(state) + 1;
    lua_pushvalue(state, LUA_REGISTRYINDEX);
    int inserted = set_insert(&w.seen, lua_topointer(state, registry)) >= 0 && set_insert(&w.seen, lua_topointer(state, list)) >= 0;
    if (!inserted) w.failed = 1;
    lua_pushnil(state);
    while (!w.failed && lua_next(state, registry)) {
        int top = lua_gettop(state);
        reach(&w, top);
        reach(&w, top - 1);
        // Walk what was queued now, above the key, so lua_next finds the key on top again.
        while (!w.failed && lua_gettop(state) > top) visit(&w);
        lua_pop(state, 1);
    }
    lua_settop(state, registry - 1);
    for (int probe = 0; probe < 2 && !w.failed; probe++) {
        if (probe == 0) lua_pushliteral(state, ""); else lua_pushlightuserdata(state, &fingerprint_key);
        if (lua_getmetatable(state, -1)) {
            lua_remove(state, -2);
            int top = lua_gettop(state);
            reach(&w, top);
            lua_remove(state, top);
        } else {
            lua_pop(state, 1);
        }
    }
    while (!w.failed && lua_gettop(state) > w.base) visit(&w);
    lua_settop(state, w.base);
    free(w.seen.slots);
    *count = w.count;
    return !w.failed;
}

// Whether everything Lua code could reach is as at the mark. Per object of the mark's list only its
// own contents are compared, nothing is walked: when no object the mark found holds anything else and
// the roots (the registry, the two metatables outside it) are the same, nothing else is reachable, and
// every reachable value is the one the mark saw (the induction over the reachable graph).
static int unchanged(lua_State *state, bclua_control *c) {
    if (root_metatable(state, 0) != c->mark_string_metatable || root_metatable(state, 1) != c->mark_light_metatable) return 0;
    if (!lua_checkstack(state, 8) || registry_hash(state) != c->mark_registry_hash) return 0;
    const void *strings = host_strings(state, c);
    lua_rawgeti(state, LUA_REGISTRYINDEX, c->mark_objects_ref);
    int list = lua_gettop(state);
    int same = 1;
    for (lua_Integer i = 1; i <= c->mark_object_count && same; i++) {
        lua_rawgeti(state, list, i);
        same = contents_hash(state, list + 1, strings) == c->mark_hashes[i - 1];
        lua_pop(state, 1);
    }
    lua_pop(state, 1);
    return same;
}

// Takes the mark: the list of reachable objects (anchored by a registry ref, taken before the
// registry's own hash so that it includes it) and the hash of each one's contents. 0 when the walk
// failed or memory ran out.
static int take_mark(lua_State *state, bclua_control *c) {
    if (fingerprint_key == 0) {
        if (getrandom(&fingerprint_key, sizeof fingerprint_key, 0) != sizeof fingerprint_key) {
            fingerprint_key = (unsigned long long)(uintptr_t)&fingerprint_key ^ (unsigned long long)time(NULL);
        }
        fingerprint_key |= 1;
        for (int type = 0; type <= LUA_NUMTYPES; type++) type_keys[type] = mix(mix((unsigned long long)(type + 1) * 0x100000001B3ULL));
    }
    if (layout_known == 0) layout_known = check_layout(state) ? 1 : -1;
    if (layout_known < 0) return 0;
    if (!lua_checkstack(state, 8)) return 0;
    lua_newtable(state);
    int list = lua_gettop(state);
    lua_Integer count = 0;
    if (!discover(state, list, &count)) { lua_pop(state, 1); return 0; }
    unsigned long long *hashes = (unsigned long long *)malloc((size_t)(count > 0 ? count : 1) * sizeof *hashes);
    if (hashes == NULL) { lua_pop(state, 1); return 0; }
    const void *strings = host_strings(state, c);
    for (lua_Integer i = 1; i <= count; i++) {
        lua_rawgeti(state, list, i);
        // `#` keeps the border it found as a hint in the table's layout: found once here, so that a
        // rule asking `#` of an unchanged table finds the same and changes nothing.
        if (lua_type(state, list + 1) == LUA_TTABLE) (void)lua_rawlen(state, list + 1);
        hashes[i - 1] = contents_hash(state, list + 1, strings);
        lua_pop(state, 1);
    }
    free(c->mark_hashes);
    c->mark_hashes = hashes;
    c->mark_object_count = count;
    c->mark_objects_ref = luaL_ref(state, LUA_REGISTRYINDEX);  // pops the list
    c->mark_string_metatable = root_metatable(state, 0);
    c->mark_light_metatable = root_metatable(state, 1);
    c->mark_registry_hash = registry_hash(state);
    return 1;
}

int bclua_reuse_mark(lua_State *state) {
    bclua_control *c = control(state);
    // lauxlib makes the metatable of its growable buffers ("_UBOX*" in the registry) the first time a
    // library function builds a long string: make it now, so no evaluation adds it.
    if (!lua_checkstack(state, 8)) return 0;
    luaL_Buffer buffer;
    luaL_buffinitsize(state, &buffer, 4 * LUAL_BUFFERSIZE);
    luaL_pushresultsize(&buffer, 0);
    lua_pop(state, 1);
    lua_gc(state, LUA_GCCOLLECT);
    c->marked = take_mark(state, c);
    c->mark_chunk = c->arena;
    c->mark_chunk_used = c->arena ? c->arena->used : 0;
    c->mark_strings = c->string_count;
    c->mark_registry = (lua_Integer)lua_rawlen(state, LUA_REGISTRYINDEX);
    c->mark_rule_bytes = c->total > c->host ? c->total - c->host : 0;
    c->mark_total = c->total;
    return c->marked;
}

void bclua_reuse_begin(lua_State *state) {
    bclua_control *c = control(state);
    // As in a fresh state: the host's bytes are all but what the rules' load holds.
    c->host = c->total > c->mark_rule_bytes ? c->total - c->mark_rule_bytes : 0;
}

// The garbage a reused state may carry into the next evaluation: 1/64 of the cap, at most 1 MiB.
static size_t reuse_garbage_bound(const bclua_control *c) {
    size_t bound = c->cap / 64;
    return bound < ((size_t)1 << 20) ? bound : ((size_t)1 << 20);
}

int bclua_reuse_reset(lua_State *state) {
    bclua_control *c = control(state);
    if (!c->marked) return 0;
    // Registry refs past the mark still taken: an evaluation's value the host did not release.
    lua_Integer slots = (lua_Integer)lua_rawlen(state, LUA_REGISTRYINDEX);
    for (lua_Integer i = c->mark_registry + 1; i <= slots; i++) {
        int type = lua_rawgeti(state, LUA_REGISTRYINDEX, i);
        lua_pop(state, 1);
        if (type != LUA_TNUMBER && type != LUA_TNIL) return 0;
    }
    if (c->strings_ref != LUA_NOREF && c->string_count > c->mark_strings) {
        lua_rawgeti(state, LUA_REGISTRYINDEX, c->strings_ref);
        for (lua_Integer i = c->mark_strings + 1; i <= c->string_count; i++) {
            lua_pushnil(state);
            lua_rawseti(state, -2, i);
        }
        lua_pop(state, 1);
        c->string_count = c->mark_strings;
    }
    // A full collection only once the garbage of the evaluations since the last one passes the
    // bound: the reachable objects are the mark's (checked below), so what the state holds beyond the
    // mark's bytes is garbage. Until collected it counts as the host's (bclua_reuse_begin): the next
    // rules may hold up to that much more than the cap once the collector frees it.
    if (c->total > c->mark_total + reuse_garbage_bound(c)) lua_gc(state, LUA_GCCOLLECT);
    if (!unchanged(state, c)) return 0;
    // Nothing reachable holds the evaluation's records any more: their memory is reused.
    while (c->arena != c->mark_chunk && c->arena != NULL) {
        struct arena_chunk *next = c->arena->next;
        free(c->arena);
        c->arena = next;
    }
    if (c->arena != NULL) c->arena->used = c->mark_chunk_used;
    return 1;
}
