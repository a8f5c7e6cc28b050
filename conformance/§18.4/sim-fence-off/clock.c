/* The extern fn of case.oxl: reads the real clock. */
#include <stdint.h>
#include <time.h>

int64_t oxl_fenceoff_monotonicNanos(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
