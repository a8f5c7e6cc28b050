/* sched_internal.h: the scheduler's structures, shared by sched.c, chan.c,
 * policy.c and node/node.c. Internal symbols are prefixed sched_. */
#ifndef OXL_SCHED_INTERNAL_H
#define OXL_SCHED_INTERNAL_H

#include "oxl_sched.h"
#include "sched/fiber.h"
#include "sim/sim_internal.h"

#include <gc/gc.h>

/* live tasks at once unless the options say otherwise: a limit on
 * everything, above what a test of many tasks (100,000) needs */
#define SCHED_DEFAULT_MAX_TASKS 1000000u

/* The process's memory mappings and the kernel's limit of them, as a
 * report says them (sched.c). */
void sched_mapping_counts(char *buf, size_t cap);

typedef enum sched_task_state {
    TASK_READY = 1,
    TASK_RUNNING,
    TASK_BLOCKED,
    TASK_DONE,
    TASK_CANCELLED,
} sched_task_state;

typedef enum sched_wait_kind {
    WAIT_NONE = 0,
    WAIT_RECV,
    WAIT_SEND,
    WAIT_SELECT,
    WAIT_JOIN,
    WAIT_SLEEP,
    WAIT_PARK,    /* idle, for a job handed by oxl_task_unpark (park.c) */
    WAIT_HANDOFF, /* for one handoff with a deadline (oxl_task_await_at, park.c) */
} sched_wait_kind;

/* One pending channel operation of a blocked task; lives on the task's
 * stack for as long as the task is blocked in the call that made it. */
typedef struct sched_waiter {
    struct sched_waiter *next, *prev; /* the channel's queue */
    oxl_task *task;
    oxl_chan *chan;
    void *elem;         /* where to copy from (send) or to (recv) */
    bool send;
    uint32_t case_index;
} sched_waiter;

typedef struct sched_waitq {
    sched_waiter *head, *tail;
} sched_waitq;

struct oxl_chan {
    struct oxl_sched *sched;
    uint64_t id;
    size_t cap;        /* 0 = unbuffered, SIZE_MAX = unbounded */
    size_t elem_size;
    unsigned char *buf; /* ring buffer of buf_cap elements */
    size_t buf_cap, head, len;
    bool closed;
    sched_waitq senders, receivers;
    struct oxl_chan *next_all; /* every channel of the run, freed at its end */
};

/* What a sleep, its wakeup and the switches around them touch fills the
 * record's first cache line (records are line aligned: sched_spawn), so
 * a hundred tasks taking turns cost the cache one line each, not two or
 * three; a channel handoff's fields follow. */
struct oxl_task {
    sched_fiber *fiber;         /* NULL once it ended (back in the pool) */
    uint64_t id;
    uint64_t wake_handle;       /* queued World wake, to cancel */
    oxl_time_ns wait_until;     /* a sleep's end, a select's timeout */
    const char *file;           /* where it stopped */
    int line;
    uint32_t slot;              /* index in sched.tasks */
    oxl_node_id world_node;     /* node's World id, kept here for the trace */
    uint32_t nwaiters;          /* channels it waits on (waiters) */
    uint8_t state;              /* sched_task_state */
    uint8_t wait;               /* sched_wait_kind */
    bool cancel_at_wait;        /* oxl_task_cancel_at_wait: it ends when it next blocks */
    bool detached, joined;
    bool started;               /* its function has begun to run */
    /* the second line: a channel wait */
    oxl_node *node;
    sched_waiter *waiters;      /* while blocked on channels; NULL when nwaiters is 0 */
    int32_t fired_case;         /* select: the case that completed; -1 = timeout */
    oxl_chan_status fired_status;
    sched_waiter one_waiter;    /* a plain send or receive waits here: the task's
                                   own cache lines, not its stack's */
    /* colder: what a blocked task waits for, for reports */
    oxl_wait_note_fn wait_note; /* oxl_task_wait_note(_fn): the wait's own description */
    const void *wait_note_arg;
    uint64_t wait_obj;          /* channel or task id */
    uint32_t wait_cases;
    int64_t priority;           /* PCT */
    oxl_task_fn fn;
    void *arg, *result;
    void *handed;               /* park.c: the job oxl_task_unpark gave it */
    struct oxl_task *joiners;   /* tasks blocked joining this one */
    uint32_t njoining;          /* tasks in oxl_join on this one, blocked or woken and not yet
                                   back: the record stays until the last has read it */
    struct oxl_task *next_joiner;
    struct oxl_task *join_target; /* from blocking in join until back from it */
    struct oxl_task *node_prev, *node_next; /* the node's tasks */
};
_Static_assert(offsetof(struct oxl_task, started) < SIM_CACHE_LINE, "a sleep's fields fill the record's first line");

typedef struct sched_policy_state {
    oxl_policy kind;
    oxl_rng rng;             /* the scheduler's own stream */
    uint64_t steps;          /* decision points so far (PCT counts these) */
    uint64_t *change_points; /* PCT: d-1 steps where the runner's priority drops */
    int nchange;
    int64_t next_low;        /* PCT: priorities below every initial one */
    size_t script_pos;
    uint64_t bits;           /* RANDOM: unused bits of the last draw */
    unsigned nbits;
} sched_policy_state;

#define SCHED_SPARE_TASKS 32 /* task records kept for reuse (a handler task per request) */
typedef struct oxl_sched {
    oxl_sched_options opt;
    uint64_t run_id;         /* oxl_sched_run_id */
    oxl_world *world;
    bool own_world;
    sched_fiber main_fiber;
    oxl_task *current;
    const sched_fiber *gc_running; /* the fiber switched to last: the running one (gc_stacks.c) */
    oxl_task *last_run;      /* the task of the latest step (PCT lowers its priority) */
    oxl_task *root;

    oxl_task **tasks;        /* by slot; NULL = free */
    uint32_t ntasks_cap, live_tasks;
    uint32_t *free_slots;
    uint32_t nfree;
    uint64_t next_task_id;
    oxl_task *spare_tasks[SCHED_SPARE_TASKS]; /* freed records, reused by the next spawns */
    uint32_t nspare_tasks;

    oxl_task **ready;        /* in the order tasks became ready */
    size_t nready, ready_cap;

    sched_fiber **stack_pool; /* finished or abandoned fibers to reuse */
    size_t npool, pool_cap;
    uint64_t fibers_made;
    sched_fiber *driving;    /* the task fiber stepping the World, if any */
    /* the garbage collector, when the program initialised it (gc_stacks.c) */
    bool gc;
    void *gc_thread;
    void *gc_main_bottom;
    void (*gc_prev_push)(void);
    const sched_fiber *gc_bottom_of; /* whose stack top the collector has as its stack bottom */

    oxl_chan *chans;
    uint64_t next_chan_id;
    oxl_rng select_rng, user_rng;

    sched_policy_state policy;
    uint64_t switches, decisions, steps_since_advance;
    oxl_time_ns last_time;
    uint32_t *schedule;
    size_t schedule_len, schedule_cap;

    oxl_sched_status stop;   /* set when the run must end */
    bool stopping;
    char *report;
    uint64_t foreign;
    oxl_time_ns deadline;    /* start + time limit */
    int64_t mono0;           /* real-time mode: CLOCK_MONOTONIC (ns) at the start */
    oxl_time_ns virt0;       /*   and virtual time then */

    uint32_t label_run, label_spawn, label_done, label_cancel;

    struct oxl_node *nodes;  /* NodeStates made in this run, in creation order */
    struct oxl_node **nodes_tail;
    void *process_locals;    /* node_local table of the process node */
    void *run_locals;        /* oxl_run_local's table */
    char *node_panic;        /* the first panic that crashed a panic_crashes node */
    bool tearing_down;
} oxl_sched;

/* sched.c */
extern _Thread_local oxl_sched *sched_tls;
/* what and its site, when given: a call outside any run panics "<what>
 * outside a task" at file:line instead of naming call. */
oxl_sched *sched_enter_slow(const char *call, const char *what, const char *file, int line);

/* The running scheduler, for a call from one of its tasks. Anything else
 * takes the slow path: a task cancelled while it ran ends there, a call
 * from another thread is refused and counted (NULL), a call outside any
 * run is fatal. */
static inline oxl_sched *sched_enter(const char *call) {
    oxl_sched *s = sched_tls;
    if (SIM_LIKELY(s && s->current && s->current->state != TASK_CANCELLED)) return s;
    return sched_enter_slow(call, NULL, NULL, 0);
}
/* The same for a call that has its caller's line (a sleep from OxL code):
 * outside any run it is a panic there. */
static inline oxl_sched *sched_enter_at(const char *call, const char *what, const char *file, int line) {
    oxl_sched *s = sched_tls;
    if (SIM_LIKELY(s && s->current && s->current->state != TASK_CANCELLED)) return s;
    return sched_enter_slow(call, what, file, line);
}
oxl_sched *sched_active(void);               /* the scheduler of this thread, or NULL */
/* "client 3" for a task spawned with a name, else "task 6" (in buf). */
const char *sched_task_label(const oxl_sched *s, uint64_t id, char *buf, size_t cap);
/* Puts a blocked (or new) task at the end of the ready list. Inline, as
 * are the waiters' helpers below: each is a call on every channel hop. */
static inline __attribute__((always_inline)) void sched_make_ready(oxl_sched *s, oxl_task *t) {
    if (SIM_UNLIKELY(s->nready == s->ready_cap)) {
        s->ready_cap = s->ready_cap ? s->ready_cap * 2 : 64;
        s->ready = sim_xrealloc(s->ready, s->ready_cap * sizeof *s->ready);
    }
    t->state = TASK_READY;
    s->ready[s->nready++] = t;
}
bool sched_drive_world(oxl_sched *s);
/* A decision point where the running task may go on or give way. */
void sched_give_way(oxl_sched *s, const char *file, int line);
/* Blocks the current task (its wait already described) until it is made
 * ready. When the run stops meanwhile, it never returns. */
void sched_block(oxl_sched *s);
/* Queues the running task's wakeup at virtual time until (a sleep's end or
 * a select's timeout): a World event, so one clock orders everything. */
void sched_arm_wake(oxl_sched *s, oxl_time_ns until);
void sched_arm_deadline(oxl_sched *s, oxl_time_ns until); /* no event until it fires */
/* The time a new timer counts from: virtual now, or in real-time mode the
 * real elapsed time when the run is behind the clock. */
oxl_time_ns sched_timer_base(oxl_sched *s);
/* Takes waiter w off its channel's queue (if it is on one). */
static inline __attribute__((always_inline)) void sched_waiter_unlink(sched_waiter *w) {
    if (!w->chan) return;
    sched_waitq *q = w->send ? &w->chan->senders : &w->chan->receivers;
    if (w->prev)
        w->prev->next = w->next;
    else
        q->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        q->tail = w->prev;
    w->next = w->prev = NULL;
    w->chan = NULL;
}
/* Takes a blocked task off every channel it waits on and cancels its
 * pending wakeup (a sleep's end, a select's timeout). */
static inline __attribute__((always_inline)) void sched_task_drop_waits(oxl_sched *s, oxl_task *t) {
    for (uint32_t i = 0; i < t->nwaiters; i++) sched_waiter_unlink(&t->waiters[i]);
    t->nwaiters = 0;
    t->waiters = NULL;
    if (t->wake_handle) sim_cancel_event(s->world, t->wake_handle);
    t->wake_handle = 0;
}
void sched_cancel_task(oxl_sched *s, oxl_task *t);
oxl_task *sched_spawn(oxl_sched *s, oxl_node *node, oxl_task_fn fn, void *arg, const char *file, int line);
void sched_stop(oxl_sched *s, oxl_sched_status status, char *report);
char *sched_strf(const char *fmt, ...) OXL_PRINTF(1, 2);
void sched_fatal(const char *fmt, ...) OXL_PRINTF(1, 2) __attribute__((noreturn));
/* After a call that may have cancelled the current task, end it for good. */
void sched_check_self(oxl_sched *s);

/* lang.c: a stack overflow of task t (a fault in its guard, or its canary
 * damaged): "panic: stack overflow (a task's stack is N bytes)" naming the
 * task and its node on stderr, then exit status 101. */
_Noreturn void sched_stack_overflowed(const oxl_sched *s, const oxl_task *t);
/* The fiber layer's overflow hook (sched_fiber_on_overflow), set by every
 * run: the report above for the task whose fiber it is. */
void sched_on_canary(const sched_fiber *f);

/* gc_stacks.c */
void sched_gc_begin(oxl_sched *s);
/* Brings the collector's stack bottom to the running fiber's stack top
 * if a switch moved it: before every allocation from the collector and
 * when it scans the stacks. The switch itself only notes its fiber in
 * gc_running (a store, where a call into the collector cost ~20
 * instructions a switch). No-op outside a run that collects. */
void sched_gc_sync(void);
void sched_gc_end(oxl_sched *s);

/* chan.c */
void sched_chans_free(oxl_sched *s);

/* policy.c */
void sched_policy_init(oxl_sched *s);
void sched_policy_free(oxl_sched *s);
void sched_policy_on_spawn(oxl_sched *s, oxl_task *t);
/* PCT's change points are steps: lowers the last runner's priority at one. */
void sched_policy_pct_step(oxl_sched *s);

/* Counts a scheduling step. */
static inline void sched_policy_step(oxl_sched *s) {
    s->policy.steps++;
    if (s->policy.kind == OXL_POLICY_PCT) sched_policy_pct_step(s);
}

/* A uniform choice in [0, n) from the policy's stream. Two candidates are
 * the common case (the runner and the task it woke): they take one bit of
 * a 64-bit draw, so one draw serves 64 such decisions. */
static inline size_t sched_policy_random(sched_policy_state *p, size_t n) {
    if (n == 2) {
        if (p->nbits == 0) {
            p->bits = oxl_rng_next(&p->rng);
            p->nbits = 64;
        }
        size_t bit = (size_t)(p->bits & 1);
        p->bits >>= 1;
        p->nbits--;
        return bit;
    }
    return (size_t)oxl_rng_below(&p->rng, n);
}
/* Picks the index of the next task among s->ready[0..nready). */
size_t sched_policy_pick(oxl_sched *s);

/* node/node.c */
struct oxl_node {
    oxl_sched *sched;
    char *name;
    char *data_dir;
    char **roles;
    size_t nroles;
    oxl_task_fn boot;
    void *boot_arg;
    oxl_node_id world_id;
    oxl_task *tasks;          /* the node's live tasks */
    void *locals;             /* node_local table */
    struct oxl_node *next;
    oxl_node_hooks hooks;
    bool panic_crashes;
    uint64_t panic_task;      /* while its crash hook runs after a panic: the task */
    const char *panic_report; /*   and its report (owned by the scheduler) */
};
void sched_node_link_task(oxl_node *n, oxl_task *t);
void sched_node_unlink_task(oxl_node *n, oxl_task *t);
void sched_nodes_teardown(oxl_sched *s);
void sched_locals_free(void **table);
/* A panic of the running task on a panic_crashes node: the node crashes
 * (the task with it) and the run goes on. Never returns. */
void sched_node_panicked(oxl_sched *s, char *report) __attribute__((noreturn));
/* OXL_SIM_NODES_DEBUG lines for the run (oxl_sched_options.nodes_debug). */
void sched_nodes_debug_begin(oxl_sched *s);
void sched_nodes_debug_end(oxl_sched *s);

#endif
