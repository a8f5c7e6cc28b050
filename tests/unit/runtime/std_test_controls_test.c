/* std_test_controls_test: the C side of std.test acting on a World, as a
 * `test sim` body will call it: net, node, disk, clock, sim and cluster
 * controls, and their errors naming the control and the value. */
#include "oxl_sched.h"
#include "oxl_std_test.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static oxl_string S(const char *s) { return oxl_str_from_cstr(s); }

static oxl_list names(const char *a, const char *b) {
    oxl_list l = oxl_list_new(2);
    oxl_list_push(l, (oxl_word)(uintptr_t)S(a), __FILE__, __LINE__);
    if (b) oxl_list_push(l, (oxl_word)(uintptr_t)S(b), __FILE__, __LINE__);
    return l;
}

typedef struct results {
    bool cut, inside_open, healed, timed_cut, timed_healed, killed_down, restarted_up;
    int64_t start, after_advance, after_set;
    int64_t seed, hash_before, hash_after;
    int64_t nodes;
    char first_node[16];
} results;

static void *body(void *arg) {
    results *r = arg;
    const char *const names3[] = {"n0", "n1", "n2"};
    for (int i = 0; i < 3; i++) oxl_node_new(&(oxl_node_config){.name = names3[i]});

    oxl_std_test_net_partition(names("n0", "n1"), names("n2", NULL), 0);
    r->cut = oxl_std_test_net_isBlocked(S("n0"), S("n2")) && oxl_std_test_net_isBlocked(S("n2"), S("n1"));
    r->inside_open = !oxl_std_test_net_isBlocked(S("n0"), S("n1"));
    oxl_std_test_net_heal();
    r->healed = !oxl_std_test_net_isBlocked(S("n0"), S("n2"));
    oxl_std_test_net_partition(names("n1", NULL), names("n2", NULL), 2 * OXL_SEC);
    r->timed_cut = oxl_std_test_net_isBlocked(S("n1"), S("n2"));

    oxl_std_test_net_latency(10 * OXL_MS, 300 * OXL_MS);
    oxl_std_test_net_drop(50);
    oxl_std_test_disk_fail(S("n1"), 10, 0);

    r->start = oxl_std_test_clock_now();
    oxl_std_test_clock_advance(OXL_HOUR);
    r->after_advance = oxl_std_test_clock_now();
    r->timed_healed = !oxl_std_test_net_isBlocked(S("n1"), S("n2"));
    oxl_std_test_clock_set(r->after_advance + OXL_MIN);
    r->after_set = oxl_std_test_clock_now();

    oxl_std_test_node_kill(S("n1"), 0);
    r->killed_down = !oxl_std_test_node_isUp(S("n1"));
    oxl_std_test_node_restart(S("n1"), OXL_SEC);
    oxl_std_test_clock_advance(2 * OXL_SEC);
    r->restarted_up = oxl_std_test_node_isUp(S("n1"));

    r->seed = oxl_std_test_sim_seed();
    r->hash_before = oxl_std_test_sim_traceHash();
    oxl_std_test_sim_note(S("checkout started"));
    r->hash_after = oxl_std_test_sim_traceHash();
    oxl_list l = oxl_std_test_cluster_nodes();
    r->nodes = oxl_list_len(l);
    snprintf(r->first_node, sizeof r->first_node, "%s", oxl_str_cstr((oxl_string)(uintptr_t)oxl_list_at(l, 0, __FILE__, __LINE__)));
    return NULL;
}

static void *bad_node(void *arg) {
    oxl_node_new(&(oxl_node_config){.name = "n0"});
    oxl_std_test_net_partition(names("n0", NULL), names("saga-0", NULL), 0);
    return NULL;
}

static void *bad_rate(void *arg) {
    oxl_std_test_net_drop(1500);
    return NULL;
}

/* ---- each rate by its effect ---- */
/* The controls take per mille. Each is set through std.test and its effect
 * measured: net.drop(50) loses 5% of the messages (not 50%), and so on,
 * each within five standard deviations of what the rate promises. */
typedef struct effects {
    int sent, random_drops, copies, inversions; /* reorder_effects: sent counts deliveries */
    int writes, write_eio, syncs, sync_eio;
} effects;

#define EFFECT_MESSAGES 2000
#define EFFECT_BATCH 400 /* a batch's events fit the trace window */

/* Sends EFFECT_MESSAGES from n0 to n1 in batches and counts, in the trace,
 * the sends, random drops and copies. */
static void send_and_count(effects *e) {
    oxl_world *w = oxl_sched_world();
    oxl_node_id a = oxl_world_node_by_name(w, "n0"), b = oxl_world_node_by_name(w, "n1");
    for (int sent = 0; sent < EFFECT_MESSAGES; sent += EFFECT_BATCH) {
        uint64_t first = oxl_world_trace_count(w);
        for (int64_t i = sent; i < sent + EFFECT_BATCH; i++) oxl_ctx_send(oxl_world_ctx(w, a), b, &i, sizeof i);
        oxl_std_test_clock_advance(OXL_SEC); /* every message lands */
        for (uint64_t k = first; k < oxl_world_trace_count(w); k++) {
            oxl_trace_event ev;
            if (!oxl_world_trace_event(w, k, &ev)) continue;
            e->random_drops += ev.kind == OXL_EV_DROP && ev.arg == 2;
            e->copies += ev.kind == OXL_EV_DUPLICATE;
            e->sent += ev.kind == OXL_EV_SEND;
        }
    }
}

static void *net_effects(void *arg) {
    effects *e = arg;
    oxl_node_new(&(oxl_node_config){.name = "n0"});
    oxl_node_new(&(oxl_node_config){.name = "n1"});
    oxl_std_test_net_latency(OXL_MS, 20 * OXL_MS);
    oxl_std_test_net_drop(50);
    oxl_std_test_net_duplicate(100);
    send_and_count(e);
    return NULL;
}

static void *disk_effects(void *arg) {
    effects *e = arg;
    oxl_node_new(&(oxl_node_config){.name = "n0"});
    oxl_node_new(&(oxl_node_config){.name = "n1"});
    oxl_std_test_disk_fail(S("n1"), 100, 200);
    oxl_world *w = oxl_sched_world();
    oxl_disk *d = oxl_world_disk(w, oxl_world_node_by_name(w, "n1"));
    for (int i = 0; i < EFFECT_MESSAGES; i++) {
        e->writes++;
        if (oxl_disk_put(d, "k", &i, sizeof i) != OXL_DISK_OK) {
            e->write_eio++;
            continue;
        }
        e->syncs++; /* a sync with a write to make durable draws its fate */
        if (oxl_disk_sync(d) != OXL_DISK_OK) e->sync_eio++;
    }
    return NULL;
}

/* net.reorder: EFFECT_BATCH messages with a latency range, and the
 * deliveries out of send order counted. A delivery's seq is its send's
 * place in the send order, so one below the previous delivery's overtook
 * it. e->sent says how the rate is set: 1 through std.test's
 * net.reorder(300), 0 through the kernel's oxl_net_reorder(w, 0.3). */
static void *reorder_effects(void *arg) {
    effects *e = arg;
    bool through_std = e->sent;
    oxl_node_new(&(oxl_node_config){.name = "n0"});
    oxl_node_new(&(oxl_node_config){.name = "n1"});
    oxl_std_test_net_latency(OXL_MS, 20 * OXL_MS);
    oxl_world *w = oxl_sched_world();
    if (through_std)
        oxl_std_test_net_reorder(300);
    else
        oxl_net_reorder(w, 0.3);
    oxl_node_id a = oxl_world_node_by_name(w, "n0"), b = oxl_world_node_by_name(w, "n1");
    for (int64_t i = 0; i < EFFECT_BATCH; i++) oxl_ctx_send(oxl_world_ctx(w, a), b, &i, sizeof i);
    uint64_t first = oxl_world_trace_count(w);
    oxl_std_test_clock_advance(OXL_SEC);
    uint64_t prev = 0;
    e->sent = 0;
    for (uint64_t k = first; k < oxl_world_trace_count(w); k++) {
        oxl_trace_event ev;
        if (!oxl_world_trace_event(w, k, &ev) || ev.kind != OXL_EV_DELIVER) continue;
        if (e->sent++ && ev.seq < prev) e->inversions++;
        prev = ev.seq;
    }
    return NULL;
}

static bool within(int got, double n, double p) {
    double mean = n * p, sd = sqrt(n * p * (1 - p));
    return got >= mean - 5 * sd && got <= mean + 5 * sd;
}

static void test_rates_by_effect(void) {
    oxl_sched_options o;
    oxl_sched_options_default(&o, 41);
    effects e = {0};
    oxl_sched_result r = oxl_sched_run(net_effects, &e, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a body sending %d messages finishes", EFFECT_MESSAGES);
    oxl_sched_result_free(&r);
    tap_ok(e.sent == EFFECT_MESSAGES && within(e.random_drops, EFFECT_MESSAGES, 0.05),
           "net.drop(50) loses 5%% of the messages (%d of %d)", e.random_drops, e.sent);
    int kept = e.sent - e.random_drops;
    tap_ok(within(e.copies, kept, 0.10), "net.duplicate(100) copies 10%% of the rest (%d of %d)", e.copies, kept);

    effects de = {0};
    r = oxl_sched_run(disk_effects, &de, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a body writing its disk %d times finishes", EFFECT_MESSAGES);
    oxl_sched_result_free(&r);
    tap_ok(within(de.write_eio, de.writes, 0.10), "disk.fail(write: 100) fails 10%% of the writes (%d of %d)",
           de.write_eio, de.writes);
    tap_ok(within(de.sync_eio, de.syncs, 0.20), "disk.fail(sync: 200) fails 20%% of the syncs (%d of %d)", de.sync_eio,
           de.syncs);

    effects std_way = {.sent = 1}, c_way = {.sent = 0};
    r = oxl_sched_run(reorder_effects, &std_way, &o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a body reordering messages finishes");
    oxl_sched_result_free(&r);
    r = oxl_sched_run(reorder_effects, &c_way, &o);
    oxl_sched_result_free(&r);
    tap_ok(std_way.inversions > 0 && std_way.inversions == c_way.inversions,
           "net.reorder(300) reorders exactly as a rate of 0.3 does (%d inversions in %d deliveries, %d at 0.3)",
           std_way.inversions, std_way.sent, c_way.inversions);
}

int main(void) {
    oxl_rt_init();
    results r;
    memset(&r, 0, sizeof r);
    oxl_sched_options o;
    oxl_sched_options_default(&o, 77);
    oxl_sched_result res = oxl_sched_run(body, &r, &o);
    tap_is_int(res.status, OXL_SCHED_FINISHED, "a body using every control finishes");
    tap_ok(r.cut && r.inside_open, "net.partition cuts across the groups only");
    tap_ok(r.healed, "net.heal lifts it");
    tap_ok(r.timed_cut && r.timed_healed, "a partition `for:` a duration heals by itself");
    tap_is_int(r.start, OXL_STD_EPOCH_NS, "the virtual clock starts at 2026-01-01T00:00:00Z");
    tap_is_int(r.after_advance - r.start, OXL_HOUR, "clock.advance(1h) moves it by an hour");
    tap_is_int(r.after_set - r.after_advance, OXL_MIN, "clock.set sleeps until then");
    tap_ok(r.killed_down, "node.kill takes a node down");
    tap_ok(r.restarted_up, "node.restart(after:) brings it back later");
    tap_is_int(r.seed, 77, "sim.seed is the run's seed");
    tap_ok(r.hash_before != r.hash_after, "sim.note goes into the trace hash");
    tap_ok(r.nodes == 3 && strcmp(r.first_node, "n0") == 0, "cluster.nodes lists the nodes in order");
    oxl_sched_result_free(&res);

    res = oxl_sched_run(bad_node, NULL, &o);
    tap_is_int(res.status, OXL_SCHED_PANICKED, "an unknown node name fails the test");
    tap_contains(res.report, "panic: net.partition: unknown node or role 'saga-0' (nodes: n0; roles: none)", "naming the control and the node");
    oxl_sched_result_free(&res);
    res = oxl_sched_run(bad_rate, NULL, &o);
    tap_contains(res.report, "panic: net.drop: rate 1500 is outside 0..1000 (per mille)", "a bad rate is named too");
    oxl_sched_result_free(&res);
    test_rates_by_effect();
    return tap_done();
}
