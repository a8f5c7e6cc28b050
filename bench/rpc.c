/* bench/rpc: what a remote call costs.
 *
 * Two NodeStates, a caller and a server of one service (add(Int, Int) ->
 * Int, a wire entry as the compiler emits one), on the deterministic
 * scheduler with tracing on: calls per second, one after the other. The
 * baseline, in the same run: two World nodes bouncing a 16-byte message
 * between their processes (no scheduler, no tasks), messages per second.
 * A call is two messages plus a task for the handler, encoding, decoding
 * and the wait; the ratio is a call's time over two raw messages'
 * (target: at most 5), the median of ROUNDS rounds, each a run of calls
 * then a run of messages. With an oxl beside it (or given), it also times
 * `oxl test --kind sim` over examples/shop (the 500-seed sweeps) at -j 2,
 * best of RUNS, binary cached: seeds per second (target: 1,000).
 *   bench_rpc [calls a round] [path/to/oxl]   (default 100,000; a round
 *   much shorter would time the run's warm-up, which fills the answers a
 *   node keeps for duplicates, 1,024 of them) */
#include "bench_util.h"
#include "oxl_rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef OXL_SOURCE_DIR
#define OXL_SOURCE_DIR "."
#endif

#define RUNS 3    /* shop sweeps */
#define ROUNDS 9  /* call and message rounds */

/* ---- the service ---- */

static const oxl_type_desc d_int = {.kind = OXL_TD_INT, .name = "Int"};
static const oxl_type_desc *const two_ints[] = {&d_int, &d_int};
static oxl_word add(const oxl_word *a) { return (oxl_word)((int64_t)a[0] + (int64_t)a[1]); }
static const oxl_rpc_method methods[] = {{"add", add, 2, two_ints, &d_int, "bench.oxl", 1}};
static const oxl_service adder = {"Adder", 0, 0, NULL, NULL, 1, methods};

typedef struct calls {
    int64_t n, sum;
    double seconds;
} calls;

static void *caller(void *arg) {
    calls *c = arg;
    double t0 = bench_now();
    for (int64_t i = 0; i < c->n; i++) {
        oxl_word args[2] = {(oxl_word)i, 1}, out;
        if (oxl_rpc_call(&adder, 0, args, OXL_RPC_NO_DEADLINE, NULL, &out, "bench.oxl", 2) != OXL_RPC_OK) {
            fprintf(stderr, "bench_rpc: call %lld failed\n", (long long)i);
            exit(1);
        }
        c->sum += (int64_t)out;
    }
    c->seconds = bench_now() - t0;
    return NULL;
}

static void *root(void *arg) {
    oxl_node *a = oxl_node_new(&(oxl_node_config){.name = "a"});
    oxl_node *b = oxl_node_new(&(oxl_node_config){.name = "b", .panic_crashes = true});
    oxl_rpc_serve(b, &adder);
    oxl_join(oxl_spawn_on_node(a, caller, arg), NULL);
    return NULL;
}

static double run_calls(int64_t n, uint64_t *hash) {
    oxl_sched_options opt;
    oxl_sched_options_default(&opt, 7);
    opt.trace_messages = true;
    calls c = {n, 0, 0};
    oxl_sched_result r = oxl_sched_run(root, &c, &opt);
    if (r.status != OXL_SCHED_FINISHED) {
        fprintf(stderr, "bench_rpc: the run failed: %s\n", r.report ? r.report : "?");
        exit(1);
    }
    int64_t want = n * (n - 1) / 2 + n;
    if (c.sum != want) {
        fprintf(stderr, "bench_rpc: wrong sum %lld, expected %lld\n", (long long)c.sum, (long long)want);
        exit(1);
    }
    *hash = r.trace_hash;
    oxl_sched_result_free(&r);
    return c.seconds;
}

/* ---- the baseline: raw messages between two World nodes ---- */

typedef struct bouncer {
    oxl_process base;
    int64_t *budget;
} bouncer;

static void b_start(oxl_process *self, oxl_ctx c) {
    (void)self;
    if (c.node == 0) {
        unsigned char m[16] = {0};
        oxl_ctx_send(c, 1, m, sizeof m);
    }
}
static void b_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *d, size_t n) {
    bouncer *b = (bouncer *)self;
    if (--*b->budget > 0) oxl_ctx_send(c, from, d, n);
}
static void b_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops b_ops = {b_start, b_message, b_destroy};
static oxl_process *b_new(oxl_ctx c, void *arg) {
    (void)c;
    bouncer *b = malloc(sizeof *b);
    b->base.ops = &b_ops;
    b->budget = arg;
    return &b->base;
}

static double run_messages(int64_t n, uint64_t *count) {
    oxl_world_options o = oxl_world_options_default(7);
    oxl_world *w = oxl_world_new(&o);
    int64_t budget = n;
    oxl_world_add_node(w, "a", b_new, &budget);
    oxl_world_add_node(w, "b", b_new, &budget);
    double t0 = bench_now();
    oxl_world_run(w);
    double dt = bench_now() - t0;
    *count = (uint64_t)n;
    oxl_world_free(w);
    return dt;
}

/* ---- the shop through oxl test ---- */

static void shop_sweep(const char *given) {
    char oxl[4096];
    const char *dir = OXL_SOURCE_DIR "/examples/shop";
    if (!bench_find_oxl(given, oxl, sizeof oxl)) {
        printf("rpc.shop_j2.seeds_per_sec: unavailable (no oxl)\n");
        return;
    }
    if (access(dir, R_OK) != 0) {
        printf("rpc.shop_j2.seeds_per_sec: unavailable (no %s)\n", dir);
        return;
    }
    char *argv[] = {oxl, "test", (char *)dir, "--kind", "sim", "-j", "2", NULL};
    double best = 0, secs;
    if (bench_run(argv, NULL, NULL, &secs) != 0) { /* builds the binary into the cache */
        printf("rpc.shop_j2.seeds_per_sec: unavailable (oxl test failed)\n");
        return;
    }
    for (int i = 0; i < RUNS; i++) {
        if (bench_run(argv, NULL, NULL, &secs) != 0) {
            printf("rpc.shop_j2.seeds_per_sec: unavailable (oxl test failed)\n");
            return;
        }
        if (!best || secs < best) best = secs;
    }
    printf("rpc.shop_j2.seeds_per_sec: %.0f seeds/s (1,000 seeds in %.2f s, best of %d)\n", 1000 / best, best, RUNS);
    printf("rpc.shop_j2_vs_target.ratio: %.2f (target >= 1.00: 1,000 seeds/s)\n", 1000 / best / 1000);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int64_t per_round = argc > 1 ? atoll(argv[1]) : 100000;
    if (per_round <= 0) {
        fprintf(stderr, "usage: bench_rpc [calls a round] [path/to/oxl]\n");
        return 2;
    }
    oxl_rt_init();
    /* Rounds of calls and of messages, one after the other: each round's
     * ratio compares two runs a few milliseconds apart, which a machine
     * whose speed drifts (a shared one) disturbs far less than the best of
     * each taken apart. The median round is the figure. */
    uint64_t hash = 0, msgs = 0;
    double best_call = 0, best_msg = 0, ratio[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        double c = run_calls(per_round, &hash) / (double)per_round;
        double m = run_messages(2 * per_round, &msgs) / (double)msgs;
        if (!best_call || c < best_call) best_call = c;
        if (!best_msg || m < best_msg) best_msg = m;
        ratio[i] = c / (2 * m);
    }
    qsort(ratio, ROUNDS, sizeof ratio[0], by_value);
    printf("rpc.calls_per_sec: %.0f calls/s (%.0f ns a call, trace on, hash %016llx, best of %d rounds of %lld)\n",
           1 / best_call, best_call * 1e9, (unsigned long long)hash, ROUNDS, (long long)per_round);
    printf("rpc.raw_messages_per_sec: %.0f messages/s (%.0f ns a message, best round)\n", 1 / best_msg, best_msg * 1e9);
    printf("rpc.call_vs_two_messages.ratio: %.2f (target <= 5.00; median of %d rounds, %.2f..%.2f)\n",
           ratio[ROUNDS / 2], ROUNDS, ratio[0], ratio[ROUNDS - 1]);
    shop_sweep(argc > 2 ? argv[2] : NULL);
    return 0;
}
