/* bench/fence: what the fence costs a call outside a simulation. This
 * benchmark is linked with the fence's wrappers, as a test binary is, and
 * times the same libc calls through their wrappers (unarmed: a load and a
 * branch in front of libc) and straight to libc through __real_, in the
 * same run. `oxl run` programs are linked without the wrappers (ctest
 * fence_link checks it), so there the cost is none by construction.
 *   bench_fence [calls]   (default 20,000,000 per figure, best of 5) */
#include "bench_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int __real_clock_gettime(clockid_t id, struct timespec *ts);
char *__real_getenv(const char *name);

static volatile uint64_t sink;

static double time_clock(int64_t n, bool wrapped) {
    struct timespec ts;
    uint64_t acc = 0;
    double t0 = bench_now();
    for (int64_t i = 0; i < n; i++) {
        if (wrapped)
            clock_gettime(CLOCK_MONOTONIC, &ts);
        else
            __real_clock_gettime(CLOCK_MONOTONIC, &ts);
        acc += (uint64_t)ts.tv_nsec;
    }
    double dt = bench_now() - t0;
    sink = acc;
    return dt / (double)n * 1e9;
}

static double time_getenv(int64_t n, bool wrapped) {
    uint64_t acc = 0;
    double t0 = bench_now();
    for (int64_t i = 0; i < n; i++) acc += (uintptr_t)(wrapped ? getenv("OXL_BENCH_FENCE") : __real_getenv("OXL_BENCH_FENCE"));
    double dt = bench_now() - t0;
    sink = acc;
    return dt / (double)n * 1e9;
}

static double best(double a, double b) { return a < b ? a : b; }

int main(int argc, char **argv) {
    int64_t n = 20000000;
    if (argc > 1) {
        char *end;
        n = strtoll(argv[1], &end, 10);
        if (*end || n <= 0) {
            fprintf(stderr, "bench_fence: bad call count '%s'\n", argv[1]);
            return 2;
        }
    }
    double clock_direct = 1e9, clock_wrapped = 1e9, env_direct = 1e9, env_wrapped = 1e9;
    for (int round = 0; round < 5; round++) { /* interleaved, so drift hits both */
        clock_direct = best(clock_direct, time_clock(n, false));
        clock_wrapped = best(clock_wrapped, time_clock(n, true));
        env_direct = best(env_direct, time_getenv(n / 4, false));
        env_wrapped = best(env_wrapped, time_getenv(n / 4, true));
    }
    printf("fence.clock_gettime_libc: %.2f ns\n", clock_direct);
    printf("fence.clock_gettime_wrapped: %.2f ns\n", clock_wrapped);
    printf("fence.clock_gettime_wrapped.ratio: %.3f\n", clock_wrapped / clock_direct);
    printf("fence.getenv_libc: %.2f ns\n", env_direct);
    printf("fence.getenv_wrapped: %.2f ns\n", env_wrapped);
    printf("fence.getenv_wrapped.ratio: %.3f\n", env_wrapped / env_direct);
    return 0;
}
