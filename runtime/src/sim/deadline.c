/* deadline.c: deadlines, task wakeups that are no event of the run until
 * they pass.
 *
 * An rpc call waits for its answer until a deadline that almost never
 * comes: the answer cancels it. Queued as an event, every deadline would
 * take a sequence number, a tie draw, a pool slot and two walks of the
 * event heap, and its draw would shift the ties of every later event,
 * though nothing ever happens at it. Here a deadline is a record in a heap
 * of its own, ordered by its time and then by the order deadlines were
 * armed in, and the World fires it only when nothing queued is due at or
 * before its instant (world.c): an event due at the very instant runs
 * first, so an answer that arrives at the deadline is in time. Only when
 * it fires does a deadline take a sequence number and enter the trace, as
 * the task wakeup it is. A cancelled one leaves no trace at all. */
#include "sim/sim_internal.h"

#include <stdlib.h>

/* Records are reused through a free list; their generation makes a stale
 * handle (of a fired or cancelled deadline whose record was reused)
 * harmless. */

static inline bool earlier(const sim_deadlines *d, uint32_t a, uint32_t b) {
    const sim_deadline *x = &d->recs[a], *y = &d->recs[b];
    return x->time < y->time || (x->time == y->time && x->order < y->order);
}

static inline void place(sim_deadlines *d, uint32_t i, uint32_t rec) {
    d->heap[i] = rec;
    d->recs[rec].heap_pos = i;
}

static void sift_up(sim_deadlines *d, uint32_t i, uint32_t rec) {
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!earlier(d, rec, d->heap[parent])) break;
        place(d, i, d->heap[parent]);
        i = parent;
    }
    place(d, i, rec);
}

static void sift_down(sim_deadlines *d, uint32_t i, uint32_t rec) {
    uint32_t n = d->len;
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && earlier(d, d->heap[child + 1], d->heap[child])) child++;
        if (!earlier(d, d->heap[child], rec)) break;
        place(d, i, d->heap[child]);
        i = child;
    }
    place(d, i, rec);
}

/* Takes the record at heap position i out of the heap. */
static void heap_remove_at(sim_deadlines *d, uint32_t i) {
    uint32_t last = d->heap[--d->len];
    if (i == d->len) return;
    if (i > 0 && earlier(d, last, d->heap[(i - 1) / 2]))
        sift_up(d, i, last);
    else
        sift_down(d, i, last);
}

static void release(sim_deadlines *d, uint32_t rec) {
    d->recs[rec].gen++;
    d->recs[rec].heap_pos = SIM_DEADLINE_UNQUEUED;
    d->free[d->nfree++] = rec;
}

SIM_HOT uint64_t sim_deadline_arm(oxl_world *w, oxl_time_ns t, oxl_node_id node, sim_wake_fn fn, void *arg, uint64_t tag) {
    sim_deadlines *d = &w->deadlines;
    uint32_t rec;
    if (d->nfree) {
        rec = d->free[--d->nfree];
    } else {
        if (d->nrecs == SIM_DEADLINE_MAX) {
            oxl_world_fail(w, "deadline limit: more than %u deadlines armed at once", SIM_DEADLINE_MAX);
            return 0;
        }
        if (d->nrecs == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 16;
            d->recs = sim_xrealloc(d->recs, d->cap * sizeof *d->recs);
            d->heap = sim_xrealloc(d->heap, d->cap * sizeof *d->heap);
            d->free = sim_xrealloc(d->free, d->cap * sizeof *d->free);
        }
        rec = d->nrecs++;
        d->recs[rec].gen = 0;
    }
    sim_deadline *r = &d->recs[rec];
    r->time = t < w->now ? w->now : t;
    r->order = d->next_order++;
    r->node = node;
    r->fn = fn;
    r->arg = arg;
    r->tag = tag;
    sift_up(d, d->len++, rec);
    return (uint64_t)r->gen << 32 | SIM_DEADLINE_HANDLE_BIT | (rec + 1);
}

SIM_HOT void sim_deadline_cancel(oxl_world *w, uint64_t handle) {
    sim_deadlines *d = &w->deadlines;
    uint32_t rec = (uint32_t)(handle & ~SIM_DEADLINE_HANDLE_BIT & 0xffffffffu) - 1;
    if (!(handle & SIM_DEADLINE_HANDLE_BIT) || rec >= d->nrecs || d->recs[rec].gen != (uint32_t)(handle >> 32) ||
        d->recs[rec].heap_pos == SIM_DEADLINE_UNQUEUED)
        return; /* fired or cancelled already */
    heap_remove_at(d, d->recs[rec].heap_pos);
    release(d, rec);
}

sim_deadline sim_deadline_take(oxl_world *w) {
    sim_deadlines *d = &w->deadlines;
    uint32_t rec = d->heap[0];
    sim_deadline out = d->recs[rec];
    heap_remove_at(d, 0);
    release(d, rec);
    return out;
}

void sim_deadlines_free(oxl_world *w) {
    free(w->deadlines.recs);
    free(w->deadlines.heap);
    free(w->deadlines.free);
    w->deadlines = (sim_deadlines){0};
}
