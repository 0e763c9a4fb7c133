// Calls into Lua and back: lua_pcall under the traceback message handler with the budget re-armed,
// the host function trampolines (Swift returns, C raises), and text-only loading.
#include "internal.h"

// Runs only when an error reaches bclua_call (a rule's own pcall has no handler of ours; a stop
// passes through the rule's xpcall handlers without calling them, guard.c), so the call is over: lift
// the cap so the traceback can be built even when memory ran out.
static int message_handler(lua_State *state) {
    control(state)->limited = 0;
    const char *message = lua_tostring(state, 1);
    if (message == NULL) {
        message = lua_pushfstring(state, "(error object is a %s value)", luaL_typename(state, 1));
    }
    luaL_traceback(state, state, message, 1);
    return 1;
}

int bclua_call(lua_State *state, int nargs, int nresults) {
    bclua_control *c = control(state);
    int base = lua_gettop(state) - nargs;
    lua_pushcfunction(state, message_handler);
    lua_insert(state, base);
    c->stop = BCLUA_STOP_NONE;
    c->denied = 0;
    c->consecutive_denials = 0;
    c->pending_denial = 0;
    c->remaining = c->budget;
    c->allocated = 0;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &c->deadline);
    long long nanoseconds = c->deadline.tv_nsec + c->call_nanoseconds % 1000000000LL;
    c->deadline.tv_sec += (time_t)(c->call_nanoseconds / 1000000000LL + nanoseconds / 1000000000LL);
    c->deadline.tv_nsec = (long)(nanoseconds % 1000000000LL);
    lua_sethook(state, bclua_internal_budget_hook, LUA_MASKCOUNT, HOOK_GRANULARITY);
    c->limited = 1;
    int status = lua_pcall(state, nargs, nresults, base);
    c->limited = 0;
    lua_sethook(state, NULL, 0, 0);
    lua_remove(state, base);
    return status;
}

int bclua_stop_reason(lua_State *state) { return control(state)->stop; }
int bclua_memory_denied(lua_State *state) { return control(state)->denied; }

int bclua_denied_location(lua_State *state, const char **source) {
    bclua_control *c = control(state);
    *source = c->denied_source;
    return c->denied_line;
}

// MARK: - Trampolines: Swift returns, C raises

int bclua_internal_call_host(lua_State *state, int fn, long long token) {
    bclua_control *c = control(state);
    int was = c->limited;
    c->limited = 0;
    int results = -1;
    if (c->host_fn != NULL) {
        results = c->host_fn(state, c->host_context, fn, token);
    } else {
        lua_pushliteral(state, "badgectl: no host");
    }
    c->limited = was;
    return results;
}

static int trampoline(lua_State *state) {
    int fn = (int)lua_tointeger(state, lua_upvalueindex(1));
    long long token = (long long)lua_tointeger(state, lua_upvalueindex(2));
    int results = bclua_internal_call_host(state, fn, token);
    if (results < 0) return lua_error(state);  // the message is on top; Swift has returned
    return results;
}

void bclua_push_host_function(lua_State *state, int fn, long long token) {
    lua_pushinteger(state, fn);
    lua_pushinteger(state, (lua_Integer)token);
    lua_pushcclosure(state, trampoline, 2);
}

int bclua_load_text(lua_State *state, const char *bytes, size_t length, const char *chunkname) {
    return luaL_loadbufferx(state, bytes, length, chunkname, "t");
}

int bclua_load_own_binary(lua_State *state, const char *bytes, size_t length, const char *chunkname) {
    return luaL_loadbufferx(state, bytes, length, chunkname, "b");
}

typedef struct {
    char *bytes;
    size_t length, capacity;
} dump_buffer;

static int dump_writer(lua_State *state, const void *part, size_t size, void *userdata) {
    (void)state;
    dump_buffer *buffer = (dump_buffer *)userdata;
    if (buffer->length + size > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + size) capacity *= 2;
        char *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) return 1;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, part, size);
    buffer->length += size;
    return 0;
}

char *bclua_dump_function(lua_State *state, size_t *length) {
    dump_buffer buffer = {NULL, 0, 0};
    *length = 0;
    if (!lua_isfunction(state, -1) || lua_dump(state, dump_writer, &buffer, 0) != 0 || buffer.length == 0) {
        free(buffer.bytes);
        return NULL;
    }
    *length = buffer.length;
    return buffer.bytes;
}
