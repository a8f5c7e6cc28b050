/* The World's hot paths, inline where the scheduler calls them: a task's
 * wakeup queued (sim_schedule_wake) and the next due event run
 * (sim_step_due), with the pool slots, tie draws and trace records they
 * take. world.c runs every other event; both share these. Internal:
 * included by world.c, sched.c and the queue's test. */
#ifndef OXL_SIM_HOT_H
#define OXL_SIM_HOT_H

#include "event_queue.h"

/* world.c */
uint32_t sim_pool_new_slot(oxl_world *w); /* no free slot: the pool's next, grown as needed */
void sim_world_check_invariants(oxl_world *w);
bool sim_world_step(oxl_world *w, oxl_time_ns limit); /* the next event (or deadline) if due by limit */

/* A free slot of the event pool: the last freed first (event_queue.h). */
static inline __attribute__((always_inline)) uint32_t sim_pool_alloc(oxl_world *w) {
    if (SIM_LIKELY(w->free_len)) return w->free_slots[--w->free_len];
    return sim_pool_new_slot(w);
}

static inline void sim_pool_release(oxl_world *w, uint32_t slot) {
    w->pool[slot].gen++;
    w->free_slots[w->free_len++] = slot;
}

/* A queued event at time t, its slot's payload left to the caller: the
 * hot callers (a task's wakeup, a node's timer) write their few fields
 * straight into the pool instead of copying a whole event built on their
 * stack, whose narrow stores a wide copy would read back slowly. */
static inline __attribute__((always_inline)) sim_event *sim_event_slot(oxl_world *w, uint32_t *slot_out) {
    uint64_t seq = w->next_seq++;
    if (SIM_UNLIKELY(seq > SIM_SEQ_MASK)) {
        oxl_world_fail(w, "event limit: more than 2^40 events scheduled");
        seq &= SIM_SEQ_MASK;
    }
    uint32_t slot = sim_pool_alloc(w);
    sim_event *dst = &w->pool[slot];
    dst->seq = seq;
    *slot_out = slot;
    return dst;
}

/* Queues slot's event (sequence number seq) at time t, with its tie
 * draw. */
static inline __attribute__((always_inline)) void sim_event_push(oxl_world *w, oxl_time_ns t, uint64_t seq,
                                                             uint32_t slot) {
    uint64_t tie = seq;
    if (w->opt.randomize_ties) {
        /* 24 bits a tie: one 64-bit draw serves two events. */
        if (w->tie_nbits < 64 - SIM_SEQ_BITS) {
            w->tie_bits = sim_rng_next(&w->tie_rng);
            w->tie_nbits = 64;
        }
        tie |= (w->tie_bits >> SIM_SEQ_BITS) << SIM_SEQ_BITS;
        w->tie_bits <<= 64 - SIM_SEQ_BITS;
        w->tie_nbits -= 64 - SIM_SEQ_BITS;
    }
    queue_push(w, slot, t, tie);
}

static inline uint64_t sim_event_handle(const oxl_world *w, uint32_t slot) {
    return ((uint64_t)w->pool[slot].gen << 32) | ((uint64_t)slot + 1);
}

static inline __attribute__((always_inline)) uint64_t sim_schedule_wake(oxl_world *w, oxl_time_ns t, oxl_node_id node, sim_wake_fn fn, void *arg, uint64_t tag) {
    uint32_t slot;
    sim_event *ev = sim_event_slot(w, &slot);
    /* its fields before the push: nothing of them is kept across it */
    ev->type = SIM_WAKE;
    ev->node = node;
    ev->from = OXL_NO_NODE;
    ev->incarnation = 0;
    ev->label = 0;
    ev->len = 0;
    ev->u.wake.fn = fn;
    ev->u.wake.arg = arg;
    ev->u.wake.tag = tag;
    uint64_t handle = sim_event_handle(w, slot);
    sim_event_push(w, t < w->now ? w->now : t, ev->seq, slot);
    return handle;
}

/* An event that will never run: a timer of a node incarnation that is
 * gone (a cancelled event has left the queue already). */
static inline bool sim_event_dead(const oxl_world *w, const sim_event *ev) {
    if (ev->type == SIM_TIMER) {
        const sim_node *n = &w->nodes[ev->node];
        if (!n->up || n->incarnation != ev->incarnation) return true; /* timers die with their incarnation */
    }
    return false;
}

/* The earliest deadline when it comes before every queued event (the
 * queue settled): an event due at its very instant runs first. */
static inline bool sim_deadline_first(const oxl_world *w, oxl_time_ns *t) {
    oxl_time_ns d;
    if (SIM_LIKELY(!sim_deadline_next(w, &d))) return false;
    if (w->queued && queue_top_time(w) <= d) return false;
    *t = d;
    return true;
}

/* Runs a wakeup of the scheduler (slot, just taken off the queue at t): most
 * events of a run of tasks. Only its few fields are kept (the handler may
 * grow the pool); the caller has checked the event limit. */
static inline __attribute__((always_inline)) void sim_wake_task(oxl_world *w, oxl_time_ns t, oxl_node_id node, uint64_t seq, uint64_t tag,
                             sim_wake_fn fn, void *arg) {
    w->now = t;
    sim_trace_record(w, OXL_EV_TASK, node, OXL_NO_NODE, seq, tag, w->label_wake);
#ifdef SIM_WAKE_DIRECT
    /* the includer's own wakeup, called directly (and inline) when it is
     * this event's: the scheduler's sleeps are most events of a run */
    if (SIM_LIKELY(fn == SIM_WAKE_DIRECT))
        SIM_WAKE_DIRECT(w, arg, tag);
    else
#endif
        fn(w, arg, tag);
    if (w->ninvariants && !w->failure) sim_world_check_invariants(w);
}

static inline __attribute__((always_inline)) void sim_run_wake(oxl_world *w, uint32_t slot, oxl_time_ns t, const sim_event *queued) {
    oxl_node_id node = queued->node;
    uint64_t seq = queued->seq, tag = queued->u.wake.tag;
    sim_wake_fn fn = queued->u.wake.fn;
    void *arg = queued->u.wake.arg;
    sim_pool_release(w, slot);
    w->events_run++;
    sim_wake_task(w, t, node, seq, tag, fn, arg);
}

static inline __attribute__((always_inline)) sim_step_result sim_step_due(oxl_world *w, oxl_time_ns deadline, oxl_time_ns *t) {
    for (;;) {
        queue_settle(w);
        oxl_time_ns d;
        if (SIM_UNLIKELY(sim_deadline_first(w, &d))) {
            *t = d;
            if (d > deadline) return SIM_STEP_LATE;
            sim_world_step(w, INT64_MAX);
            return SIM_STEP_RAN;
        }
        if (w->queued == 0) return SIM_STEP_EMPTY;
        uint32_t slot = queue_top(w);
        const sim_event *ev = &w->pool[slot];
        if (SIM_UNLIKELY(sim_event_dead(w, ev))) { /* dropped unseen, as sim_next_event_time does */
            sim_pool_release(w, sim_queue_pop(w));
            continue;
        }
        oxl_time_ns at = (oxl_time_ns)w->qtime[slot];
        *t = at;
        if (at > deadline) return SIM_STEP_LATE;
        if (ev->type == SIM_WAKE && SIM_LIKELY(!w->failure && w->events_run < w->opt.max_events)) {
            queue_take_top(w);
            sim_run_wake(w, slot, at, ev); /* ev is still the slot's: the pool did not move */
        } else {
            sim_world_step(w, INT64_MAX);
        }
        return SIM_STEP_RAN;
    }
}

#endif
