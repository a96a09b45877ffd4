/* A slow system clock, for tests/fork_in_call.rs: loaded with LD_PRELOAD, it spins
 * for SCRU128_SLOW_CLOCK_NS nanoseconds (default 14000) of the monotonic clock before
 * every read of CLOCK_REALTIME, as libfaketime does when it reads its offset file
 * without its mutex. Built by the test with the system's C compiler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime;
static long spin_ns = -1;

int clock_gettime(clockid_t id, struct timespec *ts) {
    clock_gettime_fn real = __atomic_load_n(&real_clock_gettime, __ATOMIC_RELAXED);
    if (!real) {
        real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        __atomic_store_n(&real_clock_gettime, real, __ATOMIC_RELAXED);
    }
    long spin = __atomic_load_n(&spin_ns, __ATOMIC_RELAXED);
    if (spin < 0) {
        const char *text = getenv("SCRU128_SLOW_CLOCK_NS");
        spin = text ? atol(text) : 14000;
        __atomic_store_n(&spin_ns, spin, __ATOMIC_RELAXED);
    }
    if (id == CLOCK_REALTIME && spin > 0) {
        struct timespec start, now;
        real(CLOCK_MONOTONIC, &start);
        do {
            real(CLOCK_MONOTONIC, &now);
        } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < spin);
    }
    return real(id, ts);
}
