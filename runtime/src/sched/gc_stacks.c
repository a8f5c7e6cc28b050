/* gc_stacks.c: telling the garbage collector about task stacks.
 *
 * bdwgc scans the running thread's stack from the stack pointer to the
 * stack bottom it knows, and no other stack. Task stacks are mmap'd, so
 * (as in Crystal's fibers on bdwgc) the known bottom follows the running
 * fiber's stack top, and a push-other-roots hook pushes the live part of
 * every suspended stack: each suspended task's and, while a task runs, the
 * main stack's. Objects held only in a sleeping task's locals then survive
 * a collection. Nothing here runs unless the program initialised the
 * collector (oxl_rt_init).
 *
 * The bottom moves lazily: a switch notes its fiber (gc_running) and the
 * bottom follows before the next allocation (oxl_alloc and the channel
 * buffers call sched_gc_sync) and in the hook, before the collector scans
 * the thread's stack. Both are needed. Without threads the collector reads
 * the bottom at every allocation too: it sizes the stack as bottom minus
 * sp to decide between collecting and growing the heap, and a bottom left
 * on another stack (the main one is far above the task stacks) made it
 * grow the heap without ever collecting. C code that allocates from the
 * collector inside a task must do it through oxl_alloc. */
#include "sched_internal.h"

#include <assert.h>
#include <gc/gc.h>
#include <gc/gc_mark.h>

/* The run whose stacks the hook pushes: one run per thread at a time, and
 * the collector is used from that thread only. */
static _Thread_local oxl_sched *gc_run;

static void push_range(const void *lo, const void *hi) {
    if (lo && hi && (const char *)lo < (const char *)hi) GC_push_all_eager((void *)lo, (void *)hi);
}

/* The collector's stack bottom becomes fiber f's stack top. */
static void set_bottom(oxl_sched *s, const sched_fiber *f) {
    struct GC_stack_base sb = {0};
    sb.mem_base = f == &s->main_fiber ? s->gc_main_bottom : (void *)(f->stack_lo + f->stack_size);
    GC_set_stackbottom(s->gc_thread, &sb);
    s->gc_bottom_of = f;
}

void sched_gc_sync(void) {
    oxl_sched *s = gc_run;
    if (s && s->gc_running != s->gc_bottom_of) set_bottom(s, s->gc_running);
}

static void push_suspended_stacks(void) {
    oxl_sched *s = gc_run;
    assert(s->gc_running->state == SCHED_FIBER_RUNNING); /* every switch noted its fiber */
    sched_gc_sync(); /* a C extern's GC_gcollect in a task: no allocation came first */
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
    s->gc_running = s->gc_bottom_of = &s->main_fiber;
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
    s->gc_running = &s->main_fiber;
    set_bottom(s, &s->main_fiber);
    GC_set_push_other_roots(s->gc_prev_push);
    gc_run = NULL;
}
