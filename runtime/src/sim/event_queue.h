/* event_queue.h: the World's event queue (event_queue.c), internal to
 * runtime/src/sim/: slots of a payload pool queued by (time, tie).
 *
 * The order is the keys' alone: time first, then tie (unique: the World
 * puts the event's sequence number in its low bits), whatever the
 * structure's shape. Times are never before the last one taken except
 * right after a peek (sim_evq_peek), and such events are still taken in
 * key order. */
#ifndef OXL_SIM_EVENT_QUEUE_H
#define OXL_SIM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_EVQ_DIGIT_BITS 6                      /* a radix level: 64 buckets, one bit each in a word */
#define SIM_EVQ_LEVELS 11                         /* 6-bit digits of a 64-bit time */
#define SIM_EVQ_DIGIT_MASK ((UINT64_C(1) << SIM_EVQ_DIGIT_BITS) - 1)
#define SIM_EVQ_BUCKETS (SIM_EVQ_LEVELS << SIM_EVQ_DIGIT_BITS)
#define SIM_EVQ_NONE UINT32_MAX                   /* no slot: a list's end, a push past the limit */
#define SIM_EVQ_FREE UINT32_MAX                   /* where: a slot not in use */
#define SIM_EVQ_TAKEN (UINT32_MAX - 1)            /* where: taken off the queue, not yet released */
#define SIM_EVQ_SIDE UINT32_C(0x80000000)         /* where: SIDE | position in the side heap */
#define SIM_EVQ_MAX_LIMIT (UINT32_C(1) << 30)     /* the most slots a queue may be given */

typedef struct sim_evq_entry {
    uint64_t time;
    uint64_t tie;
    uint32_t next, prev; /* the bucket's list */
    uint32_t where;      /* a bucket, SIDE | position, FREE or TAKEN */
    uint32_t gen;        /* bumped at every release: handles of a reused slot go stale */
} sim_evq_entry;

typedef struct sim_evq_item {
    uint64_t time;
    uint64_t tie;
    uint32_t slot;
} sim_evq_item;

typedef struct sim_evq {
    sim_evq_entry *ent;
    unsigned char *payload; /* cap payloads of payload_size bytes */
    size_t payload_size;
    uint32_t cap, used;     /* slots allocated; slots ever handed out */
    uint32_t limit;         /* the most slots in use at once */
    uint32_t *free_slots;
    uint32_t nfree;
    uint32_t len;           /* queued */
    uint64_t cur;           /* every bucketed event is later than cur; the side heap's are not */
    sim_evq_item *side;     /* a binary heap on (time, tie): the events at cur or before it */
    uint32_t side_len, side_cap;
    uint32_t levels;        /* bit L: level L has a non-empty bucket */
    uint64_t bits[SIM_EVQ_LEVELS]; /* bit s of bits[L]: bucket L*64+s is non-empty */
    uint32_t head[SIM_EVQ_BUCKETS];
} sim_evq;

void sim_evq_init(sim_evq *q, size_t payload_size, uint32_t limit);
void sim_evq_free(sim_evq *q);
/* Takes a queued slot off the queue, wherever it is. */
void sim_evq_remove(sim_evq *q, uint32_t slot);
/* For the inline calls below: the side heap is empty, fill it from the
 * earliest bucket (false: nothing is queued); the side heap lost its top,
 * fill the hole. */
bool sim_evq_refill(sim_evq *q);
void sim_evq_side_fill(sim_evq *q);
/* For sim_evq_push: a slot never used yet (the pool grows), SIM_EVQ_NONE
 * at the limit; the side heap's push. */
uint32_t sim_evq_grow(sim_evq *q);
void sim_evq_side_push(sim_evq *q, uint32_t slot, const sim_evq_entry *e);

static inline void sim_evq_bucket_link(sim_evq *q, uint32_t slot, sim_evq_entry *e) {
    uint64_t diff = e->time ^ q->cur; /* not 0: the event is later than cur */
    unsigned level = (unsigned)(63 - __builtin_clzll(diff)) / SIM_EVQ_DIGIT_BITS;
    unsigned digit = (unsigned)(e->time >> (level * SIM_EVQ_DIGIT_BITS)) & SIM_EVQ_DIGIT_MASK;
    uint32_t b = (uint32_t)(level << SIM_EVQ_DIGIT_BITS | digit);
    uint32_t h = q->head[b];
    e->next = h;
    e->prev = SIM_EVQ_NONE;
    e->where = b;
    if (h != SIM_EVQ_NONE) {
        q->ent[h].prev = slot;
    } else {
        q->bits[level] |= UINT64_C(1) << digit;
        q->levels |= 1u << level;
    }
    q->head[b] = slot;
}

/* Queues a new slot at (time, tie); SIM_EVQ_NONE when `limit` slots are in
 * use (nothing is queued). The payload pool may move. */
static inline uint32_t sim_evq_push(sim_evq *q, uint64_t time, uint64_t tie) {
    uint32_t slot = q->nfree ? q->free_slots[--q->nfree] : sim_evq_grow(q);
    if (__builtin_expect(slot == SIM_EVQ_NONE, 0)) return SIM_EVQ_NONE;
    sim_evq_entry *e = &q->ent[slot];
    e->time = time;
    e->tie = tie;
    q->len++;
    if (time > q->cur) sim_evq_bucket_link(q, slot, e);
    else sim_evq_side_push(q, slot, e);
    return slot;
}

/* The earliest queued slot and its time; false when none is queued. */
static inline bool sim_evq_peek(sim_evq *q, uint64_t *time, uint32_t *slot) {
    if (!q->side_len && !sim_evq_refill(q)) return false;
    *time = q->side[0].time;
    *slot = q->side[0].slot;
    return true;
}

/* Takes the earliest slot (sim_evq_peek said there is one) off the queue. */
static inline uint32_t sim_evq_pop(sim_evq *q) {
    uint32_t slot = q->side[0].slot;
    q->ent[slot].where = SIM_EVQ_TAKEN;
    q->len--;
    if (--q->side_len) sim_evq_side_fill(q);
    return slot;
}

/* Frees a slot taken off the queue. */
static inline void sim_evq_release(sim_evq *q, uint32_t slot) {
    q->ent[slot].gen++;
    q->ent[slot].where = SIM_EVQ_FREE;
    q->free_slots[q->nfree++] = slot;
}

static inline void *sim_evq_payload(const sim_evq *q, uint32_t slot) { return q->payload + (size_t)slot * q->payload_size; }
static inline bool sim_evq_queued(const sim_evq *q, uint32_t slot) {
    return slot < q->used && q->ent[slot].where < SIM_EVQ_TAKEN;
}

#endif
