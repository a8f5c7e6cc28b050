/* chan.c: channels (unbuffered, bounded, unbounded) and select.
 *
 * A blocked operation is a waiter on the channel's send or receive queue,
 * kept on the blocked task's own stack. Whoever completes it copies the
 * element, then fires the waiter: the task's other waiters (a select's other
 * cases) leave their queues and the task becomes ready. Queues are FIFO, so
 * which waiter a channel serves never depends on anything but the order of
 * events; the only choice, among a select's ready cases, is a seeded draw. */
#include "sched_internal.h"

#include <gc/gc.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHAN_MAX_ELEM ((size_t)1 << 16)
#define CHAN_MAX_BOUNDED ((size_t)1 << 24)
#define SELECT_MAX_CASES 64

/* ---- wait queues ---- */

static void waitq_push(sched_waitq *q, sched_waiter *w) {
    w->next = NULL;
    w->prev = q->tail;
    if (q->tail)
        q->tail->next = w;
    else
        q->head = w;
    q->tail = w;
}

/* Completes a waiter's operation with status: its task wakes. */
static void waiter_fire(oxl_sched *s, sched_waiter *w, oxl_chan_status status) {
    oxl_task *t = w->task;
    t->fired_case = (int32_t)w->case_index;
    t->fired_status = status;
    sched_task_drop_waits(s, t);
    sched_make_ready(s, t);
}

/* ---- the ring buffer ---- */

static unsigned char *slot_at(oxl_chan *c, size_t i) {
    size_t at = c->head + i;
    if (at >= c->buf_cap) at -= c->buf_cap; /* i < buf_cap: one wrap at most */
    return c->buf + at * c->elem_size;
}

/* Word-sized elements (what generated code sends) copy inline. */
static inline void elem_copy(size_t size, void *dst, const void *src) {
    if (size == 8)
        memcpy(dst, src, 8);
    else if (size)
        memcpy(dst, src, size);
}

/* Buffered elements of an OxL program are words that may be the only
 * reference to a collected object: with the collector initialised the
 * buffer is memory it scans (uncollectable, freed by hand). */
static void *buf_alloc(const oxl_chan *c, size_t bytes) {
    if (!c->sched->gc) return sim_xmalloc(bytes);
    sched_gc_sync();
    void *p = GC_MALLOC_UNCOLLECTABLE(bytes);
    if (!p) sim_oom();
    return p;
}

static void buf_free(const oxl_chan *c, void *p) {
    if (!p) return;
    if (c->sched->gc)
        GC_FREE(p);
    else
        free(p);
}

static void buf_push(oxl_chan *c, const void *elem) {
    if (c->len == c->buf_cap) { /* grow (bounded ones up to cap) */
        size_t cap = c->buf_cap ? c->buf_cap * 2 : 16;
        if (c->cap != OXL_CHAN_UNBOUNDED && cap > c->cap) cap = c->cap;
        unsigned char *nb = buf_alloc(c, cap * (c->elem_size ? c->elem_size : 1));
        for (size_t i = 0; i < c->len; i++) memcpy(nb + i * c->elem_size, slot_at(c, i), c->elem_size);
        buf_free(c, c->buf);
        c->buf = nb;
        c->buf_cap = cap;
        c->head = 0;
    }
    elem_copy(c->elem_size, slot_at(c, c->len), elem);
    c->len++;
}

static void buf_pop(oxl_chan *c, void *elem) {
    if (elem) elem_copy(c->elem_size, elem, slot_at(c, 0));
    if (c->sched->gc) memset(slot_at(c, 0), 0, c->elem_size); /* keep nothing alive */
    if (++c->head == c->buf_cap) c->head = 0;
    c->len--;
}

static bool buf_has_room(const oxl_chan *c) { return c->cap == OXL_CHAN_UNBOUNDED || c->len < c->cap; }

static void copy_elem(const oxl_chan *c, void *dst, const void *src) {
    if (dst && src) elem_copy(c->elem_size, dst, src);
}

static void zero_elem(const oxl_chan *c, void *dst) {
    if (c->elem_size && dst) memset(dst, 0, c->elem_size);
}

/* ---- channels ---- */

oxl_chan *oxl_chan_new(size_t cap, size_t elem_size) {
    oxl_sched *s = sched_enter("oxl_chan_new");
    if (!s) return NULL;
    if (elem_size > CHAN_MAX_ELEM)
        oxl_panic_at("(runtime)", 0, "channel element of %zu bytes (the limit is %zu)", elem_size, CHAN_MAX_ELEM);
    if (cap != OXL_CHAN_UNBOUNDED && cap > CHAN_MAX_BOUNDED)
        oxl_panic_at("(runtime)", 0, "channel capacity %zu (the limit is %zu, or unbounded)", cap, CHAN_MAX_BOUNDED);
    oxl_chan *c = sim_xcalloc(1, sizeof *c);
    c->sched = s;
    c->id = ++s->next_chan_id;
    c->cap = cap;
    c->elem_size = elem_size;
    c->next_all = s->chans;
    s->chans = c;
    return c;
}

void sched_chans_free(oxl_sched *s) {
    oxl_chan *c = s->chans;
    while (c) {
        oxl_chan *next = c->next_all;
        buf_free(c, c->buf);
        free(c);
        c = next;
    }
    s->chans = NULL;
}

size_t oxl_chan_len(const oxl_chan *c) { return c ? c->len : 0; }
uint64_t oxl_chan_id(const oxl_chan *c) { return c ? c->id : 0; }

/* A sender's or receiver's wait for one channel (not a select). */
static oxl_chan_status wait_on(oxl_sched *s, oxl_chan *c, bool send, void *elem, const char *file, int line) {
    oxl_task *self = s->current;
    sched_waiter *w = &self->one_waiter;
    *w = (sched_waiter){.task = self, .chan = c, .elem = elem, .send = send, .case_index = 0};
    waitq_push(send ? &c->senders : &c->receivers, w);
    self->waiters = w;
    self->nwaiters = 1;
    self->wait = send ? WAIT_SEND : WAIT_RECV;
    self->wait_obj = c->id;
    self->file = file;
    self->line = line;
    sched_block(s);
    self->wait = WAIT_NONE;
    return self->fired_status;
}

/* Both operations assume the caller checked they can proceed, or block. */
static oxl_chan_status do_send(oxl_sched *s, oxl_chan *c, const void *elem, bool *woke) {
    if (c->closed) return OXL_CHAN_CLOSED;
    if (c->receivers.head) {
        sched_waiter *r = c->receivers.head;
        copy_elem(c, r->elem, elem);
        waiter_fire(s, r, OXL_CHAN_OK);
        *woke = true;
        return OXL_CHAN_OK;
    }
    buf_push(c, elem);
    return OXL_CHAN_OK;
}

static oxl_chan_status do_recv(oxl_sched *s, oxl_chan *c, void *elem, bool *woke) {
    if (c->len) {
        buf_pop(c, elem);
        if (c->senders.head) { /* a blocked sender's element takes the freed place */
            sched_waiter *w = c->senders.head;
            buf_push(c, w->elem);
            waiter_fire(s, w, OXL_CHAN_OK);
            *woke = true;
        }
        return OXL_CHAN_OK;
    }
    if (c->senders.head) { /* unbuffered: take it straight from the sender */
        sched_waiter *w = c->senders.head;
        copy_elem(c, elem, w->elem);
        waiter_fire(s, w, OXL_CHAN_OK);
        *woke = true;
        return OXL_CHAN_OK;
    }
    zero_elem(c, elem);
    return OXL_CHAN_CLOSED; /* only reached when closed and drained */
}

static bool can_send(const oxl_chan *c) { return c->closed || c->receivers.head || (c->cap && buf_has_room(c)); }
static bool can_recv(const oxl_chan *c) { return c->len || c->senders.head || c->closed; }

/* A task that wakes another goes on, as in asyncio and simloop, unless the
 * run asked for preemption at wakeups (then the woken one may run first). */
static inline void after_wake(oxl_sched *s, bool woke, const char *file, int line) {
    if (woke && s->opt.preempt_on_wake) sched_give_way(s, file, line);
}

/* A send, inline in oxl_chan_send_at and in the word-sized send of
 * generated code (oxl_chan_send_word): a hop there is one call. */
static inline __attribute__((always_inline)) oxl_chan_status chan_send(oxl_chan *c, const void *elem,
                                                                       const char *file, int line) {
    oxl_sched *s = sched_enter("oxl_chan_send");
    if (!s) return OXL_CHAN_CLOSED;
    if (!c) oxl_panic_at(file, line, "send on a NULL channel");
    if (c->sched != s) oxl_panic_at(file, line, "send on a channel of another run");
    if (!can_send(c)) return wait_on(s, c, true, (void *)elem, file, line);
    bool woke = false;
    oxl_chan_status st = do_send(s, c, elem, &woke);
    after_wake(s, woke, file, line);
    return st;
}

oxl_chan_status oxl_chan_send_at(oxl_chan *c, const void *elem, const char *file, int line) {
    return chan_send(c, elem, file, line);
}

void oxl_chan_send_word(oxl_chan *c, uint64_t w, const char *file, int line) {
    if (chan_send(c, &w, file, line) == OXL_CHAN_CLOSED) oxl_panic_at(file, line, "send on a closed channel");
}

bool oxl_chan_offer(oxl_chan *c, const void *elem) {
    oxl_sched *s = sched_active();
    if (!s) sched_fatal("oxl_chan_offer called outside oxl_sched_run");
    if (s->current && s->current->state == TASK_CANCELLED) sched_check_self(s);
    if (!c) oxl_panic_at("(runtime)", 0, "offer on a NULL channel");
    if (c->sched != s) oxl_panic_at("(runtime)", 0, "offer on a channel of another run");
    if (c->closed || !can_send(c)) return false;
    bool woke = false;
    do_send(s, c, elem, &woke); /* the offerer goes on: no decision here */
    return true;
}

bool oxl_chan_poll(oxl_chan *c, void *elem) {
    oxl_sched *s = sched_active();
    if (!s) sched_fatal("oxl_chan_poll called outside oxl_sched_run");
    if (s->current && s->current->state == TASK_CANCELLED) sched_check_self(s);
    if (!c) oxl_panic_at("(runtime)", 0, "poll of a NULL channel");
    if (c->sched != s) oxl_panic_at("(runtime)", 0, "poll of a channel of another run");
    if (!c->len && !c->senders.head) return false;
    bool woke = false;
    do_recv(s, c, elem, &woke);
    return true;
}

/* A receive, inline as chan_send is. */
static inline __attribute__((always_inline)) oxl_chan_status chan_recv(oxl_chan *c, void *elem, const char *file,
                                                                       int line) {
    oxl_sched *s = sched_enter("oxl_chan_recv");
    if (!s) return OXL_CHAN_CLOSED;
    if (!c) oxl_panic_at(file, line, "receive on a NULL channel");
    if (c->sched != s) oxl_panic_at(file, line, "receive on a channel of another run");
    if (!can_recv(c)) {
        oxl_chan_status st = wait_on(s, c, false, elem, file, line);
        if (st == OXL_CHAN_CLOSED) zero_elem(c, elem);
        return st;
    }
    bool woke = false;
    oxl_chan_status st = do_recv(s, c, elem, &woke);
    after_wake(s, woke, file, line);
    return st;
}

oxl_chan_status oxl_chan_recv_at(oxl_chan *c, void *elem, const char *file, int line) {
    return chan_recv(c, elem, file, line);
}

bool oxl_chan_recv_word(oxl_chan *c, uint64_t *w, const char *file, int line) {
    return chan_recv(c, w, file, line) == OXL_CHAN_OK;
}

void oxl_chan_close(oxl_chan *c) {
    oxl_sched *s = sched_enter("oxl_chan_close");
    if (!s) return;
    if (!c) oxl_panic_at("(runtime)", 0, "close of a NULL channel");
    if (c->closed) oxl_panic_at("(runtime)", 0, "close of channel %" PRIu64 ", which is already closed", c->id);
    c->closed = true;
    bool woke = false;
    while (c->receivers.head) {
        sched_waiter *r = c->receivers.head;
        zero_elem(c, r->elem);
        waiter_fire(s, r, OXL_CHAN_CLOSED);
        woke = true;
    }
    while (c->senders.head) {
        waiter_fire(s, c->senders.head, OXL_CHAN_CLOSED);
        woke = true;
    }
    after_wake(s, woke, "(close)", 0);
}

/* ---- select ---- */

size_t oxl_select_at(oxl_select_case *cases, size_t n, oxl_dur_ns timeout, oxl_chan_status *status, const char *file,
                     int line) {
    oxl_sched *s = sched_enter("oxl_select");
    oxl_chan_status dummy;
    if (!status) status = &dummy;
    *status = OXL_CHAN_OK;
    if (!s) return n;
    if (n > SELECT_MAX_CASES) oxl_panic_at(file, line, "select over %zu cases (the limit is %d)", n, SELECT_MAX_CASES);
    if (n && !cases) oxl_panic_at(file, line, "select with NULL cases");
    uint32_t ready[SELECT_MAX_CASES];
    uint32_t nready = 0;
    for (size_t i = 0; i < n; i++) {
        oxl_chan *c = cases[i].chan;
        if (!c) continue; /* a NULL channel is never ready, as in Go */
        if (c->sched != s) oxl_panic_at(file, line, "select on a channel of another run");
        if (cases[i].send ? can_send(c) : can_recv(c)) ready[nready++] = (uint32_t)i;
    }
    if (nready) {
        /* The seeded choice among ready arms (no draw when there is one). */
        uint32_t pick = nready == 1 ? ready[0] : ready[oxl_rng_below(&s->select_rng, nready)];
        oxl_select_case *k = &cases[pick];
        bool woke = false;
        *status = k->send ? do_send(s, k->chan, k->elem, &woke) : do_recv(s, k->chan, k->elem, &woke);
        after_wake(s, woke, file, line);
        return pick;
    }
    if (timeout == 0) return n;
    oxl_task *self = s->current;
    sched_waiter waiters[SELECT_MAX_CASES];
    uint32_t nw = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].chan) continue;
        waiters[nw] = (sched_waiter){.task = self, .chan = cases[i].chan, .elem = cases[i].elem,
                                     .send = cases[i].send, .case_index = (uint32_t)i};
        waitq_push(cases[i].send ? &cases[i].chan->senders : &cases[i].chan->receivers, &waiters[nw]);
        nw++;
    }
    self->waiters = nw ? waiters : NULL; /* a wakeup leaves an empty list as it is (wake_sleeper) */
    self->nwaiters = nw;
    self->wait = WAIT_SELECT;
    self->wait_cases = nw;
    self->file = file;
    self->line = line;
    self->wake_handle = 0;
    self->fired_case = -1;
    if (timeout > 0) sched_arm_wake(s, sched_timer_base(s) + timeout);
    sched_block(s);
    self->wait = WAIT_NONE;
    if (self->fired_case < 0) return n; /* the timeout */
    *status = self->fired_status;
    oxl_select_case *k = &cases[self->fired_case];
    if (*status == OXL_CHAN_CLOSED && !k->send) zero_elem(k->chan, k->elem);
    return (size_t)self->fired_case;
}
