/* sim_event_queue_test: the World's event queue (runtime/src/sim/
 * event_queue.c) against a plain model: the order by (time, tie) with
 * pushes mixed into pops and pushes before the last peeked time,
 * cancellation, many equal times, growth to the limit and the World's
 * error past it. */
#include "oxl_sim.h"
#include "sim/sim_internal.h" /* the queue is internal to the World */
#include "tap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The model: every slot's key and whether it is queued. */
enum { MODEL_MAX = 20000 };
typedef struct model {
    uint64_t time[MODEL_MAX], tie[MODEL_MAX];
    bool queued[MODEL_MAX];
} model;

static model m;

static bool earlier(uint32_t a, uint32_t b) {
    return m.time[a] != m.time[b] ? m.time[a] < m.time[b] : m.tie[a] < m.tie[b];
}

static uint32_t model_min(uint32_t used) {
    uint32_t best = SIM_EVQ_NONE;
    for (uint32_t s = 0; s < used; s++)
        if (m.queued[s] && (best == SIM_EVQ_NONE || earlier(s, best))) best = s;
    return best;
}

static uint32_t push(sim_evq *q, uint64_t time, uint64_t tie) {
    uint32_t slot = sim_evq_push(q, time, tie);
    if (slot != SIM_EVQ_NONE && slot < MODEL_MAX) {
        m.time[slot] = time;
        m.tie[slot] = tie;
        m.queued[slot] = true;
    }
    return slot;
}

/* Pops one slot and checks it is the model's earliest; false on a mismatch. */
static bool pop_checked(sim_evq *q, uint64_t *time_out) {
    uint64_t time;
    uint32_t slot, want = model_min(q->used);
    if (!sim_evq_peek(q, &time, &slot)) return want == SIM_EVQ_NONE;
    if (slot != want || time != m.time[want] || sim_evq_pop(q) != slot) {
        tap_diag("popped slot %" PRIu32 " at %" PRIu64 ", the earliest is %" PRIu32, slot, time, want);
        return false;
    }
    m.queued[slot] = false;
    sim_evq_release(q, slot);
    if (time_out) *time_out = time;
    return true;
}

static void test_order(void) {
    memset(&m, 0, sizeof m);
    sim_evq q;
    sim_evq_init(&q, 8, 1u << 20);
    oxl_rng r;
    oxl_rng_seed(&r, 1, "order");
    uint64_t now = 0, seq = 0;
    bool ok = true;
    size_t popped = 0;
    for (int round = 0; round < 4000 && ok; round++) {
        int pushes = (int)oxl_rng_range(&r, 0, 3);
        for (int k = 0; k < pushes; k++) {
            /* times at now and later, over every scale: a tick, a message, a timeout, an hour */
            static const uint64_t spans[] = {1, 64, 5000000, 300000000, UINT64_C(3600000000000)};
            uint64_t span = spans[oxl_rng_range(&r, 0, 4)];
            uint64_t tie = (oxl_rng_next(&r) >> SIM_SEQ_BITS) << SIM_SEQ_BITS | seq++;
            push(&q, now + oxl_rng_range(&r, 0, (int64_t)span), tie);
        }
        if (oxl_rng_range(&r, 0, 9) == 0) { /* a peek moves the queue on; then a push at now, before it */
            uint64_t t;
            uint32_t s;
            if (sim_evq_peek(&q, &t, &s)) push(&q, now, seq++);
        }
        if (q.len && oxl_rng_range(&r, 0, 2)) {
            ok = pop_checked(&q, &now);
            popped++;
        }
    }
    while (ok && q.len) {
        ok = pop_checked(&q, &now);
        popped++;
    }
    tap_ok(ok, "%zu events taken in (time, tie) order, pushes mixed in, some before a peeked time", popped);
    uint64_t t;
    uint32_t s;
    tap_ok(!sim_evq_peek(&q, &t, &s) && q.len == 0, "an empty queue peeks nothing");
    sim_evq_free(&q);
}

static void test_cancel(void) {
    memset(&m, 0, sizeof m);
    sim_evq q;
    sim_evq_init(&q, 8, 1u << 20);
    oxl_rng r;
    oxl_rng_seed(&r, 2, "cancel");
    uint64_t now = 0, seq = 0;
    bool ok = true;
    size_t cancelled = 0;
    for (int round = 0; round < 3000 && ok; round++) {
        push(&q, now + (uint64_t)oxl_rng_range(&r, 0, 300000000), seq++);
        push(&q, now + (uint64_t)oxl_rng_range(&r, 0, 5000000), seq++);
        /* cancel a queued slot picked at random (a reset timeout) */
        uint32_t s = (uint32_t)oxl_rng_range(&r, 0, (int64_t)q.used - 1);
        if (oxl_rng_range(&r, 0, 2) == 0 && m.queued[s]) {
            sim_evq_remove(&q, s);
            sim_evq_release(&q, s);
            m.queued[s] = false;
            cancelled++;
        }
        if (oxl_rng_range(&r, 0, 1)) ok = pop_checked(&q, &now);
    }
    size_t left = q.len;
    while (ok && q.len) ok = pop_checked(&q, &now);
    tap_ok(ok, "%zu cancelled events never come out, the others in order", cancelled);
    tap_ok(left > 0 && q.len == 0, "the queue's count follows pushes, pops and cancels (%zu were left)", left);
    /* a slot's generation changes at release: a stale handle names nothing */
    uint32_t a = push(&q, now + 10, seq++);
    uint32_t gen = q.ent[a].gen;
    sim_evq_remove(&q, a);
    sim_evq_release(&q, a);
    m.queued[a] = false;
    uint32_t b = push(&q, now + 10, seq++);
    tap_ok(b == a && q.ent[b].gen != gen, "a reused slot has a new generation");
    sim_evq_free(&q);
}

static void test_equal_times(void) {
    memset(&m, 0, sizeof m);
    sim_evq q;
    sim_evq_init(&q, 8, 1u << 20);
    oxl_rng r;
    oxl_rng_seed(&r, 3, "equal");
    const uint64_t t = UINT64_C(7) * 1000000000;
    for (uint64_t seq = 0; seq < 5000; seq++) push(&q, t, (oxl_rng_next(&r) >> SIM_SEQ_BITS) << SIM_SEQ_BITS | seq);
    bool ok = true;
    uint64_t last_tie = 0;
    size_t n = 0;
    while (ok && q.len) {
        uint64_t time;
        uint32_t slot = 0;
        if (!sim_evq_peek(&q, &time, &slot)) {
            ok = false;
            break;
        }
        uint64_t tie = q.ent[slot].tie;
        ok = pop_checked(&q, &time) && time == t;
        ok = ok && (n == 0 || tie > last_tie);
        last_tie = tie;
        n++;
    }
    tap_ok(ok && n == 5000, "5000 events at one time come out by tie (%zu)", n);
    /* seq alone (randomize_ties off): first queued, first out */
    memset(&m, 0, sizeof m);
    for (uint64_t seq = 0; seq < 100; seq++) push(&q, t + 5, seq);
    ok = true;
    for (uint64_t seq = 0; seq < 100 && ok; seq++) {
        uint64_t time;
        uint32_t slot;
        ok = sim_evq_peek(&q, &time, &slot) && q.ent[slot].tie == seq;
        if (ok) {
            m.queued[slot] = false;
            sim_evq_release(&q, sim_evq_pop(&q));
        }
    }
    tap_ok(ok, "without a seeded draw, equal times come out in queueing order");
    sim_evq_free(&q);
}

static void test_limit(void) {
    memset(&m, 0, sizeof m);
    sim_evq q;
    sim_evq_init(&q, 24, 1000);
    uint32_t first_cap = q.cap;
    bool ok = true;
    for (uint64_t i = 0; i < 1000 && ok; i++) ok = push(&q, 1000 - i, i) != SIM_EVQ_NONE;
    tap_ok(ok && q.len == 1000 && q.cap == 1000 && first_cap < 1000,
           "the queue grows from %" PRIu32 " slots to its limit of 1000", first_cap);
    /* every payload stays its slot's through the growth */
    memset(sim_evq_payload(&q, 999), 0xab, 24);
    tap_ok(((unsigned char *)sim_evq_payload(&q, 999))[23] == 0xab, "the last slot's payload is usable");
    tap_ok(push(&q, 5, 1000) == SIM_EVQ_NONE && q.len == 1000, "a push past the limit is refused, nothing queued");
    tap_ok(pop_checked(&q, NULL), "the earliest still comes out");
    tap_ok(push(&q, 5, 1001) != SIM_EVQ_NONE, "a freed slot takes a push again");
    sim_evq_free(&q);
}

static void nop(oxl_world *w, void *arg) {}

static void test_world_limit(void) {
    oxl_world_options o = oxl_world_options_default(4);
    oxl_world *w = oxl_world_new(&o);
    tap_is_uint(w->queue.limit, OXL_SIM_MAX_PENDING, "the World's queue holds OXL_SIM_MAX_PENDING events");
    sim_evq_free(&w->queue); /* a small limit, to reach it */
    sim_evq_init(&w->queue, sizeof(sim_event), 50);
    for (int i = 0; i < 60; i++) oxl_world_at(w, (oxl_time_ns)(i + 1) * OXL_MS, "tick", nop, NULL);
    tap_is_uint(oxl_world_pending(w), 50, "50 events queued, the rest refused");
    tap_ok(oxl_world_failed(w), "the World fails past the limit");
    tap_is_str(oxl_world_failure(w), "event queue limit: more than 50 events pending (OXL_SIM_MAX_PENDING)",
               "the failure names the limit");
    tap_is_int(oxl_world_run(w), OXL_RUN_FAILED, "the run reports the failure");
    oxl_world_free(w);
}

int main(void) {
    test_order();
    test_cancel();
    test_equal_times();
    test_limit();
    test_world_limit();
    return tap_done();
}
