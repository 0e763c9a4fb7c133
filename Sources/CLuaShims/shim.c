#include "CLuaShims.h"

void bclua_pop(lua_State *state, int n) { lua_pop(state, n); }
