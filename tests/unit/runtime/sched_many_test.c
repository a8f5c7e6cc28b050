/* sched_many_test: many tasks at once. 100,000 tasks alive together, each
 * on a 1 MiB stack as a test binary's sim test gives them, run to their
 * end within the kernel's default 65,530 memory mappings: with light guard
 * regions a region of stacks is one mapping; without them (a kernel before
 * 6.13, or OXL_STACKS_NO_LIGHT_GUARDS, which ctest sched_many_fallback
 * sets to 8000 and sched_many_kernel_budget to max_map_count) the stacks'
 * guard pages spend the mapping budget and the rest are canary stacks, and
 * the run still finishes within the budget.
 * And a run that cannot have a stack ends as a resource exhausted (status
 * 102), never as a panic of the program. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "sched/fiber.h"
#include "tap.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_asan.h"

/* Under AddressSanitizer a task costs ten times as much: 20,000 there,
 * and tests/runner/oxl_test.sh runs 100,000 through oxl test in every
 * build. */
#ifdef TEST_ASAN
#define NTASKS 20000
#else
#define NTASKS 100000
#endif
#define STACK (1024 * 1024) /* test_main.c's stack for a sim test */

static long mappings(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

static long max_map_count(void) {
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct many {
    oxl_chan *done;
    long peak_maps;
    int64_t sum;
} many;

static void *worker(void *arg) {
    oxl_sleep(OXL_SEC); /* every one is alive, on its own stack, at once */
    return arg;
}

static void *spawn_all(void *arg) {
    many *m = arg;
    static oxl_task *ts[NTASKS];
    for (intptr_t i = 0; i < NTASKS; i++) {
        ts[i] = oxl_spawn(worker, (void *)i);
        if (!ts[i]) return NULL; /* the run has stopped: its report says why */
    }
    oxl_yield(); /* each has run up to its sleep: all their stacks are taken */
    m->peak_maps = mappings();
    for (int i = 0; i < NTASKS; i++) {
        void *v;
        if (oxl_join(ts[i], &v) == OXL_JOIN_OK) m->sum += (intptr_t)v;
    }
    return NULL;
}

static void test_many_tasks(void) {
    long limit = max_map_count();
    oxl_sched_options o;
    oxl_sched_options_default(&o, 1);
    o.stack_size = STACK;
    many m = {0};
    long before = mappings();
    double t0 = now_s();
    oxl_sched_result r = oxl_sched_run(spawn_all, &m, &o);
    double secs = now_s() - t0;
    sched_stack_counts c;
    sched_stack_stats(&c);
    const char *mode = c.light_guards ? "light guard regions" : c.pretend ? "OXL_STACKS_NO_LIGHT_GUARDS" : "PROT_NONE guards";
    tap_is_int(r.status, OXL_SCHED_FINISHED, "%d tasks alive at once on 1 MiB stacks (%s): the run finishes", NTASKS,
               mode);
    if (r.report) tap_diag("%s", r.report);
    tap_ok(m.sum == (int64_t)NTASKS * (NTASKS - 1) / 2, "each task ran to its end (the sum of their ids)");
    long cost = m.peak_maps - before;
    if (c.light_guards) {
        tap_ok(m.peak_maps > 0 && cost < 1000,
               "their stacks cost %ld memory mappings (%ld before, %ld with every stack taken; the limit is %ld)", cost,
               before, m.peak_maps, limit);
    } else {
        /* what the pool counts is what the kernel has (give or take the
         * run's own allocations), and within the budget */
        tap_ok(m.peak_maps > 0 && cost <= (long)c.mappings + 100 && (long)c.mappings <= c.budget,
               "their stacks cost %ld memory mappings (the pool counts %zu; the budget is %ld; %ld before, %ld with "
               "every stack taken; the limit is %ld)",
               cost, c.mappings, c.budget, before, m.peak_maps, limit);
        /* guarded stacks while the budget has room for them, less what it
         * keeps for canary regions (half, at most 4,096); canary ones after */
        size_t budget = (size_t)c.budget, keep = budget / 2 < 4096 ? budget / 2 : 4096;
        size_t room = (budget - keep) / 2;
        tap_ok(c.guarded + c.canary >= NTASKS && (c.canary ? c.guarded == room : c.guarded <= room),
               "%zu stacks with a guard page (the budget has room for %zu), then %zu canary stacks", c.guarded, room,
               c.canary);
#ifndef TEST_ASAN
        if (c.budget == 8000) /* ctest sched_many_fallback */
            tap_ok(c.canary > 0, "with a budget of 8,000 mappings most stacks are canary stacks (%zu)", c.canary);
#endif
    }
    tap_diag("%d tasks: %.2f s, %ld mappings at the peak (%s: %zu guarded stacks, %zu canary stacks)", NTASKS, secs,
             m.peak_maps, mode, c.guarded, c.canary);
    oxl_sched_result_free(&r);
}

/* A run whose stacks do not fit the address space it may have (a 2 GiB
 * RLIMIT_AS, 64 MiB stacks): exhausted, with a report that says what ran
 * out, and status 102. Not under AddressSanitizer, which needs far more
 * address space than any such limit allows. */
#ifndef TEST_ASAN
typedef struct many_big {
    int spawned;
} many_big;

static void *spawn_until_stopped(void *arg) {
    many_big *m = arg;
    for (int i = 0; i < 1000; i++) {
        if (!oxl_spawn(worker, NULL)) return NULL;
        m->spawned++;
    }
    return NULL;
}

#endif

static void test_exhausted(void) {
#ifdef TEST_ASAN
    tap_skip("AddressSanitizer cannot run under an address space limit", "a run out of stacks is exhausted");
#else
    int out[2];
    if (pipe(out) != 0) tap_bail("pipe");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        dup2(out[1], 2);
        struct rlimit rl = {(rlim_t)2 << 30, (rlim_t)2 << 30};
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
        oxl_sched_options o;
        oxl_sched_options_default(&o, 1);
        o.stack_size = 64 << 20;
        many_big m = {0};
        oxl_sched_result r = oxl_sched_run(spawn_until_stopped, &m, &o);
        int st = oxl_sched_exit_status(&r, stderr);
        fprintf(stderr, "spawned %d, status %d\n", m.spawned, (int)r.status);
        _exit(st);
    }
    close(out[1]);
    char buf[4096];
    size_t n = 0;
    ssize_t k;
    while (n + 1 < sizeof buf && (k = read(out[0], buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)k;
    buf[n] = '\0';
    close(out[0]);
    int st;
    waitpid(pid, &st, 0);
    tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == OXL_EXIT_EXHAUSTED, "a run out of address space for stacks: status 102");
    tap_contains(buf, "resource exhausted: cannot have a 67108864 byte task stack for a task beyond the ",
                 "the report says what ran out");
    tap_contains(buf, "cannot map a region of task stacks: Cannot allocate memory (this process has ",
                 "why, with the process's mappings");
    tap_ok(strstr(buf, "panic") == NULL, "it is no panic of the program");
    char want[64];
    snprintf(want, sizeof want, "status %d\n", (int)OXL_SCHED_EXHAUSTED);
    tap_contains(buf, want, "the run's status is OXL_SCHED_EXHAUSTED");
#endif
}

int main(void) {
    oxl_rt_init();
    test_many_tasks();
    test_exhausted();
    return tap_done();
}
