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
 * depend on the shape of the queue. Only world.c (and describe.c, which
 * reads it) include this. */
#ifndef OXL_SIM_EVENT_QUEUE_H
#define OXL_SIM_EVENT_QUEUE_H

#include "sim_internal.h"

#include <assert.h>

/* Times are never negative (nothing is scheduled in the past), so (time,
 * tie) compares as one unsigned 128-bit number. A slot with no queued
 * event holds the largest key, later than any event's. */
#define SIM_QKEY_NONE (~(sim_qkey)0)
#define SIM_QUEUE_NO_SLOT UINT32_MAX

static inline sim_qkey sim_qkey_make(oxl_time_ns t, uint64_t tie) { return (sim_qkey)(uint64_t)t << 64 | tie; }
static inline oxl_time_ns sim_qkey_time(sim_qkey k) { return (oxl_time_ns)(uint64_t)(k >> 64); }
static inline uint64_t sim_qkey_tie(sim_qkey k) { return (uint64_t)k; }

/* Is slot's event in the queue (not free, not the taken top)? */
static inline bool sim_queue_holds(const oxl_world *w, uint32_t slot) {
    return slot < w->qcap && w->qkey[slot] != SIM_QKEY_NONE && slot != w->qtaken;
}

/* Slot s's key changed: the walk from its leaf up. At each level the
 * other side's winner is read from the tree (at the lowest level it is
 * the sibling leaf itself), so every load is known before any comparison
 * is made. */
static inline __attribute__((always_inline)) void queue_replay(oxl_world *w, uint32_t s) {
    const sim_qkey *key = w->qkey;
    uint32_t *win = w->qwin;
    uint32_t best = s;
    sim_qkey best_key = key[s];
    uint32_t other = s ^ 1;
    sim_qkey other_key = key[other];
    if (other_key < best_key) {
        best = other;
        best_key = other_key;
    }
    for (uint32_t i = (w->qcap + s) >> 1;; i >>= 1) {
        win[i] = best;
        if (i == 1) break;
        other = win[i ^ 1];
        other_key = key[other];
        if (other_key < best_key) {
            best = other;
            best_key = other_key;
        }
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
    w->qkey[s] = SIM_QKEY_NONE;
    queue_replay(w, s);
}

/* Queues slot's event with key k (the slot is below qcap: pool_alloc). */
static inline __attribute__((always_inline)) void queue_push(oxl_world *w, uint32_t slot, sim_qkey k) {
    if (w->qtaken != slot) queue_settle(w);
    else w->qtaken = SIM_QUEUE_NO_SLOT; /* the taken top's slot again: one walk */
    w->qkey[slot] = k;
    w->queued++;
    queue_replay(w, slot);
}

/* The next event's slot and key (the queue settled and not empty). */
static inline uint32_t queue_top(const oxl_world *w) {
    assert(w->qtaken == SIM_QUEUE_NO_SLOT && w->queued > 0);
    return w->qwin[1];
}
static inline sim_qkey queue_top_key(const oxl_world *w) { return w->qkey[w->qwin[1]]; }

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
    w->qkey[slot] = SIM_QKEY_NONE;
    w->queued--;
    queue_replay(w, slot);
}

/* Room for slots below cap (a power of two, >= 2): the tree rebuilt
 * bottom-up, a walk's work for every inner node, once per doubling. */
void sim_queue_grow(oxl_world *w, uint32_t cap);
void sim_queue_free(oxl_world *w);

#endif
