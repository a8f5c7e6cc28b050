/* core_gc_sched_test: the collector sees task stacks. An object held only
 * in a sleeping task's locals survives collections run from other tasks,
 * and collections triggered while a task runs on its own stack work. */
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "tap.h"

#include <gc/gc.h>
#include <string.h>
#include <unistd.h>

enum { OBJ_WORDS = 64 };

typedef struct state {
    int finalized; /* sleepers' objects the collector reclaimed */
    int checked;   /* sleepers that found their object intact */
    int orphans;   /* objects of finished tasks the collector reclaimed */
} state;

static void on_finalize(void *obj, void *arg) {
    (void)obj;
    ((state *)arg)->finalized++;
}

static void on_orphan(void *obj, void *arg) {
    (void)obj;
    ((state *)arg)->orphans++;
}

/* The control: a finished task's object is garbage, so the same
 * collections must reclaim it; a finished task's stack is not scanned. */
static void *orphan(void *arg) {
    uint64_t *volatile obj = oxl_alloc(OBJ_WORDS * sizeof(uint64_t));
    GC_register_finalizer(obj, on_orphan, arg, NULL, NULL);
    return NULL;
}


static void *sleeper(void *arg) {
    state *st = arg;
    /* The only reference lives in this task's locals while it sleeps. */
    uint64_t *volatile obj = oxl_alloc(OBJ_WORDS * sizeof(uint64_t));
    for (int i = 0; i < OBJ_WORDS; i++) obj[i] = 0xC0FFEE00u + (uint64_t)i;
    GC_register_finalizer(obj, on_finalize, st, NULL, NULL);
    oxl_sleep(OXL_SEC);
    bool intact = true;
    for (int i = 0; i < OBJ_WORDS; i++) intact = intact && obj[i] == 0xC0FFEE00u + (uint64_t)i;
    st->checked += intact;
    return NULL;
}

static void *churner(void *arg) {
    /* Garbage, then full collections, from another task's stack. */
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 2000; i++) {
            uint64_t *junk = oxl_alloc(512);
            memset(junk, 0xAB, 512);
        }
        GC_gcollect();
        GC_invoke_finalizers();
        oxl_yield();
    }
    return NULL;
}

/* A collection that is the first thing a task does after a switch: no
 * allocation came between, and the collector's stack bottom follows the
 * running stack all the same (gc_stacks.c moves it lazily). Eight such
 * tasks take turns, so the bottom a switch leaves behind lies above the
 * running stack for some and below it for others. */
static void *first_collector(void *arg) {
    state *st = arg;
    for (int round = 0; round < 4; round++) {
        uint64_t *volatile obj = oxl_alloc(OBJ_WORDS * sizeof(uint64_t));
        for (int i = 0; i < OBJ_WORDS; i++) obj[i] = 0xFACADE00u + (uint64_t)i;
        GC_register_finalizer(obj, on_finalize, st, NULL, NULL);
        oxl_yield();
        GC_gcollect();
        GC_invoke_finalizers();
        bool intact = true;
        for (int i = 0; i < OBJ_WORDS; i++) intact = intact && obj[i] == 0xFACADE00u + (uint64_t)i;
        st->checked += intact;
        GC_register_finalizer(obj, NULL, NULL, NULL, NULL);
    }
    return NULL;
}

static void *first_collectors(void *arg) {
    oxl_task *t[8];
    for (int i = 0; i < 8; i++) t[i] = oxl_spawn(first_collector, arg);
    for (int i = 0; i < 8; i++) oxl_join(t[i], NULL);
    return NULL;
}

static void *root(void *arg) {
    oxl_task *s[8];
    for (int i = 0; i < 8; i++) s[i] = oxl_spawn(sleeper, arg);
    for (int i = 0; i < 8; i++) oxl_task_detach(oxl_spawn(orphan, arg));
    oxl_task *c = oxl_spawn(churner, NULL);
    oxl_join(c, NULL);
    for (int i = 0; i < 8; i++) oxl_join(s[i], NULL);
    return NULL;
}

/* A long-running, allocation-heavy program on tasks: 4 tasks each build
 * and drop lists of strings for 1 GB in all; the resident size stays
 * bounded. */
static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r"); /* the test's own measurement, outside any simulation */
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024); /* statm counts pages */
}

static void *allocator(void *arg) {
    long *max_rss = arg;
    for (int round = 0; round < 2000; round++) {
        oxl_list l = oxl_list_new(0);
        for (int i = 0; i < 256; i++) oxl_list_push(l, (oxl_word)(uintptr_t)oxl_alloc(256), __FILE__, __LINE__);
        if (round % 100 == 0) {
            long now = rss_kb();
            if (now > *max_rss) *max_rss = now;
        }
        if (round % 10 == 0) oxl_yield();
    }
    return NULL;
}

static void *alloc_root(void *arg) {
    oxl_task *t[4];
    for (int i = 0; i < 4; i++) t[i] = oxl_spawn(allocator, arg);
    for (int i = 0; i < 4; i++) oxl_join(t[i], NULL);
    return NULL;
}

/* Task.join as generated code calls it: from several tasks at once, again
 * after it returned, and after a joiner was cancelled while it waited. */
typedef struct go_join_case {
    oxl_go_handle *h;
    uint64_t got[4];
} go_join_case;

static uint64_t answer_thunk(void *env) {
    (void)env;
    oxl_sleep(10 * OXL_MS);
    return 42;
}

static void *go_joiner(void *arg) {
    go_join_case *gc = arg;
    uint64_t v = oxl_go_join(gc->h, __FILE__, __LINE__);
    for (int i = 0; i < 4; i++)
        if (!gc->got[i]) {
            gc->got[i] = v;
            break;
        }
    return NULL;
}

static void *go_join_root(void *arg) {
    go_join_case *gc = arg;
    gc->h = oxl_go(answer_thunk, NULL, __FILE__, __LINE__);
    oxl_task *cancelled = oxl_spawn(go_joiner, gc);
    oxl_sleep(OXL_MS); /* it waits in join now */
    oxl_task_cancel(cancelled);
    oxl_task *a = oxl_spawn(go_joiner, gc), *b = oxl_spawn(go_joiner, gc);
    oxl_join(a, NULL);
    oxl_join(b, NULL);
    go_joiner(gc);
    return NULL;
}

int main(void) {
    oxl_rt_init();
    state st = {0, 0, 0};
    oxl_sched_options o;
    oxl_sched_options_default(&o, 1);
    oxl_sched_result r = oxl_sched_run(root, &st, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a run that collects garbage from task stacks finishes");
    tap_is_int(st.checked, 8, "every object held only by a sleeping task survived 20 collections");
    tap_is_int(st.finalized, 0, "and none of them was finalized while its task slept");
    tap_ok(st.orphans > 0, "while the same collections reclaimed objects of finished tasks (%d of 8)", st.orphans);
    oxl_sched_result_free(&r);

    state first = {0, 0, 0}; /* not st: the first run's sleepers' objects are garbage now */
    r = oxl_sched_run(first_collectors, &first, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "tasks whose first act after a switch is a collection finish");
    tap_ok(first.checked == 32 && first.finalized == 0,
           "and each one's object, held only in its locals, survived its own collections (%d of 32 intact, %d "
           "finalized)",
           first.checked, first.finalized);
    oxl_sched_result_free(&r);

    long max_rss = 0;
    r = oxl_sched_run(alloc_root, &max_rss, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "four tasks allocate 0.5 GB of lists and strings");
    tap_ok(max_rss > 0 && max_rss < 200 * 1024, "in bounded memory (at most %ld KiB resident)", max_rss);
    oxl_sched_result_free(&r);

    go_join_case gc = {0};
    r = oxl_sched_run(go_join_root, &gc, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a joiner of a Task cancelled while it waits leaves it to the next joins");
    if (r.report) tap_diag("%s", r.report);
    tap_ok(gc.got[0] == 42 && gc.got[1] == 42 && gc.got[2] == 42 && gc.got[3] == 0,
           "two tasks joining a Task at once and a join after them get its result (%llu %llu %llu)",
           (unsigned long long)gc.got[0], (unsigned long long)gc.got[1], (unsigned long long)gc.got[2]);
    oxl_sched_result_free(&r);
    return tap_done();
}
