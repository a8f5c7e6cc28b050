/* std_test_controls_test: the C side of std.test acting on a World, as a
 * `test sim` body will call it: net, node, disk, clock, sim and cluster
 * controls, and their errors naming the control and the value. */
#include "oxl_sched.h"
#include "oxl_std_test.h"
#include "tap.h"

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
    return tap_done();
}
