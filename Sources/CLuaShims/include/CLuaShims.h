#ifndef BADGECTL_CLUASHIMS_H
#define BADGECTL_CLUASHIMS_H
#include <stddef.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
// Wrappers for Lua API macros Swift cannot import, and the C helpers badgectl needs
// (message handler, count hook, capped allocator, error trampolines, read-only proxies).
// Prefix: bclua_. Nothing here is called with a Swift frame between a lua_error and its pcall.

// MARK: - Macros Swift cannot import (static inline, as LuaSwift does: no call, nothing exported)

/// lua_pop is a macro (lua_settop with a negative index).
static inline void bclua_pop(lua_State *state, int n) { lua_pop(state, n); }
/// LUA_REGISTRYINDEX is a macro expression Swift does not import.
static inline int bclua_registryindex(void) { return LUA_REGISTRYINDEX; }
/// lua_remove is a macro over lua_rotate.
static inline void bclua_remove(lua_State *state, int index) { lua_remove(state, index); }

// MARK: - States with a memory cap and an instruction budget

/// A new state whose allocator denies growth past `memory_cap` bytes while Lua code runs
/// (host allocations are counted but never denied), and whose calls stop after
/// `instruction_budget` VM instructions. NULL when out of memory.
lua_State *bclua_newstate(size_t memory_cap, long long instruction_budget);
/// Closes the state and frees its control block. Finalizers run with the budget already spent.
void bclua_close(lua_State *state);
/// A full garbage collection (lua_gc is variadic, which Swift cannot call).
void bclua_gc_collect(lua_State *state);

/// The host function table: `fn` is the id given to bclua_push_host_function (0 = lazy field),
/// `token` its second upvalue. Returns the number of results pushed, or -1 when it pushed an
/// error message instead: the C trampoline then raises it with lua_error (never Swift).
typedef int (*bclua_host_fn)(lua_State *state, void *context, int fn, long long token);
void bclua_set_host(lua_State *state, bclua_host_fn host, void *context);

/// lua_pcall with the traceback message handler under the function, the budget re-armed and
/// the memory cap on. Returns the Lua status.
int bclua_call(lua_State *state, int nargs, int nresults);
/// After bclua_call: did the budget run out / did the allocator deny memory during that call?
int bclua_budget_exhausted(lua_State *state);
int bclua_memory_denied(lua_State *state);
/// After bclua_call: was the call stopped because memory ran out (even if a pcall in the rule caught the first error)?
int bclua_memory_killed(lua_State *state);
/// Where the first denied allocation of the last call happened: returns the line (0: unknown) and sets *source.
int bclua_denied_location(lua_State *state, const char **source);

/// Pushes a Lua C closure that calls the host function `fn` with `token` (see bclua_host_fn).
void bclua_push_host_function(lua_State *state, int fn, long long token);

/// Loads a text-only chunk (binary chunks are refused). Status as luaL_loadbufferx.
int bclua_load_text(lua_State *state, const char *bytes, size_t length, const char *chunkname);

/// Opens base, string, table, math, utf8 into the (host-only) globals and registers
/// `badgectl_sorted_pairs` there; the prelude then builds pack environments from them.
void bclua_open_libraries(lua_State *state);

// MARK: - Read-only proxies

/// Kinds of read-only proxy objects handed to rules. CHECKPOINT, SPLIT, EFFORT, DROPPED and the
/// arrays CHECKPOINTS..DROPPED_LIST are light records (see below); the others are full userdata proxies.
enum {
    BCLUA_KIND_RUN = 0,
    BCLUA_KIND_CHECKPOINT,
    BCLUA_KIND_SPLIT,
    BCLUA_KIND_EFFORT,
    BCLUA_KIND_ELEVATION,
    BCLUA_KIND_HEART_RATE,
    BCLUA_KIND_CADENCE,
    BCLUA_KIND_DROPPED,
    BCLUA_KIND_FASTEST,
    BCLUA_KIND_CHECKPOINTS,   // arrays from here
    BCLUA_KIND_SPLITS_KM,
    BCLUA_KIND_SPLITS_MILE,
    BCLUA_KIND_EFFORTS,
    BCLUA_KIND_DROPPED_LIST,
    BCLUA_KIND_CTX,
    BCLUA_KIND_CATALOGUE_BADGE,
    BCLUA_KIND_CATALOGUE,
    BCLUA_KIND_PACK_INFO,
    BCLUA_KIND_RULE_INFO,
    BCLUA_KIND_COUNT
};
/// Creates the metatables of every kind (once per state).
void bclua_define_kinds(lua_State *state);
/// Replaces the table on top with a read-only proxy (a userdata whose user value is the table).
void bclua_make_proxy(lua_State *state, int kind);
/// If the value at `index` is a run proxy, pushes nothing and returns its `index` field (1-based), else 0.
long long bclua_run_index(lua_State *state, int index);

/// Field values of one run; `present` has bit (1 << BCLUA_RUN_x) set for each optional value given.
enum {
    BCLUA_RUN_START_EPOCH = 0, BCLUA_RUN_UTC_OFFSET, BCLUA_RUN_ELAPSED, BCLUA_RUN_TIMER, BCLUA_RUN_MOVING,
    BCLUA_RUN_SPEED, BCLUA_RUN_PACE_KM, BCLUA_RUN_PACE_MILE, BCLUA_RUN_MOVING_PACE_KM, BCLUA_RUN_DEVICE_DISTANCE,
    BCLUA_RUN_ELEVATION, BCLUA_RUN_HEART_RATE, BCLUA_RUN_CADENCE
};
typedef struct {
    const char *id; size_t id_length;
    const char *start; size_t start_length;            // NULL: nil
    const char *local_date; size_t local_date_length;  // NULL: nil
    const char *name; size_t name_length;              // NULL: nil
    const char *sport; size_t sport_length;
    const char *format; size_t format_length;
    unsigned int present;
    long long index;
    long long points;
    long long utc_offset_s;
    double start_epoch_s, distance_m, elapsed_s, timer_s, moving_s, speed_m_per_s;
    double pace_s_per_km, pace_s_per_mile, moving_pace_s_per_km, device_distance_m;
    double elevation_gain_m, elevation_loss_m, elevation_min_m, elevation_max_m;
    double heart_rate_avg, heart_rate_max, cadence_avg, cadence_max;
} bclua_run;
/// Pushes a run proxy (scalar fields and elevation/heart_rate/cadence; the arrays are built lazily
/// through host function 0 the first time a rule reads them).
void bclua_push_run(lua_State *state, const bclua_run *run);

// MARK: - Light records

/// The records of splits, efforts, checkpoints and dropped entries handed to the evaluated rules, and their arrays:
/// light userdata pointing into host memory from bclua_records (read-only through one metatable that
/// dispatches on `kind`, the first member: BCLUA_KIND_SPLIT, _CHECKPOINT, _EFFORT or _DROPPED).
/// Strings are ids from bclua_add_string (0: nil).
typedef struct { int kind; int partial; long long index; double distance_m, elapsed_s, cumulative_s, pace_s_per_km; } bclua_split_record;
typedef struct { int kind; int badge, name; int has_position, has_elapsed; double distance_m, lat, lon, elapsed_s; } bclua_checkpoint_record;
typedef struct { int kind; int name; double distance_m, elapsed_s, start_distance_m, start_elapsed_s, pace_s_per_km; } bclua_effort_record;
typedef struct { int kind; int reason; long long count; } bclua_dropped_record;
/// `bytes` of zeroed host memory (16-byte aligned) that stays valid until bclua_close. NULL when out of memory.
void *bclua_records(lua_State *state, size_t bytes);
/// Keeps a string for the light records and returns its id (1, 2, ...). Intern on the host side.
int bclua_add_string(lua_State *state, const char *text, size_t length);
/// Pushes a read-only array (`array_kind`: BCLUA_KIND_CHECKPOINTS, _SPLITS_KM, _SPLITS_MILE, _EFFORTS or
/// _DROPPED_LIST) of `count` light records `stride` bytes apart: itself a light record (nil when out of memory).
void bclua_push_record_array(lua_State *state, const void *first, size_t stride, size_t count, int array_kind);
/// The kind name of the light record at `index` ("split", "splits_km", ...), or NULL when it is none.
const char *bclua_record_name(lua_State *state, int index);

#endif
