// Private to CLuaShims: the control block every state carries (the allocator's user data) and
// the few functions one file of the shim calls in another. Swift never sees this header.
#ifndef BADGECTL_CLUASHIMS_INTERNAL_H
#define BADGECTL_CLUASHIMS_INTERNAL_H
#include "CLuaShims.h"
#include <stdlib.h>
#include <string.h>

#define BCLUA_INTERNAL __attribute__((visibility("hidden")))

enum { HOOK_GRANULARITY = 1000 };

typedef struct {
    size_t total;          // bytes held now
    size_t host;           // bytes the host allocated (never denied; raise the cap for rules)
    size_t cap;            // bytes rules may hold beyond the host's
    int limited;           // 1 while Lua code of a rule runs
    int denied;            // the allocator said no during this call
    long long budget;      // instructions per call
    long long remaining;
    int exhausted;
    int consecutive_denials;  // denials with no successful growth between (Lua retries once after a full GC)
    int memory_killed;
    bclua_host_fn host_fn;
    void *host_context;
    lua_State *state;
    char denied_source[LUA_IDSIZE];
    int denied_line;
    int kinds[BCLUA_KIND_MAX];            // registry refs of the proxy kinds' metatables
    int data_metatables[BCLUA_KIND_MAX];  // registry refs of the metatables of bclua_push_run's data tables
    int orders[BCLUA_KIND_MAX];           // registry refs of the proxy kinds' field orders (position -> name)
    struct arena_chunk *arena;    // host-owned memory of the light records, freed by bclua_close
    int strings_ref;              // registry ref of the light records' strings (id -> string)
    lua_Integer string_count;
    // The interned field names of each light record kind (anchored by the kinds' order tables):
    // a key is a field when it is the same string object, so no hash lookup per read.
    const char *light_fields[BCLUA_KIND_MAX][BCLUA_RECORD_MAX_FIELDS];
    char light_types[BCLUA_KIND_MAX][BCLUA_RECORD_MAX_FIELDS];  // BCLUA_FIELD_* per field
    int light_field_count[BCLUA_KIND_MAX];
    int light_shape[BCLUA_KIND_MAX];        // BCLUA_SHAPE_RECORD or _RECORD_ARRAY; 0: not a light kind
    const char *light_names[BCLUA_KIND_MAX];  // anchored by the names table of the light metatable
} bclua_control;

struct arena_chunk { struct arena_chunk *next; size_t used, size; };

static inline bclua_control *control(lua_State *state) {
    void *ud = NULL;
    lua_getallocf(state, &ud);
    return (bclua_control *)ud;
}

/// The count hook (sandbox.c): stops the running rule once the budget is spent or memory ran out for good.
BCLUA_INTERNAL void bclua_internal_budget_hook(lua_State *state, lua_Debug *ar);
/// Calls the host function table with the memory cap lifted (call.c). -1: an error message was pushed.
BCLUA_INTERNAL int bclua_internal_call_host(lua_State *state, int fn, long long token);
/// The known name (order table at `order_index`) closest to `key`, or NULL (records.c).
BCLUA_INTERNAL const char *bclua_internal_suggest(lua_State *state, int order_index, const char *key, size_t key_length);
/// Defines the light record kinds among `kinds` and the light metatable (records.c).
BCLUA_INTERNAL void bclua_internal_define_light_kinds(lua_State *state, bclua_control *c, const bclua_kind *kinds, int count);
/// ipairs for rules (records.c): light arrays step in C, anything else goes to the standard ipairs.
BCLUA_INTERNAL int bclua_internal_fast_ipairs(lua_State *state);

#endif
