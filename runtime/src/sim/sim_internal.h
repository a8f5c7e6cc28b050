/* sim_internal.h: the World's data structures, shared by the files of
 * runtime/src/sim/ and by nothing else. Internal functions are prefixed
 * sim_ and hidden from the library's exports. */
#ifndef OXL_SIM_INTERNAL_H
#define OXL_SIM_INTERNAL_H

#include "oxl_sim.h"

#define SIM_LIKELY(x) __builtin_expect(!!(x), 1)
#define SIM_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* On the path of every event and every rpc call: the compiler puts these
 * functions together (.text.hot), so that path's code is a few contiguous
 * kilobytes and does not evict itself from the instruction cache, however
 * the rest of the library is laid out. */
#define SIM_HOT __attribute__((hot))

/* Sequence numbers fill the low 40 bits of a tie key; the seeded tie draw
 * fills the high 24. 2^40 scheduled events is the world's hard limit. */
#define SIM_SEQ_BITS 40
#define SIM_SEQ_MASK ((UINT64_C(1) << SIM_SEQ_BITS) - 1)
#define SIM_INLINE_PAYLOAD 40
#define SIM_CACHE_LINE 64

/* ---- interned labels: id order is first-use order, so deterministic ---- */
typedef struct sim_label {
    char *text;
    uint64_t hash; /* content hash, folded into the trace hash */
} sim_label;

typedef struct sim_labels {
    sim_label *items; /* items[0] is the empty label */
    uint32_t count, cap;
    uint32_t *index;  /* open addressing: label id or 0 */
    uint32_t index_cap;
} sim_labels;

uint32_t sim_label_intern(sim_labels *l, const char *text);
uint64_t sim_text_hash(const char *text, size_t len);

/* ---- events ---- */
typedef enum sim_event_type {
    SIM_BOOT = 1,  /* first boot of a node */
    SIM_DELIVER,   /* a message arrives */
    SIM_TIMER,     /* a node's timer */
    SIM_CALL,      /* a test-level callback */
    SIM_UNBLOCK,   /* a timed partition or one-way block ends */
    SIM_KILL,      /* a scheduled kill */
    SIM_RESTART,   /* a scheduled restart */
    SIM_WAKE,      /* the scheduler's wakeup of a task */
} sim_event_type;

/* The task scheduler's door into the event queue: fn(w, arg, tag) at time
 * t, traced as a task event of node with the tag. */
typedef void (*sim_wake_fn)(oxl_world *w, void *arg, uint64_t tag);

/* A slot starts a cache line (128 bytes): what a wakeup reads and its
 * next sleep writes, the fields before u's third word, is then one line,
 * where an 88-byte slot mostly straddled two. */
typedef struct sim_event {
    _Alignas(SIM_CACHE_LINE) uint8_t type;
    oxl_node_id node;      /* target node */
    oxl_node_id from;      /* sender of a message */
    uint32_t incarnation;  /* timers: the incarnation that set it */
    uint32_t gen;          /* bumped when the slot is reused (timer ids) */
    uint32_t label;
    uint32_t len;          /* message length */
    uint64_t seq;
    union {
        struct {
            void *heap_data;                     /* NULL when inline */
            unsigned char inline_data[SIM_INLINE_PAYLOAD];
        } msg;
        struct {
            oxl_timer_fn fn;
            void *arg;
        } timer;
        struct {
            oxl_world_fn fn;
            void *arg;
        } call;
        struct {
            uint32_t partition;  /* index into world.partitions */
        } unblock;
        struct {
            sim_wake_fn fn;
            void *arg;
            uint64_t tag;
        } wake;
    } u;
} sim_event;

/* xoshiro256** (rng.c's oxl_rng_next): inline where a draw is on a hot
 * path (the tie of every queued event). */
static inline uint64_t sim_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t sim_rng_next(oxl_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = sim_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sim_rng_rotl(s[3], 45);
    return result;
}

/* A queued event's place in the order as one number: its time << 64 | its
 * tie, where the tie is (seeded draw << 40) | seq, or seq alone
 * (event_queue.h). */
typedef unsigned __int128 sim_qkey;

/* ---- deadlines (deadline.c): wakeups that are no event until they fire ---- */
#define SIM_DEADLINE_MAX (1u << 24)            /* armed at once */
#define SIM_DEADLINE_HANDLE_BIT (UINT64_C(1) << 31) /* tells a deadline's handle from an event's */
#define SIM_DEADLINE_UNQUEUED UINT32_MAX

typedef struct sim_deadline {
    oxl_time_ns time;
    uint64_t order; /* arming order: the tie-break at one instant */
    sim_wake_fn fn;
    void *arg;
    uint64_t tag;
    oxl_node_id node;
    uint32_t gen;      /* bumped when the record is reused */
    uint32_t heap_pos; /* SIM_DEADLINE_UNQUEUED once fired or cancelled */
} sim_deadline;

typedef struct sim_deadlines {
    sim_deadline *recs;
    uint32_t *heap; /* record indices, a binary heap on (time, order) */
    uint32_t *free;
    uint32_t nrecs, cap, len, nfree;
    uint64_t next_order;
} sim_deadlines;

/* ---- disk ---- */
#define SIM_DISK_INLINE 32 /* keys and values up to this many bytes live inside their entry */

/* Bytes that live inline when they are few, on the heap otherwise. */
typedef struct sim_bytes {
    unsigned char *heap; /* NULL: the bytes are in small */
    uint32_t len;
    unsigned char small[SIM_DISK_INLINE];
} sim_bytes;

typedef struct sim_kv_entry {
    uint64_t hash; /* of the key's text */
    sim_bytes key; /* the key's text, without its NUL */
    sim_bytes val;
} sim_kv_entry;

/* A key/value map: entries in a dense sequence (a delete moves the last
 * entry into the hole, so the order is a function of the writes alone) and
 * an open-addressing index on the key hash. The sequence is stored in
 * chunks of SIM_KV_CHUNK entries that never move, so growing it copies
 * pointers, not entries. */
#define SIM_KV_CHUNK_BITS 7
#define SIM_KV_CHUNK ((size_t)1 << SIM_KV_CHUNK_BITS)
typedef struct sim_kv {
    sim_kv_entry **chunks; /* entry n: chunks[n >> SIM_KV_CHUNK_BITS][n % SIM_KV_CHUNK] */
    size_t count, cap;     /* cap: entries the allocated chunks hold */
    size_t chunks_cap;
    uint32_t *index;   /* item + 1; 0 = empty; linear probing */
    size_t index_cap;  /* a power of two, more than twice count */
} sim_kv;

typedef enum sim_disk_op_type { SIM_DISK_PUT, SIM_DISK_APPEND, SIM_DISK_DEL } sim_disk_op_type;

/* An unsynced write, as what undoes it: the key's value before it. */
typedef struct sim_disk_undo {
    uint64_t hash;
    sim_bytes key;
    bool existed;  /* else the write created the key */
    sim_bytes old;
} sim_disk_undo;

struct oxl_disk {
    oxl_world *world;
    oxl_node_id node;
    sim_kv current;         /* what reads see: the durable state plus the unsynced writes */
    sim_disk_undo *pending; /* the unsynced writes, oldest first; the durable state is
                               current with all of them undone */
    size_t npending, pending_cap;
    double write_fail_p, sync_fail_p;
    oxl_rng rng; /* crash prefixes and failure dice: its own stream */
    /* oxl_disk_key_at: the keys as C strings in bytewise order, made when
     * asked after a change (a walk of the keys costs one sort) */
    char **sorted;
    size_t nsorted;
    bool sorted_ok;
};

void sim_disk_init(oxl_disk *d, oxl_world *w, oxl_node_id node);
void sim_disk_destroy(oxl_disk *d);
void sim_disk_crash(oxl_disk *d);

/* ---- nodes ---- */
typedef struct sim_node {
    char name[OXL_SIM_NAME_MAX + 1];
    uint32_t label;
    oxl_process_factory factory;
    void *factory_arg;
    oxl_process *proc;
    uint32_t incarnation; /* 1 at first boot, +1 at every restart */
    bool up;
    bool booted;          /* its first boot happened: the queued boot event is void */
    oxl_dur_ns skew;
    oxl_rng rng;
    oxl_disk *disk;
} sim_node;

typedef struct sim_link {
    oxl_time_ns last_delivery; /* FIFO: the next delivery is later than this */
    uint32_t blocks;           /* active partitions and blocks on this link */
} sim_link;

typedef struct sim_partition {
    oxl_node_id *a, *b;
    uint32_t na, nb;
    uint64_t heal_epoch; /* an oxl_net_heal in between voids the timed end */
    bool one_way;        /* cuts a -> b only (oxl_net_block_for) */
    bool ended;          /* its timed end came (sim_net_unblock) */
    oxl_time_ns since;   /* when it was cut */
    oxl_time_ns until;   /* its timed end; 0: until oxl_net_heal */
} sim_partition;

typedef struct sim_invariant {
    uint32_t label;
    oxl_invariant_fn fn;
    void *arg;
} sim_invariant;

typedef struct sim_trace {
    oxl_trace_event *ring; /* capacity is a power of two */
    uint64_t mask;
    uint64_t count;        /* events kept (recorded) */
    uint64_t hash;
} sim_trace;

struct oxl_world {
    oxl_world_options opt;
    oxl_time_ns now;
    uint64_t next_seq;
    uint64_t events_run;

    /* the event queue (event_queue.h): a winner tree over the pool's slots */
    uint64_t *qtime;  /* [qcap] by slot: its event's time; SIM_QTIME_NONE when not queued */
    uint64_t *qtie;   /* [qcap] by slot: its event's tie; UINT64_MAX when not queued */
    uint32_t *qwin;   /* [qcap] inner nodes 1 .. qcap-1: the earliest slot below */
    uint32_t qcap;    /* a power of two, > every slot in use */
    uint32_t queued;  /* events in the queue */
    uint32_t qtaken;  /* the top taken and its leaf not yet cleared, or SIM_QUEUE_NO_SLOT */
    sim_event *pool;
    uint32_t pool_len, pool_cap;
    uint32_t *free_slots;
    uint32_t free_len;

    sim_node *nodes;
    int nnodes, nodes_cap;
    sim_link *links; /* links[from * links_stride + to] */
    int links_stride;

    /* network configuration */
    oxl_dur_ns lat_min, lat_max;
    double drop_p, dup_p, reorder_p;
    sim_partition *partitions;
    uint32_t npartitions, partitions_cap;
    uint64_t heal_epoch;

    sim_invariant invariants[OXL_SIM_MAX_INVARIANTS];
    int ninvariants;

    oxl_rng tie_rng, net_rng, fault_rng, dead_rng;
    uint64_t tie_bits;      /* unused bits of the last tie draw */
    unsigned tie_nbits;
    uint32_t label_wake;    /* interned once: the scheduler's wakeups are hot */

    char *failure;
    sim_trace trace;
    sim_labels labels;

    oxl_node_id running_node;    /* node whose callback is on the stack */
    oxl_process **doomed;        /* processes killed from their own callback */
    size_t ndoomed, doomed_cap;

    oxl_trace_hook trace_hook; /* sees every recorded event (oxl_world_set_trace_hook) */
    void *trace_hook_arg;
    const char *trace_site_file; /* a task spawn's site while its event is recorded (trace_dump.c) */
    int trace_site_line;

    char **strings; /* oxl_world_strf results */
    size_t nstrings, strings_cap;

    bool sched_driven; /* stepped by a scheduler run, which arms the fence itself */

    /* faults.c: the fault log and its replay; fault_mode is the one
     * branch a chance costs when neither is on */
    uint8_t fault_mode; /* SIM_FAULTS_OFF, _RECORD, _REPLAY */
    uint64_t fault_chances[OXL_FAULT_NKINDS];
    oxl_fault *fault_log; /* RECORD: what fired; REPLAY: the list, sorted by kind and ordinal */
    size_t nfault_log, fault_log_cap;
    size_t fault_next[OXL_FAULT_NKINDS]; /* REPLAY: each kind's next listed chance, ordinals rising */
    oxl_fault *fault_fired;               /* REPLAY: the listed ones that fired, as this run saw them */
    size_t nfault_fired, fault_fired_cap;
    sim_deadlines deadlines; /* deadline.c */
    /* spawn(name: ...): task id -> interned name, for traces and reports */
    struct sim_task_name {
        uint64_t id;
        uint32_t label;
    } *task_names;
    size_t ntask_names, task_names_cap;
};

/* faults.c */
enum { SIM_FAULTS_OFF = 0, SIM_FAULTS_RECORD, SIM_FAULTS_REPLAY };
/* A chance of a fault of kind k: returns whether it fires, given what the
 * call or the dice said (would); *dur (may be NULL) gets a replayed
 * duration; label_fn fills the label of a recorded one. Call only when
 * w->fault_mode is on. */
typedef void (*sim_fault_label_fn)(oxl_world *w, const void *arg, char *buf, size_t cap);
bool sim_fault_chance(oxl_world *w, oxl_fault_kind k, bool would, oxl_time_ns at, oxl_dur_ns *dur,
                      sim_fault_label_fn label_fn, const void *arg);
void sim_faults_free(oxl_world *w);
static inline bool sim_fault_gate(oxl_world *w, oxl_fault_kind k, bool would, oxl_time_ns at, oxl_dur_ns *dur,
                                  sim_fault_label_fn label_fn, const void *arg) {
    if (SIM_LIKELY(!w->fault_mode)) return would;
    return sim_fault_chance(w, k, would, at, dur, label_fn, arg);
}

/* world.c */
void sim_oom(void) __attribute__((noreturn));
void *sim_xmalloc(size_t n);
void *sim_xcalloc(size_t n, size_t size);
void *sim_xrealloc(void *p, size_t n);
/* Memory starting a cache line (freed with free), zeroed by the calloc
 * one: hot records that would otherwise straddle two. An array of them
 * grows with sim_xrealloc_line (n bytes, the first old of them kept). */
void *sim_xmalloc_line(size_t size);
void *sim_xcalloc_line(size_t size);
void *sim_xrealloc_line(void *p, size_t old, size_t n);
char *sim_xstrdup(const char *s);
int sim_misuse(oxl_world *w, const char *call, const char *fmt, ...) OXL_PRINTF(3, 4);
bool sim_valid_node(const oxl_world *w, oxl_node_id n);
uint32_t sim_schedule(oxl_world *w, oxl_time_ns t, sim_event *ev); /* returns the slot */
sim_node *sim_live_node(oxl_ctx c);
void sim_fail_text(oxl_world *w, char *owned_text);
/* Destroys processes killed while one of their callbacks was running. */
void sim_destroy_doomed(oxl_world *w);
/* sim_schedule_wake (sim_hot.h) returns a handle for this. */
/* Cancels a queued timer or wake by handle; a stale handle does nothing. */
void sim_cancel_event(oxl_world *w, uint64_t handle);
/* The time of the next event that will run, dropping the dead ones
 * (timers of a gone incarnation) queued before it; false
 * when no such event is queued. */
bool sim_next_event_time(oxl_world *w, oxl_time_ns *t);
/* The scheduler's step (it drives the World, no fence to arm): runs the
 * next event that will run if its time is at most deadline. SIM_STEP_RAN;
 * SIM_STEP_EMPTY, no event is left; SIM_STEP_LATE, the next one is at *t,
 * past the deadline (nothing ran). As sim_next_event_time then
 * oxl_world_step, in one call. */
typedef enum sim_step_result { SIM_STEP_RAN, SIM_STEP_EMPTY, SIM_STEP_LATE } sim_step_result;
/* (sim_step_due itself is inline in sim_hot.h.) */
uint32_t sim_intern(oxl_world *w, const char *label);
/* trace.c: a task's name (spawn(name: ...)); NULL for a task without one.
 * Names are not part of the trace hash: naming a task changes no run. */
void sim_name_task(oxl_world *w, uint64_t task_id, const char *name);
const char *sim_task_name(const oxl_world *w, uint64_t task_id);
/* Boots a node just added right away instead of at its queued boot event. */
void sim_boot_now(oxl_world *w, oxl_node_id id);

/* deadline.c. A deadline: fn(w, arg, tag) at time t (now if t is past),
 * traced as a task wakeup of node when it fires; until then no event, no
 * sequence number, no tie draw. It fires once nothing queued is due at
 * or before t; deadlines of one instant fire in the order they were
 * armed. The handle is for sim_cancel_event, as an event's is; 0 when the
 * World failed on the limit. */
uint64_t sim_deadline_arm(oxl_world *w, oxl_time_ns t, oxl_node_id node, sim_wake_fn fn, void *arg, uint64_t tag);
void sim_deadline_cancel(oxl_world *w, uint64_t handle); /* stale or fired: nothing */
/* The earliest deadline, out of the heap (there is one). */
sim_deadline sim_deadline_take(oxl_world *w);
void sim_deadlines_free(oxl_world *w);
static inline bool sim_deadline_next(const oxl_world *w, oxl_time_ns *t) {
    if (SIM_LIKELY(w->deadlines.len == 0)) return false;
    *t = w->deadlines.recs[w->deadlines.heap[0]].time;
    return true;
}

/* net.c */
bool sim_net_send(oxl_world *w, oxl_node_id from, oxl_node_id to, const void *data, size_t len);
void sim_net_deliver(oxl_world *w, sim_event *ev, const void *data);
void sim_net_unblock(oxl_world *w, uint32_t partition);
void sim_net_grow(oxl_world *w, int nodes);
void sim_net_free(oxl_world *w);

/* trace.c */
#define SIM_TRACE_DEFAULT_CAPACITY 4096 /* events a World's ring keeps (oxl_world_options) */
void sim_trace_init(sim_trace *t, uint32_t capacity);
void sim_trace_free(sim_trace *t);
/* A ring of the default capacity made now for the next World (a fork
 * server's, before its first fork). */
void sim_trace_reserve(void);

/* One 64x64->128 multiply folds two words (the wyhash "mum" step); the odd
 * constants keep a zero word from erasing the history. */
static inline uint64_t sim_trace_mum(uint64_t a, uint64_t b) {
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* Folds one event (kind, node, peer, time, seq, arg, label text) into the
 * running hash: never an address. */
static inline uint64_t sim_trace_fold(oxl_world *w, oxl_event_kind kind, oxl_node_id node, oxl_node_id peer,
                                      uint64_t seq, uint64_t arg, uint32_t label) {
    sim_trace *t = &w->trace;
    uint64_t who = (uint64_t)kind | (uint64_t)(uint32_t)(node + 1) << 8 | (uint64_t)(uint32_t)(peer + 1) << 36;
    uint64_t h = sim_trace_mum(t->hash ^ who ^ UINT64_C(0xA0761D6478BD642F),
                               (uint64_t)w->now ^ UINT64_C(0xE7037ED1A0B428DB));
    h = sim_trace_mum(h ^ seq ^ UINT64_C(0x8EBC6AF09C88C6E3),
                      arg ^ w->labels.items[label].hash ^ UINT64_C(0x589965CC75374CC3));
    t->hash = h;
    return h;
}

/* Records one event: folds it into the hash and keeps it in the ring.
 * Inline: it is on every hot path (deliveries, timers, wakeups). */
static inline void sim_trace_record(oxl_world *w, oxl_event_kind kind, oxl_node_id node, oxl_node_id peer,
                                    uint64_t seq, uint64_t arg, uint32_t label) {
    sim_trace *t = &w->trace;
    uint64_t h = sim_trace_fold(w, kind, node, peer, seq, arg, label);
    oxl_trace_event *e = &t->ring[t->count & t->mask];
    e->index = t->count++;
    e->time = w->now;
    e->seq = seq;
    e->arg = arg;
    e->hash_after = h;
    e->node = node;
    e->peer = peer;
    e->label = label;
    e->kind = (uint8_t)kind;
    if (SIM_UNLIKELY(w->trace_hook != NULL)) w->trace_hook(w, e, w->trace_hook_arg);
}

#endif
