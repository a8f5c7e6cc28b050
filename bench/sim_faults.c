/* bench/sim_faults: what the fault log costs. The 5-node all-to-all ping
 * workload of sim_events with drops, duplicates and reorders at 1% each
 * (so every message passes three fault chances), run with the log off (the
 * path of a run that does not ask for it), recording, and replaying the
 * recording. The baseline is the off run in the same invocation.
 *   bench_sim_faults [events]   (default 3,000,000) */
#include "bench_util.h"
#include "oxl_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NODES = 5 };

typedef struct pinger {
    oxl_process base;
    int64_t *budget;
} pinger;

static void p_start(oxl_process *self, oxl_ctx c) {
    (void)self;
    uint64_t v = 0;
    for (oxl_node_id to = 0; to < NODES; to++)
        if (to != c.node) oxl_ctx_send(c, to, &v, sizeof v);
}

static void p_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *d, size_t n) {
    (void)n;
    pinger *p = (pinger *)self;
    if (--*p->budget <= 0) return;
    uint64_t v;
    memcpy(&v, d, sizeof v);
    v++;
    oxl_ctx_send(c, from, &v, sizeof v);
    if (oxl_world_pending(c.world) < 20) oxl_ctx_send(c, from, &v, sizeof v); /* drops do not starve it */
}

static void p_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops p_ops = {p_start, p_message, p_destroy};
static oxl_process *p_new(oxl_ctx c, void *arg) {
    (void)c;
    pinger *p = malloc(sizeof *p);
    p->base.ops = &p_ops;
    p->budget = arg;
    return &p->base;
}

enum { OFF, RECORD, REPLAY };

static oxl_fault *recorded;
static size_t nrecorded;

static double run_world(int mode, int64_t target, uint64_t *events, uint64_t *hash) {
    oxl_world_options o = oxl_world_options_default(42);
    o.trace_messages = false;
    oxl_world *w = oxl_world_new(&o);
    if (mode == RECORD) oxl_world_record_faults(w);
    if (mode == REPLAY) oxl_world_replay_faults(w, recorded, nrecorded);
    oxl_net_drop(w, 0.01);
    oxl_net_duplicate(w, 0.01);
    oxl_net_reorder(w, 0.01);
    int64_t budget = target;
    char name[16];
    for (int i = 0; i < NODES; i++) {
        snprintf(name, sizeof name, "n%d", i);
        oxl_world_add_node(w, name, p_new, &budget);
    }
    double t0 = bench_now();
    oxl_world_run(w);
    double dt = bench_now() - t0;
    *events = oxl_world_event_count(w);
    *hash = oxl_world_trace_hash(w);
    if (mode == RECORD && !recorded) {
        const oxl_fault *log;
        nrecorded = oxl_world_fault_log(w, &log);
        recorded = malloc((nrecorded ? nrecorded : 1) * sizeof *recorded);
        memcpy(recorded, log, nrecorded * sizeof *recorded);
    }
    oxl_world_free(w);
    return dt;
}

int main(int argc, char **argv) {
    int64_t target = 3000000;
    if (argc > 1) {
        char *end;
        target = strtoll(argv[1], &end, 10);
        if (*end || target <= 0) {
            fprintf(stderr, "bench_sim_faults: bad event count '%s'\n", argv[1]);
            return 2;
        }
    }
    double best[3] = {1e9, 1e9, 1e9};
    uint64_t ev[3] = {0}, h[3] = {0};
    for (int rep = 0; rep < 5; rep++)
        for (int m = 0; m < 3; m++) {
            double t = run_world(m, target, &ev[m], &h[m]);
            if (t < best[m]) best[m] = t;
        }
    if (h[0] != h[1] || h[0] != h[2] || ev[0] != ev[1] || ev[0] != ev[2]) {
        fprintf(stderr, "bench_sim_faults: the three runs differ (events %llu %llu %llu)\n",
                (unsigned long long)ev[0], (unsigned long long)ev[1], (unsigned long long)ev[2]);
        return 1;
    }
    printf("sim_faults.events: %llu events\n", (unsigned long long)ev[0]);
    printf("sim_faults.faults: %zu faults\n", nrecorded);
    printf("sim_faults.off.ns_per_event: %.1f ns\n", best[0] * 1e9 / (double)ev[0]);
    printf("sim_faults.record.ns_per_event: %.1f ns\n", best[1] * 1e9 / (double)ev[1]);
    printf("sim_faults.replay.ns_per_event: %.1f ns\n", best[2] * 1e9 / (double)ev[2]);
    printf("sim_faults.record_vs_off.ratio: %.3f x\n", best[1] / best[0]);
    printf("sim_faults.replay_vs_off.ratio: %.3f x\n", best[2] / best[0]);
    free(recorded);
    return 0;
}
