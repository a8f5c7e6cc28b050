/* oxl_sched.h: the deterministic task scheduler and NodeState.
 *
 * oxl_sched_run runs a root task and every task it spawns on the calling
 * thread, one at a time, on a World's virtual time: sleeping tasks wait in
 * the World's event queue, so one clock and one sequence order everything.
 * The only ordering decision, which ready task runs next, goes through one
 * policy (seeded random, FIFO, PCT or a scripted replay), so a seed names a
 * whole execution. See docs/scheduler.md.
 *
 * Blocking calls take the caller's source location for reports; the macros
 * without _at fill in __FILE__ and __LINE__. Every function but
 * oxl_sched_run and the option helpers must be called from a task of the
 * running scheduler; a call from another thread is refused, reported and
 * counted (foreign wakeups), never run. */
#ifndef OXL_SCHED_H
#define OXL_SCHED_H

#include "oxl_sim.h"

#include <errno.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct oxl_task oxl_task;
typedef struct oxl_chan oxl_chan;
typedef struct oxl_node oxl_node; /* NodeState: one logical node; NULL = the process node */

typedef void *(*oxl_task_fn)(void *arg);

/* ---- running ------------------------------------------------------------- */
typedef enum oxl_policy {
    OXL_POLICY_RANDOM = 0, /* a seeded uniform choice among ready tasks (default) */
    OXL_POLICY_FIFO,       /* the task that became ready first */
    OXL_POLICY_PCT,        /* probabilistic concurrency testing (Burckhardt et al. 2010) */
    OXL_POLICY_SCRIPTED,   /* replay a recorded list of choices */
} oxl_policy;

typedef struct oxl_sched_options {
    uint64_t seed;
    oxl_dur_ns time_limit;       /* virtual time a run may wait (default 24h) */
    oxl_policy policy;
    int pct_depth;               /* PCT: bug depth d (default 3): d-1 change points */
    uint64_t pct_steps;          /* PCT: expected decisions k (default 1000) */
    const uint32_t *script;      /* SCRIPTED: the choices; an out-of-range choice clamps, */
    size_t script_len;           /*   past the end the policy is FIFO */
    bool record_schedule;        /* keep every decision in the result */
    bool record_faults;          /* keep every fault that fires in the result (oxl_sim.h, the fault log) */
    bool replay_faults;          /* fire exactly the faults listed here, none else: */
    const oxl_fault *faults;     /*   (copied at the start of the run) */
    size_t nfaults;
    bool preempt_on_wake;        /* also decide at a spawn and at a wakeup whether the new or
                                    woken task runs before its waker (default off: the waker
                                    goes on until it suspends, as in asyncio) */
    uint64_t max_switches;       /* a run past this many switches fails as livelock (default 1e9) */
    uint64_t livelock_switches;  /* switches without time advancing that make a livelock (default 1e6) */
    size_t stack_size;           /* bytes per task stack (default 256 KiB) */
    uint32_t max_tasks;          /* live tasks at once (default 1,000,000) */
    oxl_world *world;            /* run in this world (its seed is not changed); NULL = make one */
    bool trace_messages;         /* for a world made here (default on) */
    bool real_time;              /* virtual time follows CLOCK_MONOTONIC: before the World steps to
                                    its next event the run waits until that much real time has
                                    passed since the start, so sleeps take real time and the
                                    schedule is the one virtual time would give (no time limit) */
    size_t tail_events;          /* on failure, keep the last this many trace events in the result */
    oxl_trace_hook trace_hook;   /* sees every event of the run (oxl_world_set_trace_hook), set
                                    from the start (the events already kept are replayed to it
                                    first) and removed before the teardown; NULL = none */
    void *trace_hook_arg;
    FILE *nodes_debug;           /* one line per boot, crash, rpc call, reply and message drop
                                    goes here (OXL_SIM_NODES_DEBUG=1 in a test binary); NULL = none */
} oxl_sched_options;

typedef enum oxl_sched_status {
    OXL_SCHED_FINISHED = 0,  /* the root task returned */
    OXL_SCHED_DEADLOCK,      /* every task blocked and no event pending */
    OXL_SCHED_TIME_LIMIT,    /* still waiting at the time limit */
    OXL_SCHED_LIVELOCK,      /* too many switches without time advancing */
    OXL_SCHED_WORLD_FAILED,  /* the World failed (invariant, fail, misuse) */
    OXL_SCHED_PANICKED,      /* a task panicked */
    OXL_SCHED_EXHAUSTED,     /* a resource of the machine ran out (memory, mappings for task
                                stacks): the run could not go on, whatever the program does */
} oxl_sched_status;

typedef struct oxl_sched_result {
    oxl_sched_status status;
    void *value;              /* the root task's result when finished */
    uint64_t trace_hash;      /* the World's trace hash, which covers every switch */
    uint64_t trace_events;    /* the World's trace events at the end (before the teardown's) */
    uint64_t switches;        /* task switches */
    uint64_t decisions;       /* policy decisions among two or more ready tasks */
    uint64_t steps;           /* scheduling steps (PCT's k counts these) */
    uint32_t *schedule;       /* the decisions, when recorded (malloc'd) */
    size_t schedule_len;
    oxl_fault *faults;        /* record_faults: the faults that fired (of a replay: the listed
                                 ones that had their chance), malloc'd */
    size_t nfaults;
    uint64_t foreign_wakeups; /* calls refused because they came from another thread */
    oxl_time_ns end_time;     /* virtual time at the end */
    char *report;             /* malloc'd failure report (NULL when finished) */
    char *tail;               /* malloc'd trace tail of a failed run (tail_events), lines
                                 indented by two spaces; NULL otherwise */
} oxl_sched_result;

/* The text of OXL_SIM_TIME_LIMIT as seconds: a plain decimal number
 * (`10`, `2.5`, `.5`, `1e3`) above 0 and at most 9.2e9. strtod alone would
 * take a sign, blanks, hex (`0x10`), `inf` and `nan` as well. One rule for
 * the test binary and for oxl test, which checks the variable first. */
static inline bool oxl_time_limit_seconds(const char *text, double *secs) {
    const char *s = text;
    size_t digits = 0;
    while (*s >= '0' && *s <= '9') s++, digits++;
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') s++, digits++;
    }
    if (!digits) return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s != '\0') return false;
    errno = 0;
    double v = strtod(text, NULL);
    if (errno || !(v > 0) || v > 9.2e9) return false;
    *secs = v;
    return true;
}

/* Defaults; OXL_SIM_TIME_LIMIT (seconds) overrides the time limit. Returns
 * false (and says why on stderr) when that variable is malformed. */
bool oxl_sched_options_default(oxl_sched_options *opt, uint64_t seed);
/* Defaults for a program outside a simulation (`oxl run`, unit tests):
 * real-time mode, FIFO policy, seed 0, 1 MiB stacks; reads no environment. */
void oxl_sched_options_real_time(oxl_sched_options *opt);
oxl_sched_result oxl_sched_run(oxl_task_fn root, void *arg, const oxl_sched_options *opt);
void oxl_sched_result_free(oxl_sched_result *r);
/* Exit status for a result: 0 when finished, 102 when a resource ran out
 * (OXL_SCHED_EXHAUSTED), 101 otherwise (the report is printed on stderr
 * first). */
#define OXL_EXIT_EXHAUSTED 102
int oxl_sched_exit_status(const oxl_sched_result *r, FILE *report_to);

/* ---- tasks ------------------------------------------------------------------ */
oxl_task *oxl_spawn_at(oxl_task_fn fn, void *arg, const char *file, int line);
/* Also callable from a World callback of the run (a node hook). */
oxl_task *oxl_spawn_on_node_at(oxl_node *node, oxl_task_fn fn, void *arg, const char *file, int line);
#define oxl_spawn(fn, arg) oxl_spawn_at((fn), (arg), __FILE__, __LINE__)
#define oxl_spawn_on_node(node, fn, arg) oxl_spawn_on_node_at((node), (fn), (arg), __FILE__, __LINE__)

typedef enum oxl_join_status {
    OXL_JOIN_OK = 0,     /* returned a value */
    OXL_JOIN_CANCELLED,  /* cancelled, or its node was killed */
} oxl_join_status;
/* Several tasks may wait in join for t at once, and all see its end; once a
 * join has returned, t is joined and another join of it panics. */
oxl_join_status oxl_join_at(oxl_task *t, void **value, const char *file, int line);
#define oxl_join(t, value) oxl_join_at((t), (value), __FILE__, __LINE__)
/* A detached task's record is freed as soon as it ends; join frees it too. */
void oxl_task_detach(oxl_task *t);
/* Ends the task at its current suspension point: it never runs again. */
void oxl_task_cancel(oxl_task *t);
/* Ends the task at its next wait (OxL's t.cancel()): at once when it is
 * blocked (what it waited on is abandoned: a channel keeps its values, a
 * sleep's timer goes) or has not started; when it was woken and has not
 * run since (it holds what its wait gave it), was preempted, or is the
 * caller, when it next blocks. A task that ends first ends normally.
 * Joiners see OXL_JOIN_CANCELLED. Nothing happens for an ended task. */
void oxl_task_cancel_at_wait(oxl_task *t);
oxl_task *oxl_task_self(void);
uint64_t oxl_task_id(const oxl_task *t); /* 1 = the root task, then in spawn order */
/* The name reports and traces give the task instead of "task <id>"
 * (copied; not part of the trace hash). */
void oxl_task_set_name(oxl_task *t, const char *name);
oxl_node *oxl_task_node(const oxl_task *t);

/* What the running task's next waits are for, in failure reports ("awaiting
 * Storage.reserve #1.4 from storage-0") instead of the channel or sleep
 * they use; NULL clears it. The text must stay valid while it is set (the
 * caller's stack is fine: it is set around a wait the caller makes). */
void oxl_task_wait_note(const char *note);
/* The same, written only when a report asks for it: fn(arg, buf, cap)
 * prints the note into buf. A wait made many times (every rpc call)
 * costs no formatting this way. arg must stay valid while it is set. */
typedef void (*oxl_wait_note_fn)(const void *arg, char *buf, size_t cap);
void oxl_task_wait_note_fn(oxl_wait_note_fn fn, const void *arg);
/* A pooled worker's wait for its next job (park.c): the running task
 * blocks, idle (left out of failure reports), until oxl_task_unpark(t,
 * job, ...) hands it a job, which it returns. A kill of its node cancels
 * it there. oxl_task_unpark makes t ready as a spawn at file:line makes a
 * new task ready and is false, doing nothing, unless t is parked. */
void *oxl_task_park_at(const char *file, int line);
bool oxl_task_unpark(oxl_task *t, void *job, const char *file, int line);
/* A wait for one handoff within a timeout (> 0, or < 0 for none; 0 does
 * not wait): the running task blocks until oxl_task_hand(handle, job)
 * gives it a job (returned) or the timeout passes (NULL). The timeout
 * is a deadline, not an event: it takes no sequence number or tie draw
 * and leaves no trace unless it passes, and it passes only once nothing
 * else is due at or before its instant (a handoff at that very instant
 * is in time); its wakeup is then traced as a select's timeout would be.
 * oxl_task_handle(t) names t for
 * oxl_task_hand, which is false, doing nothing, unless that task is
 * still in this wait (not cancelled, not already handed or timed out). */
uint64_t oxl_task_handle(const oxl_task *t);
void *oxl_task_await_at(oxl_dur_ns timeout, const char *file, int line);
bool oxl_task_hand(uint64_t handle, void *job);
void oxl_yield_at(const char *file, int line);
void oxl_sleep_at(oxl_dur_ns d, const char *file, int line);
#define oxl_yield() oxl_yield_at(__FILE__, __LINE__)
#define oxl_sleep(d) oxl_sleep_at((d), __FILE__, __LINE__)
oxl_time_ns oxl_now(void);   /* the current node's clock (virtual, possibly skewed) */
/* True inside a run in real-time mode. */
bool oxl_sched_is_real_time(void);
/* True on the thread of a running scheduler, false outside any run. Unlike
 * the calls above it may be made from anywhere: code that also runs
 * without a scheduler (std.time, std.store) asks it first. */
bool oxl_sched_active(void);
/* A number per oxl_sched_run of this thread, 1 for the first, never reused
 * (0 outside a run): a cache can tell one run from the next. */
uint64_t oxl_sched_run_id(void);
uint64_t oxl_rand(void);     /* the program's seeded stream */
/* clock.advance / clock.set: sleep until then. Setting a past time panics. */
void oxl_clock_advance_at(oxl_dur_ns d, const char *file, int line);
void oxl_clock_set_at(oxl_time_ns t, const char *file, int line);
#define oxl_clock_advance(d) oxl_clock_advance_at((d), __FILE__, __LINE__)
#define oxl_clock_set(t) oxl_clock_set_at((t), __FILE__, __LINE__)
/* Ends the whole run: status PANICKED, report "panic: <message>" and the place. */
void oxl_panic_at(const char *file, int line, const char *fmt, ...) OXL_PRINTF(3, 4) __attribute__((noreturn));
/* Ends the whole run as a resource of the machine ran out: status
 * EXHAUSTED, report "resource exhausted: <message>" and the place (exit
 * 102 outside a run). Not the program's fault, nor a verdict on it. */
void oxl_exhausted_at(const char *file, int line, const char *fmt, ...) OXL_PRINTF(3, 4) __attribute__((noreturn));
#define oxl_panic(...) oxl_panic_at(__FILE__, __LINE__, __VA_ARGS__)
oxl_world *oxl_sched_world(void); /* also from a World callback of the run */

/* ---- channels ------------------------------------------------------------------ */
#define OXL_CHAN_UNBOUNDED SIZE_MAX
typedef enum oxl_chan_status {
    OXL_CHAN_OK = 0,
    OXL_CHAN_CLOSED,  /* recv: closed and drained; send: closed (nothing sent) */
} oxl_chan_status;

/* cap 0 = unbuffered (a send waits for its receiver), OXL_CHAN_UNBOUNDED = never
 * full. Elements are elem_size bytes, copied in and out. Freed at run end. */
oxl_chan *oxl_chan_new(size_t cap, size_t elem_size);
/* A send that never blocks, from a task or from a World callback (a node
 * hook): hands elem to a waiting receiver or buffers it. False, and
 * nothing sent, when the channel is closed or would make the sender wait. */
bool oxl_chan_offer(oxl_chan *c, const void *elem);
/* A receive that never blocks, likewise: true with *elem when a value was
 * buffered or a sender waited; false (nothing taken) otherwise. */
bool oxl_chan_poll(oxl_chan *c, void *elem);
oxl_chan_status oxl_chan_send_at(oxl_chan *c, const void *elem, const char *file, int line);
oxl_chan_status oxl_chan_recv_at(oxl_chan *c, void *elem, const char *file, int line);
#define oxl_chan_send(c, elem) oxl_chan_send_at((c), (elem), __FILE__, __LINE__)
#define oxl_chan_recv(c, elem) oxl_chan_recv_at((c), (elem), __FILE__, __LINE__)
void oxl_chan_close(oxl_chan *c); /* closing twice panics */
size_t oxl_chan_len(const oxl_chan *c);
uint64_t oxl_chan_id(const oxl_chan *c);

typedef struct oxl_select_case {
    oxl_chan *chan;
    bool send;    /* true: send *elem; false: receive into elem */
    void *elem;
} oxl_select_case;
/* Waits until one case can proceed (a seeded choice among the ready ones) or
 * the timeout passes (timeout < 0: no timeout). Returns the index of the case
 * taken, or n on timeout; *status gets its channel status. */
size_t oxl_select_at(oxl_select_case *cases, size_t n, oxl_dur_ns timeout, oxl_chan_status *status,
                     const char *file, int line);
#define oxl_select(cases, n, timeout, status) oxl_select_at((cases), (n), (timeout), (status), __FILE__, __LINE__)

/* ---- for generated code ------------------------------------------------------------ */
/* OxL values are 64-bit words (oxl_rt.h). A Task[T] is an oxl_go handle in
 * collected memory; a Chan[T] is an oxl_chan of words. Every call that can
 * panic takes the OxL source location. */
typedef struct oxl_go_handle oxl_go_handle;
typedef uint64_t (*oxl_thunk)(void *env);
/* spawn: runs fn(env) in a new task of the running task's node. The handle
 * and env stay reachable for the collector until the task ends. */
oxl_go_handle *oxl_go(oxl_thunk fn, void *env, const char *file, int line);
/* spawn(name: n): names the task just spawned (oxl_task_set_name). Panics
 * on an empty name, one over OXL_TASK_NAME_MAX bytes, or one with a
 * control character (it would break a report's lines). */
#define OXL_TASK_NAME_MAX 128
struct oxl_str_obj;
void oxl_go_name(oxl_go_handle *h, const struct oxl_str_obj *name, const char *file, int line);
/* t.join(): the task's result word. Joining again, or from several tasks,
 * gives the same result; joining a cancelled task panics: "joined a
 * cancelled task" after t.cancel(), or names the killed node. */
uint64_t oxl_go_join(oxl_go_handle *h, const char *file, int line);
/* t.join() of a Task[None]: the same, except that a task cancelled by
 * t.cancel() joins normally (there is no result to miss). */
void oxl_go_join_none(oxl_go_handle *h, const char *file, int line);
/* t.cancel(): oxl_task_cancel_at_wait of the handle's task (nothing once
 * it has ended). */
void oxl_go_cancel(oxl_go_handle *h, const char *file, int line);
/* Chan[T](cap): cap 0 is unbuffered; a negative cap panics. */
oxl_chan *oxl_chan_make(int64_t cap, const char *file, int line);
/* c.send(v): panics "send on a closed channel". */
void oxl_chan_send_word(oxl_chan *c, uint64_t w, const char *file, int line);
/* c.recv(): false (and *w = 0) once closed and drained. */
bool oxl_chan_recv_word(oxl_chan *c, uint64_t *w, const char *file, int line);
/* c.close(): panics "close of a closed channel". */
void oxl_chan_close_at(oxl_chan *c, const char *file, int line);
int64_t oxl_chan_count(const oxl_chan *c);
/* select over n arms: chans[i], sends[i] (1 = send words[i], 0 = receive
 * into words[i]); timeout < 0 waits for ever. Returns the arm taken or n on
 * timeout; *closed = 1 when a receive arm found its channel closed and
 * drained. A send arm on a closed channel panics. */
int64_t oxl_select_words(int64_t n, oxl_chan **chans, const int64_t *sends, uint64_t *words, int64_t timeout,
                         int32_t *closed, const char *file, int line);
/* The C main of an OxL program: initialises the runtime and runs main as the
 * root task of a real-time run (oxl_sched_options_real_time); returns the
 * exit status (0, or 101 after printing the failure report). */
int oxl_rt_main(void (*main_fn)(void));
/* Makes a fault in the guard page of the running task's stack end the
 * program as a panic ("panic: stack overflow ...", status 101) instead of
 * a crash. */
void oxl_catch_stack_overflow(void);

/* ---- NodeState ------------------------------------------------------------------ */
typedef struct oxl_node_config {
    const char *name;            /* also the World node's name */
    const char *data_dir;        /* optional */
    const char *const *roles;    /* optional */
    size_t nroles;
    oxl_task_fn boot;            /* optional: run in a task of the node at every boot */
    void *boot_arg;
    bool panic_crashes;          /* a panic in a task of this node crashes the node (as a real
                                    process dies) instead of ending the run; the run then fails
                                    at its end with that panic (oxl_sched_run) */
} oxl_node_config;

/* Makes a logical node and its World node; it boots at once. NULL and a
 * panic-free report on stderr when the name is bad or taken. */
oxl_node *oxl_node_new(const oxl_node_config *cfg);
oxl_node *oxl_node_current(void); /* the running task's node; NULL = process node */
oxl_node *oxl_node_by_name(const char *name);
const char *oxl_node_name(const oxl_node *n);     /* "process" for NULL */
const char *oxl_node_data_dir(const oxl_node *n);
bool oxl_node_has_role(const oxl_node *n, const char *role);
size_t oxl_node_role_count(const oxl_node *n);             /* 0 for NULL */
const char *oxl_node_role(const oxl_node *n, size_t i); /* i < oxl_node_role_count(n) */
oxl_node_id oxl_node_world_id(const oxl_node *n); /* OXL_NO_NODE for NULL */
bool oxl_node_is_up(const oxl_node *n);
/* Crash: every task of the node is cancelled (whoever joins them sees
 * OXL_JOIN_CANCELLED) and its registries are dropped. */
void oxl_node_kill(oxl_node *n);
/* Boots it again as a new incarnation (killing it first if it is up). */
void oxl_node_restart(oxl_node *n);

/* The current node's instance of a registry: made (zeroed, then init) on
 * first use per node, dropped when the node crashes. key identifies the
 * registry (use the address of a static object); it is used for lookup only,
 * never for ordering. */
void *oxl_node_local(const void *key, size_t size, void (*init)(void *obj));
/* The same with a finalizer, run when the registry is dropped (a crash, the
 * run's end) before its memory is freed. */
void *oxl_node_local_fini(const void *key, size_t size, void (*init)(void *obj), void (*fini)(void *obj));
/* A registry of the whole run, whatever the calling task's node: made on
 * first use, finalized and freed when the run ends. Callable from a task
 * or from a World callback of the run. */
void *oxl_run_local(const void *key, size_t size, void (*init)(void *obj), void (*fini)(void *obj));

/* Hooks of a node, for the layer that carries messages between NodeStates
 * (runtime/src/rpc/). Both run outside any task (World callbacks): they
 * must not block; they may spawn with oxl_spawn_on_node_at and send with
 * oxl_chan_offer. message gets every World delivery to the node; crash
 * runs when the node dies (a kill, a restart, a panic of one of its tasks
 * under panic_crashes) before its tasks are cancelled and its registries
 * dropped. A node has one set of hooks; they outlive its incarnations. */
typedef struct oxl_node_hooks {
    void (*message)(oxl_node *n, oxl_node_id from, const void *data, size_t len, void *arg);
    void (*crash)(oxl_node *n, void *arg);
    void *arg;
} oxl_node_hooks;
void oxl_node_set_hooks(oxl_node *n, const oxl_node_hooks *hooks); /* NULL removes them */
/* While the crash hook of a node that panicked runs: true, with the id of
 * the task that panicked and the panic's report ("panic: ...\n  at ..."). */
bool oxl_node_panic_info(const oxl_node *n, uint64_t *task_id, const char **report);
/* Each node in creation order: first with NULL, then with the previous. */
oxl_node *oxl_node_next(const oxl_node *prev);
/* The stream of the sink given in oxl_sched_options.nodes_debug, or NULL. */
FILE *oxl_sched_nodes_debug(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* OXL_SCHED_H */
