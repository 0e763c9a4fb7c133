// badgectl.max_square(tiles): the largest square of visited map tiles, for explorer rules. In C because a
// rule doing it in Lua over 10,000 tiles spends millions of instructions; here the work is charged to the
// call's instruction budget as library work is (bclua_internal_charge), so a pack that calls it in a loop
// over a huge table is stopped like any other runaway rule.
#include "internal.h"

static int compare_keys(const void *a, const void *b) {
    lua_Integer x = *(const lua_Integer *)a, y = *(const lua_Integer *)b;
    return (x > y) - (x < y);
}

enum { TILE_FACTOR_BITS = 24 };

// The position of `key` in the ascending `keys[0..<n]`, or of the first key above it.
static size_t lower_bound(const lua_Integer *keys, size_t n, lua_Integer key) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Argument 1: a set of tile keys (x * 2^24 + y, as the tiles measure gives them) -> true; keys whose value
// is false or nil do not count. Returns the square's size in tiles (0 for no tiles) and the x and y of its
// top-left (smallest x, smallest y) tile; of equal squares, the one with the smallest bottom-right key.
// Each tile's square ending there is 1 + the smallest of its left, upper and upper-left neighbours'.
static int max_square(lua_State *state) {
    luaL_checktype(state, 1, LUA_TTABLE);
    lua_settop(state, 1);
    bclua_control *c = control(state);
    size_t count = 0;
    lua_pushnil(state);
    while (lua_next(state, 1) != 0) { lua_pop(state, 1); count++; }
    bclua_internal_charge(state, c, (long long)count + 1, "badgectl.max_square");
    lua_Integer *keys = (lua_Integer *)lua_newuserdatauv(state, sizeof(lua_Integer) * (count > 0 ? count : 1), 0);  // 2
    size_t n = 0;
    lua_pushnil(state);
    while (lua_next(state, 1) != 0) {
        int truthy = lua_toboolean(state, -1);
        lua_pop(state, 1);
        if (!lua_isinteger(state, -1)) {
            int isnum = 0;
            lua_Number number = lua_tonumberx(state, -1, &isnum);
            if (!(lua_type(state, -1) == LUA_TNUMBER && isnum && number == (lua_Number)(lua_Integer)number)) {
                return luaL_error(state, "badgectl.max_square: expected a set of tile keys { [key] = true } (integers x * 2^24 + y), got a %s key",
                                  luaL_typename(state, -1));
            }
        }
        if (!truthy) continue;
        lua_Integer key = lua_isinteger(state, -1) ? lua_tointeger(state, -1) : (lua_Integer)lua_tonumber(state, -1);
        if (key < 0) return luaL_error(state, "badgectl.max_square: tile key %I is negative", key);
        keys[n++] = key;
    }
    if (n == 0) { lua_pushinteger(state, 0); return 1; }
    long long log = 1;
    for (size_t m = n; m > 1; m >>= 1) log++;
    bclua_internal_charge(state, c, (long long)n * log * 2, "badgectl.max_square");
    qsort(keys, n, sizeof(lua_Integer), compare_keys);
    int *sizes = (int *)lua_newuserdatauv(state, sizeof(int) * n, 0);  // 3
    const lua_Integer factor = (lua_Integer)1 << TILE_FACTOR_BITS;
    int best = 0;
    size_t best_index = 0;
    for (size_t i = 0; i < n; i++) {
        lua_Integer key = keys[i], x = key / factor, y = key % factor;
        int size = 1;
        int has_up = y > 0 && i > 0 && keys[i - 1] == key - 1;
        if (has_up && x > 0) {
            lua_Integer left = key - factor;
            size_t p = lower_bound(keys, i, left);
            if (p < i && keys[p] == left && p > 0 && keys[p - 1] == left - 1) {
                int m = sizes[i - 1];
                if (sizes[p] < m) m = sizes[p];
                if (sizes[p - 1] < m) m = sizes[p - 1];
                size = m + 1;
            }
        }
        sizes[i] = size;
        if (size > best) { best = size; best_index = i; }
    }
    lua_Integer bx = keys[best_index] / factor, by = keys[best_index] % factor;
    lua_pushinteger(state, best);
    lua_pushinteger(state, bx - best + 1);
    lua_pushinteger(state, by - best + 1);
    return 3;
}

void bclua_internal_register_geo(lua_State *state) {
    lua_pushcfunction(state, max_square);
    lua_setglobal(state, "badgectl_max_square");
}
