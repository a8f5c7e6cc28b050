/* sim_world_test: one test per semantic rule of the World (network, crashes,
 * incarnations, clocks, timers, tie order, invariants, misuse), and what
 * oxl_world_describe says of its cuts. */
#include "oxl_sim.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a recording process: logs what it receives into a shared log ---- */
#define LOG_MAX 4096

typedef struct received {
    oxl_node_id to, from;
    uint32_t incarnation;
    oxl_time_ns at;
    int payload;
} received;

typedef struct log {
    received items[LOG_MAX];
    int count;
    int total; /* every message received, logged or past LOG_MAX */
    int starts;
    int timer_fired;
} log_t;

typedef struct rec {
    oxl_process base;
    log_t *log;
} rec;

static void rec_start(oxl_process *self, oxl_ctx c) { ((rec *)self)->log->starts++; }

static void rec_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *data, size_t len) {
    log_t *lg = ((rec *)self)->log;
    int payload = 0;
    if (len == sizeof payload) memcpy(&payload, data, sizeof payload);
    lg->total++;
    if (lg->count < LOG_MAX) lg->items[lg->count++] = (received){c.node, from, c.incarnation, oxl_world_now(c.world), payload};
}

static void rec_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops rec_ops = {rec_start, rec_message, rec_destroy};

static oxl_process *rec_new(oxl_ctx c, void *arg) {
    rec *r = calloc(1, sizeof *r);
    r->base.ops = &rec_ops;
    r->log = arg;
    return &r->base;
}

static oxl_world *world_with(uint64_t seed, int nodes, log_t *lg) {
    oxl_world_options o = oxl_world_options_default(seed);
    oxl_world *w = oxl_world_new(&o);
    char name[16];
    for (int i = 0; i < nodes; i++) {
        snprintf(name, sizeof name, "n%d", i);
        oxl_world_add_node(w, name, rec_new, lg);
    }
    oxl_world_run(w); /* boot everyone */
    return w;
}

static void send_int(oxl_world *w, oxl_node_id from, oxl_node_id to, int v) {
    oxl_ctx_send(oxl_world_ctx(w, from), to, &v, sizeof v);
}

static int count_from_to(const log_t *lg, oxl_node_id from, oxl_node_id to) {
    int n = 0;
    for (int i = 0; i < lg->count; i++) n += lg->items[i].from == from && lg->items[i].to == to;
    return n;
}

/* ---- tests ---- */

static void test_boot_and_delivery(void) {
    log_t lg = {0};
    oxl_world *w = world_with(1, 3, &lg);
    tap_is_int(lg.starts, 3, "every node boots once");
    tap_is_int(oxl_world_node_by_name(w, "n2"), 2, "nodes are found by name");
    tap_is_int(oxl_world_node_by_name(w, "nope"), OXL_NO_NODE, "an unknown name is OXL_NO_NODE");
    send_int(w, 0, 1, 42);
    oxl_world_run(w);
    tap_is_int(lg.count, 1, "one message delivered");
    tap_ok(lg.items[0].at >= 1 * OXL_MS && lg.items[0].at <= 5 * OXL_MS, "default latency is within 1ms..5ms (got %lld)",
           (long long)lg.items[0].at);
    tap_is_int(lg.items[0].payload, 42, "payload arrives intact");
    oxl_world_free(w);
}

static void test_zombie_context(void) {
    log_t lg = {0};
    oxl_world *w = world_with(2, 2, &lg);
    oxl_ctx old = oxl_world_ctx(w, 0);
    tap_ok(oxl_ctx_alive(old), "a fresh context is alive");
    oxl_world_kill(w, 0);
    tap_ok(!oxl_ctx_alive(old), "after kill the context is dead");
    oxl_world_restart(w, 0);
    tap_ok(!oxl_ctx_alive(old), "after restart the old incarnation's context stays dead");
    tap_ok(oxl_ctx_alive(oxl_world_ctx(w, 0)), "the new incarnation's context is alive");
    uint64_t hash = oxl_world_trace_hash(w);
    int v = 7;
    tap_ok(!oxl_ctx_send(old, 1, &v, sizeof v), "a zombie's send is refused");
    tap_is_uint(oxl_ctx_set_timer(old, OXL_MS, NULL, NULL), 0, "a zombie cannot set a timer");
    oxl_ctx_trace(old, "from beyond");
    oxl_ctx_fail(old, "zombie failure");
    tap_ok(oxl_ctx_disk(old) == NULL, "a zombie has no disk");
    tap_is_int(oxl_disk_put(oxl_ctx_disk(old), "k", "v", 1), OXL_DISK_EDEAD, "disk calls through it say EDEAD");
    oxl_world_run(w);
    tap_is_int(lg.count, 0, "nothing the zombie sent arrives");
    tap_ok(!oxl_world_failed(w), "a zombie's fail does not stop the world");
    tap_is_uint(oxl_world_trace_hash(w), hash, "a zombie leaves no trace");
    oxl_world_free(w);
}

static void restart_n1(oxl_world *w, void *arg) { oxl_world_restart(w, 1); }

static void test_in_flight_reaches_next_incarnation(void) {
    log_t lg = {0};
    oxl_world *w = world_with(3, 2, &lg);
    oxl_net_latency(w, 10 * OXL_MS, 10 * OXL_MS);
    send_int(w, 0, 1, 1);
    oxl_world_kill(w, 1);
    oxl_world_after(w, 5 * OXL_MS, "restart n1", restart_n1, NULL);
    oxl_world_run(w);
    tap_is_int(lg.count, 1, "the message sent before the crash is delivered");
    tap_is_int(lg.items[0].incarnation, 2, "to the next incarnation");

    /* If the node is still down when it arrives, the message is lost. */
    send_int(w, 0, 1, 2);
    oxl_world_kill(w, 1);
    oxl_world_after(w, 20 * OXL_MS, "restart n1", restart_n1, NULL);
    oxl_world_run(w);
    tap_is_int(lg.count, 1, "a message reaching a dead node is dropped");
    oxl_world_free(w);
}

static void timer_cb(oxl_process *self, oxl_ctx c, void *arg) { ((rec *)self)->log->timer_fired++; }

static void test_timers(void) {
    log_t lg = {0};
    oxl_world *w = world_with(4, 2, &lg);
    oxl_ctx c = oxl_world_ctx(w, 0);
    oxl_ctx_set_timer(c, 10 * OXL_MS, timer_cb, NULL);
    oxl_timer_id cancelled = oxl_ctx_set_timer(c, 10 * OXL_MS, timer_cb, NULL);
    oxl_ctx_cancel_timer(c, cancelled);
    oxl_world_run(w);
    tap_is_int(lg.timer_fired, 1, "a timer fires, a cancelled one does not");
    tap_is_int(oxl_world_now(w), 10 * OXL_MS, "at its virtual time");
    oxl_ctx_cancel_timer(c, cancelled); /* stale id: harmless */

    c = oxl_world_ctx(w, 1);
    oxl_ctx_set_timer(c, 10 * OXL_MS, timer_cb, NULL);
    oxl_world_crash_for(w, 1, 1 * OXL_MS);
    oxl_world_run(w);
    tap_is_int(lg.timer_fired, 1, "a crash discards the timers of the dead incarnation");
    tap_ok(oxl_world_is_up(w, 1), "crash_for brings the node back");
    tap_is_int(oxl_world_incarnation(w, 1), 2, "as a new incarnation");
    oxl_world_free(w);
}

static void test_partition(void) {
    log_t lg = {0};
    oxl_world *w = world_with(5, 4, &lg);
    oxl_node_id a[] = {0, 1}, b[] = {2, 3};
    tap_is_int(oxl_net_partition(w, a, 2, b, 2, 0), OXL_OK, "partition {n0,n1} | {n2,n3}");
    tap_ok(oxl_net_is_blocked(w, 0, 2) && oxl_net_is_blocked(w, 3, 1), "links across the cut are blocked both ways");
    tap_ok(!oxl_net_is_blocked(w, 0, 1) && !oxl_net_is_blocked(w, 2, 3), "links inside a group are not");
    for (oxl_node_id f = 0; f < 4; f++)
        for (oxl_node_id t = 0; t < 4; t++)
            if (f != t) send_int(w, f, t, f * 10 + t);
    oxl_world_run(w);
    tap_ok(count_from_to(&lg, 0, 1) == 1 && count_from_to(&lg, 1, 0) == 1 && count_from_to(&lg, 2, 3) == 1 &&
               count_from_to(&lg, 3, 2) == 1,
           "messages inside each group arrive");
    tap_is_int(lg.count, 4, "every message across the cut is dropped");
    oxl_net_heal(w);
    tap_ok(!oxl_net_is_blocked(w, 0, 2), "heal lifts the partition");

    /* A partition for a duration heals by itself. */
    oxl_net_partition(w, a, 2, b, 2, 100 * OXL_MS);
    oxl_world_run_for(w, 99 * OXL_MS);
    tap_ok(oxl_net_is_blocked(w, 1, 3), "a timed partition holds during its duration");
    oxl_world_run_for(w, 2 * OXL_MS);
    tap_ok(!oxl_net_is_blocked(w, 1, 3), "and heals after it");

    /* A message in flight when the cut lands is lost. */
    int before = lg.count;
    oxl_net_latency(w, 10 * OXL_MS, 10 * OXL_MS);
    send_int(w, 0, 2, 99);
    oxl_world_run_for(w, 5 * OXL_MS);
    oxl_net_partition(w, a, 2, b, 2, 0);
    oxl_world_run(w);
    tap_is_int(lg.count, before, "a partition catches a message in flight");
    oxl_world_free(w);
}

static void test_one_way_block(void) {
    log_t lg = {0};
    oxl_world *w = world_with(6, 2, &lg);
    oxl_net_block(w, 0, 1);
    tap_ok(oxl_net_is_blocked(w, 0, 1) && !oxl_net_is_blocked(w, 1, 0), "a block is one way");
    send_int(w, 0, 1, 1);
    send_int(w, 1, 0, 2);
    oxl_world_run(w);
    tap_ok(lg.count == 1 && lg.items[0].from == 1, "only the unblocked direction delivers");
    oxl_world_free(w);

    /* A timed one-way block ends by itself, and only its own cut. */
    lg = (log_t){0};
    w = world_with(6, 3, &lg);
    oxl_net_block(w, 2, 0);
    tap_is_int(oxl_net_block_for(w, 0, 1, 100 * OXL_MS), OXL_OK, "block n0 -> n1 for 100ms");
    tap_is_int(oxl_net_block_for(w, 0, 1, 300 * OXL_MS), OXL_OK, "and, overlapping, for 300ms");
    tap_ok(oxl_net_is_blocked(w, 0, 1) && !oxl_net_is_blocked(w, 1, 0), "a timed block is one way");
    send_int(w, 0, 1, 1);
    send_int(w, 1, 0, 2);
    oxl_world_run_for(w, 50 * OXL_MS);
    tap_ok(lg.count == 1 && lg.items[0].from == 1, "only the other direction delivers meanwhile");
    oxl_world_run_for(w, 100 * OXL_MS);
    tap_ok(oxl_net_is_blocked(w, 0, 1), "the link stays cut while the longer block lasts");
    oxl_world_run_for(w, 200 * OXL_MS);
    tap_ok(!oxl_net_is_blocked(w, 0, 1), "and opens when both have ended");
    tap_ok(oxl_net_is_blocked(w, 2, 0), "an untimed block elsewhere stays");
    send_int(w, 0, 1, 3);
    oxl_world_run(w);
    tap_is_int(lg.count, 2, "messages pass again");
    oxl_net_block_for(w, 1, 2, 100 * OXL_MS);
    oxl_net_heal(w);
    tap_ok(!oxl_net_is_blocked(w, 1, 2) && !oxl_net_is_blocked(w, 2, 0), "heal lifts timed and untimed blocks");
    oxl_net_block_for(w, 1, 2, 0);
    tap_ok(oxl_net_is_blocked(w, 1, 2), "a block for 0 lasts until heal");
    oxl_world_run_for(w, OXL_SEC);
    tap_ok(oxl_net_is_blocked(w, 1, 2), "and does not end by itself");
    oxl_world_free(w);
}

static void test_drop_duplicate_reorder(void) {
    log_t lg = {0};
    oxl_world *w = world_with(7, 2, &lg);
    oxl_net_drop(w, 1.0);
    for (int i = 0; i < 50; i++) send_int(w, 0, 1, i);
    oxl_world_run(w);
    tap_is_int(lg.count, 0, "drop 1.0 loses every message");
    oxl_net_drop(w, 0.0);
    oxl_net_duplicate(w, 1.0);
    for (int i = 0; i < 50; i++) send_int(w, 0, 1, i);
    oxl_world_run(w);
    tap_is_int(lg.count, 100, "duplicate 1.0 delivers every message twice");
    oxl_net_duplicate(w, 0.0);

    /* FIFO links: with a wide latency range, order is still kept... */
    lg.count = 0;
    oxl_net_latency(w, 1 * OXL_MS, 50 * OXL_MS);
    for (int i = 0; i < 200; i++) send_int(w, 0, 1, i);
    oxl_world_run(w);
    bool in_order = lg.count == 200;
    for (int i = 1; i < lg.count; i++) in_order = in_order && lg.items[i].payload > lg.items[i - 1].payload;
    tap_ok(in_order, "a link is FIFO without reordering");
    /* ...unless reordering is on. */
    lg.count = 0;
    oxl_net_reorder(w, 1.0);
    for (int i = 0; i < 200; i++) send_int(w, 0, 1, i);
    oxl_world_run(w);
    int inversions = 0;
    for (int i = 1; i < lg.count; i++) inversions += lg.items[i].payload < lg.items[i - 1].payload;
    tap_ok(lg.count == 200 && inversions > 10, "reorder 1.0 lets messages overtake (%d inversions)", inversions);
    oxl_world_free(w);
}

/* A mid-range rate is what it says: over 4,000 messages on each of five
 * seeds, the drops (and the copies) of a 30% rate stay within five
 * standard deviations of 1,200 (sd 29): a draw that only ever fires at
 * rate 1, or at some other rate, is far outside. */
static int deliveries_at(uint64_t seed, double drop, double dup, int messages) {
    log_t *lg = calloc(1, sizeof *lg);
    oxl_world *w = world_with(seed, 2, lg);
    oxl_net_latency(w, 1 * OXL_MS, 50 * OXL_MS);
    oxl_net_drop(w, drop);
    oxl_net_duplicate(w, dup);
    for (int i = 0; i < messages; i++) send_int(w, 0, 1, i);
    oxl_world_run(w);
    int n = lg->total;
    oxl_world_free(w);
    free(lg);
    return n;
}

static void test_mid_range_rates(void) {
    const int m = 4000, lo = 1200 - 5 * 29, hi = 1200 + 5 * 29;
    bool drops_ok = true, dups_ok = true;
    int drop_min = m, drop_max = 0, dup_min = m, dup_max = 0;
    for (uint64_t seed = 11; seed <= 15; seed++) {
        int dropped = m - deliveries_at(seed, 0.3, 0.0, m);
        int copies = deliveries_at(seed, 0.0, 0.3, m) - m;
        drops_ok = drops_ok && dropped >= lo && dropped <= hi;
        dups_ok = dups_ok && copies >= lo && copies <= hi;
        drop_min = dropped < drop_min ? dropped : drop_min, drop_max = dropped > drop_max ? dropped : drop_max;
        dup_min = copies < dup_min ? copies : dup_min, dup_max = copies > dup_max ? copies : dup_max;
    }
    tap_ok(drops_ok, "drop 0.3 loses 30%% of messages (%d..%d of %d, bound %d..%d)", drop_min, drop_max, m, lo, hi);
    tap_ok(dups_ok, "duplicate 0.3 copies 30%% of messages (%d..%d of %d, bound %d..%d)", dup_min, dup_max, m, lo, hi);
    /* both at once: 0.3 of the messages lost, 0.3 of the rest copied */
    int both = deliveries_at(16, 0.3, 0.3, m);
    tap_ok(both >= 2800 + 840 - 5 * 40 && both <= 2800 + 840 + 5 * 40,
           "drop 0.3 and duplicate 0.3 together deliver 0.7 * 1.3 of them (%d of %d)", both, m);

    /* reordering: with FIFO links a message overtakes only when the dice
     * let it, so a mid rate lies strictly between none and every one */
    int inv[3];
    const double rates[3] = {0.0, 0.3, 1.0};
    for (int r = 0; r < 3; r++) {
        log_t *lg = calloc(1, sizeof *lg);
        oxl_world *w = world_with(17, 2, lg);
        oxl_net_latency(w, 1 * OXL_MS, 50 * OXL_MS);
        oxl_net_reorder(w, rates[r]);
        for (int i = 0; i < m; i++) send_int(w, 0, 1, i);
        oxl_world_run(w);
        inv[r] = 0;
        for (int i = 1; i < lg->count; i++) inv[r] += lg->items[i].payload < lg->items[i - 1].payload;
        oxl_world_free(w);
        free(lg);
    }
    tap_ok(inv[0] == 0 && inv[1] > 0 && inv[1] < inv[2],
           "reorder 0.3 lets some messages overtake: %d inversions against %d at 0 and %d at 1", inv[1], inv[0], inv[2]);
}

/* oxl_rng_below is unbiased, also where a plain multiply is not: for
 * n = 3 * 2^62 a multiply without Lemire's rejection step maps two draws to
 * every value divisible by 3 and one to the others, so a third of the
 * values would come up half the time. */
static void test_below_unbiased(void) {
    oxl_rng r;
    oxl_rng_seed(&r, 99, "bias");
    const uint64_t n = UINT64_C(3) << 62;
    const int draws = 3000;
    int thirds = 0, in_range = 1;
    for (int i = 0; i < draws; i++) {
        uint64_t v = oxl_rng_below(&r, n);
        in_range &= v < n;
        thirds += v % 3 == 0;
    }
    /* a third of 3,000 is 1,000 with sd 25.8 */
    tap_ok(in_range && thirds >= 1000 - 5 * 26 && thirds <= 1000 + 5 * 26,
           "oxl_rng_below(3 * 2^62) is uniform: %d of %d draws divisible by 3", thirds, draws);
    int small[6] = {0};
    for (int i = 0; i < 6000; i++) small[oxl_rng_below(&r, 6)]++;
    bool flat = true;
    for (int k = 0; k < 6; k++) flat = flat && small[k] >= 1000 - 5 * 29 && small[k] <= 1000 + 5 * 29;
    tap_ok(flat, "oxl_rng_below(6) is uniform (%d %d %d %d %d %d of 6000)", small[0], small[1], small[2], small[3],
           small[4], small[5]);
}

/* The test's fault stream and the network's stream are separate: drawing
 * fault dice must not move any message's latency. */
static void test_fault_stream_independent(void) {
    oxl_time_ns arrivals[2][100];
    for (int run = 0; run < 2; run++) {
        log_t *lg = calloc(1, sizeof *lg);
        oxl_world *w = world_with(8, 2, lg);
        oxl_net_latency(w, 1 * OXL_MS, 100 * OXL_MS);
        oxl_net_reorder(w, 1.0);
        for (int i = 0; i < 100; i++) {
            if (run == 1) oxl_rng_next(oxl_world_rng(w)); /* the test plans a fault */
            send_int(w, 0, 1, i);
        }
        oxl_world_run(w);
        for (int i = 0; i < 100; i++) arrivals[run][lg->items[i].payload] = lg->items[i].at;
        oxl_world_free(w);
        free(lg);
    }
    tap_ok(memcmp(arrivals[0], arrivals[1], sizeof arrivals[0]) == 0,
           "drawing from the fault stream leaves every network latency unchanged");
}

static void test_clock_skew(void) {
    log_t lg = {0};
    oxl_world *w = world_with(9, 2, &lg);
    oxl_world_set_clock_skew(w, 1, 250 * OXL_MS);
    oxl_world_set_clock_skew(w, 0, -3 * OXL_MS);
    oxl_world_run_for(w, 10 * OXL_MS);
    tap_is_int(oxl_ctx_now(oxl_world_ctx(w, 1)), 260 * OXL_MS, "a node's clock runs ahead by its skew");
    tap_is_int(oxl_ctx_now(oxl_world_ctx(w, 0)), 7 * OXL_MS, "or behind");
    tap_is_int(oxl_world_now(w), 10 * OXL_MS, "the world's time is unskewed");
    oxl_ctx_set_timer(oxl_world_ctx(w, 1), 5 * OXL_MS, timer_cb, NULL);
    oxl_world_run(w);
    tap_is_int(oxl_world_now(w), 15 * OXL_MS, "a skewed node's timer waits its duration in world time");
    oxl_world_free(w);
}

/* ---- tie order ---- */
typedef struct tie_log {
    int order[8];
    int n;
} tie_log;

typedef struct tie_arg {
    tie_log *log;
    int id;
} tie_arg;

static void tie_cb_id(oxl_world *w, void *arg) {
    tie_arg *a = arg;
    a->log->order[a->log->n++] = a->id;
}

static uint64_t tie_order(uint64_t seed, bool randomize) {
    oxl_world_options o = oxl_world_options_default(seed);
    o.randomize_ties = randomize;
    oxl_world *w = oxl_world_new(&o);
    tie_log t = {{0}, 0};
    tie_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (tie_arg){&t, i};
        oxl_world_at(w, OXL_SEC, "tie", tie_cb_id, &args[i]);
    }
    oxl_world_run(w);
    oxl_world_free(w);
    uint64_t code = 0;
    for (int i = 0; i < t.n; i++) code = code * 8 + (uint64_t)t.order[i];
    return code;
}

static void test_tie_order(void) {
    uint64_t fifo = 0;
    for (int i = 0; i < 8; i++) fifo = fifo * 8 + (uint64_t)i;
    tap_is_uint(tie_order(1, false), fifo, "without randomize_ties equal-time events run in scheduling order");
    tap_is_uint(tie_order(5, true), tie_order(5, true), "with it, the order is a function of the seed");
    int distinct = 0;
    uint64_t seen[20];
    for (uint64_t s = 0; s < 20; s++) {
        uint64_t code = tie_order(s, true);
        bool dup = false;
        for (int j = 0; j < distinct; j++) dup = dup || seen[j] == code;
        if (!dup) seen[distinct++] = code;
    }
    tap_ok(distinct >= 15, "and different seeds give different orders (%d distinct of 20)", distinct);
}

/* ---- invariants and failure ---- */
static const char *below_three(oxl_world *w, void *arg) {
    const log_t *lg = arg;
    return lg->count >= 3 ? oxl_world_strf(w, "%d messages arrived", lg->count) : NULL;
}

static void test_invariant_stops_run(void) {
    log_t lg = {0};
    oxl_world *w = world_with(10, 2, &lg);
    oxl_world_add_invariant(w, "fewer than three", below_three, &lg);
    oxl_net_latency(w, OXL_MS, OXL_MS);
    for (int i = 0; i < 10; i++) send_int(w, 0, 1, i);
    tap_is_int(oxl_world_run(w), OXL_RUN_FAILED, "a broken invariant fails the run");
    tap_is_str(oxl_world_failure(w), "invariant 'fewer than three' violated: 3 messages arrived",
               "the failure names the invariant and its reason");
    tap_is_int(lg.count, 3, "the run stops right after the event that broke it");
    tap_ok(!oxl_world_step(w), "a failed world runs no more events");
    oxl_world_free(w);

    w = world_with(10, 2, &lg);
    oxl_ctx_fail(oxl_world_ctx(w, 1), "bad state %d", 7);
    tap_is_str(oxl_world_failure(w), "node n1: bad state 7", "a node's fail stops the world with its message");
    oxl_world_fail(w, "second");
    tap_is_str(oxl_world_failure(w), "node n1: bad state 7", "the first failure is kept");
    oxl_world_free(w);
}

/* ---- misuse ---- */
static void test_misuse(void) {
    struct {
        const char *expect;
    } cases[] = {
        {"API misuse: oxl_world_kill: unknown node 9"},
        {"API misuse: oxl_world_crash_for: negative duration -5ns"},
        {"API misuse: oxl_net_drop: probability 1.5 is outside [0, 1]"},
        {"API misuse: oxl_net_duplicate: probability nan is outside [0, 1]"},
        {"API misuse: oxl_world_kill: node 'n1' is already down"},
        {"API misuse: oxl_world_add_node: a node named 'n0' exists already"},
        {"API misuse: oxl_ctx_send: unknown destination node 5"},
        {"API misuse: oxl_net_latency: empty range 5ns..1ns"},
        {"API misuse: oxl_net_partition: node 'n0' is on both sides"},
        {"API misuse: oxl_world_add_node: bad node name 'a|b' (1..63 printable characters, no spaces, '|' or '>')"},
        {"API misuse: oxl_world_set_disk_fail_rate: write probability -0.1 is outside [0, 1]"},
        {"API misuse: oxl_world_after: negative duration -1ns"},
        {"API misuse: oxl_net_block_for: negative duration -1ns"},
        {"API misuse: oxl_net_block_for: node 'n1' cannot block itself"},
        {"API misuse: oxl_net_block_for: unknown node 7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        log_t lg = {0};
        oxl_world *w = world_with(11, 2, &lg);
        int rc = 0;
        oxl_node_id both[] = {0};
        switch (i) {
        case 0: rc = oxl_world_kill(w, 9); break;
        case 1: rc = oxl_world_crash_for(w, 0, -5); break;
        case 2: rc = oxl_net_drop(w, 1.5); break;
        case 3: rc = oxl_net_duplicate(w, nan("")); break;
        case 4: oxl_world_kill(w, 1); rc = oxl_world_kill(w, 1); break;
        case 5: rc = oxl_world_add_node(w, "n0", rec_new, &lg) == OXL_NO_NODE ? OXL_EMISUSE : OXL_OK; break;
        case 6: rc = oxl_ctx_send(oxl_world_ctx(w, 0), 5, "x", 1) ? OXL_OK : OXL_EMISUSE; break;
        case 7: rc = oxl_net_latency(w, 5, 1); break;
        case 8: rc = oxl_net_partition(w, both, 1, both, 1, 0); break;
        case 9: rc = oxl_world_add_node(w, "a|b", rec_new, &lg) == OXL_NO_NODE ? OXL_EMISUSE : OXL_OK; break;
        case 10: rc = oxl_world_set_disk_fail_rate(w, 0, -0.1, 0); break;
        case 11: rc = oxl_world_after(w, -1, "x", restart_n1, NULL); break;
        case 12: rc = oxl_net_block_for(w, 0, 1, -1); break;
        case 13: rc = oxl_net_block_for(w, 1, 1, OXL_MS); break;
        case 14: rc = oxl_net_block_for(w, 0, 7, OXL_MS); break;
        }
        tap_ok(rc == OXL_EMISUSE && oxl_world_run(w) == OXL_RUN_FAILED, "misuse %zu returns an error and fails the world", i);
        tap_is_str(oxl_world_failure(w), cases[i].expect, "misuse %zu is named", i);
        oxl_world_free(w);
    }
}

/* A process that kills its own node from inside its message handler. */
typedef struct suicidal {
    oxl_process base;
    int *destroyed;
} suicidal;

static void sui_start(oxl_process *self, oxl_ctx c) {}
static void sui_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *d, size_t n) {
    oxl_world_kill(c.world, c.node);
    /* The process must still be usable until the handler returns. */
    ((suicidal *)self)->destroyed[1] = oxl_ctx_alive(c) ? 1 : 2;
}
static void sui_destroy(oxl_process *self) {
    ((suicidal *)self)->destroyed[0]++;
    free(self);
}
static const oxl_process_ops sui_ops = {sui_start, sui_message, sui_destroy};
static oxl_process *sui_new(oxl_ctx c, void *arg) {
    suicidal *s = calloc(1, sizeof *s);
    s->base.ops = &sui_ops;
    s->destroyed = arg;
    return &s->base;
}

static void test_kill_from_own_callback(void) {
    int destroyed[2] = {0, 0};
    oxl_world *w = oxl_world_new(NULL);
    oxl_world_add_node(w, "a", sui_new, destroyed);
    oxl_world_add_node(w, "b", sui_new, destroyed);
    oxl_world_run(w);
    oxl_ctx_send(oxl_world_ctx(w, 1), 0, "x", 1);
    oxl_world_run(w);
    tap_is_int(destroyed[1], 2, "inside its handler a killed node's context is already dead");
    tap_is_int(destroyed[0], 1, "its process is destroyed once, after the handler returns");
    oxl_world_free(w);
    tap_is_int(destroyed[0], 2, "freeing the world destroys the live ones");
}

static void test_run_until(void) {
    oxl_world *w = oxl_world_new(NULL);
    tap_is_int(oxl_world_run_until(w, 5 * OXL_SEC), OXL_RUN_IDLE, "run_until on an empty world is idle");
    tap_is_int(oxl_world_now(w), 5 * OXL_SEC, "and time still passes to the deadline");
    tap_is_int(oxl_world_at(w, OXL_SEC, "past", restart_n1, NULL), OXL_EMISUSE, "scheduling in the past is misuse");
    oxl_world_free(w);
}

/* Many timers, half of them cancelled at random: the cancelled ones leave
 * the queue at once and the others fire in time order. */
typedef struct fired {
    oxl_time_ns last;
    int count, out_of_order;
} fired;

static void ordered_cb(oxl_process *self, oxl_ctx c, void *arg) {
    fired *f = arg;
    if (oxl_ctx_now(c) < f->last) f->out_of_order++;
    f->last = oxl_ctx_now(c);
    f->count++;
}

static void test_many_cancelled_timers(void) {
    log_t lg = {0};
    oxl_world *w = world_with(9, 1, &lg);
    oxl_ctx c = oxl_world_ctx(w, 0);
    fired f = {0};
    enum { N = 2000 };
    oxl_timer_id ids[N];
    oxl_rng r;
    oxl_rng_seed(&r, 1, "test");
    oxl_world_run_until(w, 0);
    size_t before = oxl_world_pending(w);
    for (int i = 0; i < N; i++) ids[i] = oxl_ctx_set_timer(c, oxl_rng_range(&r, 1, 1000) * OXL_MS, ordered_cb, &f);
    int kept = N;
    for (int i = 0; i < N; i++)
        if (oxl_rng_chance(&r, 0.5)) {
            oxl_ctx_cancel_timer(c, ids[i]);
            kept--;
        }
    tap_is_uint(oxl_world_pending(w), before + (size_t)kept, "cancelled timers leave the queue at once (%d of %d kept)",
                kept, N);
    oxl_world_run(w);
    tap_is_int(f.count, kept, "the others all fire");
    tap_is_int(f.out_of_order, 0, "  in time order");
    oxl_world_free(w);
}

/* What oxl_world_describe says, as a string (malloc'd). */
static char *describe(const oxl_world *w) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    oxl_world_describe(w, "  ", f);
    fclose(f);
    return buf;
}

/* Partitions and blocks in force are named as such, with their sides,
 * since when and until when; ended and healed ones are gone; a link cut
 * twice shows both cuts; the lines and the names of a side are capped. */
static void test_describe_cuts(void) {
    log_t lg = {0};
    oxl_world *w = world_with(9, 4, &lg);
    oxl_node_id n0 = 0, n1 = 1, n2 = 2, n3 = 3;
    oxl_net_partition(w, &n0, 1, &n2, 1, 0);
    oxl_net_heal(w);                                 /* lifts it */
    oxl_net_partition(w, &n0, 1, &n1, 1, 100 * OXL_MS); /* ends by itself */
    oxl_world_run_for(w, OXL_SEC);
    char *d = describe(w);
    tap_is_str(d, "", "no cut in force: nothing said of cuts (healed and ended ones are gone)");
    free(d);
    oxl_node_id ab[2] = {0, 2};
    oxl_net_partition(w, ab, 2, &n1, 1, 2 * OXL_SEC);
    oxl_net_partition(w, &n2, 1, &n3, 1, 0);
    oxl_net_block(w, 1, 2); /* also cut by the first partition */
    oxl_net_block(w, 1, 3);
    oxl_net_block_for(w, 3, 0, 500 * OXL_MS);
    d = describe(w);
    tap_is_str(d,
               "  partition n0,n2|n1 since 1.000000000s, healing at 3.000000000s\n"
               "  partition n2|n3 since 1.000000000s, until a heal\n"
               "  one-way block n3>n0 since 1.000000000s, lifting at 1.500000000s\n"
               "  one-way block n1>n2,n3 until a heal\n",
               "partitions, timed and untimed, and one-way blocks, timed and untimed, each named");
    free(d);
    oxl_world_run_for(w, 700 * OXL_MS);
    d = describe(w);
    tap_ok(!strstr(d, "n3>n0") && strstr(d, "partition n0,n2|n1 since"),
           "a timed block that ended is gone, the rest stay");
    free(d);
    oxl_net_heal(w);
    d = describe(w);
    tap_is_str(d, "", "a heal lifts every one");
    free(d);
    oxl_world_free(w);

    w = world_with(9, 20, &lg);
    oxl_node_id all[19];
    for (int i = 0; i < 19; i++) all[i] = (oxl_node_id)(i + 1);
    oxl_node_id zero = 0;
    oxl_net_partition(w, &zero, 1, all, 19, 0);
    d = describe(w);
    tap_is_str(d,
               "  partition n0|n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,+3 more since 0.000000000s, "
               "until a heal\n",
               "a side of more than 16 nodes: the first 16 and how many more");
    free(d);
    oxl_net_heal(w);
    for (int i = 0; i < 40; i++) {
        oxl_node_id a = (oxl_node_id)(i % 20), b = (oxl_node_id)((i + 1) % 20);
        oxl_net_partition(w, &a, 1, &b, 1, 0);
    }
    d = describe(w);
    int lines = 0;
    for (const char *p = d; (p = strchr(p, '\n')); p++) lines++;
    tap_is_int(lines, 33, "40 partitions in force: 32 lines and one more");
    tap_contains(d, "  ... and 8 more partitions and blocks in force\n", "which says how many are left out");
    free(d);
    oxl_world_free(w);
}

int main(void) {
    test_boot_and_delivery();
    test_many_cancelled_timers();
    test_zombie_context();
    test_in_flight_reaches_next_incarnation();
    test_timers();
    test_partition();
    test_one_way_block();
    test_drop_duplicate_reorder();
    test_mid_range_rates();
    test_below_unbiased();
    test_fault_stream_independent();
    test_clock_skew();
    test_tie_order();
    test_invariant_stops_run();
    test_misuse();
    test_kill_from_own_callback();
    test_run_until();
    test_describe_cuts();
    return tap_done();
}
