/* The World's event queue: which queued event runs next.
 *
 * A winner tree over the event pool's slots: leaf s holds slot s's key
 * (its time, then its tie), every inner node the slot of the earliest key
 * below it, the root the next event. A slot's event enters, leaves or is
 * replaced by one walk from its leaf to the root, comparing at each level
 * with the winner of the other side, which is already known: the loads of
 * a walk do not wait on its comparisons, where a heap's walk down must
 * compare before it knows what to load next, and nothing moves, so an
 * event keeps no position to be found by. Freed slots are reused first
 * (the pool's free list is a stack), so the tree is as deep as the log of
 * the most events ever queued at once, however many have run.
 *
 * The order is the keys' alone: (time, tie) is unique per event (the tie
 * ends in the event's sequence number), so which event is next does not
 * depend on the shape of the queue. Internal: world.c, sim_hot.h (the
 * scheduler's inline paths) and describe.c, which reads it. */
#ifndef OXL_SIM_EVENT_QUEUE_H
#define OXL_SIM_EVENT_QUEUE_H

#include "sim_internal.h"

#include <assert.h>

/* A slot's key is its time, then its tie. Times are never negative
 * (nothing is scheduled in the past), so a slot with no queued event holds
 * the largest unsigned time and tie, later than any event's. */
#define SIM_QTIME_NONE UINT64_MAX
#define SIM_QUEUE_NO_SLOT UINT32_MAX

/* slot's key as one number (a queued slot's; for sorting, describe.c) */
static inline sim_qkey sim_queue_key(const oxl_world *w, uint32_t slot) {
    return (sim_qkey)w->qtime[slot] << 64 | w->qtie[slot];
}

/* Is slot's event in the queue (not free, not the taken top)? */
static inline bool sim_queue_holds(const oxl_world *w, uint32_t slot) {
    return slot < w->qcap && w->qtime[slot] != SIM_QTIME_NONE && slot != w->qtaken;
}

/* Slot s holds no queued event any more (its walk is the caller's). */
static inline void queue_clear_leaf(oxl_world *w, uint32_t s) {
    w->qtime[s] = SIM_QTIME_NONE;
    w->qtie[s] = UINT64_MAX;
}

/* Does slot a's event come before slot b's? */
static inline bool queue_before(const oxl_world *w, uint32_t a, uint32_t b) {
    return sim_queue_key(w, a) < sim_queue_key(w, b);
}

/* Slot s's key changed: the walk from its leaf up. At each level the
 * other side's winner is read from the tree (at the lowest level it is
 * the sibling leaf itself), so every load is known before any comparison
 * is made, and the comparison is one 128-bit compare without a branch
 * (times alone, with a branch for equal ones, ran fewer instructions but
 * took longer: equal times are common, at whole milliseconds). */
static inline __attribute__((always_inline)) void queue_replay(oxl_world *w, uint32_t s) {
    const uint64_t *time = w->qtime, *tie = w->qtie;
    uint32_t *win = w->qwin;
    size_t best = s; /* indices as wide as addresses: no widening at each load */
    sim_qkey best_key = (sim_qkey)time[s] << 64 | tie[s];
    size_t other = s ^ 1;
    for (size_t i = ((size_t)w->qcap + s) >> 1;; i >>= 1) {
        sim_qkey other_key = (sim_qkey)time[other] << 64 | tie[other];
        /* a coin toss to the branch predictor: selects, not a branch */
        bool earlier = __builtin_expect_with_probability(other_key < best_key, 1, 0.5);
        best = earlier ? other : best;
        best_key = earlier ? other_key : best_key;
        win[i] = (uint32_t)best;
        if (i == 1) break;
        other = win[i ^ 1];
    }
}

/* A taken top is cleared lazily: a wakeup's task mostly queues its next
 * event right after it runs, into the very slot the wakeup freed (the free
 * list is a stack), and one walk then serves both. Every other use of the
 * queue clears it first. */
static inline void queue_settle(oxl_world *w) {
    uint32_t s = w->qtaken;
    if (SIM_LIKELY(s == SIM_QUEUE_NO_SLOT)) return;
    w->qtaken = SIM_QUEUE_NO_SLOT;
    queue_clear_leaf(w, s);
    queue_replay(w, s);
}

/* Queues slot's event at (t, tie) (the slot is below qcap: pool_alloc). */
static inline __attribute__((always_inline)) void queue_push(oxl_world *w, uint32_t slot, oxl_time_ns t,
                                                             uint64_t tie) {
    if (w->qtaken != slot) queue_settle(w);
    else w->qtaken = SIM_QUEUE_NO_SLOT; /* the taken top's slot again: one walk */
    w->qtime[slot] = (uint64_t)t;
    w->qtie[slot] = tie;
    w->queued++;
    queue_replay(w, slot);
}

/* The next event's slot, and its time (the queue settled and not empty). */
static inline uint32_t queue_top(const oxl_world *w) {
    assert(w->qtaken == SIM_QUEUE_NO_SLOT && w->queued > 0);
    return w->qwin[1];
}
static inline oxl_time_ns queue_top_time(const oxl_world *w) { return (oxl_time_ns)w->qtime[w->qwin[1]]; }

/* Takes the top off the queue, its leaf cleared later (queue_settle). */
static inline uint32_t queue_take_top(oxl_world *w) {
    uint32_t s = queue_top(w);
    w->qtaken = s;
    w->queued--;
    return s;
}

/* Takes slot's event out of the queue now (the queue settled). */
static inline void queue_remove(oxl_world *w, uint32_t slot) {
    assert(sim_queue_holds(w, slot));
    queue_clear_leaf(w, slot);
    w->queued--;
    queue_replay(w, slot);
}

/* Takes the top out of the queue now (the queue settled, not empty). */
static inline uint32_t sim_queue_pop(oxl_world *w) {
    uint32_t s = queue_top(w);
    queue_remove(w, s);
    return s;
}

/* Room for slots below cap (a power of two, >= 2): the tree rebuilt
 * bottom-up, a walk's work for every inner node, once per doubling. */
void sim_queue_grow(oxl_world *w, uint32_t cap);
void sim_queue_free(oxl_world *w);

#endif
