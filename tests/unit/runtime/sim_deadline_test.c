/* sim_deadline_test: deadlines, the wakeups that are no event until they
 * pass (runtime/src/sim/deadline.c): when they fire against queued events,
 * their order, cancelling, what they leave in the trace (nothing, unless
 * they fire), the limits, and a handoff that races its own timeout. */
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "oxl_sim.h"
#include "sim/sim_internal.h" /* sim_deadline_arm, sim_cancel_event */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* What ran, in order: 'a'.. for events, '0'.. for deadlines (by tag). */
typedef struct log {
    char order[64];
    size_t n;
    oxl_time_ns at[64];
} log;

static log the_log;

static void note(char c, oxl_time_ns t) {
    if (the_log.n < sizeof the_log.order - 1) {
        the_log.at[the_log.n] = t;
        the_log.order[the_log.n++] = c;
        the_log.order[the_log.n] = 0;
    }
}

static void on_event(oxl_world *w, void *arg) { note(*(const char *)arg, oxl_world_now(w)); }
static void on_deadline(oxl_world *w, void *arg, uint64_t tag) {
    (void)arg;
    note((char)('0' + tag), oxl_world_now(w));
}

static oxl_world *fresh(uint64_t seed) {
    memset(&the_log, 0, sizeof the_log);
    oxl_world_options o = oxl_world_options_default(seed);
    return oxl_world_new(&o);
}

static uint64_t arm(oxl_world *w, oxl_time_ns t, uint64_t tag) {
    return sim_deadline_arm(w, t, OXL_NO_NODE, on_deadline, NULL, tag);
}

static size_t count_kind(oxl_world *w, oxl_event_kind kind) {
    size_t n = 0;
    oxl_trace_event ev;
    for (uint64_t i = 0; i <= oxl_world_trace_count(w); i++)
        if (oxl_world_trace_event(w, i, &ev) && ev.kind == kind) n++;
    return n;
}

static const char A = 'a', B = 'b', C = 'c';

static void firing(void) {
    oxl_world *w = fresh(1);
    arm(w, 5 * OXL_MS, 0);
    tap_is_int((int64_t)oxl_world_pending(w), 1, "an armed deadline is pending");
    tap_is_int(oxl_world_run(w), OXL_RUN_IDLE, "a World with only a deadline runs it and is idle");
    tap_is_str(the_log.order, "0", "it fired");
    tap_is_int(the_log.at[0], 5 * OXL_MS, "at its time");
    tap_is_int((int64_t)oxl_world_event_count(w), 1, "it counts as one event run");
    tap_is_int((int64_t)count_kind(w, OXL_EV_TASK), 1, "and is traced once, as a task wakeup");
    oxl_world_free(w);

    /* an event at the deadline's instant runs first; one after it, after */
    w = fresh(1);
    oxl_world_at(w, 10 * OXL_MS, "late", on_event, (void *)&C);
    arm(w, 5 * OXL_MS, 0);
    oxl_world_at(w, 5 * OXL_MS, "same instant", on_event, (void *)&B);
    oxl_world_at(w, 1 * OXL_MS, "early", on_event, (void *)&A);
    oxl_world_run(w);
    tap_is_str(the_log.order, "ab0c", "events due at or before the deadline's instant run first, later ones after it");
    oxl_world_free(w);

    /* deadlines among themselves: by time, then in the order armed */
    w = fresh(1);
    arm(w, 7 * OXL_MS, 3);
    arm(w, 5 * OXL_MS, 1);
    arm(w, 5 * OXL_MS, 2);
    arm(w, 2 * OXL_MS, 0);
    oxl_world_run(w);
    tap_is_str(the_log.order, "0123", "deadlines fire by time, those of one instant in the order they were armed");
    oxl_world_free(w);

    /* one armed in the past fires now */
    w = fresh(1);
    oxl_world_run_until(w, 3 * OXL_MS);
    arm(w, 1 * OXL_MS, 0);
    oxl_world_run(w);
    tap_is_int(the_log.n ? the_log.at[0] : -1, 3 * OXL_MS, "a deadline armed for a past time fires at the present one");
    oxl_world_free(w);
}

static void cancelling(void) {
    oxl_world *w = fresh(1);
    uint64_t h0 = arm(w, 5 * OXL_MS, 0);
    arm(w, 6 * OXL_MS, 1);
    uint64_t h2 = arm(w, 7 * OXL_MS, 2);
    tap_ok(h0 && (h0 & SIM_DEADLINE_HANDLE_BIT), "a deadline's handle is marked as one");
    sim_cancel_event(w, h0);
    sim_cancel_event(w, h0); /* twice: nothing */
    tap_is_int((int64_t)oxl_world_pending(w), 2, "a cancelled deadline leaves at once");
    oxl_world_run(w);
    tap_is_str(the_log.order, "12", "the others fire, the cancelled one never");
    sim_cancel_event(w, h2); /* fired: nothing */
    uint64_t h3 = arm(w, 9 * OXL_MS, 3); /* reuses a record */
    sim_cancel_event(w, h0);             /* a stale handle of that record */
    sim_cancel_event(w, h2);
    oxl_world_run(w);
    tap_is_str(the_log.order, "123", "stale handles (fired, cancelled, their record reused) cancel nothing");
    tap_ok(h3 != h0 && h3 != h2, "a reused record gets a new handle");
    oxl_world_free(w);

    /* a deadline left armed when the World is freed: no leak (ASan) */
    w = fresh(1);
    arm(w, OXL_SEC, 0);
    oxl_world_free(w);
    tap_ok(true, "a World freed with deadlines armed");
}

/* Arming and cancelling deadlines changes nothing in a run: same trace,
 * same hash, same tie draws for the events around them. */
static uint64_t ties_run(bool with_deadlines, size_t *len) {
    oxl_world *w = fresh(42);
    for (int i = 0; i < 6; i++) {
        if (with_deadlines) sim_cancel_event(w, arm(w, OXL_SEC, (uint64_t)i));
        oxl_world_at(w, 2 * OXL_MS, "tied", on_event, (void *)(i % 2 ? &A : &B));
        if (with_deadlines) arm(w, OXL_SEC + i, (uint64_t)i); /* left armed: past the run's end */
    }
    oxl_world_run_until(w, 10 * OXL_MS);
    uint64_t h = oxl_world_trace_hash(w);
    *len = (size_t)oxl_world_trace_count(w);
    oxl_world_free(w);
    return h;
}

static void invisible(void) {
    size_t n0, n1;
    uint64_t h0 = ties_run(false, &n0);
    char order0[64];
    strcpy(order0, the_log.order);
    uint64_t h1 = ties_run(true, &n1);
    tap_is_str(the_log.order, order0, "six tied events run in the same seeded order with deadlines armed among them");
    tap_ok(h0 == h1 && n0 == n1, "deadlines that have not fired leave the trace and its hash as they were");

    oxl_world *w = fresh(1);
    arm(w, 5 * OXL_MS, 0);
    tap_is_int(oxl_world_run_until(w, 4 * OXL_MS), OXL_RUN_DEADLINE, "run_until before the deadline: pending");
    tap_is_str(the_log.order, "", "  and it has not fired");
    oxl_time_ns t = 0;
    tap_ok(sim_next_event_time(w, &t) && t == 5 * OXL_MS, "the next event time is the deadline's");
    oxl_world_at(w, 4500 * OXL_US, "earlier", on_event, (void *)&A);
    tap_ok(sim_next_event_time(w, &t) && t == 4500 * OXL_US, "  or an earlier event's");
    oxl_world_free(w);
}

static void limits(void) {
    oxl_world_options o = oxl_world_options_default(1);
    o.max_events = 2;
    memset(&the_log, 0, sizeof the_log);
    oxl_world *w = oxl_world_new(&o);
    arm(w, 1 * OXL_MS, 0);
    arm(w, 2 * OXL_MS, 1);
    arm(w, 3 * OXL_MS, 2);
    tap_is_int(oxl_world_run(w), OXL_RUN_FAILED, "deadlines count against max_events");
    tap_contains(oxl_world_failure(w), "event limit: more than 2 events (max_events)", "  named as the event limit");
    tap_is_str(the_log.order, "01", "  the two within it fired");
    oxl_world_free(w);
}

/* ---- a handoff against its timeout at the same instant ---- */

typedef struct race {
    uint64_t waiter;
    void *got;
    oxl_time_ns woke_at;
} race;

static int job = 7;

static void *handing(void *arg) {
    race *r = arg;
    oxl_sleep(10 * OXL_MS);
    oxl_task_hand(r->waiter, &job);
    return NULL;
}

static void *awaiting_root(void *arg) {
    race *r = arg;
    r->waiter = oxl_task_handle(oxl_task_self());
    oxl_task *t = oxl_spawn(handing, r);
    r->got = oxl_task_await_at(10 * OXL_MS, __FILE__, __LINE__);
    r->woke_at = oxl_now();
    oxl_join(t, NULL);
    return NULL;
}

static void *timing_out_root(void *arg) {
    race *r = arg;
    r->got = oxl_task_await_at(10 * OXL_MS, __FILE__, __LINE__);
    r->woke_at = oxl_now();
    return NULL;
}

static void handoff(void) {
    int in_time = 0;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        oxl_sched_options opt;
        oxl_sched_options_default(&opt, seed);
        race r = {0};
        oxl_sched_result res = oxl_sched_run(awaiting_root, &r, &opt);
        if (res.status == OXL_SCHED_FINISHED && r.got == &job && r.woke_at == 10 * OXL_MS) in_time++;
        oxl_sched_result_free(&res);
    }
    tap_is_int(in_time, 50, "a handoff at the timeout's very instant is in time, in all of 50 seeds");

    oxl_sched_options opt;
    oxl_sched_options_default(&opt, 3);
    race r = {0};
    oxl_sched_result res = oxl_sched_run(timing_out_root, &r, &opt);
    tap_ok(res.status == OXL_SCHED_FINISHED && r.got == NULL && r.woke_at == 10 * OXL_MS,
           "with no handoff the wait ends at its timeout, with nothing");
    oxl_sched_result_free(&res);
}

int main(void) {
    oxl_rt_init();
    firing();
    cancelling();
    invisible();
    limits();
    handoff();
    return tap_done();
}
