/* sim_queue_test: the World's event queue (runtime/src/sim/event_queue.h)
 * against a reference order: thousands of wakeups at colliding times, a
 * third of them cancelled before or while the World runs, handlers that
 * queue more into the slots just freed, the tree grown through many
 * doublings; then stale and repeated cancels, which must change nothing. */
#include "oxl_sim.h"
#include "sim/sim_hot.h" /* sim_schedule_wake, sim_cancel_event */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

enum { N = 6000, MAX_FIRED = 4 * N };

typedef struct entry {
    oxl_time_ns t;
    uint32_t order; /* scheduling order: the tie without randomized ties */
    uint64_t handle;
    bool cancelled, fired;
} entry;

typedef struct run {
    entry e[MAX_FIRED];
    uint32_t n;
    uint32_t fired[MAX_FIRED];
    uint32_t nfired;
    bool out_of_order, fired_twice, fired_cancelled;
    oxl_time_ns last;
    uint64_t rng;
    bool respawn; /* each firing queues one more (up to MAX_FIRED) */
} run;

static run R;

static uint64_t next_rand(void) {
    R.rng ^= R.rng << 13;
    R.rng ^= R.rng >> 7;
    R.rng ^= R.rng << 17;
    return R.rng;
}

static void on_wake(oxl_world *w, void *arg, uint64_t tag);

static void queue_one(oxl_world *w, oxl_time_ns t) {
    uint32_t i = R.n++;
    R.e[i] = (entry){.t = t, .order = i};
    R.e[i].handle = sim_schedule_wake(w, t, OXL_NO_NODE, on_wake, NULL, i);
}

static void on_wake(oxl_world *w, void *arg, uint64_t tag) {
    (void)arg;
    entry *e = &R.e[tag];
    oxl_time_ns now = oxl_world_now(w);
    if (now < R.last) R.out_of_order = true;
    if (e->fired) R.fired_twice = true;
    if (e->cancelled) R.fired_cancelled = true;
    R.last = now;
    e->fired = true;
    R.fired[R.nfired++] = (uint32_t)tag;
    /* cancel a later one now and then, while the World runs */
    if (next_rand() % 4 == 0) {
        uint32_t j = (uint32_t)(next_rand() % R.n);
        if (!R.e[j].fired && !R.e[j].cancelled) {
            R.e[j].cancelled = true;
            sim_cancel_event(w, R.e[j].handle);
        }
    }
    if (R.respawn && R.n < MAX_FIRED) queue_one(w, now + (oxl_time_ns)(next_rand() % 50));
}

static int by_time_then_order(const void *a, const void *b) {
    const entry *x = &R.e[*(const uint32_t *)a], *y = &R.e[*(const uint32_t *)b];
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static oxl_world *fresh(uint64_t seed, bool randomize_ties, bool respawn) {
    memset(&R, 0, sizeof R);
    R.rng = seed * 0x9E3779B97F4A7C15u + 1;
    R.respawn = respawn;
    oxl_world_options o = oxl_world_options_default(seed);
    o.randomize_ties = randomize_ties;
    return oxl_world_new(&o);
}

/* N wakeups on 500 distinct times, a third cancelled before the run. */
static void fill(oxl_world *w) {
    for (int i = 0; i < N; i++) queue_one(w, (oxl_time_ns)(next_rand() % 500));
    for (int i = 0; i < N / 3; i++) {
        uint32_t j = (uint32_t)(next_rand() % R.n);
        if (!R.e[j].cancelled) {
            R.e[j].cancelled = true;
            sim_cancel_event(w, R.e[j].handle);
        }
    }
}

static uint32_t live(void) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < R.n; i++) n += !R.e[i].cancelled && !R.e[i].fired;
    return n;
}

static void reference_order(void) {
    oxl_world *w = fresh(3, false, false);
    fill(w);
    tap_is_uint(oxl_world_pending(w), live(), "pending counts what was queued and not cancelled");
    oxl_world_run(w);
    tap_ok(!oxl_world_failed(w), "the run does not fail");
    tap_is_uint(oxl_world_pending(w), 0, "nothing is pending after the run");
    /* Expected: the events neither cancelled before nor during the run, by
     * (time, scheduling order). A cancel during the run only ever named an
     * event not fired yet, so what fired is exactly what was never cancelled. */
    static uint32_t want[MAX_FIRED];
    uint32_t nwant = 0;
    for (uint32_t i = 0; i < R.n; i++)
        if (!R.e[i].cancelled) want[nwant++] = i;
    qsort(want, nwant, sizeof *want, by_time_then_order);
    tap_is_uint(R.nfired, nwant, "every event not cancelled fired, and nothing else");
    tap_ok(R.nfired == nwant && memcmp(R.fired, want, nwant * sizeof *want) == 0,
           "without randomized ties the order is (time, scheduling order) exactly");
    tap_ok(!R.fired_twice && !R.fired_cancelled, "no event fired twice, no cancelled event fired");
    oxl_world_free(w);
}

static void seeded_ties_and_reuse(void) {
    oxl_world *w = fresh(11, true, true);
    fill(w);
    oxl_world_run(w);
    tap_ok(!oxl_world_failed(w), "a run whose handlers queue into freed slots does not fail");
    tap_is_uint(R.n, MAX_FIRED, "the handlers queued up to the limit");
    uint32_t nwant = 0;
    for (uint32_t i = 0; i < R.n; i++) nwant += !R.e[i].cancelled;
    tap_is_uint(R.nfired, nwant, "with seeded ties too, every event not cancelled fired once");
    tap_ok(!R.out_of_order, "time never went back");
    tap_ok(!R.fired_twice && !R.fired_cancelled, "no event fired twice, no cancelled event fired");
    /* The same seed, the same order. */
    static uint32_t first[MAX_FIRED];
    uint32_t nfirst = R.nfired;
    memcpy(first, R.fired, nfirst * sizeof *first);
    oxl_world_free(w);
    w = fresh(11, true, true);
    fill(w);
    oxl_world_run(w);
    tap_ok(R.nfired == nfirst && memcmp(R.fired, first, nfirst * sizeof *first) == 0,
           "a second run of the seed fires the same events in the same order");
    oxl_world_free(w);
}

static void stale_cancels(void) {
    oxl_world *w = fresh(5, true, false);
    queue_one(w, 10);
    queue_one(w, 20);
    uint64_t first = R.e[0].handle;
    oxl_world_run_until(w, 15);
    tap_ok(R.e[0].fired && !R.e[1].fired, "the first wakeup fired, the second waits");
    sim_cancel_event(w, first); /* fired: its handle is stale */
    tap_is_uint(oxl_world_pending(w), 1, "cancelling a fired event's handle changes nothing");
    queue_one(w, 30); /* reuses the fired event's slot */
    sim_cancel_event(w, first);
    tap_is_uint(oxl_world_pending(w), 2, "nor once its slot holds another event");
    R.e[1].cancelled = true;
    sim_cancel_event(w, R.e[1].handle);
    sim_cancel_event(w, R.e[1].handle);
    tap_is_uint(oxl_world_pending(w), 1, "a cancel twice takes one event out");
    oxl_world_run(w);
    tap_ok(!R.e[1].fired && R.e[2].fired, "the cancelled one never fired, the other did");
    tap_is_int(oxl_world_now(w), 30, "at its time");
    oxl_world_free(w);
}

int main(void) {
    reference_order();
    seeded_ties_and_reuse();
    stale_cancels();
    return tap_done();
}
