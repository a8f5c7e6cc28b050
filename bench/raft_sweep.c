/* bench/raft_sweep: seeds per second of the 5-node Raft chaos sweep
 * (tests/unit/raft, raft_scenario_bench: 10 simulated seconds, three
 * partition windows, a restart in about half the seeds, 2% drop and 2%
 * duplication, a client proposing; then the liveness phase and the
 * linearizability check), on one core and on two (two processes, each
 * half the seeds), and the wall time to find each planted bug with the
 * test sweep's scenario (raft_scenario_chaos). The baseline in the same
 * run: the bare World running as many events as a Raft seed does, a
 * 5-node ping (the kernel's floor under the protocol and its oracles).
 *   bench_raft_sweep [seeds]   (default 2000) */
#include "bench_util.h"
#include "raft_scenario.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { NODES = 5 };

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs seeds first, first+step, ... (count of them); returns the number
 * that failed and adds the events to *events. */
static uint64_t run_seeds(uint64_t first, uint64_t count, uint64_t step, uint64_t *events) {
    raft_run_stats stats = {0};
    raft_scenario_options opt = raft_scenario_bench();
    opt.stats = &stats;
    uint64_t failed = 0;
    for (uint64_t i = 0; i < count; i++) {
        oxl_world_options wo = oxl_world_options_default(first + i * step);
        wo.trace_messages = false;
        wo.trace_capacity = 64;
        oxl_world *w = oxl_world_new(&wo);
        const char *why = raft_scenario_run(w, &opt);
        if (why) {
            if (failed == 0) fprintf(stderr, "bench_raft_sweep: seed %" PRIu64 " failed: %s\n", first + i * step, why);
            failed++;
        }
        oxl_world_free(w);
    }
    if (events) *events += stats.events;
    return failed;
}

/* The seeds split over two processes; returns the wall seconds. */
static double run_two(uint64_t seeds, uint64_t *failed) {
    double t0 = bench_now();
    pid_t pids[2];
    for (int k = 0; k < 2; k++) {
        pids[k] = fork();
        if (pids[k] < 0) {
            perror("bench_raft_sweep: fork");
            exit(1);
        }
        if (pids[k] == 0) {
            uint64_t mine = seeds / 2 + (k == 0 ? seeds % 2 : 0);
            _exit(run_seeds(1 + (uint64_t)k, mine, 2, NULL) ? 1 : 0);
        }
    }
    *failed = 0;
    for (int k = 0; k < 2; k++) {
        int st = 0;
        waitpid(pids[k], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) (*failed)++;
    }
    return bench_now() - t0;
}

/* ---- the baseline: the bare World, a 5-node all-to-all ping ---------------------------------------------- */
typedef struct pinger {
    oxl_process base;
    int64_t *budget;
} pinger;

static void p_start(oxl_process *self, oxl_ctx c) {
    uint64_t v = 0;
    for (oxl_node_id to = 0; to < NODES; to++)
        if (to != c.node) oxl_ctx_send(c, to, &v, sizeof v);
}
static void p_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *d, size_t n) {
    pinger *p = (pinger *)self;
    if (--*p->budget <= 0) return;
    oxl_ctx_send(c, from, d, n);
}
static void p_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops p_ops = {p_start, p_message, p_destroy};
static oxl_process *p_new(oxl_ctx c, void *arg) {
    pinger *p = malloc(sizeof *p);
    p->base.ops = &p_ops;
    p->budget = arg;
    return &p->base;
}

/* One world per "seed", as the sweep makes; returns seconds for `worlds`
 * worlds of `events` events each. */
static double run_bare(uint64_t worlds, int64_t events) {
    double t0 = bench_now();
    for (uint64_t i = 0; i < worlds; i++) {
        oxl_world_options o = oxl_world_options_default(i + 1);
        o.trace_messages = false;
        o.trace_capacity = 64;
        oxl_world *w = oxl_world_new(&o);
        int64_t budget = events;
        char name[16];
        for (int n = 0; n < NODES; n++) {
            snprintf(name, sizeof name, "n%d", n);
            oxl_world_add_node(w, name, p_new, &budget);
        }
        oxl_world_run(w);
        oxl_world_free(w);
    }
    return bench_now() - t0;
}

/* ---- planted bugs: wall time to the first failing seed ---------------------------------------------------- */
static double find_bug(raft_bug b, uint64_t *seed_found) {
    raft_scenario_options opt = raft_scenario_chaos();
    opt.raft.bugs = RAFT_BUG_BIT(b);
    double t0 = bench_now();
    *seed_found = 0;
    for (uint64_t seed = 1; seed <= 1000 && !*seed_found; seed++) {
        oxl_world_options wo = oxl_world_options_default(seed);
        wo.trace_messages = false;
        wo.trace_capacity = 64;
        oxl_world *w = oxl_world_new(&wo);
        if (raft_scenario_run(w, &opt)) *seed_found = seed;
        oxl_world_free(w);
    }
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    uint64_t seeds = 2000;
    if (argc > 1) {
        char *end;
        long long v = strtoll(argv[1], &end, 10);
        if (*end || v < 2 || v > 10000000) {
            fprintf(stderr, "bench_raft_sweep: bad seed count '%s' (2..10000000)\n", argv[1]);
            return 2;
        }
        seeds = (uint64_t)v;
    }
    double best_one = 1e30, best_cpu = 1e30, best_two = 1e30, best_bare = 1e30;
    uint64_t events = 0, failed = 0;
    for (int rep = 0; rep < 3; rep++) {
        uint64_t ev = 0;
        double c0 = cpu_now(), t0 = bench_now();
        failed += run_seeds(1, seeds, 1, &ev);
        double dt = bench_now() - t0, dc = cpu_now() - c0;
        if (dt < best_one) best_one = dt;
        if (dc < best_cpu) best_cpu = dc;
        events = ev;
        uint64_t f2 = 0;
        dt = run_two(seeds, &f2);
        failed += f2;
        if (dt < best_two) best_two = dt;
        dt = run_bare(seeds, (int64_t)(events / seeds));
        if (dt < best_bare) best_bare = dt;
    }
    if (failed) {
        fprintf(stderr, "bench_raft_sweep: %" PRIu64 " failing runs: the intact Raft must pass every seed\n", failed);
        return 1;
    }
    double one = (double)seeds / best_one, two = (double)seeds / best_two;
    double per_event = best_one / (double)events, bare_per_event = best_bare / (double)events;
    printf("raft_sweep.seeds: %" PRIu64 " seeds\n", seeds);
    printf("raft_sweep.events_per_seed: %" PRIu64 " events\n", events / seeds);
    printf("raft_sweep.one_core.seeds_per_sec: %.0f seeds/s\n", one);
    printf("raft_sweep.one_core.cpu_seeds_per_sec: %.0f seeds/s (per second of process CPU time)\n",
           (double)seeds / best_cpu);
    printf("raft_sweep.two_cores.seeds_per_sec: %.0f seeds/s\n", two);
    printf("raft_sweep.two_cores_vs_one_core.ratio: %.2f x (2 would be perfect scaling)\n", two / one);
    printf("raft_sweep.one_core_vs_target.ratio: %.2f x (of the 1,000 seeds/s target)\n", one / 1000.0);
    printf("raft_sweep.ns_per_event: %.0f ns (protocol, disk, oracles and checker included)\n", per_event * 1e9);
    printf("raft_sweep.bare_world.ns_per_event: %.0f ns (5-node ping, a world per seed)\n", bare_per_event * 1e9);
    printf("raft_sweep.raft_vs_bare_world.ratio: %.2f x\n", per_event / bare_per_event);
    double slowest = 0;
    for (int b = 1; b <= RAFT_BUG_COUNT; b++) {
        uint64_t seed;
        double dt = find_bug((raft_bug)b, &seed);
        if (!seed) {
            printf("raft_sweep.bug.%s.seed: none in 1000 seeds\n", raft_bug_name((raft_bug)b));
            slowest = 1e9;
            continue;
        }
        printf("raft_sweep.bug.%s.seed: %" PRIu64 " seed\n", raft_bug_name((raft_bug)b), seed);
        printf("raft_sweep.bug.%s.seconds: %.4f s\n", raft_bug_name((raft_bug)b), dt);
        if (dt > slowest) slowest = dt;
    }
    printf("raft_sweep.slowest_bug_vs_target.ratio: %.3f x (of the 1 s target; below 1 meets it)\n", slowest);
    return 0;
}
