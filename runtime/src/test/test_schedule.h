/* test_schedule.h: the schedule file in a test binary (test_schedule.c). */
#ifndef OXL_TEST_SCHEDULE_H
#define OXL_TEST_SCHEDULE_H

#include "oxl_sched.h"
#include "oxl_schedule.h"
#include "oxl_test.h"

typedef struct test_schedule {
    oxl_schedule in;
    bool have_in;
    const char *out_path;
} test_schedule;

/* Reads OXL_SIM_SCHEDULE_IN and OXL_SIM_SCHEDULE_OUT into opt: 0, or 2
 * with the message printed. */
int test_schedule_begin(test_schedule *ts, const oxl_test_case *tc, uint64_t seed, oxl_sched_options *opt);
/* Writes OXL_SIM_SCHEDULE_OUT, frees ts: 0, or 2 with the message printed. */
int test_schedule_end(test_schedule *ts, const oxl_test_case *tc, uint64_t seed, const oxl_sched_result *r);

#endif
