/* bench/time_compression: 100 tasks, each ticking on its own staggered
 * interval between 1 and 2 seconds, 3600 ticks each; prints simulated
 * seconds per wall second. The baseline in the same run: the wall time of
 * the bare World doing the same ticks as timers of 100 nodes (no tasks).
 * The same tickers in generated OxL code (bench/oxl_sched, a sim test
 * built -O2 by the oxl beside the benchmark) are timed too: runs of 3,600
 * and 36 ticks, each a process, the difference of their least CPU times
 * against the difference of their virtual times.
 *   bench_time_compression [ticks]   (default 3600) */
#include "bench_util.h"
#include "oxl_sched.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef OXL_SOURCE_DIR
#define OXL_SOURCE_DIR "."
#endif

enum { TASKS = 100 };

typedef struct ticker {
    oxl_dur_ns interval;
    long ticks;
} ticker;

static void *tick_run(void *arg) {
    ticker *t = arg;
    for (long i = 0; i < t->ticks; i++) oxl_sleep(t->interval);
    return NULL;
}

static void *root(void *arg) {
    ticker *ts = arg;
    oxl_task *tasks[TASKS];
    for (int i = 0; i < TASKS; i++) tasks[i] = oxl_spawn(tick_run, &ts[i]);
    for (int i = 0; i < TASKS; i++) oxl_join(tasks[i], NULL);
    return NULL;
}

/* The baseline: node processes re-arming a timer, the World alone. */
typedef struct timer_proc {
    oxl_process base;
    ticker *t;
    long done;
} timer_proc;

static void tp_tick(oxl_process *self, oxl_ctx c, void *arg) {
    timer_proc *p = (timer_proc *)self;
    if (++p->done < p->t->ticks) oxl_ctx_set_timer(c, p->t->interval, tp_tick, NULL);
}
static void tp_start(oxl_process *self, oxl_ctx c) { oxl_ctx_set_timer(c, ((timer_proc *)self)->t->interval, tp_tick, NULL); }
static void tp_message(oxl_process *self, oxl_ctx c, oxl_node_id f, const void *d, size_t n) {}
static void tp_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops tp_ops = {tp_start, tp_message, tp_destroy};
static oxl_process *tp_new(oxl_ctx c, void *arg) {
    timer_proc *p = calloc(1, sizeof *p);
    p->base.ops = &tp_ops;
    p->t = arg;
    return &p->base;
}

/* The OxL tickers (tests 2 and 3 of bench/oxl_sched: 36 and 3,600 ticks
 * on intervals of 1 s + i * 10 ms): simulated seconds per CPU second, or a
 * negative number when they cannot be measured. */
static double oxl_speedup(void) {
    double cpu[2], wall[2];
    if (!bench_oxl_sched_pair(OXL_SOURCE_DIR, "bench_time_compression", 2, 3, cpu, wall)) return -1;
    double simulated = 1.99 * (3600 - 36); /* the slowest ticker's end, less the short run's */
    printf("time_compression.oxl.ns_per_tick: %.1f ns (CPU time)\n", (cpu[1] - cpu[0]) * 1e9 / ((3600 - 36) * TASKS));
    printf("time_compression.oxl.wall_speedup: %.0f x (best wall times, disturbed by the machine's load)\n",
           simulated / (wall[1] - wall[0]));
    return simulated / (cpu[1] - cpu[0]);
}

/* This process's CPU seconds. */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    long ticks = 3600;
    if (argc > 1) {
        char *end;
        ticks = strtol(argv[1], &end, 10);
        if (*end || ticks <= 0 || ticks > 100000000) {
            fprintf(stderr, "bench_time_compression: bad tick count '%s'\n", argv[1]);
            return 2;
        }
    }
    ticker ts[TASKS];
    for (int i = 0; i < TASKS; i++) ts[i] = (ticker){OXL_SEC + (oxl_dur_ns)i * (OXL_SEC / TASKS), ticks};
    double best = 1e30, best_world = 1e30, best_cpu = 1e30;
    oxl_time_ns simulated = 0;
    for (int rep = 0; rep < 9; rep++) {
        oxl_sched_options o;
        oxl_sched_options_default(&o, 7);
        o.time_limit = (oxl_dur_ns)ticks * 3 * OXL_SEC;
        double t0 = bench_now(), c0 = cpu_now();
        oxl_sched_result r = oxl_sched_run(root, ts, &o);
        double dt = bench_now() - t0, dc = cpu_now() - c0;
        if (dc < best_cpu) best_cpu = dc;
        if (r.status != OXL_SCHED_FINISHED) {
            fprintf(stderr, "bench_time_compression: run failed: %s\n", r.report ? r.report : "?");
            return 1;
        }
        simulated = r.end_time;
        oxl_sched_result_free(&r);
        if (dt < best) best = dt;

        oxl_world_options wo = oxl_world_options_default(7);
        oxl_world *w = oxl_world_new(&wo);
        char name[16];
        for (int i = 0; i < TASKS; i++) {
            snprintf(name, sizeof name, "t%d", i);
            oxl_world_add_node(w, name, tp_new, &ts[i]);
        }
        t0 = bench_now();
        oxl_world_run(w);
        dt = bench_now() - t0;
        oxl_world_free(w);
        if (dt < best_world) best_world = dt;
    }
    double sim_s = (double)simulated / 1e9;
    printf("time_compression.ticks: %ld ticks\n", ticks * TASKS);
    printf("time_compression.simulated: %.0f s\n", sim_s);
    printf("time_compression.wall: %.4f s\n", best);
    printf("time_compression.speedup: %.0f x simulated seconds per wall second (target >= 400000)\n", sim_s / best);
    printf("time_compression.ns_per_tick: %.1f ns\n", best * 1e9 / (double)(ticks * TASKS));
    printf("time_compression.cpu_speedup: %.0f x simulated seconds per CPU second (what the machine's load disturbs "
           "least; target >= 400000)\n", sim_s / best_cpu);
    printf("time_compression.cpu_ns_per_tick: %.1f ns\n", best_cpu * 1e9 / (double)(ticks * TASKS));
    printf("time_compression.world_timers_ns_per_tick: %.1f ns\n", best_world * 1e9 / (double)(ticks * TASKS));
    printf("time_compression.tasks_vs_world_timers.ratio: %.2f x\n", best / best_world);
    double oxl = oxl_speedup();
    if (oxl > 0) {
        printf("time_compression.oxl.speedup: %.0f x simulated seconds per CPU second (the tickers in generated OxL "
               "code, a sim test; target >= 400000)\n", oxl);
        printf("time_compression.oxl_vs_c.ratio: %.2f x the C tickers' speedup (both by CPU time)\n",
               oxl / (sim_s / best_cpu));
    } else {
        printf("time_compression.oxl.speedup: unavailable (the OxL tickers could not be built or run)\n");
    }
    return 0;
}
