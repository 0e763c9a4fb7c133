// The sandbox of a state: the capped allocator (host allocations counted, rule allocations denied
// past the cap), the instruction budget's count hook, and the state's life (new, close, collect).
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
            if (c->total + grow < c->total || c->total + grow > c->cap + c->host) {
                if (!c->denied) note_denied_location(c);
                c->denied = 1;
                // The retry after the emergency collection failed too: a memory error is being raised.
                // Kill the call so a pcall inside the rule cannot catch it and try again (each retry
                // costs a full collection).
                if (++c->consecutive_denials >= 2 && !c->memory_killed && c->state != NULL) {
                    c->memory_killed = 1;
                    lua_sethook(c->state, bclua_internal_budget_hook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
                }
                return NULL;
            }
            c->consecutive_denials = 0;
        } else {
            c->host += grow;
        }
    }
    void *block = realloc(ptr, nsize);
    if (block == NULL) {
        if (nsize <= old) return ptr;  // keep the larger block: a shrink must not fail
        c->denied = 1;
        return NULL;
    }
    c->total = c->total - old + nsize;
    return block;
}

// Stops the running rule: once the budget is spent (or memory has run out for good), it fires on every
// instruction and line, so a pcall inside the rule catches the error only to hit it again at once.
void bclua_internal_budget_hook(lua_State *state, lua_Debug *ar) {
    (void)ar;
    bclua_control *c = control(state);
    if (!c->exhausted && !c->memory_killed) {
        c->remaining -= HOOK_GRANULARITY;
        if (c->remaining > 0) return;
        c->exhausted = 1;
        lua_sethook(state, bclua_internal_budget_hook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
    }
    c->limited = 0;  // the message must be allocated; no rule instruction runs from here on
    luaL_where(state, 0);  // in a hook, level 0 is the rule function being run
    if (c->memory_killed) {
        lua_pushliteral(state, "not enough memory");
    } else {
        lua_pushfstring(state, "instruction budget exhausted (%I instructions per call)", (lua_Integer)c->budget);
    }
    lua_concat(state, 2);
    lua_error(state);
}

lua_State *bclua_newstate(size_t memory_cap, long long instruction_budget) {
    bclua_control *c = (bclua_control *)calloc(1, sizeof(bclua_control));
    if (c == NULL) return NULL;
    c->cap = memory_cap;
    c->budget = instruction_budget > 0 ? instruction_budget : 1;
    lua_State *state = lua_newstate(capped_alloc, c);
    if (state == NULL) { free(c); return NULL; }
    for (int i = 0; i < BCLUA_KIND_MAX; i++) c->kinds[i] = c->data_metatables[i] = c->orders[i] = LUA_NOREF;
    c->strings_ref = LUA_NOREF;
    c->state = state;
    return state;
}

void bclua_close(lua_State *state) {
    bclua_control *c = control(state);
    // Finalizers cannot be declared by rules (setmetatable refuses __gc), but stay safe anyway.
    c->exhausted = 1;
    c->limited = 0;
    lua_sethook(state, bclua_internal_budget_hook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
    lua_close(state);
    for (struct arena_chunk *chunk = c->arena; chunk != NULL;) {
        struct arena_chunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
    free(c);
}

void bclua_gc_collect(lua_State *state) { lua_gc(state, LUA_GCCOLLECT); }

void bclua_set_host(lua_State *state, bclua_host_fn host, void *context) {
    bclua_control *c = control(state);
    c->host_fn = host;
    c->host_context = context;
}
