/* gc_stacks.c: telling the garbage collector about task stacks.
 *
 * bdwgc scans the running thread's stack from the stack pointer to the
 * stack bottom it knows, and no other stack. Task stacks are mmap'd, so
 * (as in Crystal's fibers on bdwgc) every switch moves the known bottom to
 * the top of the stack being resumed, and a push-other-roots hook pushes
 * the live part of every suspended stack: each suspended task's and, while
 * a task runs, the main stack's. Objects held only in a sleeping task's
 * locals then survive a collection. Nothing here runs unless the program
 * initialised the collector (oxl_rt_init). The move at a switch,
 * sched_gc_enter, is inline in sched_internal.h: it is on every switch. */
#include "sched_internal.h"

#include <gc/gc.h>
#include <gc/gc_mark.h>

/* The run whose stacks the hook pushes: one run per thread at a time, and
 * the collector is used from that thread only. */
static _Thread_local oxl_sched *gc_run;

static void push_range(const void *lo, const void *hi) {
    if (lo && hi && (const char *)lo < (const char *)hi) GC_push_all_eager((void *)lo, (void *)hi);
}

static void push_suspended_stacks(void) {
    oxl_sched *s = gc_run;
    if (s->gc_prev_push) s->gc_prev_push();
    for (uint32_t i = 0; i < s->ntasks_cap; i++) {
        const oxl_task *t = s->tasks[i];
        if (!t || !t->fiber) continue;
        const sched_fiber *f = t->fiber;
        if (f->state != SCHED_FIBER_SUSPENDED) continue; /* running: the collector's own scan */
        push_range(f->sp, f->stack_lo + f->stack_size);
        push_range(&f->fp, &f->fp + 1); /* x86-64 keeps rbp, which may hold a pointer, out of the stack */
    }
    if (s->main_fiber.state == SCHED_FIBER_SUSPENDED) {
        push_range(s->main_fiber.sp, s->gc_main_bottom);
        push_range(&s->main_fiber.fp, &s->main_fiber.fp + 1);
    }
}

void sched_gc_begin(oxl_sched *s) {
    s->gc = GC_is_init_called() != 0;
    if (!s->gc) return;
    struct GC_stack_base sb;
    s->gc_thread = GC_get_my_stackbottom(&sb);
    s->gc_main_bottom = sb.mem_base;
    gc_run = s;
    s->gc_prev_push = GC_get_push_other_roots();
    GC_set_push_other_roots(push_suspended_stacks);
}

void sched_gc_end(oxl_sched *s) {
    if (!s->gc) return;
    sched_gc_enter(s, &s->main_fiber);
    GC_set_push_other_roots(s->gc_prev_push);
    gc_run = NULL;
}
