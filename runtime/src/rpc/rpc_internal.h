/* rpc_internal.h: what the files of runtime/src/rpc/ share, and nothing
 * else includes. They use the public headers only (oxl_rpc.h brings
 * oxl_sched.h, oxl_sim.h and oxl_rt.h). Prefix: rpc_.
 *
 * Frames (docs/services.md, "Wire format"), little-endian, version 1:
 *   header   'O' 'X' 'R' version:u8 kind:u8 id:u64
 *   REQ (1)  service:uvarint method:uvarint then each argument's value
 *   REP (2)  status:u8 (0 = ok) service:uvarint method:uvarint then the result's value
 * A call id is the caller's incarnation << 40 | its count of calls in that
 * incarnation, so ids never repeat on a node and an answer to a dead
 * incarnation finds no call waiting for it. */
#ifndef OXL_RPC_INTERNAL_H
#define OXL_RPC_INTERNAL_H

#include "oxl_rpc.h"

#include <string.h>

#if defined(__GNUC__)
#define RPC_HIDDEN __attribute__((visibility("hidden")))
/* On every call's path: placed together (.text.hot), so a call's code
 * shares few instruction cache sets with itself. */
#define RPC_HOT __attribute__((hot))
#else
#define RPC_HIDDEN
#define RPC_HOT
#endif

/* Frame kinds, one line each with its layout after the header. */
#define RPC_FRAMES(X)                                              \
    X(REQ, 1, "service:uvarint method:uvarint arguments")         \
    X(REP, 2, "status:u8 service:uvarint method:uvarint result")
enum {
#define RPC_FRAME_ENUM(name, code, layout) RPC_##name = code,
    RPC_FRAMES(RPC_FRAME_ENUM)
#undef RPC_FRAME_ENUM
};
#define RPC_HEADER_LEN 13
#define RPC_MAX_PARAMS 256 /* an rpc's parameters: sema allows 255 */
#define RPC_ID_COUNT_BITS 40
#define RPC_FREE_RECORDS 16     /* replies and request records kept for reuse */
#define RPC_KEEP_BYTES 4096     /* a record bigger than this is freed, not kept */
#define RPC_IDLE_WORKERS 8      /* handler tasks a node keeps parked for its next requests */

/* ---- wire.c: bytes ----
 * Every frame passes through these several times a call: the common case
 * (room in the buffer, a one-byte varint) is inline, the rest in wire.c.
 * A put is false when the buffer would pass OXL_RPC_MAX_FRAME; a get is
 * false on truncated or malformed bytes. */
RPC_HIDDEN bool rpc_buf_grow(oxl_wire_buf *b, size_t n);
RPC_HIDDEN bool rpc_put_uvarint_long(oxl_wire_buf *b, uint64_t v);
/* At most 10 bytes, no overlong forms: each value has one encoding. */
RPC_HIDDEN bool rpc_get_uvarint_long(const unsigned char **p, const unsigned char *end, uint64_t *v);

static inline bool rpc_buf_room(oxl_wire_buf *b, size_t n) {
    return __builtin_expect(n <= b->cap - b->len && b->len + n <= OXL_RPC_MAX_FRAME, 1) || rpc_buf_grow(b, n);
}
static inline bool rpc_put_bytes(oxl_wire_buf *b, const void *p, size_t n) {
    if (!rpc_buf_room(b, n)) return false;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    return true;
}
static inline bool rpc_put_u8(oxl_wire_buf *b, uint8_t v) {
    if (!rpc_buf_room(b, 1)) return false;
    b->data[b->len++] = v;
    return true;
}
static inline bool rpc_put_u64(oxl_wire_buf *b, uint64_t v) {
    if (!rpc_buf_room(b, 8)) return false;
    for (int i = 0; i < 8; i++) b->data[b->len + (size_t)i] = (unsigned char)(v >> (8 * i));
    b->len += 8;
    return true;
}
static inline bool rpc_put_uvarint(oxl_wire_buf *b, uint64_t v) {
    if (v < 0x80) return rpc_put_u8(b, (uint8_t)v);
    if (v < 0x4000 && rpc_buf_room(b, 2)) { /* two bytes: a call count, a small Int */
        b->data[b->len] = (unsigned char)(v | 0x80);
        b->data[b->len + 1] = (unsigned char)(v >> 7);
        b->len += 2;
        return true;
    }
    return rpc_put_uvarint_long(b, v);
}
static inline bool rpc_get_u8(const unsigned char **p, const unsigned char *end, uint8_t *v) {
    if (*p >= end) return false;
    *v = *(*p)++;
    return true;
}
static inline bool rpc_get_u64(const unsigned char **p, const unsigned char *end, uint64_t *v) {
    if (end - *p < 8) return false;
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x |= (uint64_t)(*p)[i] << (8 * i);
    *p += 8;
    *v = x;
    return true;
}
static inline bool rpc_get_uvarint(const unsigned char **p, const unsigned char *end, uint64_t *v) {
    const unsigned char *at = *p;
    if (at < end && at[0] < 0x80) { /* one byte: its own value, 0 included */
        *v = at[0];
        *p = at + 1;
        return true;
    }
    if (end - at >= 2 && at[1] < 0x80 && at[1] != 0) { /* two (a zero second byte is overlong) */
        *v = (uint64_t)(at[0] & 0x7f) | (uint64_t)at[1] << 7;
        *p = at + 2;
        return true;
    }
    return rpc_get_uvarint_long(p, end, v);
}

/* A frame's call id: 8 bytes, little-endian. */
static inline void rpc_store_u64le(unsigned char *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
#endif
}
static inline uint64_t rpc_load_u64le(const unsigned char *p) {
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, 8);
#else
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
#endif
    return v;
}

/* A value as an argument or result: scalars (Int, Duration, Instant: a
 * zigzag varint) inline, the rest, and every error, by wire.c. */
static inline bool rpc_encode(oxl_wire_buf *b, const oxl_type_desc *t, oxl_word v, char *err, size_t errcap) {
    if (t->kind == OXL_TD_INT || t->kind == OXL_TD_DURATION || t->kind == OXL_TD_INSTANT) {
        int64_t x = (int64_t)v;
        if (rpc_put_uvarint(b, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63))) return true;
    }
    return oxl_wire_encode(b, t, v, err, errcap);
}
static inline bool rpc_decode(const unsigned char **p, const unsigned char *end, const oxl_type_desc *t, oxl_word *out,
                              char *err, size_t errcap) {
    if (t->kind == OXL_TD_INT || t->kind == OXL_TD_DURATION || t->kind == OXL_TD_INSTANT) {
        const unsigned char *at = *p;
        uint64_t u;
        if (rpc_get_uvarint(p, end, &u)) {
            *out = (oxl_word)((int64_t)(u >> 1) ^ -(int64_t)(u & 1));
            return true;
        }
        *p = at; /* wire.c says what is wrong */
    }
    return oxl_wire_decode(p, end, t, out, err, errcap);
}

/* ---- mailbox.c: per-node tables and the frames that reach a node ---- */

/* An answer for a waiting call: a value's bytes, or why there is none. */
typedef struct rpc_reply {
    int64_t status;       /* OXL_RPC_* */
    char *message;        /* not OK: what happened (malloc'd) */
    size_t len, cap;      /* cap: the bytes data has room for (the record is reused) */
    unsigned char data[]; /* OK: the result's bytes */
} rpc_reply;

/* A call of this node waiting for its answer. An answer is handed to
 * the waiting task, or, when it is not waiting (woken by its deadline and
 * not yet run, or cancelled), kept in the one place `held` (a further one
 * is a duplicate): what a channel of capacity 1 would do. */
typedef struct rpc_pending {
    uint64_t id;
    uint64_t waiter;      /* oxl_task_handle of the calling task */
    rpc_reply *held;      /* an answer that came while the caller was not waiting */
    oxl_node_id target;
} rpc_pending;

/* A request this node's handler runs (or a local call, id 0, on the
 * caller's own task). */
typedef struct rpc_running {
    struct rpc_run *run;  /* a request's: the run and the serving node's World id */
    oxl_node_id node;
    oxl_node_id from;
    uint64_t id;
    uint64_t task;        /* the handler's task id */
    const oxl_service *svc;
    int64_t method;
    size_t len, cap;      /* cap: the bytes req has room for (the record is reused) */
    unsigned char req[];  /* the request frame */
} rpc_running;

/* An answered request, kept so a duplicate gets the same answer again. */
typedef struct rpc_answered {
    oxl_node_id from;
    uint64_t id;
    unsigned char *frame; /* kept when the slot is reused: cap bytes */
    size_t len, cap;
} rpc_answered;

typedef struct rpc_node {
    oxl_node *node;
    struct rpc_run *run;  /* the run, its World and the node's World id: looked up once */
    oxl_world *world;
    oxl_node_id id;
    const oxl_service *serves[OXL_RPC_MAX_SERVICES];
    size_t nserves;
    bool hooked;
    /* the current incarnation's tables (emptied by a crash) */
    uint64_t calls;
    rpc_pending *pending;
    size_t npending, cap_pending;
    rpc_running **running;  /* each record stays put: its handler task holds it */
    size_t nrunning, cap_running;
    oxl_task *idle[RPC_IDLE_WORKERS]; /* handler tasks parked for the next request, the latest last */
    size_t nidle;
    /* A ring, the oldest replaced first once it holds OXL_RPC_DEDUP. It
     * grows by doubling until then (from RPC_ANSWERED_FIRST): a seed's
     * node answers a few requests, and a table of the whole limit was a
     * third of a shop seed's instructions (zeroing) and pages. */
    rpc_answered *answered;
    size_t answered_cap, nanswered, answered_next;
    /* (from, id) -> an entry (0: empty) of the answered slot + 1, the
     * position its probe starts at, and 5 more bits of its hash: a probe
     * and a removal read the ring only for a likely match. Linear probing
     * over 2 * answered_cap entries; a removal shifts the entries after it
     * back (no tombstones); a growth places every entry again. */
    uint32_t *answered_index;
} rpc_node;
#define RPC_ANSWERED_FIRST 16
_Static_assert(2 * OXL_RPC_DEDUP <= 2048, "an index entry has 16 bits for a slot and 11 for a position");

/* A trace label, interned once per (what, service, method): `what` is a
 * string literal, its address a key for lookup only. */
typedef struct rpc_label {
    const char *what;
    const oxl_service *svc;
    int64_t method;
    uint32_t label;
} rpc_label_entry;

/* The labels of the four events every call has, by rpc: no lookup by text. */
enum { RPC_HOT_CALL, RPC_HOT_SERVE, RPC_HOT_REPLY, RPC_HOT_ANSWER, RPC_HOT_N };
#define RPC_HOT_SLOTS 64 /* a power of two: rpcs whose labels are at hand */
#define RPC_NO_LABEL UINT32_MAX
typedef struct rpc_hot_labels {
    const oxl_service *svc;
    int64_t method;
    uint32_t label[RPC_HOT_N];
} rpc_hot_labels;

typedef struct rpc_run {
    rpc_label_entry *labels; /* open addressing, a power of two */
    size_t nlabels, cap_labels;
    rpc_node *nodes;      /* by World id */
    size_t nnodes;
    rpc_node process;     /* the process node (no World id): local calls only */
    oxl_rng rng;          /* which node serves a call: a stream of its own */
    oxl_wire_buf scratch; /* a frame being written: sent (copied) before anything else runs */
    oxl_world *world;
    rpc_hot_labels hot[RPC_HOT_SLOTS];
    /* records given back, reused by the next call or request (a call
     * allocates nothing in the steady state) */
    rpc_reply *free_replies[RPC_FREE_RECORDS];
    size_t nfree_replies;
    rpc_running *free_running[RPC_FREE_RECORDS];
    size_t nfree_running;
} rpc_run;

/* The run's rpc state. */
RPC_HIDDEN rpc_run *rpc_run_get(void);
/* The entry of node n (its hooks set on first use). */
RPC_HIDDEN rpc_node *rpc_node_of(rpc_run *r, oxl_node *n);
RPC_HIDDEN rpc_node *rpc_node_by_id(rpc_run *r, oxl_node_id id); /* NULL when unknown */
RPC_HIDDEN bool rpc_serves(const rpc_node *rn, const oxl_service *s);
RPC_HIDDEN const oxl_service *rpc_served_by_id(const rpc_node *rn, uint64_t id);
RPC_HIDDEN oxl_ctx rpc_ctx(const rpc_node *rn);
/* "call Storage.reserve" into buf, for the trace. */
RPC_HIDDEN const char *rpc_label(char *buf, size_t cap, const char *what, const oxl_service *s, int64_t method);
/* what: a string literal (the label is cached by its address), or with s
 * NULL any text (interned each time). */
RPC_HIDDEN void rpc_trace(const rpc_node *rn, oxl_node_id peer, uint64_t id, const char *what,
                          const oxl_service *s, int64_t method);
/* A hot slot's label, filled in on first use (mailbox.c). */
RPC_HIDDEN uint32_t rpc_hot_label_slow(rpc_run *r, rpc_hot_labels *e, int hot, const oxl_service *s, int64_t method);
/* The same event as rpc_trace with what "call", "serve", "reply" or
 * "answer" (RPC_HOT_*), its label found without a lookup: inline, as four
 * of these run in every call. */
static inline void rpc_trace_hot(const rpc_node *rn, oxl_node_id peer, uint64_t id, int hot, const oxl_service *s,
                                 int64_t method) {
    if (!rn->node) return; /* the process node is not in the World */
    rpc_run *r = rn->run;
    uint64_t h = ((uint64_t)(uintptr_t)s >> 4 ^ (uint64_t)method) * UINT64_C(0x9E3779B97F4A7C15);
    rpc_hot_labels *e = &r->hot[h >> 58 & (RPC_HOT_SLOTS - 1)];
    uint32_t label = e->svc == s && e->method == method ? e->label[hot] : RPC_NO_LABEL;
    if (__builtin_expect(label == RPC_NO_LABEL, 0)) label = rpc_hot_label_slow(r, e, hot, s, method);
    oxl_world_trace_rpc(rn->world, rn->id, peer, id, label);
}
RPC_HIDDEN void *rpc_xrealloc(void *p, size_t n);
RPC_HIDDEN char *rpc_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A reply record with room for len bytes (status OK, no message), and its
 * return (message freed; NULL is fine). */
RPC_HIDDEN rpc_reply *rpc_reply_take(rpc_run *r, size_t len);
RPC_HIDDEN void rpc_reply_give(rpc_run *r, rpc_reply *rep);
/* Writes a frame header (13 bytes fit any frame: nothing can fail). */
static inline void rpc_put_header(oxl_wire_buf *b, int kind, uint64_t id) {
    if (!rpc_buf_room(b, RPC_HEADER_LEN)) return;
    unsigned char *h = b->data + b->len;
    h[0] = 'O';
    h[1] = 'X';
    h[2] = 'R';
    h[3] = OXL_WIRE_VERSION;
    h[4] = (unsigned char)kind;
    rpc_store_u64le(h + 5, id);
    b->len += RPC_HEADER_LEN;
}
/* A request record with room for len bytes of frame, zeroed but for cap. */
RPC_HIDDEN rpc_running *rpc_running_take(rpc_run *r, size_t len);
RPC_HIDDEN void rpc_running_add(rpc_node *rn, rpc_running *ru);
RPC_HIDDEN void rpc_running_remove(rpc_run *r, rpc_node *rn, const rpc_running *ru); /* gives it back */
RPC_HIDDEN const char *rpc_node_name(const rpc_node *rn);

/* ---- call.c: the calling side ---- */
/* An answer (REP) reached node rn. */
RPC_HIDDEN void rpc_take_answer(rpc_run *r, rpc_node *rn, oxl_node_id from, uint64_t id, const unsigned char *p,
                                const unsigned char *end, const oxl_service *s, int64_t method);
/* A call of rpc_node caller with this id learns that its handler will never
 * answer (status OXL_RPC_CRASHED or OXL_RPC_PANIC, message owned). */
RPC_HIDDEN void rpc_fail_call(rpc_node *caller, uint64_t id, oxl_node_id server, int64_t status, char *message,
                              const oxl_service *s, int64_t method);

/* ---- serve.c: the serving side ---- */
RPC_HIDDEN void rpc_take_request(rpc_run *r, rpc_node *rn, oxl_node_id from, uint64_t id, const unsigned char *frame,
                                 size_t len, const unsigned char *p, const unsigned char *end);
/* Runs method m of s on the calling task for a caller on the same node:
 * args copied through the wire, the result too. */
RPC_HIDDEN void rpc_call_local(rpc_node *rn, const oxl_service *s, int64_t method, const oxl_word *args,
                               oxl_word *out, const char *file, int line);

#endif
