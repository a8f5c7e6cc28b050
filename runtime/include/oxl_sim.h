/* oxl_sim.h: the deterministic simulation kernel, public C API.
 *
 * One oxl_world is N virtual nodes in one thread with virtual time. Nothing
 * in it reads the wall clock, threads, sockets, files or the environment, so
 * a run is a function of (seed, options, protocol code) alone. See
 * docs/simulation.md for the rules a protocol author follows.
 *
 * Conventions: every function is prefixed oxl_; durations and instants are
 * int64 nanoseconds; a function that can be misused returns OXL_OK or
 * OXL_EMISUSE, and on misuse the world stops with a failure naming the call
 * (oxl_world_failure). Nothing here is thread-safe: a world belongs to the
 * thread that made it.
 */
#ifndef OXL_SIM_H
#define OXL_SIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; only this API is exported. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#if defined(__GNUC__)
#define OXL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OXL_PRINTF(f, a)
#endif

/* ---- time ---------------------------------------------------------------- */
typedef int64_t oxl_time_ns; /* virtual instant, ns since the world's epoch */
typedef int64_t oxl_dur_ns;  /* virtual duration, ns */

#define OXL_NS ((int64_t)1)
#define OXL_US ((int64_t)1000)
#define OXL_MS ((int64_t)1000000)
#define OXL_SEC ((int64_t)1000000000)
#define OXL_MIN (60 * OXL_SEC)
#define OXL_HOUR (60 * OXL_MIN)

/* ---- limits (a limit on everything) -------------------------------------- */
#define OXL_SIM_MAX_NODES 1024
#define OXL_SIM_NAME_MAX 63             /* bytes of a node name */
#define OXL_SIM_MAX_MESSAGE (1u << 20)  /* bytes of one message */
#define OXL_SIM_MAX_INVARIANTS 64
#define OXL_DISK_MAX_KEY 255            /* bytes of a disk key */
#define OXL_DISK_MAX_VALUE (1u << 20)   /* bytes of a disk value */
#define OXL_DISK_MAX_ENTRIES 65536      /* keys per disk */
#define OXL_DISK_MAX_PENDING 65536      /* unsynced writes per disk */

#define OXL_OK 0
#define OXL_EMISUSE (-1)

/* ---- random streams -------------------------------------------------------- */
/* xoshiro256** seeded through splitmix64 from (seed, stream name). Streams
 * with different names are independent, and a stream depends only on the
 * seed and its name, never on an address or the process. */
typedef struct oxl_rng {
    uint64_t s[4];
} oxl_rng;

void oxl_rng_seed(oxl_rng *r, uint64_t seed, const char *stream);
uint64_t oxl_rng_next(oxl_rng *r);
uint64_t oxl_rng_below(oxl_rng *r, uint64_t n);        /* uniform in [0, n); 0 if n == 0 */
int64_t oxl_rng_range(oxl_rng *r, int64_t lo, int64_t hi); /* uniform in [lo, hi] */
double oxl_rng_unit(oxl_rng *r);                      /* uniform in [0, 1) */
bool oxl_rng_chance(oxl_rng *r, double p);            /* true with probability p */

/* ---- world, nodes and processes -------------------------------------------- */
typedef struct oxl_world oxl_world;
typedef struct oxl_disk oxl_disk;
typedef int32_t oxl_node_id; /* 0..count-1 in order of oxl_world_add_node */
#define OXL_NO_NODE ((oxl_node_id)-1)

/* A cheap handle naming one incarnation of one node. Keep it by value. Once
 * the incarnation dies every operation through it is a no-op. */
typedef struct oxl_ctx {
    oxl_world *world;
    oxl_node_id node;
    uint32_t incarnation;
} oxl_ctx;

/* A node's process: made by its factory at every boot, destroyed by a crash.
 * Embed oxl_process as the first member of your struct. */
typedef struct oxl_process oxl_process;
typedef struct oxl_process_ops {
    void (*start)(oxl_process *self, oxl_ctx ctx);
    void (*message)(oxl_process *self, oxl_ctx ctx, oxl_node_id from,
                    const void *data, size_t len);
    void (*destroy)(oxl_process *self); /* free it; called by kill and at world end */
} oxl_process_ops;
struct oxl_process {
    const oxl_process_ops *ops;
};
typedef oxl_process *(*oxl_process_factory)(oxl_ctx ctx, void *arg);

typedef struct oxl_world_options {
    uint64_t seed;
    bool randomize_ties;       /* equal-time events run in a seeded order (default on) */
    bool trace_messages;       /* record send/deliver/drop events (default on) */
    uint32_t trace_capacity;   /* events kept for render/divergence (default 4096) */
    uint64_t max_events;       /* a run past this many events fails (default 1e9) */
    oxl_dur_ns latency_min;    /* default network latency range (default 1ms..5ms) */
    oxl_dur_ns latency_max;
} oxl_world_options;

oxl_world_options oxl_world_options_default(uint64_t seed);
/* NULL options = oxl_world_options_default(0). Never returns NULL (aborts
 * with a message when memory is exhausted). */
oxl_world *oxl_world_new(const oxl_world_options *opt);
void oxl_world_free(oxl_world *w);
uint64_t oxl_world_seed(const oxl_world *w);

/* Adds a node and boots it (a start event at the current time). Returns its
 * id, or OXL_NO_NODE on misuse (bad or duplicate name, too many nodes). */
oxl_node_id oxl_world_add_node(oxl_world *w, const char *name,
                               oxl_process_factory factory, void *arg);
int oxl_world_node_count(const oxl_world *w);
oxl_node_id oxl_world_node_by_name(const oxl_world *w, const char *name); /* OXL_NO_NODE if none */
const char *oxl_world_node_name(const oxl_world *w, oxl_node_id n);       /* "?" if none */
bool oxl_world_is_up(const oxl_world *w, oxl_node_id n);
uint32_t oxl_world_incarnation(const oxl_world *w, oxl_node_id n);
/* The live process of a node (for test harnesses), or NULL when down. */
oxl_process *oxl_world_process(oxl_world *w, oxl_node_id n);
/* The context of a node's current incarnation (dead if the node is down). */
oxl_ctx oxl_world_ctx(oxl_world *w, oxl_node_id n);
/* The test's own random stream ("faults"): draw fault schedules from it. */
oxl_rng *oxl_world_rng(oxl_world *w);

/* ---- running ------------------------------------------------------------------ */
typedef enum oxl_run_status {
    OXL_RUN_IDLE = 0,     /* no event left */
    OXL_RUN_DEADLINE = 1, /* reached the requested virtual time */
    OXL_RUN_FAILED = 2,   /* the world failed: see oxl_world_failure */
} oxl_run_status;

oxl_time_ns oxl_world_now(const oxl_world *w);
oxl_run_status oxl_world_run(oxl_world *w);                      /* until idle or failed */
oxl_run_status oxl_world_run_until(oxl_world *w, oxl_time_ns t); /* events at <= t */
oxl_run_status oxl_world_run_for(oxl_world *w, oxl_dur_ns d);
bool oxl_world_step(oxl_world *w); /* runs one event; false when idle or failed */
uint64_t oxl_world_event_count(const oxl_world *w);
size_t oxl_world_pending(const oxl_world *w); /* events in the queue */

/* Test-level callbacks at a virtual time; label names them in the trace. */
typedef void (*oxl_world_fn)(oxl_world *w, void *arg);
int oxl_world_at(oxl_world *w, oxl_time_ns t, const char *label, oxl_world_fn fn, void *arg);
int oxl_world_after(oxl_world *w, oxl_dur_ns d, const char *label, oxl_world_fn fn, void *arg);

/* ---- node context ---------------------------------------------------------------- */
typedef void (*oxl_timer_fn)(oxl_process *self, oxl_ctx ctx, void *arg);
typedef uint64_t oxl_timer_id; /* 0 = no timer */

bool oxl_ctx_alive(oxl_ctx c);
oxl_time_ns oxl_ctx_now(oxl_ctx c); /* the node's own clock: world time + its skew */
oxl_rng *oxl_ctx_rng(oxl_ctx c);    /* the node's own stream; a dead context gets a dummy */
oxl_disk *oxl_ctx_disk(oxl_ctx c);  /* NULL for a dead context (disk calls accept NULL) */
bool oxl_ctx_send(oxl_ctx c, oxl_node_id to, const void *data, size_t len);
void oxl_ctx_broadcast(oxl_ctx c, const void *data, size_t len); /* every other node */
oxl_timer_id oxl_ctx_set_timer(oxl_ctx c, oxl_dur_ns delay, oxl_timer_fn fn, void *arg);
void oxl_ctx_cancel_timer(oxl_ctx c, oxl_timer_id id);
void oxl_ctx_trace(oxl_ctx c, const char *fmt, ...) OXL_PRINTF(2, 3);
void oxl_ctx_fail(oxl_ctx c, const char *fmt, ...) OXL_PRINTF(2, 3);

/* ---- faults ------------------------------------------------------------------------ */
/* Network. Probabilities are in [0, 1]; a link is FIFO unless reordered. */
int oxl_net_latency(oxl_world *w, oxl_dur_ns min, oxl_dur_ns max);
int oxl_net_drop(oxl_world *w, double p);
int oxl_net_duplicate(oxl_world *w, double p);
int oxl_net_reorder(oxl_world *w, double p);
/* Cuts every link between a node of a and a node of b, both ways, for the
 * given duration (0 = until oxl_net_heal). */
int oxl_net_partition(oxl_world *w, const oxl_node_id *a, size_t na,
                      const oxl_node_id *b, size_t nb, oxl_dur_ns for_d);
/* Isolates one node from every other node. */
int oxl_net_isolate(oxl_world *w, oxl_node_id n, oxl_dur_ns for_d);
int oxl_net_block(oxl_world *w, oxl_node_id from, oxl_node_id to); /* one way */
/* Cuts from -> to only, for the given duration (0 = until oxl_net_heal,
 * as oxl_net_block). */
int oxl_net_block_for(oxl_world *w, oxl_node_id from, oxl_node_id to, oxl_dur_ns for_d);
void oxl_net_heal(oxl_world *w); /* lifts every partition and block */
bool oxl_net_is_blocked(const oxl_world *w, oxl_node_id from, oxl_node_id to);

/* Nodes. kill and crash_for need a live node; restart reboots a live node
 * or boots a dead one. */
int oxl_world_kill(oxl_world *w, oxl_node_id n);
int oxl_world_restart(oxl_world *w, oxl_node_id n);
int oxl_world_crash_for(oxl_world *w, oxl_node_id n, oxl_dur_ns d);
int oxl_world_kill_after(oxl_world *w, oxl_node_id n, oxl_dur_ns d);
/* The same, with who naming the caller ("kv.oxl:12: node.kill") in the
 * World's failure when the node is already down when the kill is due. */
int oxl_world_kill_after_by(oxl_world *w, oxl_node_id n, oxl_dur_ns d, const char *who);
int oxl_world_restart_after(oxl_world *w, oxl_node_id n, oxl_dur_ns d);
int oxl_world_set_clock_skew(oxl_world *w, oxl_node_id n, oxl_dur_ns skew);
int oxl_world_set_disk_fail_rate(oxl_world *w, oxl_node_id n, double write_p, double sync_p);

/* ---- the fault log and its replay (docs/scheduler.md, "Schedules") -------------------
 * Every fault has a chance to fire at a point of the run: a partition, a
 * block, a kill, a restart or a crash at each call that asks for one; a
 * random drop, duplicate or reorder at each draw of its dice (one per
 * message while the probability is above 0). The k-th chance of a kind is
 * its ordinal; a disk's write and sync dice and what a crash keeps of its
 * unsynced writes are chances too. A World that records keeps every fault that fired; a World
 * that replays a list fires exactly the listed ones (kind and ordinal),
 * whatever the call or the dice said, with the listed duration for a
 * partition, a block or a crash, and draws its dice all the same so the
 * other random streams stay where they were. Neither costs more than a
 * branch at each chance when off. */
typedef enum oxl_fault_kind {
    OXL_FAULT_PARTITION = 0, /* net.partition, oxl_net_isolate: both ways, for dur (0 = until heal) */
    OXL_FAULT_BLOCK,         /* one way, for dur (0 = until heal) */
    OXL_FAULT_KILL,          /* a node killed (now or at a scheduled time) */
    OXL_FAULT_RESTART,       /* a node restarted */
    OXL_FAULT_CRASH,         /* oxl_world_crash_for: down for dur */
    OXL_FAULT_DROP,          /* the drop dice said yes */
    OXL_FAULT_DUPLICATE,     /* the duplicate dice said yes */
    OXL_FAULT_REORDER,       /* the reorder dice said yes */
    OXL_FAULT_WRITE_FAIL,    /* a disk write failed (its dice) */
    OXL_FAULT_SYNC_FAIL,     /* a disk sync failed (its dice) */
    OXL_FAULT_LOST_WRITES,   /* a crash lost unsynced writes (how many: the disk's draw; not
                                firing, the crash keeps them all) */
    OXL_FAULT_NKINDS
} oxl_fault_kind;
#define OXL_FAULT_LABEL_MAX 96 /* longer labels are cut */
typedef struct oxl_fault {
    oxl_fault_kind kind;
    uint64_t ordinal;               /* its chance among the kind's, from 0 */
    oxl_time_ns at;                 /* when it takes effect (a kill after 1s: then) */
    oxl_dur_ns dur;                 /* partition, block, crash; 0 otherwise */
    char label[OXL_FAULT_LABEL_MAX]; /* "api|storage", "saga-0", "n0>n1" */
} oxl_fault;
/* "partition", "block", ...; NULL for a bad kind. */
const char *oxl_fault_kind_name(oxl_fault_kind k);
/* The kind of a name, or OXL_FAULT_NKINDS. */
oxl_fault_kind oxl_fault_kind_of(const char *name);
void oxl_world_record_faults(oxl_world *w);
/* The faults fired so far, in the order they fired: while recording every
 * one, while replaying the listed ones that had their chance (with this
 * run's times and labels). */
size_t oxl_world_fault_log(const oxl_world *w, const oxl_fault **faults);
/* From now on exactly these faults fire (copied); n may be 0: none fires. */
void oxl_world_replay_faults(oxl_world *w, const oxl_fault *faults, size_t n);

/* ---- disk -------------------------------------------------------------------------- */
/* A per-node key/value store. Writes (put, append, del) are visible to
 * reads at once but durable only after a successful sync; a crash keeps a
 * seeded prefix of the unsynced writes. Configured failure rates make a
 * write or a sync fail with OXL_DISK_EIO (a failed write changes nothing; a
 * failed sync leaves the writes unsynced). */
enum {
    OXL_DISK_OK = 0,
    OXL_DISK_ENOENT = -2, /* no such key */
    OXL_DISK_EDEAD = -3,  /* NULL disk: the context is dead */
    OXL_DISK_ELIMIT = -4, /* key, value, entry or pending limit exceeded */
    OXL_DISK_EIO = -5,    /* injected failure */
};
int oxl_disk_put(oxl_disk *d, const char *key, const void *val, size_t len);
int oxl_disk_append(oxl_disk *d, const char *key, const void *val, size_t len);
int oxl_disk_del(oxl_disk *d, const char *key);
/* The value is valid until the next write to this disk. */
int oxl_disk_get(oxl_disk *d, const char *key, const void **val, size_t *len);
int oxl_disk_sync(oxl_disk *d);
size_t oxl_disk_unsynced(const oxl_disk *d);
size_t oxl_disk_key_count(const oxl_disk *d);
/* The i-th key of the current view in bytewise (strcmp) order, for
 * i < oxl_disk_key_count(d); NULL past the end or for a NULL disk. Valid
 * until the next write to this disk. */
const char *oxl_disk_key_at(const oxl_disk *d, size_t i);
/* The disk of a node, up or down (test harnesses inspect durable state). */
oxl_disk *oxl_world_disk(oxl_world *w, oxl_node_id n);
const char *oxl_disk_strerror(int err);

/* ---- oracles ----------------------------------------------------------------------- */
/* An invariant returns NULL while it holds, or why it does not (a static
 * string or one from oxl_world_strf). Invariants run after every event. */
typedef const char *(*oxl_invariant_fn)(oxl_world *w, void *arg);
int oxl_world_add_invariant(oxl_world *w, const char *name, oxl_invariant_fn fn, void *arg);
void oxl_world_fail(oxl_world *w, const char *fmt, ...) OXL_PRINTF(2, 3);
bool oxl_world_failed(const oxl_world *w);
const char *oxl_world_failure(const oxl_world *w); /* NULL while not failed */
/* A note of the test's own in the trace (not a node's). */
void oxl_world_note(oxl_world *w, const char *fmt, ...) OXL_PRINTF(2, 3);
/* A formatted string owned by the world (freed with it). */
const char *oxl_world_strf(oxl_world *w, const char *fmt, ...) OXL_PRINTF(2, 3);

/* ---- trace ------------------------------------------------------------------------- */
typedef enum oxl_event_kind {
    OXL_EV_SEND = 1, OXL_EV_DELIVER, OXL_EV_DROP, OXL_EV_DUPLICATE,
    OXL_EV_PARTITION, OXL_EV_BLOCK, OXL_EV_HEAL,
    OXL_EV_KILL, OXL_EV_START, OXL_EV_RESTART,
    OXL_EV_TIMER, OXL_EV_CALL, OXL_EV_NOTE, OXL_EV_FAIL,
    OXL_EV_SKEW, OXL_EV_DISK, OXL_EV_NETCONF,
    OXL_EV_TASK, /* the task scheduler: a task runs, is spawned, ends, wakes */
    OXL_EV_RPC,  /* a remote call's step (runtime/src/rpc/): label says which ("call S.m",
                    "reply S.m", ...), peer is the other node, arg the call id */
} oxl_event_kind;

typedef struct oxl_trace_event {
    uint64_t index;      /* position in the whole trace */
    oxl_time_ns time;
    uint64_t seq;        /* sequence number of the event that caused it */
    uint64_t arg;        /* kind-specific: message length, drop reason, ... */
    uint64_t hash_after; /* the running hash including this event */
    oxl_node_id node, peer;
    uint32_t label;      /* interned label (0 = none) */
    uint8_t kind;
} oxl_trace_event;

uint64_t oxl_world_trace_hash(const oxl_world *w);
uint64_t oxl_world_trace_count(const oxl_world *w); /* events recorded so far */
/* Formats one event of the retained window as a line (no newline). Returns
 * false when index is outside the window. */
bool oxl_world_trace_event(const oxl_world *w, uint64_t index, oxl_trace_event *out);
size_t oxl_world_trace_format(const oxl_world *w, const oxl_trace_event *ev, char *buf, size_t cap);
/* A function that sees every event as it is recorded (a debug printer):
 * it must not change the world. NULL removes it. */
typedef void (*oxl_trace_hook)(const oxl_world *w, const oxl_trace_event *ev, void *arg);
void oxl_world_set_trace_hook(oxl_world *w, oxl_trace_hook fn, void *arg);
/* A label of the world's trace for text (interned: the same text gives the
 * same label, in first-use order, so labels are deterministic). */
uint32_t oxl_world_label(oxl_world *w, const char *text);
/* Records a step of a remote call of node c: label names it ("call
 * Storage.reserve"), peer is the other end, id the call id (in the hash). */
void oxl_ctx_trace_rpc(oxl_ctx c, oxl_node_id peer, uint64_t id, uint32_t label);
/* The same for node n's current incarnation (nothing when n is down). */
void oxl_world_trace_rpc(oxl_world *w, oxl_node_id n, oxl_node_id peer, uint64_t id, uint32_t label);
/* What the world holds now, one line each, every line starting with
 * indent: messages in flight (sender, receiver, size, arrival), the
 * partitions and one-way blocks in force (sides, since, heal time), nodes
 * down (for failure reports; docs/scheduler.md, Failure reports). */
void oxl_world_describe(const oxl_world *w, const char *indent, FILE *out);
/* Writes the last n retained events, one per line. */
void oxl_world_trace_render(const oxl_world *w, size_t n, FILE *out);
/* "send", "deliver", ... as the trace prints a kind; "?" for none. */
const char *oxl_trace_kind_name(uint8_t kind);

/* The whole trace of a run, for tools (docs/test-binary.md, "The trace
 * dump"): install oxl_trace_dump_hook with the dump as its argument (or
 * give both to oxl_sched_options), run, then write it. It keeps every
 * event up to the limit (later ones are counted as truncated) with copies
 * of the labels and node names, so it may be written after the World is
 * freed. */
#define OXL_TRACE_DUMP_VERSION 2
#define OXL_TRACE_DUMP_MAX_EVENTS 2000000u
typedef struct oxl_trace_dump oxl_trace_dump;
typedef struct oxl_trace_dump_result {
    const char *status;    /* "finished", "panicked", ... (one word) */
    oxl_time_ns end_time;  /* virtual time at the end */
    uint64_t trace_hash;
    const char *report;    /* the failure report, NULL or "" when none */
} oxl_trace_dump_result;
oxl_trace_dump *oxl_trace_dump_new(void);
void oxl_trace_dump_free(oxl_trace_dump *d);
void oxl_trace_dump_hook(const oxl_world *w, const oxl_trace_event *ev, void *dump); /* an oxl_trace_hook */
size_t oxl_trace_dump_events(const oxl_trace_dump *d);
/* False when writing failed (ferror). */
bool oxl_trace_dump_write(const oxl_trace_dump *d, uint64_t seed, const oxl_trace_dump_result *res, FILE *out);

/* Where two runs of the same scenario part ways: returns the index of the
 * first differing event (or of the first event one run lacks), or -1 when the
 * traces are identical. A description of both sides goes to out if given. */
int64_t oxl_trace_first_divergence(const oxl_world *a, const oxl_world *b, FILE *out);

/* ---- histories and the register checker ------------------------------------------------ */
typedef struct oxl_history oxl_history;
typedef enum oxl_op_kind { OXL_OP_READ, OXL_OP_WRITE, OXL_OP_CAS } oxl_op_kind;
typedef uint32_t oxl_op_id;

oxl_history *oxl_history_new(void);
void oxl_history_free(oxl_history *h);
/* Records the start of an operation by a client on register key. write: a =
 * value. cas: a = expected, b = new value. read: a, b ignored. */
oxl_op_id oxl_history_invoke(oxl_history *h, int32_t client, uint64_t key,
                             oxl_op_kind kind, int64_t a, int64_t b, oxl_time_ns t);
/* Completion: read -> value read; cas -> 1 swapped, 0 compare failed; write -> ignored. */
void oxl_history_ok(oxl_history *h, oxl_op_id op, int64_t value, oxl_time_ns t);
void oxl_history_fail(oxl_history *h, oxl_op_id op, oxl_time_ns t); /* certainly no effect */
void oxl_history_info(oxl_history *h, oxl_op_id op, oxl_time_ns t); /* outcome unknown */
size_t oxl_history_size(const oxl_history *h); /* operations recorded */

typedef enum oxl_lin_verdict {
    OXL_LIN_OK = 0,        /* linearizable */
    OXL_LIN_VIOLATION = 1, /* not linearizable */
    OXL_LIN_UNKNOWN = 2,   /* the budget ran out first */
} oxl_lin_verdict;

#define OXL_NO_OP ((oxl_op_id)UINT32_MAX) /* no operation */

typedef struct oxl_lin_result {
    oxl_lin_verdict verdict;
    uint64_t key;      /* the failing (or undecided) key */
    uint64_t explored; /* search states visited in all */
    char *report;      /* malloc'd text: the smallest failing key history; NULL when OK */
    /* A violation's witness: the operations the report names (malloc'd, in
     * invoke order; NULL otherwise), all invoked before first_failure
     * completed. Taken as they stood when witness_end completed: a
     * completion after that counts as unknown (failed ops are left out
     * whenever they fail). The witness is not
     * linearizable, and when witness_minimal, removing any one of its
     * operations leaves a linearizable history. witness_needs_initial: it
     * fails only from `initial` (else from any starting value). */
    oxl_op_id *witness;
    size_t witness_len;
    oxl_op_id witness_end;      /* the op whose completion ends the witness's own
                                   shortest failing prefix; OXL_NO_OP when shrinking
                                   gave up first */
    oxl_op_id first_failure;    /* the op whose completion ends the shortest failing
                                   prefix of the key's whole history: usually
                                   witness_end (OXL_NO_OP when not found) */
    bool witness_needs_initial;
    bool witness_minimal;
} oxl_lin_result;

/* Checks that the history of every key is linearizable for a register
 * starting at `initial` (Wing-Gong search with memoization, split by key).
 * budget bounds the search states per key (0 = default 1e6). */
oxl_lin_result oxl_check_register(const oxl_history *h, int64_t initial, uint64_t budget);
void oxl_lin_result_free(oxl_lin_result *r);

/* ---- seed sweeps ------------------------------------------------------------------------ */
/* body builds the scenario in a fresh world for one seed, runs it, and
 * returns NULL or a failure text (static, or from oxl_world_strf). A world
 * that failed counts as failed even when body returns NULL. */
typedef const char *(*oxl_sweep_body)(oxl_world *w, void *arg);

typedef struct oxl_sweep_options {
    uint64_t first, count;       /* seeds first .. first+count-1 */
    oxl_world_options world;     /* its seed is replaced per run */
    bool stop_at_first;          /* stop at the first failing seed */
    size_t tail;                 /* trace events shown per failure (default 20) */
    const char *rerun;           /* command to rerun one seed; "{seed}" stands for the seed */
} oxl_sweep_options;

typedef struct oxl_sweep_failure {
    uint64_t seed;
    char *reason;
    bool reproduced;   /* a second run failed alike with the same trace hash */
    uint64_t hash, rerun_hash;
    char *tail;        /* the last trace events */
    char *command;     /* how to rerun this seed */
} oxl_sweep_failure;

typedef struct oxl_sweep_report {
    uint64_t run, passed, failed;
    oxl_sweep_failure *failures; /* failed entries, in seed order */
} oxl_sweep_report;

oxl_sweep_options oxl_sweep_options_default(uint64_t first, uint64_t count);
/* Lets the environment override the seeds of a sweep (read once, outside
 * any simulation): OXL_SIM_SEED=n runs exactly seed n; OXL_SIM_SEEDS=count
 * and OXL_SIM_FIRST_SEED=n set the range. A bad value is reported on stderr
 * naming the variable, and the function returns false. */
bool oxl_sweep_options_from_env(oxl_sweep_options *opt);
/* Returns the number of failing seeds. */
uint64_t oxl_sweep(oxl_sweep_body body, void *arg, const oxl_sweep_options *opt,
                   oxl_sweep_report *report);
void oxl_sweep_report_print(const oxl_sweep_report *r, FILE *out);
void oxl_sweep_report_free(oxl_sweep_report *r);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* OXL_SIM_H */
