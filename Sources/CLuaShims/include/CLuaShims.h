#ifndef BADGECTL_CLUASHIMS_H
#define BADGECTL_CLUASHIMS_H
#include <stddef.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
// Wrappers for Lua API macros Swift cannot import, and the C helpers badgectl needs
// (message handler, count hook, capped allocator, error trampolines, read-only values). Only
// LuaState.swift includes it.
// Prefix: bclua_. Nothing here is called with a Swift frame between a lua_error and its pcall.

// MARK: - Macros Swift cannot import (static inline, as LuaSwift does: no call, nothing exported)

/// lua_pop is a macro (lua_settop with a negative index).
static inline void bclua_pop(lua_State *state, int n) { lua_pop(state, n); }
/// LUA_REGISTRYINDEX is a macro expression Swift does not import.
static inline int bclua_registryindex(void) { return LUA_REGISTRYINDEX; }
/// lua_remove is a macro over lua_rotate.
static inline void bclua_remove(lua_State *state, int index) { lua_remove(state, index); }

// MARK: - States with a memory cap and an instruction budget

/// Which limit stopped a call (bclua_stop_reason). Every one but the wall clock is a deterministic
/// budget: the same rule on the same runs stops at the same point on every run.
enum {
    BCLUA_STOP_NONE = 0,
    BCLUA_STOP_INSTRUCTIONS = 1,  // VM instructions plus charged library work
    BCLUA_STOP_MEMORY = 2,        // live bytes past the memory cap
    BCLUA_STOP_ALLOCATION = 3,    // bytes allocated in one call past the allocation budget
    BCLUA_STOP_WALL_CLOCK = 4     // the backstop: the call ran longer than its seconds
};

/// A new state whose allocator denies growth past `memory_cap` bytes while Lua code runs (host
/// allocations are counted but never denied), and whose calls stop after `instruction_budget` VM
/// instructions and charged library work, after allocating `allocation_budget` bytes in all, or
/// after `call_seconds` of wall-clock time (the backstop). NULL when out of memory.
lua_State *bclua_newstate(size_t memory_cap, long long instruction_budget, size_t allocation_budget, double call_seconds);
/// Closes the state and frees its control block. Finalizers run with the budget already spent.
void bclua_close(lua_State *state);
/// A full garbage collection (lua_gc is variadic, which Swift cannot call).
void bclua_gc_collect(lua_State *state);

// MARK: - One loaded state for many evaluations (reuse.c)

/// Marks the loaded state (after a full collection): its arena, light strings and registry slots
/// from here on are an evaluation's and go at bclua_reuse_reset; lists every object reachable from
/// the registry, the globals and the shared metatables, with the hash of each one's contents. 0 when
/// the walk failed.
int bclua_reuse_mark(lua_State *state);
/// Before an evaluation: rules may hold `memory_cap` beyond what the host holds now, as in a fresh state.
void bclua_reuse_begin(lua_State *state);
/// After an evaluation whose registry refs were all released: drops the light strings and arena
/// records made since the mark, collects once the garbage passes 1/64 of the cap (at most 1 MiB), and
/// compares each listed object's contents with the mark's. 1 when the state is exactly as marked
/// (nothing a rule did is reachable), 0 when it must be thrown away.
int bclua_reuse_reset(lua_State *state);

/// The host function table: `fn` is the id given to bclua_push_host_function (0 = lazy field),
/// `token` its second upvalue. Returns the number of results pushed, or -1 when it pushed an
/// error message instead: the C trampoline then raises it with lua_error (never Swift).
typedef int (*bclua_host_fn)(lua_State *state, void *context, int fn, long long token);
void bclua_set_host(lua_State *state, bclua_host_fn host, void *context);

/// lua_pcall with the traceback message handler under the function, the budgets re-armed and
/// the memory cap on. Returns the Lua status.
int bclua_call(lua_State *state, int nargs, int nresults);
/// After bclua_call: which limit stopped it (BCLUA_STOP_*; NONE when it ended by itself or by an
/// ordinary error). A stop cannot be caught inside the call: pcall and xpcall re-raise it.
int bclua_stop_reason(lua_State *state);
/// After bclua_call: did the allocator deny memory during that call?
int bclua_memory_denied(lua_State *state);
/// Where the first denied allocation of the last call happened: returns the line (0: unknown) and sets *source.
int bclua_denied_location(lua_State *state, const char **source);

/// "Did you mean": the index among `names` (`count` of them, `lengths` bytes each) closest to `key`, or
/// -1. A name that starts with the key (or that the key starts with, 2 bytes at least) comes first,
/// the nearest in length; else the nearest by edit distance over bytes within `max_distance` (negative:
/// a third of the key's length, between 1 and 3). Ties go to the first. The one suggester: the
/// proxies' and light records' unknown-field errors use it inside their C calls, Swift through it.
long bclua_suggest(const char *key, size_t key_length, const char *const *names, const size_t *lengths, size_t count, long max_distance);

/// Pushes a Lua C closure that calls the host function `fn` with `token` (see bclua_host_fn).
void bclua_push_host_function(lua_State *state, int fn, long long token);

/// Loads a text-only chunk (binary chunks are refused). Status as luaL_loadbufferx.
int bclua_load_text(lua_State *state, const char *bytes, size_t length, const char *chunkname);

/// Loads a binary chunk. Only for bytes `bclua_dump_function` made in this process from the host's
/// own trusted preludes (compiled once, loaded into every state): never for anything read from a
/// file or given by a rule (Lua does not check binary chunks; a crafted one can break the VM).
int bclua_load_own_binary(lua_State *state, const char *bytes, size_t length, const char *chunkname);

/// The function on top of the stack as a binary chunk, debug information kept (file:line in
/// tracebacks): a malloc'd buffer the caller frees, its size in `length`; NULL when it cannot.
char *bclua_dump_function(lua_State *state, size_t *length);

/// Opens base, string, table, math, utf8 into the (host-only) globals, puts the guarded pcall and
/// xpcall and the charged library functions in place, and registers `badgectl_sorted_pairs` there;
/// the prelude then builds pack environments from them.
void bclua_open_libraries(lua_State *state);

// MARK: - Read-only values for rules

/// Kinds are numbered by the host (0 ..< BCLUA_KIND_MAX); every name (kind, field) comes from the host,
/// so the run schema is declared once, in Swift.
enum { BCLUA_KIND_MAX = 32, BCLUA_RECORD_MAX_FIELDS = 32 };
/// How a kind's values are made. PROXY: a userdata over a table (bclua_make_proxy, bclua_push_run);
/// RECORD: a light record in host memory (bclua_records); RECORD_ARRAY: a light array of records.
enum { BCLUA_SHAPE_PROXY = 0, BCLUA_SHAPE_RECORD = 1, BCLUA_SHAPE_RECORD_ARRAY = 2 };
/// Field types of light records, one char each in bclua_kind.types. STRING and VALUE slots hold ids
/// from bclua_add_string / bclua_add_value; RECORD slots a pointer to another light record.
enum {
    BCLUA_FIELD_FLOAT = 'f', BCLUA_FIELD_INTEGER = 'i', BCLUA_FIELD_BOOLEAN = 'b', BCLUA_FIELD_STRING = 's',
    BCLUA_FIELD_VALUE = 'v', BCLUA_FIELD_RECORD = 'r'
};

/// One kind of read-only value.
typedef struct {
    int kind;
    int shape;                // BCLUA_SHAPE_*
    const char *name;         // in messages and tostring: "run", "split", "splits_km"
    const char *fields;       // field names, each ended by a NUL, in documented (pairs) order; NULL: an array
    int field_count;
    const char *types;        // RECORD: one BCLUA_FIELD_* per field
    unsigned long long lazy;  // PROXY: bit i set when field i + 1 is built by host function 0 on its first read
    int label_field;          // PROXY: tostring is "<name> <value of this field>" when > 0 (1-based)
} bclua_kind;
/// Defines the kinds (once per state, before any value is made). 0 when a spec is out of range.
int bclua_define_kinds(lua_State *state, const bclua_kind *kinds, int count);
/// Replaces the table on top with a read-only proxy of `kind` (a userdata whose user value is the table).
void bclua_make_proxy(lua_State *state, int kind);
/// If the value at `index` is a run (bclua_push_run), its host index (1-based), else 0. Pushes nothing.
long long bclua_run_index(lua_State *state, int index);

/// One field value handed to bclua_push_run.
enum { BCLUA_VALUE_NIL = 0, BCLUA_VALUE_FLOAT, BCLUA_VALUE_INTEGER, BCLUA_VALUE_STRING, BCLUA_VALUE_RECORD, BCLUA_VALUE_BOOLEAN };
typedef struct {
    int type;              // BCLUA_VALUE_*
    double number;
    long long integer;     // INTEGER; BOOLEAN: 0 or 1
    const char *text;      // STRING: `length` bytes (copied)
    size_t length;
    const void *record;    // RECORD: a light record from bclua_records
} bclua_value;
/// Pushes a run proxy of `kind` with field i's value from values[i] (`count` values, the kind's field
/// order; NIL: nil or, for a lazy field, built by host function 0 with token `index` on first read).
/// Each run has a metatable of its own whose __index is the data table: a present field is a plain read.
void bclua_push_run(lua_State *state, int kind, const bclua_value *values, int count, long long index);

// MARK: - Light records

/// Light records: light userdata pointing into host memory from bclua_records, read-only through one
/// metatable that dispatches on `kind`. Layout: a bclua_record, then one 8-byte slot per field; bit i
/// of `present` is set when field i has a value. STRING slots hold ids from bclua_add_string.
typedef union { double number; long long integer; const void *record; } bclua_slot;
typedef struct { int kind; unsigned int present; bclua_slot slots[]; } bclua_record;
/// `bytes` of zeroed host memory (16-byte aligned) that stays valid until bclua_close. NULL when out of memory.
void *bclua_records(lua_State *state, size_t bytes);
/// Keeps a string for the light records and returns its id (1, 2, ...). Intern on the host side.
int bclua_add_string(lua_State *state, const char *text, size_t length);
/// Pops the value on top (a host function) into the same table; its id, for a VALUE field.
int bclua_add_value(lua_State *state);
/// Pushes a read-only array of kind `array_kind` (a RECORD_ARRAY) of `count` light records `stride`
/// bytes apart: itself a light record (nil when out of memory).
void bclua_push_record_array(lua_State *state, const void *first, size_t stride, size_t count, int array_kind);
/// The kind name of the light record at `index` ("split", "splits_km", ...), or NULL when it is none.
const char *bclua_record_name(lua_State *state, int index);

#endif
