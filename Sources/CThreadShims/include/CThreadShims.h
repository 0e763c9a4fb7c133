#ifndef C_THREAD_SHIMS_H
#define C_THREAD_SHIMS_H

// Where a new thread starts. Swift's Glibc module does not import the GNU affinity calls
// (sched_getcpu, sched_getaffinity, sched_setaffinity, pthread_attr_setaffinity_np, need
// _GNU_SOURCE) nor the CPU_* macros, so they are wrapped here, one prefixed function each.
//
// Why: on this kind of machine Linux often puts a new thread on its parent's CPU and leaves the
// other one idle until the next balancing tick, so a thread made to share a large file's reading
// sat for about 3 ms (a tenth of the whole command) before its first read. A thread created with
// `badge_thread_attr_start_elsewhere` starts on another CPU the process may use, then widens its
// own mask back with `badge_thread_allow` so that the scheduler may move it afterwards as usual.

#include <pthread.h>

#ifdef __linux__
#include <sched.h>
#endif

/// The CPUs a thread may run on (an opaque copy of a cpu_set_t on Linux).
typedef struct {
#ifdef __linux__
    cpu_set_t set;
#else
    int unused;
#endif
} badge_cpus;

/// The calling thread's allowed CPUs into `cpus`; 0 on success, -1 when not known.
int badge_cpus_of_caller(badge_cpus *cpus);

/// Asks `attr` to start a thread on any CPU of `allowed` but the caller's own. Returns the CPU
/// avoided (the caller's) when done; -1 when there is no other CPU to start on or the caller's
/// CPU is not known (`attr` unchanged).
int badge_thread_attr_start_elsewhere(pthread_attr_t *attr, const badge_cpus *allowed);

/// Lets the calling thread run on every CPU of `allowed` (the new thread's first call). 0 on success.
int badge_thread_allow(const badge_cpus *allowed);

/// The CPU the calling thread is on, -1 when not known (for tests).
int badge_current_cpu(void);

/// How many CPUs `cpus` holds.
int badge_cpus_count(const badge_cpus *cpus);

/// 1 when `a` and `b` hold the same CPUs.
int badge_cpus_equal(const badge_cpus *a, const badge_cpus *b);

#endif
