/* sched_realtime_test.c: the scheduler's real-time mode (oxl run, unit
 * tests): sleeps take real time but overlap, a cancelled select timeout
 * does not hold up the next event, a deadlock is still reported, and a
 * failed deterministic run keeps its trace tail. */
#include "oxl_sched.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * OXL_SEC + ts.tv_nsec;
}

/* Long enough that three of them in a row (600 ms) and three at once
 * (200 ms) stay apart on a loaded machine: the bounds below are "less
 * than in a row", 400 ms of slack. */
static void *sleeper(void *arg) {
    oxl_sleep(200 * OXL_MS);
    return arg;
}

static void *three_sleepers(void *arg) {
    oxl_task *t[3];
    for (int i = 0; i < 3; i++) t[i] = oxl_spawn(sleeper, NULL);
    for (int i = 0; i < 3; i++) oxl_join(t[i], NULL);
    return arg;
}

static void *sender(void *arg) {
    oxl_sleep(10 * OXL_MS);
    int v = 1;
    oxl_chan_send(arg, &v);
    return NULL;
}

/* A select whose 5 s timeout loses to a message after 10 ms, then a sleep
 * of 50 ms: the run must not wait for the cancelled timeout. */
static void *cancelled_timeout(void *arg) {
    oxl_chan *c = oxl_chan_new(0, sizeof(int));
    oxl_spawn(sender, c);
    int v = 0;
    oxl_select_case k = {c, false, &v};
    oxl_chan_status st;
    size_t got = oxl_select(&k, 1, 5 * OXL_SEC, &st);
    oxl_sleep(50 * OXL_MS);
    *(int *)arg = got == 0 && v == 1;
    return NULL;
}

static void *blocked_forever(void *arg) {
    oxl_chan *c = oxl_chan_new(0, sizeof(int));
    int v;
    oxl_chan_recv(c, &v);
    return arg;
}

static void *compute_then_sleep(void *arg) {
    /* the run falls behind the clock while this computes */
    int64_t until = mono() + 30 * OXL_MS;
    while (mono() < until) {
    }
    int64_t t0 = mono();
    oxl_sleep(40 * OXL_MS);
    *(int64_t *)arg = mono() - t0;
    return NULL;
}

int main(void) {
    oxl_sched_options opt;
    oxl_sched_options_real_time(&opt);
    tap_ok(opt.real_time && opt.policy == OXL_POLICY_FIFO, "real-time defaults: real_time, FIFO");
    tap_ok(opt.livelock_switches == UINT64_MAX, "no livelock limit in real time (a busy program is not stuck)");

    int64_t t0 = mono();
    oxl_sched_result r = oxl_sched_run(three_sleepers, NULL, &opt);
    int64_t took = mono() - t0;
    tap_is_int(r.status, OXL_SCHED_FINISHED, "three sleeping tasks finish");
    tap_ok(took >= 200 * OXL_MS, "200ms sleeps take real time (%lld ms)", (long long)(took / OXL_MS));
    tap_ok(took < 600 * OXL_MS, "and overlap (%lld ms, not 600)", (long long)(took / OXL_MS));
    tap_ok(r.end_time >= 200 * OXL_MS && r.end_time < 600 * OXL_MS,
           "virtual time follows: about 200ms at the end (%lld ns)", (long long)r.end_time);
    oxl_sched_result_free(&r);

    int good = 0;
    t0 = mono();
    r = oxl_sched_run(cancelled_timeout, &good, &opt);
    took = mono() - t0;
    tap_ok(r.status == OXL_SCHED_FINISHED && good, "the message wins the select");
    tap_ok(took < 1 * OXL_SEC, "the cancelled 5s timeout does not delay the run (%lld ms)",
           (long long)(took / OXL_MS));
    oxl_sched_result_free(&r);

    r = oxl_sched_run(blocked_forever, NULL, &opt);
    tap_is_int(r.status, OXL_SCHED_DEADLOCK, "a blocked program is a deadlock in real time too");
    tap_contains(r.report ? r.report : "", "task 1 on process: receiving from channel 1", "the report names the task");
    tap_ok(r.tail == NULL, "no trace tail unless asked");
    oxl_sched_result_free(&r);

    int64_t slept = 0;
    r = oxl_sched_run(compute_then_sleep, &slept, &opt);
    tap_ok(r.status == OXL_SCHED_FINISHED && slept >= 40 * OXL_MS,
           "a sleep after computing still lasts its duration (%lld ms)", (long long)(slept / OXL_MS));
    oxl_sched_result_free(&r);

    oxl_sched_options det;
    oxl_sched_options_default(&det, 3);
    det.tail_events = 5;
    r = oxl_sched_run(blocked_forever, NULL, &det);
    tap_is_int(r.status, OXL_SCHED_DEADLOCK, "deterministic deadlock");
    tap_ok(r.tail && strncmp(r.tail, "  #", 3) == 0, "a failed run keeps its trace tail, lines indented");
    oxl_sched_result_free(&r);
    return tap_done();
}
