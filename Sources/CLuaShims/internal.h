// Private to CLuaShims: the control block every state carries (the allocator's user data) and
// the few functions one file of the shim calls in another. Swift never sees this header.
#ifndef BADGECTL_CLUASHIMS_INTERNAL_H
#define BADGECTL_CLUASHIMS_INTERNAL_H
#include "CLuaShims.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BCLUA_INTERNAL __attribute__((visibility("hidden")))

enum { HOOK_GRANULARITY = 1000 };

typedef struct {
    size_t total;          // bytes held now
    size_t host;           // bytes the host allocated (never denied; raise the cap for rules)
    size_t cap;            // bytes rules may hold beyond the host's
    int limited;           // 1 while Lua code of a rule runs
    int denied;            // the allocator said no during this call
    long long budget;      // instructions per call (library work is charged to it too: bclua_internal_charge)
    long long remaining;
    size_t allocation_budget;  // bytes a call may allocate in all (freed or not)
    size_t allocated;          // bytes allocated by rule code in this call
    long long call_nanoseconds;  // the wall-clock backstop per call
    struct timespec deadline;    // CLOCK_MONOTONIC_COARSE time the running call must end by
    int stop;              // BCLUA_STOP_*: which limit stopped this call (0: none); stays set until the call ends
    int consecutive_denials;  // denials with no successful growth between (Lua retries once after a full GC)
    size_t pending_denial;    // size of the last growth the cap denied, until a growth at least as big succeeds
                              // (Lua's retry after a full GC); an error caught by pcall while it is set is
                              // that memory error, even when Lua raised it as an ordinary one (lauxlib's
                              // buffers call the allocator directly, without a retry) -- so it is a stop
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
    // A state kept for the next evaluation (reuse.c): what the loaded state held at bclua_reuse_mark.
    int marked;
    struct arena_chunk *mark_chunk;  // the newest arena chunk then, and how much of it was used
    size_t mark_chunk_used;
    lua_Integer mark_strings;        // light records' strings then
    lua_Integer mark_registry;       // registry slots then (refs made later are the evaluation's)
    size_t mark_rule_bytes;          // bytes the rules' load held (counted against the cap again)
    size_t mark_total;               // bytes the state held then (after a full collection)
    int mark_objects_ref;            // registry ref of the list of every object reachable then
    lua_Integer mark_object_count;
    unsigned long long *mark_hashes; // per object of the list, the hash of its own contents then
    unsigned long long mark_registry_hash;
    const void *mark_string_metatable, *mark_light_metatable;
} bclua_control;

struct arena_chunk { struct arena_chunk *next; size_t used, size; };

static inline bclua_control *control(lua_State *state) {
    void *ud = NULL;
    lua_getallocf(state, &ud);
    return (bclua_control *)ud;
}

/// The count hook (sandbox.c): stops the running rule once the budget is spent, memory ran out for good
/// or the wall-clock backstop passed; once a limit fired it raises on every instruction and line.
BCLUA_INTERNAL void bclua_internal_budget_hook(lua_State *state, lua_Debug *ar);
/// Marks the running call stopped by `reason` (BCLUA_STOP_*) and makes the hook fire on every
/// instruction, so no Lua code of the call runs again. Raises nothing (the allocator calls it too).
BCLUA_INTERNAL void bclua_internal_mark_stopped(bclua_control *c, int reason);
/// Raises the running call's stop error from a C function called by Lua (level 1 is its caller);
/// `what` names the library function whose work used up the budget (NULL: none). Never returns.
BCLUA_INTERNAL int bclua_internal_raise_stop(lua_State *state, int level, const char *what);
/// Charges `steps` of library work (sorting, matching, scanning, building) to the instruction budget
/// of the running call; stops it (raises) when the budget is spent or the call was stopped already.
static inline void bclua_internal_charge(lua_State *state, bclua_control *c, long long steps, const char *what) {
    if (c->stop || steps >= c->remaining) {
        if (!c->stop) bclua_internal_mark_stopped(c, BCLUA_STOP_INSTRUCTIONS);
        bclua_internal_raise_stop(state, 1, what);
    }
    c->remaining -= steps;
}
/// Library work is charged one instruction per this many bytes copied or scanned.
enum { BCLUA_BYTES_PER_STEP = 64 };
/// Replaces the library functions whose work the VM does not count with charged ones, and pcall and
/// xpcall with ones that cannot catch a stop (guard.c), in the host globals before the prelude runs.
BCLUA_INTERNAL void bclua_internal_guard_libraries(lua_State *state);
/// The pattern functions and string.rep of the carried copy of Lua 5.4.4's lstrlib.c (lstrlib_patterns.c),
/// which charge their steps: registered into the host's `string` table (on top of the stack).
BCLUA_INTERNAL void bclua_internal_register_patterns(lua_State *state);
/// Calls the host function table with the memory cap lifted (call.c). -1: an error message was pushed.
BCLUA_INTERNAL int bclua_internal_call_host(lua_State *state, int fn, long long token);
/// The known name (order table at `order_index`) closest to `key`, or NULL (records.c).
BCLUA_INTERNAL const char *bclua_internal_suggest(lua_State *state, int order_index, const char *key, size_t key_length);
/// Defines the light record kinds among `kinds` and the light metatable (records.c).
BCLUA_INTERNAL void bclua_internal_define_light_kinds(lua_State *state, bclua_control *c, const bclua_kind *kinds, int count);
/// ipairs for rules (records.c): light arrays step in C, anything else goes to the standard ipairs.
BCLUA_INTERNAL int bclua_internal_fast_ipairs(lua_State *state);
/// Registers `badgectl_max_square` among the host globals for the prelude to take (geo.c).
BCLUA_INTERNAL void bclua_internal_register_geo(lua_State *state);

#endif
