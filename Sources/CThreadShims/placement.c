#define _GNU_SOURCE
#include "CThreadShims.h"

#include <string.h>

#ifdef __linux__

int badge_cpus_of_caller(badge_cpus *cpus) {
    memset(cpus, 0, sizeof *cpus);
    return sched_getaffinity(0, sizeof cpus->set, &cpus->set) == 0 ? 0 : -1;
}

int badge_thread_attr_start_elsewhere(pthread_attr_t *attr, const badge_cpus *allowed) {
    int here = sched_getcpu();
    if (here < 0 || here >= CPU_SETSIZE || !CPU_ISSET(here, &allowed->set)) return -1;
    cpu_set_t elsewhere = allowed->set;
    CPU_CLR(here, &elsewhere);
    if (CPU_COUNT(&elsewhere) == 0) return -1;
    return pthread_attr_setaffinity_np(attr, sizeof elsewhere, &elsewhere) == 0 ? here : -1;
}

int badge_thread_allow(const badge_cpus *allowed) {
    return sched_setaffinity(0, sizeof allowed->set, &allowed->set) == 0 ? 0 : -1;
}

int badge_current_cpu(void) { return sched_getcpu(); }

int badge_cpus_count(const badge_cpus *cpus) { return CPU_COUNT(&cpus->set); }

int badge_cpus_equal(const badge_cpus *a, const badge_cpus *b) { return CPU_EQUAL(&a->set, &b->set) ? 1 : 0; }

#else

int badge_current_cpu(void) { return -1; }
int badge_cpus_count(const badge_cpus *cpus) { (void)cpus; return 0; }
int badge_cpus_equal(const badge_cpus *a, const badge_cpus *b) { (void)a; (void)b; return 1; }
int badge_cpus_of_caller(badge_cpus *cpus) { (void)cpus; return -1; }
int badge_thread_attr_start_elsewhere(pthread_attr_t *attr, const badge_cpus *allowed) { (void)attr; (void)allowed; return -1; }
int badge_thread_allow(const badge_cpus *allowed) { (void)allowed; return 0; }

#endif
