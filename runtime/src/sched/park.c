/* park.c: a task that waits for work handed to it. A pooled worker (the
 * rpc layer keeps a node's idle handler tasks) parks where it would have
 * ended, and the next job is handed to it where a task would have been
 * spawned: no stack set up, no task record, no spawn and end to trace.
 *
 * A parked task is idle: failure reports leave it out (it waits for
 * nothing the program did), and a kill of its node cancels it as any
 * blocked task. Being handed a job makes it ready exactly as a spawn
 * makes a new task ready (the end of the ready list). */
#include "sched_internal.h"

/* On every rpc call's path: kept with the rpc layer's hot code. */
#define PARK_HOT __attribute__((hot))

PARK_HOT void *oxl_task_park_at(const char *file, int line) {
    oxl_sched *s = sched_enter("oxl_task_park");
    if (!s) return NULL;
    oxl_task *self = s->current;
    self->wait = WAIT_PARK;
    self->file = file;
    self->line = line;
    self->handed = NULL;
    sched_block(s); /* a cancel (its node's kill) never comes back */
    self->wait = WAIT_NONE;
    void *job = self->handed;
    self->handed = NULL;
    return job;
}

PARK_HOT bool oxl_task_unpark(oxl_task *t, void *job, const char *file, int line) {
    oxl_sched *s = sched_active();
    if (!s || !t || t->state != TASK_BLOCKED || t->wait != WAIT_PARK) return false;
    t->handed = job;
    t->file = file; /* where a report places it until its next wait, as a spawn's */
    t->line = line;
    t->wait = WAIT_NONE; /* handed once: a second unpark finds it busy */
    sched_make_ready(s, t);
    return true;
}

/* ---- a wait for one handoff, with a deadline ----
 * What a task calling out waits in (the rpc layer's wait for an answer):
 * a select over one channel with a timeout, without the channel. The
 * timer is armed and cancelled as a select's, and the task is made ready
 * as a select's receiver is, so the schedule and the trace are a
 * select's. A handle (slot, id) names the waiting task without keeping a
 * pointer to a record that may be gone (a cancelled caller). */

#define PARK_ID_BITS 40

PARK_HOT uint64_t oxl_task_handle(const oxl_task *t) {
    if (!t) return 0;
    return (uint64_t)t->slot << PARK_ID_BITS | (t->id & ((UINT64_C(1) << PARK_ID_BITS) - 1));
}

PARK_HOT void *oxl_task_await_at(oxl_dur_ns timeout, const char *file, int line) {
    oxl_sched *s = sched_enter("oxl_task_await");
    if (!s || timeout == 0) return NULL; /* a select with nothing ready and no time to wait */
    oxl_task *self = s->current;
    self->waiters = NULL;
    self->nwaiters = 0;
    self->wait = WAIT_HANDOFF;
    self->file = file;
    self->line = line;
    self->wake_handle = 0;
    self->fired_case = -1;
    self->handed = NULL;
    if (timeout > 0) sched_arm_deadline(s, sched_timer_base(s) + timeout);
    sched_block(s);
    self->wait = WAIT_NONE;
    void *job = self->handed;
    self->handed = NULL;
    return job;
}

PARK_HOT bool oxl_task_hand(uint64_t handle, void *job) {
    oxl_sched *s = sched_active();
    if (!s || !handle || !job) return false;
    uint64_t slot = handle >> PARK_ID_BITS, id = handle & ((UINT64_C(1) << PARK_ID_BITS) - 1);
    oxl_task *t = slot < s->ntasks_cap ? s->tasks[slot] : NULL;
    if (!t || (t->id & ((UINT64_C(1) << PARK_ID_BITS) - 1)) != id || t->state != TASK_BLOCKED ||
        t->wait != WAIT_HANDOFF)
        return false;
    t->handed = job;
    t->fired_case = 0;
    t->wait = WAIT_NONE; /* handed once */
    sched_task_drop_waits(s, t); /* its timer goes, as a select's when a case fires */
    sched_make_ready(s, t);
    return true;
}
