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

void *oxl_task_park_at(const char *file, int line) {
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

bool oxl_task_unpark(oxl_task *t, void *job, const char *file, int line) {
    oxl_sched *s = sched_active();
    if (!s || !t || t->state != TASK_BLOCKED || t->wait != WAIT_PARK) return false;
    t->handed = job;
    t->file = file; /* where a report places it until its next wait, as a spawn's */
    t->line = line;
    t->wait = WAIT_NONE; /* handed once: a second unpark finds it busy */
    sched_make_ready(s, t);
    return true;
}
