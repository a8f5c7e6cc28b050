/* sched.c: the deterministic task scheduler.
 *
 * Every task runs on its own fiber, on the thread that called
 * oxl_sched_run, one at a time. A task runs until it blocks, yields, spawns
 * or finishes; then the policy picks the next ready task and the running
 * fiber switches straight to it. Only when no task is ready does control go
 * back to the main fiber, which steps the World: virtual time moves only
 * when every task waits, and sleeping tasks wait in the World's event queue,
 * so one clock and one sequence order everything. */
#include "sched_internal.h"
/* A wakeup queued and the next due event run are inline here, and the
 * World calls a sleeper's wakeup directly. */
static void wake_sleeper(oxl_world *w, void *arg, uint64_t tag);
#define SIM_WAKE_DIRECT wake_sleeper
#include "sim/sim_hot.h"
#include "oxl_fence.h"
#include "fence/fence.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

_Thread_local oxl_sched *sched_tls;
#define tls_sched sched_tls
static oxl_sched *_Atomic active_sched; /* for refusing and counting foreign calls */
static _Atomic uint64_t foreign_calls;

/* ---- small utilities ---- */

char *sched_strf(const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = sim_xmalloc(n > 0 ? (size_t)n + 1 : 1);
    vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    return s;
}

void sched_fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("fatal: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(101);
}

SIM_HOT oxl_sched *sched_active(void) { return tls_sched; }
bool oxl_sched_active(void) { return tls_sched != NULL; }

static _Thread_local uint64_t runs_made;

SIM_HOT uint64_t oxl_sched_run_id(void) { return tls_sched ? tls_sched->run_id : 0; }

oxl_sched *sched_enter_slow(const char *call, const char *what, const char *file, int line) {
    oxl_sched *s = tls_sched;
    if (s && s->current) { /* a task cancelled while it ran ends here */
        sched_check_self(s);
        return s;
    }
    if (s) sched_fatal("%s called outside a task of the deterministic scheduler", call);
    if (what && !atomic_load(&active_sched)) oxl_panic_at(file, line, "%s outside a task", what);
    if (atomic_load(&active_sched)) {
        /* A wakeup from another thread would make the schedule depend on
         * that thread's timing: refuse it, loudly, and count it. */
        atomic_fetch_add(&foreign_calls, 1);
        fprintf(stderr, "oxl: refused %s: called from a thread outside the deterministic scheduler\n", call);
        return NULL;
    }
    sched_fatal("%s called outside oxl_sched_run", call);
}

static const char *node_label(const oxl_node *n) { return n ? n->name : "process"; }
static oxl_node_id node_world(const oxl_node *n) { return n ? n->world_id : OXL_NO_NODE; }

static void sched_trace(oxl_sched *s, const oxl_task *t, uint32_t label) {
    sim_trace_record(s->world, OXL_EV_TASK, t->world_node, OXL_NO_NODE, s->world->next_seq, t->id, label);
}

/* A switch to task t: in the hash, so equal hashes mean equal schedules,
 * but not in the kept trace, where a hundred switches would push out the
 * sends, faults and notes a person reads first. */
static inline void sched_trace_run(oxl_sched *s, const oxl_task *t) {
    sim_trace_fold(s->world, OXL_EV_TASK, t->world_node, OXL_NO_NODE, s->world->next_seq, t->id, s->label_run);
}

/* Durations in reports: the largest unit that divides them. */
static void format_duration(char *buf, size_t cap, oxl_dur_ns d) {
    static const struct {
        int64_t ns;
        const char *unit;
    } units[] = {{OXL_HOUR, "h"}, {OXL_MIN, "m"}, {OXL_SEC, "s"}, {OXL_MS, "ms"}, {OXL_US, "us"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (d != 0 && d % units[i].ns == 0) {
            snprintf(buf, cap, "%" PRId64 "%s", d / units[i].ns, units[i].unit);
            return;
        }
    snprintf(buf, cap, "%" PRId64 "ns", d);
}

static void format_instant(char *buf, size_t cap, oxl_time_ns t) {
    snprintf(buf, cap, "%" PRId64 ".%09" PRId64 "s", t / OXL_SEC, t % OXL_SEC);
}

/* ---- the ready list ---- */

/* Inline on the hot paths of this file (a wakeup, a sleep, a pick): each
 * saves a call where a tick of time_compression is some 760 instructions. */
#define SCHED_HOT static inline __attribute__((always_inline))

/* (sched_make_ready, the push, is inline in sched_internal.h.) */

static inline void ready_remove_at(oxl_sched *s, size_t i) {
    /* Mostly one or two tasks are ready: spare those a call to memmove. */
    size_t last = --s->nready;
    if (i == last) return;
    if (i + 1 == last)
        s->ready[i] = s->ready[last];
    else
        memmove(&s->ready[i], &s->ready[i + 1], (last - i) * sizeof *s->ready);
}

static void ready_remove(oxl_sched *s, oxl_task *t) {
    for (size_t i = 0; i < s->nready; i++)
        if (s->ready[i] == t) {
            ready_remove_at(s, i);
            return;
        }
}

/* ---- stopping and reports ---- */

void sched_stop(oxl_sched *s, oxl_sched_status status, char *report) {
    if (s->stopping) {
        free(report);
        return;
    }
    s->stopping = true;
    s->stop = status;
    s->report = report;
}

static int cmp_task_id(const void *a, const void *b) {
    uint64_t x = (*(oxl_task *const *)a)->id, y = (*(oxl_task *const *)b)->id;
    return x < y ? -1 : x > y;
}

/* "client 3" for a task spawned with a name, else "task 6". */
const char *sched_task_label(const oxl_sched *s, uint64_t id, char *buf, size_t cap) {
    const char *name = s && s->world ? sim_task_name(s->world, id) : NULL;
    if (name) return name;
    snprintf(buf, cap, "task %" PRIu64, id);
    return buf;
}

void oxl_task_set_name(oxl_task *t, const char *name) {
    oxl_sched *s = sched_enter("oxl_task_set_name");
    if (!s || !t || !name) return;
    sim_name_task(s->world, t->id, name);
}

static void describe_wait(const oxl_sched *s, const oxl_task *t, char *buf, size_t cap) {
    char when[48];
    if (t->wait != WAIT_NONE && t->wait_note) { /* what the wait is for, as its maker put it */
        t->wait_note(t->wait_note_arg, buf, cap);
        return;
    }
    switch ((sched_wait_kind)t->wait) {
    case WAIT_RECV: snprintf(buf, cap, "receiving from channel %" PRIu64, t->wait_obj); return;
    case WAIT_SEND: snprintf(buf, cap, "sending to channel %" PRIu64, t->wait_obj); return;
    case WAIT_SELECT:
        if (t->wake_handle) {
            format_instant(when, sizeof when, t->wait_until);
            snprintf(buf, cap, "in select over %u channel operations until %s", t->wait_cases, when);
        } else {
            snprintf(buf, cap, "in select over %u channel operations", t->wait_cases);
        }
        return;
    case WAIT_JOIN: {
        char lb[32];
        snprintf(buf, cap, "joining %s", sched_task_label(s, t->wait_obj, lb, sizeof lb));
        return;
    }
    case WAIT_SLEEP:
        format_instant(when, sizeof when, t->wait_until);
        snprintf(buf, cap, "sleeping until %s", when);
        return;
    case WAIT_PARK: snprintf(buf, cap, "idle"); return;
    case WAIT_HANDOFF:
        if (t->wake_handle) {
            format_instant(when, sizeof when, t->wait_until);
            snprintf(buf, cap, "awaiting a handoff until %s", when);
        } else {
            snprintf(buf, cap, "awaiting a handoff");
        }
        return;
    case WAIT_NONE: break;
    }
    snprintf(buf, cap, "%s", t->state == TASK_READY ? "ready to run" : "running");
}

#define REPORT_MAX_TASKS 64

/* What everyone was doing when the run failed, under its report: a line per
 * unfinished task by id (its node, its wait, the OxL line where it waits),
 * then what the World holds (messages in flight, cut links, nodes down).
 * In a simulation every failure gets the header "what everyone was doing
 * at <t>s of virtual time:" first; one that is not about waiting leaves
 * out the task that failed (the report names it). Outside a simulation a
 * report about waiting (deadlock, livelock) lists the tasks right under
 * itself, and a program's own panic is reported as before. */
static void append_state(oxl_sched *s) {
    bool waiting = s->stop == OXL_SCHED_DEADLOCK || s->stop == OXL_SCHED_TIME_LIMIT || s->stop == OXL_SCHED_LIVELOCK;
    if (!waiting && s->opt.real_time) return;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) sim_oom();
    fprintf(out, "%s\n", s->report ? s->report : "");
    if (!s->opt.real_time) /* every failure of a simulation: the runner finds the section by it */
        fprintf(out, "what everyone was doing at %" PRId64 ".%09" PRId64 "s of virtual time:\n",
                oxl_world_now(s->world) / OXL_SEC, oxl_world_now(s->world) % OXL_SEC);
    oxl_task **live = sim_xmalloc((s->live_tasks + 1) * sizeof *live);
    size_t n = 0;
    for (uint32_t i = 0; i < s->ntasks_cap; i++) {
        oxl_task *t = s->tasks[i];
        if (t && t->state != TASK_DONE && t->state != TASK_CANCELLED && (waiting || t->state != TASK_RUNNING) &&
            t->wait != WAIT_PARK) /* an idle worker waits for nothing the program did */
            live[n++] = t;
    }
    qsort(live, n, sizeof *live, cmp_task_id);
    for (size_t i = 0; i < n && i < REPORT_MAX_TASKS; i++) {
        char what[256];
        char lb[32];
        describe_wait(s, live[i], what, sizeof what);
        fprintf(out, "  %s on %s: %s at %s:%d\n", sched_task_label(s, live[i]->id, lb, sizeof lb), node_label(live[i]->node),
                what, live[i]->file ? live[i]->file : "?", live[i]->line);
    }
    if (n > REPORT_MAX_TASKS) fprintf(out, "  ... and %zu more tasks\n", n - REPORT_MAX_TASKS);
    free(live);
    if (!s->opt.real_time) oxl_world_describe(s->world, "  ", out);
    fclose(out);
    if (len && buf[len - 1] == '\n') buf[len - 1] = 0; /* the printer adds the last newline */
    free(s->report);
    s->report = buf;
}

static void print_note(const void *note, char *buf, size_t cap) { snprintf(buf, cap, "%s", (const char *)note); }

SIM_HOT void oxl_task_wait_note(const char *note) {
    oxl_sched *s = sched_enter("oxl_task_wait_note");
    if (!s) return;
    s->current->wait_note = note ? print_note : NULL;
    s->current->wait_note_arg = note;
}

SIM_HOT void oxl_task_wait_note_fn(oxl_wait_note_fn fn, const void *arg) {
    oxl_sched *s = sched_enter("oxl_task_wait_note_fn");
    if (!s) return;
    s->current->wait_note = fn;
    s->current->wait_note_arg = arg;
}

/* ---- switching ---- */

static void livelock(oxl_sched *s) {
    char *header = s->switches >= s->opt.max_switches
                       ? sched_strf("livelock: %" PRIu64 " task switches, the limit (max_switches)", s->switches)
                       : sched_strf("livelock: %" PRIu64 " scheduling steps without virtual time advancing "
                                    "(a loop polling now() never sees time move: sleep instead)",
                                    s->steps_since_advance - 1);
    sched_stop(s, OXL_SCHED_LIVELOCK, header);
}

/* Takes the next task from the ready list through the policy, or NULL when
 * the run must stop. */
SCHED_HOT oxl_task *pick_next(oxl_sched *s) {
    if (s->stopping || s->nready == 0) return NULL;
    if (++s->steps_since_advance > s->opt.livelock_switches || s->switches >= s->opt.max_switches) {
        livelock(s);
        return NULL;
    }
    sched_policy_step(s);
    size_t i = 0;
    if (s->nready > 1) {
        i = SIM_LIKELY(s->policy.kind == OXL_POLICY_RANDOM) ? sched_policy_random(&s->policy, s->nready)
                                                            : sched_policy_pick(s);
        s->decisions++;
        if (s->opt.record_schedule) {
            if (s->schedule_len == s->schedule_cap) {
                s->schedule_cap = s->schedule_cap ? s->schedule_cap * 2 : 256;
                s->schedule = sim_xrealloc(s->schedule, s->schedule_cap * sizeof *s->schedule);
            }
            s->schedule[s->schedule_len++] = (uint32_t)i;
        }
    }
    oxl_task *t = s->ready[i];
    ready_remove_at(s, i);
    s->last_run = t;
    return t;
}

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * OXL_SEC + ts.tv_nsec;
}

/* Where a timer (a sleep, a select's timeout) starts counting. In real time
 * the run may be behind the clock (tasks computing between events): a
 * sleep then counts from the real elapsed time, so it lasts at least its
 * duration, as sleeps do. */
static oxl_time_ns timer_base_real(oxl_sched *s, oxl_time_ns now);

SCHED_HOT oxl_time_ns timer_base(oxl_sched *s) {
    oxl_time_ns now = s->world->now;
    return SIM_LIKELY(!s->opt.real_time) ? now : timer_base_real(s, now);
}

SIM_HOT oxl_time_ns sched_timer_base(oxl_sched *s) { return timer_base(s); }

static oxl_time_ns timer_base_real(oxl_sched *s, oxl_time_ns now) {
    oxl_time_ns real = s->virt0 + (mono_ns() - s->mono0);
    return real > now ? real : now;
}

/* Real-time mode: waits until virtual time t is due on the monotonic clock. */
static void wait_until_due(oxl_sched *s, oxl_time_ns t) {
    int64_t due = s->mono0 + (t - s->virt0);
    if (due <= mono_ns()) return;
    struct timespec ts = {(time_t)(due / OXL_SEC), (long)(due % OXL_SEC)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* No task is ready: step the World until one is, or until the run must
 * stop (deadlock, time limit, World failure); false then. This runs on the
 * main fiber, or right on the fiber of the task that just blocked, which
 * saves a switch to main and back; either way no task is current while
 * World callbacks run. */
SCHED_HOT bool drive_world(oxl_sched *s) {
    oxl_world *w = s->world;
    oxl_task *saved = s->current;
    s->current = NULL;
    while (!s->stopping && s->nready == 0) {
        if (w->failure) break;
        oxl_time_ns t;
        sim_step_result r;
        if (SIM_LIKELY(!s->opt.real_time)) {
            r = sim_step_due(w, s->deadline, &t); /* the next event, run at once when it is due */
        } else {
            r = sim_next_event_time(w, &t) ? t > s->deadline ? SIM_STEP_LATE : SIM_STEP_RAN : SIM_STEP_EMPTY;
            if (r == SIM_STEP_RAN) {
                wait_until_due(s, t);
                oxl_world_step(w);
            }
        }
        if (r == SIM_STEP_EMPTY) {
            sched_stop(s, OXL_SCHED_DEADLOCK,
                       sched_strf("deadlock: every task of the deterministic simulation is blocked"));
            break;
        }
        if (r == SIM_STEP_LATE) {
            char limit[32], *header;
            format_duration(limit, sizeof limit, s->opt.time_limit);
            header = sched_strf("time limit: the deterministic simulation is still waiting after %s of virtual time",
                                limit);
            sched_stop(s, OXL_SCHED_TIME_LIMIT, header);
            break;
        }
        if (w->now != s->last_time) {
            s->last_time = w->now;
            s->steps_since_advance = 0;
        }
    }
    /* A failure stops the run before any woken task goes on. */
    if (SIM_UNLIKELY(!s->stopping && w->failure))
        sched_stop(s, OXL_SCHED_WORLD_FAILED, sched_strf("simulation failed: %s", oxl_world_failure(w)));
    s->current = saved;
    return !s->stopping;
}

SIM_HOT bool sched_drive_world(oxl_sched *s) { return drive_world(s); }

static void pool_put(oxl_sched *s, sched_fiber *f);
static void task_free_record(oxl_sched *s, oxl_task *t);

/* A damaged canary is a stack overflow of t (on a canary stack, the only
 * sign of one), checked as t lets go of its fiber for good: the fiber's
 * own check at the last switch could not name the task any more. Every
 * other switch away is checked by the fiber layer (sched_on_canary). */
static inline void check_canary(const oxl_sched *s, const oxl_task *t, const sched_fiber *f) {
    if (SIM_UNLIKELY(!sched_fiber_canary_ok(f))) sched_stack_overflowed(s, t);
}

/* Leaves task self for the next ready task, or for the main fiber. A task
 * that finished (exiting) never comes back. */
SCHED_HOT void switch_away_here(oxl_sched *s, oxl_task *self, sched_fiber *from, bool exiting) {
    oxl_task *next = pick_next(s);
    if (!next && self && !s->stopping) {
        /* Drive the World from here. Its callbacks may cancel this very
         * task (a kill of its node): its fiber is then kept out of the pool
         * until we are off it (see sched_cancel_task). */
        s->driving = from;
        if (drive_world(s)) next = pick_next(s); /* inline: the path of every wakeup */
        s->driving = NULL;
        if (self->state == TASK_CANCELLED) {
            check_canary(s, self, from);
            self->fiber = NULL;
            pool_put(s, from);
            if (self->detached && !self->njoining) task_free_record(s, self);
            self = NULL;
            exiting = true;
        }
    }
    if (next && next == self) {
        /* No switch, but a decision: folded like one, or schedules that
         * differ only in how long a task ran between two yields (3 yields
         * then the other task, against 5) would hash alike. */
        self->state = TASK_RUNNING;
        sched_trace_run(s, self);
        return;
    }
    sched_fiber *to = &s->main_fiber;
    s->current = next;
    if (next) {
        next->state = TASK_RUNNING;
        s->switches++;
        sched_trace_run(s, next);
        to = next->fiber;
    }
    s->gc_running = to;
    if (exiting)
        sched_fiber_exit_to(from, to);
    else
        sched_fiber_switch_inline(from, to);
}

SIM_HOT static void switch_away(oxl_sched *s, oxl_task *self, sched_fiber *from, bool exiting) {
    switch_away_here(s, self, from, exiting);
}

static void pool_put(oxl_sched *s, sched_fiber *f) {
    if (!f) return;
    if (s->npool == s->pool_cap) {
        s->pool_cap = s->pool_cap ? s->pool_cap * 2 : 16;
        s->stack_pool = sim_xrealloc(s->stack_pool, s->pool_cap * sizeof *s->stack_pool);
    }
    s->stack_pool[s->npool++] = f;
}

static sched_fiber *pool_get(oxl_sched *s) {
    if (s->npool == 0) return NULL;
    return s->stack_pool[--s->npool];
}

/* sched_block, inline in a sleep: the sleeping task's stack then holds one
 * frame less (a hundred sleepers' stack tops are what a tick of many tasks
 * reads back from the cache). */
SCHED_HOT void block_here(oxl_sched *s) {
    oxl_task *self = s->current;
    if (SIM_UNLIKELY(self->cancel_at_wait)) { /* its wait is where it ends: never returns */
        sched_cancel_task(s, self);
        sched_check_self(s);
    }
    self->state = TASK_BLOCKED;
    switch_away_here(s, self, self->fiber, false);
}

SIM_HOT void sched_block(oxl_sched *s) { block_here(s); }

static void task_free_record(oxl_sched *s, oxl_task *t) {
    s->tasks[t->slot] = NULL;
    s->free_slots[s->nfree++] = t->slot;
    if (s->nspare_tasks < SCHED_SPARE_TASKS && !s->tearing_down)
        s->spare_tasks[s->nspare_tasks++] = t;
    else
        free(t);
}

/* The joiners stay counted in t->njoining (and keep their join_target)
 * until each is back from oxl_join_at: t's record outlives their reads. */
static void wake_joiners(oxl_sched *s, oxl_task *t) {
    oxl_task *j = t->joiners;
    t->joiners = NULL;
    while (j) {
        oxl_task *next = j->next_joiner;
        j->next_joiner = NULL;
        if (j->state == TASK_BLOCKED && j->wait == WAIT_JOIN) sched_make_ready(s, j);
        j = next;
    }
}

/* Common end of a task: done or cancelled. Its fiber goes back to the pool
 * (the caller switches off it first if it is the running one). */
static void task_end(oxl_sched *s, oxl_task *t, sched_task_state how) {
    t->state = (uint8_t)how;
    t->wait = WAIT_NONE;
    s->live_tasks--;
    sched_trace(s, t, how == TASK_DONE ? s->label_done : s->label_cancel);
    if (t->node) sched_node_unlink_task(t->node, t);
    wake_joiners(s, t);
    if (t == s->root) {
        if (how == TASK_DONE)
            sched_stop(s, OXL_SCHED_FINISHED, NULL);
        else
            sched_stop(s, OXL_SCHED_PANICKED,
                       sched_strf("panic: the root task was cancelled (its node %s was killed)", node_label(t->node)));
    }
}

static void task_entry(void *arg) {
    oxl_task *t = arg;
    t->started = true;
    t->result = t->fn(t->arg);
    oxl_sched *s = tls_sched;
    check_canary(s, t, t->fiber);
    task_end(s, t, TASK_DONE);
    sched_fiber *f = t->fiber;
    if (s->nready == 0 && !s->stopping) {
        /* Nobody ready: drive the World from here, as a blocked task does
         * (switch_away), so that the task it wakes is switched to at once,
         * not by way of the main fiber. The same steps in the same order.
         * The fiber is not in the pool yet: a spawn meanwhile cannot take
         * it. */
        s->driving = f;
        sched_drive_world(s);
        s->driving = NULL;
    }
    t->fiber = NULL;
    pool_put(s, f); /* safe: nobody takes it before we have switched off it */
    if (t->detached && !t->njoining) task_free_record(s, t);
    switch_away(s, NULL, f, true);
}

void sched_cancel_task(oxl_sched *s, oxl_task *t) {
    if (t->state == TASK_DONE || t->state == TASK_CANCELLED) return;
    sched_task_drop_waits(s, t);
    if (t->join_target) { /* leave the joiners of the task it was joining */
        oxl_task *target = t->join_target;
        oxl_task **p = &target->joiners;
        while (*p && *p != t) p = &(*p)->next_joiner;
        if (*p) *p = t->next_joiner;
        t->next_joiner = NULL;
        t->join_target = NULL;
        /* The last joiner to go frees a record that a join (or a detach)
         * has given up, once the task is off its fiber. */
        if (--target->njoining == 0 && !target->fiber && (target->joined || target->detached) &&
            (target->state == TASK_DONE || target->state == TASK_CANCELLED))
            task_free_record(s, target);
    }
    if (t->state == TASK_READY) ready_remove(s, t);
    bool self = t == s->current;
    task_end(s, t, TASK_CANCELLED);
    /* The fiber driving the World (a blocked task's) stays out of the pool
     * until switch_away is off it. */
    if (!self && t->fiber != s->driving) {
        /* Suspended (or never started): abandon its stack. */
        pool_put(s, t->fiber);
        t->fiber = NULL;
        if (t->detached && !t->njoining) task_free_record(s, t);
    }
}

void sched_check_self(oxl_sched *s) {
    oxl_task *self = s->current;
    if (self->state != TASK_CANCELLED) return;
    sched_fiber *f = self->fiber;
    check_canary(s, self, f);
    self->fiber = NULL;
    pool_put(s, f);
    if (self->detached && !self->njoining) task_free_record(s, self);
    switch_away(s, NULL, f, true);
}

/* ---- spawning ---- */

oxl_task *sched_spawn(oxl_sched *s, oxl_node *node, oxl_task_fn fn, void *arg, const char *file, int line) {
    if (s->live_tasks >= s->opt.max_tasks) {
        sched_stop(s, OXL_SCHED_PANICKED,
                   sched_strf("panic: too many tasks (the limit is %u live tasks)\n  at %s:%d", s->opt.max_tasks,
                              file ? file : "?", line));
        return NULL;
    }
    oxl_task *t;
    if (s->nspare_tasks) {
        t = s->spare_tasks[--s->nspare_tasks];
        memset(t, 0, sizeof *t);
    } else {
        t = sim_xcalloc_line(sizeof *t);
    }
    t->id = ++s->next_task_id;
    t->fn = fn;
    t->arg = arg;
    t->node = node;
    t->world_node = node_world(node);
    t->file = file;
    t->line = line;
    t->fired_case = -1;
    sched_fiber *f = pool_get(s);
    if (f) {
        if (!sched_fiber_reset(f, task_entry, t)) sim_oom();
    } else {
        f = sim_xcalloc_line(sizeof *f);
        if (!sched_fiber_create(f, s->opt.stack_size, task_entry, t)) {
            free(f);
            free(t);
            /* the machine's limit, not the program's doing: reported as
             * such (exit 102), so that a second run that gets further is
             * not taken for nondeterminism */
            char maps[96];
            sched_mapping_counts(maps, sizeof maps);
            sched_stop(s, OXL_SCHED_EXHAUSTED,
                       sched_strf("resource exhausted: cannot have a %zu byte task stack for a task beyond the %u live "
                                  "ones: %s (%s)\n  at %s:%d",
                                  s->opt.stack_size, s->live_tasks, sched_stack_why(), maps, file ? file : "?", line));
            return NULL;
        }
        /* Colored by creation order: deterministic, and spread over the
         * cache sets (see sched_fiber_set_color). */
        sched_fiber_set_color(f, (unsigned)s->fibers_made++);
        sched_fiber_reset(f, task_entry, t);
    }
    t->fiber = f;
    if (s->nfree == 0) {
        uint32_t old = s->ntasks_cap, cap = old ? old * 2 : 64;
        s->tasks = sim_xrealloc(s->tasks, cap * sizeof *s->tasks);
        s->free_slots = sim_xrealloc(s->free_slots, cap * sizeof *s->free_slots);
        for (uint32_t i = cap; i > old; i--) {
            s->tasks[i - 1] = NULL;
            s->free_slots[s->nfree++] = i - 1;
        }
        s->ntasks_cap = cap;
    }
    t->slot = s->free_slots[--s->nfree];
    s->tasks[t->slot] = t;
    s->live_tasks++;
    if (node) sched_node_link_task(node, t);
    sched_policy_on_spawn(s, t);
    s->world->trace_site_file = file; /* for a trace dump (trace_dump.c) */
    s->world->trace_site_line = line;
    sched_trace(s, t, s->label_spawn);
    s->world->trace_site_file = NULL;
    sched_make_ready(s, t);
    return t;
}

/* A decision point where the running task may go on or give way. */
void sched_give_way(oxl_sched *s, const char *file, int line) {
    oxl_task *self = s->current;
    self->file = file;
    self->line = line;
    if (s->nready == 0 && s->policy.kind != OXL_POLICY_PCT) { /* nobody else: a step, not a switch */
        s->policy.steps++;
        if (++s->steps_since_advance > s->opt.livelock_switches) {
            s->steps_since_advance--; /* pick_next counts it again */
            sched_make_ready(s, self);
            switch_away(s, self, self->fiber, false);
        }
        return;
    }
    sched_make_ready(s, self);
    switch_away(s, self, self->fiber, false);
}

oxl_task *oxl_spawn_on_node_at(oxl_node *node, oxl_task_fn fn, void *arg, const char *file, int line) {
    oxl_sched *s = tls_sched;
    if (s && !s->current) { /* a World callback (a node hook) while the World steps */
        if (!fn) oxl_panic_at(file, line, "spawn of a NULL function");
        if (node && !oxl_node_is_up(node)) oxl_panic_at(file, line, "spawn on node %s, which is down", node->name);
        return sched_spawn(s, node, fn, arg, file, line);
    }
    s = sched_enter("oxl_spawn");
    if (!s) return NULL;
    if (!fn) oxl_panic_at(file, line, "spawn of a NULL function");
    if (node && !oxl_node_is_up(node)) oxl_panic_at(file, line, "spawn on node %s, which is down", node->name);
    oxl_task *t = sched_spawn(s, node, fn, arg, file, line);
    if (!t) sched_block(s); /* the run is stopping: this task never runs again */
    if (s->opt.preempt_on_wake) sched_give_way(s, file, line);
    return t;
}

oxl_task *oxl_spawn_at(oxl_task_fn fn, void *arg, const char *file, int line) {
    oxl_sched *s = sched_enter("oxl_spawn");
    if (!s) return NULL;
    return oxl_spawn_on_node_at(s->current->node, fn, arg, file, line);
}

oxl_join_status oxl_join_at(oxl_task *t, void **value, const char *file, int line) {
    oxl_sched *s = sched_enter("oxl_join");
    if (!s) return OXL_JOIN_CANCELLED;
    oxl_task *self = s->current;
    if (!t) oxl_panic_at(file, line, "join of a NULL task");
    char lb[32];
    if (t == self) oxl_panic_at(file, line, "%s joins itself", sched_task_label(s, self->id, lb, sizeof lb));
    if (t->joined) oxl_panic_at(file, line, "%s is joined twice", sched_task_label(s, t->id, lb, sizeof lb));
    if (t->detached) oxl_panic_at(file, line, "%s is detached and cannot be joined", sched_task_label(s, t->id, lb, sizeof lb));
    if (t->state != TASK_DONE && t->state != TASK_CANCELLED) {
        self->wait = WAIT_JOIN;
        self->wait_obj = t->id;
        self->file = file;
        self->line = line;
        self->next_joiner = t->joiners;
        self->join_target = t;
        t->joiners = self;
        t->njoining++;
        sched_block(s);
        self->wait = WAIT_NONE;
        self->join_target = NULL;
        t->njoining--;
    }
    oxl_join_status st = t->state == TASK_DONE ? OXL_JOIN_OK : OXL_JOIN_CANCELLED;
    if (value) *value = st == OXL_JOIN_OK ? t->result : NULL;
    t->joined = true;
    /* Tasks that blocked in join with this one read the record after it:
     * the last of them frees it. */
    if (!t->njoining) task_free_record(s, t);
    return st;
}

void oxl_task_detach(oxl_task *t) {
    oxl_sched *s = sched_enter("oxl_task_detach");
    if (!s || !t) return;
    t->detached = true;
    if ((t->state == TASK_DONE || t->state == TASK_CANCELLED) && !t->njoining) task_free_record(s, t);
}

void oxl_task_cancel(oxl_task *t) {
    oxl_sched *s = sched_enter("oxl_task_cancel");
    if (!s || !t) return;
    sched_cancel_task(s, t);
    sched_check_self(s);
}

void oxl_task_cancel_at_wait(oxl_task *t) {
    oxl_sched *s = sched_enter("oxl_task_cancel_at_wait");
    if (!s || !t || t->state == TASK_DONE || t->state == TASK_CANCELLED) return;
    /* Blocked, or not started: that is its wait, abandoned now. Woken
     * (it holds what its wait gave it), preempted, or the caller itself:
     * it goes on to its next wait. */
    if (t->state == TASK_BLOCKED || (t->state == TASK_READY && !t->started)) {
        sched_cancel_task(s, t);
        sched_check_self(s);
        return;
    }
    t->cancel_at_wait = true;
}

SIM_HOT oxl_task *oxl_task_self(void) {
    oxl_sched *s = sched_enter("oxl_task_self");
    return s ? s->current : NULL;
}

SIM_HOT uint64_t oxl_task_id(const oxl_task *t) { return t ? t->id : 0; }
oxl_node *oxl_task_node(const oxl_task *t) { return t ? t->node : NULL; }

void oxl_yield_at(const char *file, int line) {
    oxl_sched *s = sched_enter("oxl_yield");
    if (s) sched_give_way(s, file, line);
}

/* ---- time ---- */

SIM_HOT static void wake_sleeper(oxl_world *w, void *arg, uint64_t tag) {
    oxl_sched *s = arg;
    uint32_t slot = (uint32_t)(tag >> 40);
    uint64_t id = tag & ((UINT64_C(1) << 40) - 1);
    oxl_task *t = slot < s->ntasks_cap ? s->tasks[slot] : NULL;
    if (!t || t->id != id || t->state != TASK_BLOCKED) return;
    t->wake_handle = 0; /* this event has fired: nothing to cancel */
    if (t->nwaiters) { /* a select's timeout; a sleep waits on no channel */
        t->fired_case = -1;
        sched_task_drop_waits(s, t);
    }
    /* else waiters is NULL already (a select on no channel sets no list),
     * or unread: nothing reads it past nwaiters entries */
    sched_make_ready(s, t);
}

/* What a wakeup names its task by: its slot and id (wake_sleeper). */
static inline uint64_t wake_tag(const oxl_task *t) {
    return ((uint64_t)t->slot << 40) | (t->id & ((UINT64_C(1) << 40) - 1));
}

/* Queues the running task's wakeup at virtual time until (a sleep's end or
 * a select's timeout); the caller then blocks. */
SCHED_HOT void arm_wake(oxl_sched *s, oxl_time_ns until) {
    oxl_task *self = s->current;
    self->wait_until = until;
    uint64_t tag = wake_tag(self);
    self->wake_handle = sim_schedule_wake(s->world, until, self->world_node, wake_sleeper, s, tag);
}

SIM_HOT void sched_arm_wake(oxl_sched *s, oxl_time_ns until) { arm_wake(s, until); }

/* The same wakeup as a deadline (sim_deadline_arm): no event until it
 * passes, for waits that something else almost always ends first (an rpc
 * call's answer). */
SIM_HOT void sched_arm_deadline(oxl_sched *s, oxl_time_ns until) {
    oxl_task *self = s->current;
    self->wait_until = until;
    uint64_t tag = wake_tag(self);
    self->wake_handle = sim_deadline_arm(s->world, until, self->world_node, wake_sleeper, s, tag);
}

void oxl_sleep_at(oxl_dur_ns d, const char *file, int line) {
    /* std.time's sleep comes straight here, with its OxL caller's line */
    oxl_sched *s = sched_enter_at("oxl_sleep", "sleep", file, line);
    if (!s) return;
    if (d < 0) oxl_panic_at(file, line, "sleep of a negative duration (%" PRId64 "ns)", d);
    oxl_task *self = s->current;
    self->wait = WAIT_SLEEP;
    self->file = file;
    self->line = line;
    arm_wake(s, timer_base(s) + d);
    block_here(s);
    self->wait = WAIT_NONE;
}

void oxl_clock_advance_at(oxl_dur_ns d, const char *file, int line) {
    if (d < 0) oxl_panic_at(file, line, "clock.advance by a negative duration (%" PRId64 "ns)", d);
    oxl_sleep_at(d, file, line);
}

void oxl_clock_set_at(oxl_time_ns t, const char *file, int line) {
    oxl_sched *s = sched_enter("oxl_clock_set");
    if (!s) return;
    oxl_time_ns now = oxl_now();
    if (t < now) oxl_panic_at(file, line, "clock.set to a time in the past (%" PRId64 "ns, now %" PRId64 "ns)", t, now);
    oxl_sleep_at(t - now, file, line);
}

oxl_time_ns oxl_now(void) {
    oxl_sched *s = sched_enter("oxl_now");
    if (!s) return 0;
    oxl_node_id n = node_world(s->current->node);
    return n == OXL_NO_NODE ? oxl_world_now(s->world) : oxl_ctx_now(oxl_world_ctx(s->world, n));
}

uint64_t oxl_rand(void) {
    oxl_sched *s = sched_enter("oxl_rand");
    if (!s) return 0;
    oxl_node_id n = node_world(s->current->node);
    return n == OXL_NO_NODE ? oxl_rng_next(&s->user_rng) : oxl_rng_next(oxl_ctx_rng(oxl_world_ctx(s->world, n)));
}

bool oxl_sched_is_real_time(void) {
    oxl_sched *s = sched_enter("oxl_sched_is_real_time");
    return s && s->opt.real_time;
}

SIM_HOT oxl_world *oxl_sched_world(void) {
    oxl_sched *s = tls_sched;
    if (s && !s->current) return s->world; /* a World callback of the run */
    s = sched_enter("oxl_sched_world");
    return s ? s->world : NULL;
}

/* A panic or an exhausted resource: the run ends with status how and the
 * report "<head>: <message>" and the place; the calling task is abandoned
 * where it stands. Outside a run the process exits (101 or 102). */
static _Noreturn void end_run(oxl_sched_status how, const char *head, const char *file, int line, const char *fmt,
                              va_list ap) {
    oxl_sched *s = tls_sched;
    char *msg = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&msg, &len);
    if (!out) {
        /* no memory left for the report: the least that says what happened */
        fprintf(stderr, "%s: ", head);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        _exit(how == OXL_SCHED_EXHAUSTED ? OXL_EXIT_EXHAUSTED : 101);
    }
    fprintf(out, "%s: ", head);
    vfprintf(out, fmt, ap);
    char lb[32];
    if (s && s->current)
        fprintf(out, "\n  at %s:%d (%s on %s)", file ? file : "?", line, sched_task_label(s, s->current->id, lb, sizeof lb),
                node_label(s->current->node));
    else
        fprintf(out, "\n  at %s:%d", file ? file : "?", line);
    fclose(out);
    if (!s || !s->current) {
        fprintf(stderr, "%s\n", msg);
        free(msg);
        exit(how == OXL_SCHED_EXHAUSTED ? OXL_EXIT_EXHAUSTED : 101);
    }
    /* a panic on a node that panics crash-only takes the node down and
     * the run goes on; running out of resources stops the run */
    if (how == OXL_SCHED_PANICKED && s->current->node && s->current->node->panic_crashes && !s->stopping)
        sched_node_panicked(s, msg);
    sched_stop(s, how, msg);
    oxl_task *self = s->current;
    s->current = NULL;
    /* The panicking task is abandoned where it stands. */
    s->gc_running = &s->main_fiber;
    sched_fiber_exit_to(self->fiber, &s->main_fiber);
    abort(); /* not reached */
}

void oxl_panic_at(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    end_run(OXL_SCHED_PANICKED, "panic", file, line, fmt, ap);
}

void oxl_exhausted_at(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    end_run(OXL_SCHED_EXHAUSTED, "resource exhausted", file, line, fmt, ap);
}

/* "this process has 65530 memory mappings; vm.max_map_count is 65530", for
 * the report of a stack that could not be had (read only then). */
void sched_mapping_counts(char *buf, size_t cap) {
    long lines = 0, max = -1;
    /* read when the run is over anyway: nothing of it reaches the trace */
    oxl_fence_allow_begin();
    FILE *f = fopen("/proc/self/maps", "r");
    if (f) {
        int c;
        while ((c = getc(f)) != EOF) lines += c == '\n';
        fclose(f);
    }
    f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &max) != 1) max = -1;
        fclose(f);
    }
    oxl_fence_allow_end();
    if (f && max > 0) snprintf(buf, cap, "this process has %ld memory mappings; vm.max_map_count is %ld", lines, max);
    else snprintf(buf, cap, "this process has %ld memory mappings", lines);
}

/* ---- the run ---- */

bool oxl_sched_options_default(oxl_sched_options *opt, uint64_t seed) {
    memset(opt, 0, sizeof *opt);
    opt->seed = seed;
    opt->time_limit = 24 * OXL_HOUR;
    opt->policy = OXL_POLICY_RANDOM;
    opt->pct_depth = 3;
    opt->pct_steps = 1000;
    opt->max_switches = UINT64_C(1000000000);
    opt->livelock_switches = 1000000;
    opt->stack_size = 256 * 1024;
    opt->max_tasks = SCHED_DEFAULT_MAX_TASKS;
    opt->trace_messages = true;
    /* the legacy scheduler the variable would bring back is not built:
     * refused rather than ignored (docs/scheduler.md) */
    const char *sched = getenv("OXL_SIM_SCHED");
    if (sched && strcmp(sched, "1") != 0) {
        fprintf(stderr,
                "error: OXL_SIM_SCHED='%s' is not supported: there is no legacy scheduler, every simulation runs "
                "on the deterministic one (unset OXL_SIM_SCHED, or set it to 1)\n",
                sched);
        return false;
    }
    const char *env = getenv("OXL_SIM_TIME_LIMIT");
    if (env) {
        double secs;
        if (!oxl_time_limit_seconds(env, &secs)) {
            fprintf(stderr, "error: OXL_SIM_TIME_LIMIT='%s' is not a positive number of seconds\n", env);
            return false;
        }
        opt->time_limit = (oxl_dur_ns)(secs * 1e9);
    }
    return true;
}

void oxl_sched_options_real_time(oxl_sched_options *opt) {
    memset(opt, 0, sizeof *opt);
    opt->time_limit = 24 * OXL_HOUR; /* not applied in real time */
    opt->policy = OXL_POLICY_FIFO;
    opt->pct_depth = 3;
    opt->pct_steps = 1000;
    opt->max_switches = UINT64_MAX;
    opt->livelock_switches = UINT64_MAX; /* a busy program is not stuck: real time moves */
    opt->stack_size = 1024 * 1024;
    opt->max_tasks = SCHED_DEFAULT_MAX_TASKS;
    opt->trace_messages = false;
    opt->real_time = true;
}

static void main_loop(oxl_sched *s) {
    while (!s->stopping) {
        oxl_task *next = pick_next(s);
        if (!next) {
            if (!sched_drive_world(s)) break;
            continue;
        }
        s->current = next;
        next->state = TASK_RUNNING;
        s->switches++;
        sched_trace_run(s, next);
        s->gc_running = next->fiber;
        sched_fiber_switch(&s->main_fiber, next->fiber);
    }
}

static void sched_free(oxl_sched *s) {
    s->tearing_down = true;
    sched_nodes_teardown(s);
    sched_locals_free(&s->run_locals); /* before the channels and tasks it may refer to */
    for (uint32_t i = 0; i < s->ntasks_cap; i++) {
        oxl_task *t = s->tasks[i];
        if (!t) continue;
        if (t->fiber) {
            sched_fiber_free(t->fiber);
            free(t->fiber);
        }
        free(t);
    }
    free(s->tasks);
    free(s->free_slots);
    for (uint32_t i = 0; i < s->nspare_tasks; i++) free(s->spare_tasks[i]);
    for (size_t i = 0; i < s->npool; i++) {
        sched_fiber *f = s->stack_pool[i];
        sched_fiber_free(f);
        free(f);
    }
    free(s->stack_pool);
    free(s->ready);
    sched_chans_free(s);
    sched_locals_free(&s->process_locals);
    free(s->node_panic);
    sched_policy_free(s);
    if (s->own_world) oxl_world_free(s->world);
    free(s->schedule);
    free(s);
}

oxl_sched_result oxl_sched_run(oxl_task_fn root, void *arg, const oxl_sched_options *opt) {
    if (tls_sched || atomic_load(&active_sched)) sched_fatal("oxl_sched_run: a deterministic scheduler run is already active");
    if (!root) sched_fatal("oxl_sched_run: no root function");
    sched_fiber_on_overflow(sched_on_canary);
    oxl_sched *s = sim_xcalloc(1, sizeof *s);
    if (opt)
        s->opt = *opt;
    else if (!oxl_sched_options_default(&s->opt, 0))
        sched_fatal("oxl_sched_run: bad environment");
    if (s->opt.stack_size == 0) s->opt.stack_size = 256 * 1024;
    if (s->opt.max_tasks == 0) s->opt.max_tasks = SCHED_DEFAULT_MAX_TASKS;
    if (s->opt.livelock_switches == 0) s->opt.livelock_switches = 1000000;
    if (s->opt.max_switches == 0) s->opt.max_switches = UINT64_C(1000000000);
    if (s->opt.time_limit <= 0) s->opt.time_limit = 24 * OXL_HOUR;
    if (s->opt.world) {
        s->world = s->opt.world;
    } else {
        oxl_world_options wo = oxl_world_options_default(s->opt.seed);
        wo.trace_messages = s->opt.trace_messages;
        s->world = oxl_world_new(&wo);
        s->own_world = true;
    }
    if (s->opt.replay_faults) oxl_world_replay_faults(s->world, s->opt.faults, s->opt.nfaults);
    else if (s->opt.record_faults) oxl_world_record_faults(s->world);
    oxl_trace_hook saved_hook = s->world->trace_hook;
    void *saved_hook_arg = s->world->trace_hook_arg;
    if (s->opt.trace_hook) {
        /* what the World recorded before (its making) the hook sees first */
        oxl_trace_event ev;
        for (uint64_t i = 0; i < oxl_world_trace_count(s->world); i++)
            if (oxl_world_trace_event(s->world, i, &ev)) s->opt.trace_hook(s->world, &ev, s->opt.trace_hook_arg);
        oxl_world_set_trace_hook(s->world, s->opt.trace_hook, s->opt.trace_hook_arg);
    }
    oxl_rng_seed(&s->select_rng, s->opt.seed, "select");
    oxl_rng_seed(&s->user_rng, s->opt.seed, "user");
    sched_policy_init(s);
    s->label_run = sim_intern(s->world, "run");
    s->label_spawn = sim_intern(s->world, "spawn");
    s->label_done = sim_intern(s->world, "done");
    s->label_cancel = sim_intern(s->world, "cancel");
    s->last_time = oxl_world_now(s->world);
    s->deadline = s->opt.real_time ? INT64_MAX : s->last_time + s->opt.time_limit;
    s->virt0 = s->last_time;
    s->mono0 = s->opt.real_time ? mono_ns() : 0; /* a deterministic run reads no clock */
    s->run_id = ++runs_made;
    sched_fiber_init_main(&s->main_fiber);
    sched_gc_begin(s);
    tls_sched = s;
    atomic_store(&active_sched, s);
    uint64_t foreign_before = atomic_load(&foreign_calls);

    /* The fence (fence/fence.h) is armed for the whole deterministic run:
     * every task and every World callback; the scheduler steps the World,
     * which therefore does not arm it again. A real-time run is no
     * simulation: nothing is fenced. */
    bool world_was_driven = s->world->sched_driven;
    s->world->sched_driven = true;
    sched_nodes_debug_begin(s);
    if (!s->opt.real_time) fence_arm();
    s->root = sched_spawn(s, NULL, root, arg, "(root)", 0);
    if (s->root) main_loop(s);
    if (!s->opt.real_time) fence_disarm();
    s->world->sched_driven = world_was_driven;
    if (s->stop == OXL_SCHED_FINISHED && s->node_panic) {
        /* a node died of a panic while the run went on: the run fails */
        s->stop = OXL_SCHED_PANICKED;
        free(s->report);
        s->report = s->node_panic;
        s->node_panic = NULL;
    }
    if (s->stop != OXL_SCHED_FINISHED) append_state(s); /* before anything is torn down */

    oxl_sched_result r;
    memset(&r, 0, sizeof r);
    r.trace_hash = oxl_world_trace_hash(s->world);
    r.trace_events = oxl_world_trace_count(s->world);
    r.status = s->stop;
    r.value = r.status == OXL_SCHED_FINISHED && s->root ? s->root->result : NULL;
    r.switches = s->switches;
    r.decisions = s->decisions;
    r.steps = s->policy.steps;
    r.schedule = s->schedule;
    r.schedule_len = s->schedule_len;
    s->schedule = NULL;
    if (s->opt.record_faults) {
        const oxl_fault *log;
        r.nfaults = oxl_world_fault_log(s->world, &log);
        r.faults = sim_xmalloc((r.nfaults ? r.nfaults : 1) * sizeof *r.faults);
        if (r.nfaults) memcpy(r.faults, log, r.nfaults * sizeof *r.faults);
    }
    r.end_time = oxl_world_now(s->world);
    r.report = s->report;
    s->report = NULL;
    if (r.status != OXL_SCHED_FINISHED && s->opt.tail_events) {
        /* before the teardown, which may add kills of the run's nodes */
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        if (!out) sim_oom();
        oxl_world_trace_render(s->world, s->opt.tail_events, out);
        fclose(out);
        r.tail = buf;
    }
    atomic_store(&active_sched, NULL);
    r.foreign_wakeups = atomic_load(&foreign_calls) - foreign_before;
    s->current = NULL;
    sched_gc_end(s);
    sched_nodes_debug_end(s);
    /* the teardown's kills are not the run's */
    if (s->opt.trace_hook) oxl_world_set_trace_hook(s->world, saved_hook, saved_hook_arg);
    sched_free(s); /* this kills the run's nodes in a borrowed world */
    tls_sched = NULL;
    return r;
}

void oxl_sched_result_free(oxl_sched_result *r) {
    free(r->tail);
    free(r->schedule);
    free(r->faults);
    free(r->report);
    memset(r, 0, sizeof *r);
}

int oxl_sched_exit_status(const oxl_sched_result *r, FILE *report_to) {
    if (r->status == OXL_SCHED_FINISHED) return 0;
    if (report_to && r->report) fprintf(report_to, "%s\n", r->report);
    return r->status == OXL_SCHED_EXHAUSTED ? OXL_EXIT_EXHAUSTED : 101;
}
