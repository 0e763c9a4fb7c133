#ifndef BADGECTL_CLUASHIMS_H
#define BADGECTL_CLUASHIMS_H
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
// Wrappers for Lua API macros Swift cannot import, and the C helpers badgectl needs
// (message handler, count hook, capped allocator, error trampolines). Prefix: bclua_.

/// lua_pop is a macro.
void bclua_pop(lua_State *state, int n);
#endif
