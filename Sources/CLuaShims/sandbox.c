// The sandbox of a state: the capped allocator (host allocations counted, rule allocations denied
// past the cap or past the call's allocation budget), the instruction budget's count hook with the
// wall-clock backstop, the stop every limit ends in, and the state's life (new, close, collect).
#include "internal.h"

// Where the rule was when memory ran out (the first Lua function up the stack), since Lua calls no
// message handler for memory errors. lua_getstack/lua_getinfo("Sl") only read the call info.
static void note_denied_location(bclua_control *c) {
    c->denied_source[0] = 0;
    c->denied_line = 0;
    if (c->state == NULL) return;
    lua_Debug ar;
    for (int level = 0; level < 8 && lua_getstack(c->state, level, &ar); level++) {
        if (!lua_getinfo(c->state, "Sl", &ar)) break;
        if (ar.currentline > 0) {
            memcpy(c->denied_source, ar.short_src, sizeof c->denied_source);
            c->denied_line = ar.currentline;
            return;
        }
    }
}

// realloc for Lua's blocks (`old` is 0 for a new one): NULL when memory ran out; a shrink (nsize <=
// old) never fails, as Lua requires. Plain malloc and free, so that AddressSanitizer sees every
// block of Lua's heap (a use after free in a rule's objects is reported, not hidden by a free list).
static void *block_realloc(void *ptr, size_t old, size_t nsize) {
    void *block = realloc(ptr, nsize);
    return block == NULL && nsize <= old ? ptr : block;
}

// ptr == NULL: osize is a type tag, the old size is 0. A shrink never fails.
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    bclua_control *c = (bclua_control *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        c->total -= old;
        return NULL;
    }
    if (nsize > old) {
        size_t grow = nsize - old;
        if (c->limited) {
            int over_cap = c->total + grow < c->total || c->total + grow > c->cap + c->host;
            int over_budget = c->allocated + grow < c->allocated || c->allocated + grow > c->allocation_budget;
            if (over_cap || over_budget) {
                if (!c->denied) note_denied_location(c);
                c->denied = 1;
                // The allocation budget never comes back within the call: stop it at once. For the cap,
                // Lua retries once after an emergency collection; when that fails too, a memory error
                // is being raised: stop the call so a pcall inside the rule cannot catch it and try
                // again (each retry costs a full collection).
                if (!over_cap) {
                    bclua_internal_mark_stopped(c, BCLUA_STOP_ALLOCATION);
                } else {
                    c->pending_denial = grow;
                    if (++c->consecutive_denials >= 2) bclua_internal_mark_stopped(c, BCLUA_STOP_MEMORY);
                }
                return NULL;
            }
            c->consecutive_denials = 0;
            if (grow >= c->pending_denial) c->pending_denial = 0;
            c->allocated += grow;
        } else {
            c->host += grow;
        }
    }
    void *block = block_realloc(ptr, old, nsize);
    if (block == NULL) {
        c->denied = 1;
        return NULL;
    }
    c->total = c->total - old + nsize;
    return block;
}

void bclua_internal_mark_stopped(bclua_control *c, int reason) {
    if (c->stop) return;
    c->stop = reason;
    c->limited = 0;  // the stop's message and traceback must be allocated; no rule code runs from here on
    if (c->state != NULL) lua_sethook(c->state, bclua_internal_budget_hook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
}

// Pushes "file:line: " of the first Lua function at `level` or above (a library function called through
// pcall or gsub has a C function as its caller), or "" when there is none.
static void push_rule_where(lua_State *state, int level) {
    lua_Debug ar;
    for (int up = level; up < level + 16 && lua_getstack(state, up, &ar); up++) {
        if (lua_getinfo(state, "Sl", &ar) && ar.currentline > 0) {
            lua_pushfstring(state, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
    }
    lua_pushliteral(state, "");
}

int bclua_internal_raise_stop(lua_State *state, int level, const char *what) {
    bclua_control *c = control(state);
    c->limited = 0;
    push_rule_where(state, level);
    switch (c->stop) {
    case BCLUA_STOP_MEMORY:
    case BCLUA_STOP_ALLOCATION:
        lua_pushliteral(state, "not enough memory");  // LuaState.call names the limit and where it was hit
        break;
    case BCLUA_STOP_WALL_CLOCK:
        lua_pushfstring(state, "stopped by the wall-clock backstop (%f s per call): no deterministic limit stopped it first",
                        (double)c->call_nanoseconds / 1e9);
        break;
    default:
        lua_pushfstring(state, "instruction budget exhausted (%I instructions per call)", (lua_Integer)c->budget);
        if (what != NULL) lua_pushfstring(state, " in %s", what); else lua_pushliteral(state, "");
        lua_concat(state, 2);
    }
    lua_concat(state, 2);
    return lua_error(state);
}

static int past_deadline(const bclua_control *c) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return now.tv_sec > c->deadline.tv_sec || (now.tv_sec == c->deadline.tv_sec && now.tv_nsec >= c->deadline.tv_nsec);
}

// Stops the running rule: every HOOK_GRANULARITY instructions it takes them from the budget and looks at
// the wall clock (the backstop). Once a limit fired, it fires on every instruction and line, so neither a
// pcall inside the rule (guard.c re-raises a stop) nor any Lua code after it gets anywhere.
void bclua_internal_budget_hook(lua_State *state, lua_Debug *ar) {
    (void)ar;
    bclua_control *c = control(state);
    if (!c->stop) {
        c->remaining -= HOOK_GRANULARITY;
        if (c->remaining > 0) {
            if (!past_deadline(c)) return;
            bclua_internal_mark_stopped(c, BCLUA_STOP_WALL_CLOCK);
        } else {
            bclua_internal_mark_stopped(c, BCLUA_STOP_INSTRUCTIONS);
        }
    }
    bclua_internal_raise_stop(state, 0, NULL);  // in a hook, level 0 is the rule function being run
}

lua_State *bclua_newstate(size_t memory_cap, long long instruction_budget, size_t allocation_budget, double call_seconds) {
    bclua_control *c = (bclua_control *)calloc(1, sizeof(bclua_control));
    if (c == NULL) return NULL;
    c->cap = memory_cap;
    c->budget = instruction_budget > 0 ? instruction_budget : 1;
    c->allocation_budget = allocation_budget;
    c->call_nanoseconds = call_seconds > 0 && call_seconds < 1e9 ? (long long)(call_seconds * 1e9) : 1000000000LL * 1000000000LL;
    lua_State *state = lua_newstate(capped_alloc, c);
    if (state == NULL) { free(c); return NULL; }
    for (int i = 0; i < BCLUA_KIND_MAX; i++) c->kinds[i] = c->data_metatables[i] = c->orders[i] = LUA_NOREF;
    c->strings_ref = LUA_NOREF;
    c->mark_objects_ref = LUA_NOREF;
    c->state = state;
    return state;
}

void bclua_close(lua_State *state) {
    bclua_control *c = control(state);
    // Finalizers cannot be declared by rules (setmetatable refuses __gc), but stay safe anyway.
    bclua_internal_mark_stopped(c, BCLUA_STOP_INSTRUCTIONS);
    lua_close(state);
    for (struct arena_chunk *chunk = c->arena; chunk != NULL;) {
        struct arena_chunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
    free(c->mark_hashes);
    free(c);
}

void bclua_gc_collect(lua_State *state) { lua_gc(state, LUA_GCCOLLECT); }

void bclua_set_host(lua_State *state, bclua_host_fn host, void *context) {
    bclua_control *c = control(state);
    c->host_fn = host;
    c->host_context = context;
}
