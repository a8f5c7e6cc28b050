/* time.c: the C side of std.time (std/time/time.oxl). In a simulation the
 * clock is the World's virtual one, 2026-01-01T00:00:00Z at virtual time 0;
 * a real-time run (oxl run, unit tests) reads the system clock. */
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "oxl_std_test.h"
#include "oxl_std_time.h"

#include <time.h>

static int64_t system_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * OXL_SEC + ts.tv_nsec;
}

int64_t oxl_std_time_now(void) {
    if (!oxl_sched_active() || oxl_sched_is_real_time()) return system_now();
    return OXL_STD_EPOCH_NS + oxl_now();
}

/* oxl_sleep_at checks for a task (a panic at the caller's line outside
 * one): checking here too cost 15 instructions of a 550-instruction tick. */
void oxl_std_time_sleep(int64_t d) {
    oxl_call_site at = oxl_extern_caller("(std.time)");
    oxl_sleep_at(d, at.file, at.line);
}
