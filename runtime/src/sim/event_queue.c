/* event_queue.c: the World's event queue: a radix queue on the time in
 * front of a small binary heap.
 *
 * An event later than `cur` sits in the bucket of the highest 6-bit digit
 * where its time differs from cur (level L), at that digit's value: an
 * O(1) push onto a doubly linked list (O(1) cancel), found again with two
 * bit scans. All the events of the lowest non-empty bucket are earlier
 * than any other bucket's; when the side heap runs dry that bucket is
 * emptied: cur moves to its earliest time, the events at that time go to
 * the side heap and the others fall to lower levels (each event falls at
 * most once a level). The side heap holds the events at cur or before it
 * (a push at an earlier time after a peek moved cur on) and orders them by
 * the full (time, tie) key, so the order is the keys' alone; it is mostly
 * one or two events, where a heap of every pending event walked its whole
 * depth on every push and pop. */
#include "event_queue.h"
#include "sim_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>


void sim_evq_init(sim_evq *q, size_t payload_size, uint32_t limit) {
    memset(q, 0, sizeof *q);
    assert(limit > 0 && limit <= SIM_EVQ_MAX_LIMIT);
    q->payload_size = payload_size;
    q->limit = limit;
    q->cap = limit < 256 ? limit : 256;
    q->ent = sim_xmalloc(q->cap * sizeof *q->ent);
    q->payload = sim_xmalloc(q->cap * payload_size);
    q->free_slots = sim_xmalloc(q->cap * sizeof *q->free_slots);
    q->side_cap = 16;
    q->side = sim_xmalloc(q->side_cap * sizeof *q->side);
    for (size_t b = 0; b < SIM_EVQ_BUCKETS; b++) q->head[b] = SIM_EVQ_NONE;
}

void sim_evq_free(sim_evq *q) {
    free(q->ent);
    free(q->payload);
    free(q->free_slots);
    free(q->side);
    memset(q, 0, sizeof *q);
}

/* ---- the side heap ---- */

static inline unsigned __int128 item_key(uint64_t time, uint64_t tie) { return (unsigned __int128)time << 64 | tie; }

static inline void side_place(sim_evq *q, uint32_t i, sim_evq_item it) {
    q->side[i] = it;
    q->ent[it.slot].where = SIM_EVQ_SIDE | i;
}

static void side_up(sim_evq *q, uint32_t i, sim_evq_item it) {
    unsigned __int128 key = item_key(it.time, it.tie);
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (key >= item_key(q->side[parent].time, q->side[parent].tie)) break;
        side_place(q, i, q->side[parent]);
        i = parent;
    }
    side_place(q, i, it);
}

static void side_down(sim_evq *q, uint32_t i, sim_evq_item it) {
    unsigned __int128 key = item_key(it.time, it.tie);
    uint32_t n = q->side_len;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && item_key(q->side[c + 1].time, q->side[c + 1].tie) < item_key(q->side[c].time, q->side[c].tie))
            c++;
        if (key <= item_key(q->side[c].time, q->side[c].tie)) break;
        side_place(q, i, q->side[c]);
        i = c;
    }
    side_place(q, i, it);
}

void sim_evq_side_push(sim_evq *q, uint32_t slot, const sim_evq_entry *e) {
    if (q->side_len == q->side_cap) {
        q->side_cap *= 2;
        q->side = sim_xrealloc(q->side, q->side_cap * sizeof *q->side);
    }
    side_up(q, q->side_len++, (sim_evq_item){e->time, e->tie, slot});
}

static void side_remove(sim_evq *q, uint32_t i) {
    uint32_t n = --q->side_len;
    if (i == n) return;
    sim_evq_item last = q->side[n];
    if (i > 0 && item_key(last.time, last.tie) < item_key(q->side[(i - 1) / 2].time, q->side[(i - 1) / 2].tie))
        side_up(q, i, last);
    else
        side_down(q, i, last);
}

/* ---- the buckets ---- */

static inline void bucket_emptied(sim_evq *q, uint32_t b) {
    unsigned level = b >> SIM_EVQ_DIGIT_BITS;
    q->bits[level] &= ~(UINT64_C(1) << (b & SIM_EVQ_DIGIT_MASK));
    if (!q->bits[level]) q->levels &= ~(1u << level);
}

static void bucket_unlink(sim_evq *q, sim_evq_entry *e) {
    uint32_t b = e->where;
    if (e->prev != SIM_EVQ_NONE) q->ent[e->prev].next = e->next;
    else q->head[b] = e->next;
    if (e->next != SIM_EVQ_NONE) q->ent[e->next].prev = e->prev;
    if (q->head[b] == SIM_EVQ_NONE) bucket_emptied(q, b);
}

/* The side heap is empty: empties the lowest non-empty bucket (its events
 * are the earliest), moving cur to its earliest time. */
bool sim_evq_refill(sim_evq *q) {
    if (!q->levels) return false;
    unsigned level = (unsigned)__builtin_ctz(q->levels);
    unsigned digit = (unsigned)__builtin_ctzll(q->bits[level]);
    uint32_t b = (uint32_t)(level << SIM_EVQ_DIGIT_BITS | digit);
    uint32_t list = q->head[b];
    q->head[b] = SIM_EVQ_NONE;
    bucket_emptied(q, b);
    sim_evq_entry *first = &q->ent[list];
    if (first->next == SIM_EVQ_NONE) { /* one event (the most common bucket): it is the earliest */
        q->cur = first->time;
        q->side[0] = (sim_evq_item){first->time, first->tie, list};
        q->side_len = 1;
        first->where = SIM_EVQ_SIDE;
        return true;
    }
    uint64_t earliest = UINT64_MAX;
    for (uint32_t s = list; s != SIM_EVQ_NONE; s = q->ent[s].next)
        if (q->ent[s].time < earliest) earliest = q->ent[s].time;
    q->cur = earliest;
    for (uint32_t s = list; s != SIM_EVQ_NONE;) {
        sim_evq_entry *e = &q->ent[s];
        uint32_t next = e->next;
        if (e->time == earliest) sim_evq_side_push(q, s, e);
        else sim_evq_bucket_link(q, s, e);
        s = next;
    }
    return true;
}

/* ---- slots ---- */

uint32_t sim_evq_grow(sim_evq *q) {
    if (q->used == q->limit) return SIM_EVQ_NONE;
    if (q->used == q->cap) {
        q->cap = q->cap > q->limit / 2 ? q->limit : q->cap * 2;
        q->ent = sim_xrealloc(q->ent, q->cap * sizeof *q->ent);
        q->payload = sim_xrealloc(q->payload, q->cap * q->payload_size);
        q->free_slots = sim_xrealloc(q->free_slots, q->cap * sizeof *q->free_slots);
    }
    uint32_t slot = q->used++;
    q->ent[slot].gen = 0;
    return slot;
}

void sim_evq_side_fill(sim_evq *q) { side_down(q, 0, q->side[q->side_len]); }

void sim_evq_remove(sim_evq *q, uint32_t slot) {
    assert(sim_evq_queued(q, slot));
    sim_evq_entry *e = &q->ent[slot];
    if (e->where & SIM_EVQ_SIDE) side_remove(q, e->where & ~SIM_EVQ_SIDE);
    else bucket_unlink(q, e);
    e->where = SIM_EVQ_TAKEN;
    q->len--;
}

