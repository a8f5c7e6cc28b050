/* bench/sim_events: a 5-node all-to-all ping workload on the World.
 * Prints events per second and ns per event with trace_messages off and
 * on, and a baseline in the same run: the same number of push/pop pairs on
 * a bare binary heap, the floor any event queue pays.
 *   bench_sim_events [events]   (default 5,000,000) */
#include "bench_util.h"
#include "oxl_sim.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NODES = 5 };

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
    uint64_t v;
    memcpy(&v, d, sizeof v);
    v++;
    oxl_ctx_send(c, from, &v, sizeof v);
}

static void p_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops p_ops = {p_start, p_message, p_destroy};
static oxl_process *p_new(oxl_ctx c, void *arg) {
    pinger *p = malloc(sizeof *p);
    p->base.ops = &p_ops;
    p->budget = arg;
    return &p->base;
}

/* Returns seconds for the run; *events gets the count. */
static double run_world(bool trace_messages, int64_t target, uint64_t *events, uint64_t *hash) {
    oxl_world_options o = oxl_world_options_default(42);
    o.trace_messages = trace_messages;
    oxl_world *w = oxl_world_new(&o);
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
    if (oxl_world_failed(w)) {
        fprintf(stderr, "bench_sim_events: world failed: %s\n", oxl_world_failure(w));
        exit(1);
    }
    oxl_world_free(w);
    return dt;
}

/* The baseline: a bare (time, tie) binary heap holding 20 items, popped and
 * pushed the same number of times with an xorshift "latency". */
typedef struct item {
    int64_t t;
    uint64_t tie;
} item;

static double run_heap(uint64_t n, uint64_t *sink) {
    item h[64];
    size_t len = 0;
    uint64_t x = 88172645463325252ull, seq = 0;
    for (int i = 0; i < 20; i++) {
        item it = {(int64_t)(x % 4000000) + 1000000, seq++};
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t k = len++;
        while (k && (h[(k - 1) / 2].t > it.t || (h[(k - 1) / 2].t == it.t && h[(k - 1) / 2].tie > it.tie)))
            h[k] = h[(k - 1) / 2], k = (k - 1) / 2;
        h[k] = it;
    }
    double t0 = bench_now();
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        item top = h[0], last = h[--len];
        size_t k = 0;
        for (;;) {
            size_t c = 2 * k + 1;
            if (c >= len) break;
            if (c + 1 < len && (h[c + 1].t < h[c].t || (h[c + 1].t == h[c].t && h[c + 1].tie < h[c].tie))) c++;
            if (!(h[c].t < last.t || (h[c].t == last.t && h[c].tie < last.tie))) break;
            h[k] = h[c], k = c;
        }
        if (len) h[k] = last;
        acc += (uint64_t)top.t;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        item it = {top.t + (int64_t)(x % 4000000) + 1000000, seq++};
        k = len++;
        while (k && (h[(k - 1) / 2].t > it.t || (h[(k - 1) / 2].t == it.t && h[(k - 1) / 2].tie > it.tie)))
            h[k] = h[(k - 1) / 2], k = (k - 1) / 2;
        h[k] = it;
    }
    *sink = acc;
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    int64_t target = 5000000;
    if (argc > 1) {
        char *end;
        target = strtoll(argv[1], &end, 10);
        if (*end || target <= 0) {
            fprintf(stderr, "bench_sim_events: bad event count '%s'\n", argv[1]);
            return 2;
        }
    }
    double best_off = 1e9, best_on = 1e9, best_heap = 1e9;
    uint64_t ev_off = 0, ev_on = 0, h_off = 0, h_on = 0, sink = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t = run_world(false, target, &ev_off, &h_off);
        if (t < best_off) best_off = t;
        t = run_world(true, target, &ev_on, &h_on);
        if (t < best_on) best_on = t;
        t = run_heap(ev_off, &sink);
        if (t < best_heap) best_heap = t;
    }
    double eps_off = (double)ev_off / best_off, eps_on = (double)ev_on / best_on;
    printf("sim_events.events: %llu events\n", (unsigned long long)ev_off);
    printf("sim_events.trace_off.events_per_sec: %.0f events/s\n", eps_off);
    printf("sim_events.trace_off.ns_per_event: %.1f ns\n", 1e9 / eps_off);
    printf("sim_events.trace_on.events_per_sec: %.0f events/s\n", eps_on);
    printf("sim_events.trace_on.ns_per_event: %.1f ns\n", 1e9 / eps_on);
    printf("sim_events.trace_on_vs_off.ratio: %.2f x (trace on costs this many times trace off; target <= 2)\n",
           eps_off / eps_on);
    printf("sim_events.heap_baseline.ns_per_event: %.1f ns\n", best_heap * 1e9 / (double)ev_off);
    printf("sim_events.trace_off_vs_heap_baseline.ratio: %.2f x\n", (1e9 / eps_off) / (best_heap * 1e9 / (double)ev_off));
    printf("sim_events.trace_off_vs_target.ratio: %.2f x (of the 10,000,000 events/s target)\n", eps_off / 1e7);
    printf("sim_events.trace_off.hash: %016llx hex\n", (unsigned long long)h_off);
    printf("sim_events.trace_on.hash: %016llx hex\n", (unsigned long long)h_on);
    if (sink == 42) printf("sim_events.sink: %llu\n", (unsigned long long)sink); /* keeps the baseline loop alive */
    return 0;
}
