/* test_controls.c: the C side of std.test, the controls a `test sim` body
 * calls (std/test/test.oxl declares them as extern fns; the symbol of
 * `net.partition` is oxl_std_test_net_partition). They act on the running
 * scheduler's World; nodes are named as the World names them. A bad
 * argument (an unknown node, a rate outside 0..1000 per mille, a negative
 * duration) panics with a message naming the control and the value. */
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "oxl_std_test.h"

#include <inttypes.h>

/* Panics and blocks name the OxL line that called the control. */
#define STD_AT oxl_extern_caller("(std.test)").file, oxl_extern_caller("(std.test)").line

static oxl_world *world(void) { return oxl_sched_world(); }

static oxl_node_id node_named(const char *control, oxl_string name) {
    oxl_node_id id = oxl_world_node_by_name(world(), oxl_str_cstr(name));
    if (id == OXL_NO_NODE) oxl_panic_at(STD_AT, "%s: unknown node '%s'", control, oxl_str_cstr(name));
    return id;
}

static double permille(const char *control, int64_t p) {
    if (p < 0 || p > 1000)
        oxl_panic_at(STD_AT, "%s: rate %" PRId64 " is outside 0..1000 (per mille)", control, p);
    return (double)p / 1000.0;
}

static void no_negative(const char *control, int64_t d) {
    if (d < 0) oxl_panic_at(STD_AT, "%s: negative duration %" PRId64 "ns", control, d);
}

/* ---- net ---- */

void oxl_std_test_net_latency(int64_t min, int64_t max) {
    no_negative("net.latency", min);
    if (max < min) oxl_panic_at(STD_AT, "net.latency: empty range %" PRId64 "ns..%" PRId64 "ns", min, max);
    oxl_net_latency(world(), min, max);
}

void oxl_std_test_net_drop(int64_t p) { oxl_net_drop(world(), permille("net.drop", p)); }
void oxl_std_test_net_duplicate(int64_t p) { oxl_net_duplicate(world(), permille("net.duplicate", p)); }
void oxl_std_test_net_reorder(int64_t p) { oxl_net_reorder(world(), permille("net.reorder", p)); }

/* A list of node names as World ids, in collected memory: a panic midway
 * (an unknown name) abandons the task's stack and must leak nothing. */
static oxl_node_id *node_list(const char *control, oxl_list names, size_t *n) {
    int64_t len = oxl_list_len(names);
    if (len == 0) oxl_panic_at(STD_AT, "%s: an empty group", control);
    oxl_node_id *ids = oxl_alloc_atomic((size_t)len * sizeof *ids);
    for (int64_t i = 0; i < len; i++)
        ids[i] = node_named(control, (oxl_string)(uintptr_t)oxl_list_at(names, i, STD_AT));
    *n = (size_t)len;
    return ids;
}

void oxl_std_test_net_partition(oxl_list a, oxl_list b, int64_t for_ns) {
    no_negative("net.partition", for_ns);
    size_t na, nb;
    oxl_node_id *ia = node_list("net.partition", a, &na), *ib = node_list("net.partition", b, &nb);
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            if (ia[i] == ib[j])
                oxl_panic_at(STD_AT, "net.partition: node '%s' is on both sides", oxl_world_node_name(world(), ia[i]));
    oxl_net_partition(world(), ia, na, ib, nb, for_ns);
}

void oxl_std_test_net_block(oxl_string from, oxl_string to) {
    oxl_node_id f = node_named("net.block", from), t = node_named("net.block", to);
    if (f == t) oxl_panic_at(STD_AT, "net.block: node '%s' cannot block itself", oxl_str_cstr(from));
    oxl_net_block(world(), f, t);
}

void oxl_std_test_net_heal(void) { oxl_net_heal(world()); }

bool oxl_std_test_net_isBlocked(oxl_string from, oxl_string to) {
    return oxl_net_is_blocked(world(), node_named("net.isBlocked", from), node_named("net.isBlocked", to));
}

/* ---- node ---- */

void oxl_std_test_node_kill(oxl_string name, int64_t after) {
    no_negative("node.kill", after);
    oxl_node_id id = node_named("node.kill", name);
    if (after > 0) {
        oxl_world_kill_after(world(), id, after);
        return;
    }
    if (!oxl_world_is_up(world(), id)) oxl_panic_at(STD_AT, "node.kill: node '%s' is already down", oxl_str_cstr(name));
    oxl_node *n = oxl_node_by_name(oxl_str_cstr(name));
    if (n)
        oxl_node_kill(n); /* cancels its tasks; may end the calling task */
    else
        oxl_world_kill(world(), id);
}

void oxl_std_test_node_restart(oxl_string name, int64_t after) {
    no_negative("node.restart", after);
    oxl_node_id id = node_named("node.restart", name);
    if (after > 0) {
        oxl_world_restart_after(world(), id, after);
        return;
    }
    oxl_node *n = oxl_node_by_name(oxl_str_cstr(name));
    if (n)
        oxl_node_restart(n);
    else
        oxl_world_restart(world(), id);
}

bool oxl_std_test_node_isUp(oxl_string name) { return oxl_world_is_up(world(), node_named("node.isUp", name)); }

/* ---- disk ---- */

void oxl_std_test_disk_fail(oxl_string node, int64_t write, int64_t sync) {
    oxl_node_id id = node_named("disk.fail", node);
    oxl_world_set_disk_fail_rate(world(), id, permille("disk.fail", write), permille("disk.fail", sync));
}

/* ---- clock: Instants are nanoseconds since the Unix epoch; virtual time 0
 * is 2026-01-01T00:00:00Z. ---- */

int64_t oxl_std_test_clock_now(void) { return OXL_STD_EPOCH_NS + oxl_now(); }

void oxl_std_test_clock_advance(int64_t d) {
    no_negative("clock.advance", d);
    oxl_clock_advance_at(d, STD_AT);
}

void oxl_std_test_clock_set(int64_t t) {
    if (t < oxl_std_test_clock_now())
        oxl_panic_at(STD_AT, "clock.set: %" PRId64 " is in the past", t);
    oxl_clock_set_at(t - OXL_STD_EPOCH_NS, STD_AT);
}

/* ---- sim ---- */

int64_t oxl_std_test_sim_seed(void) { return (int64_t)oxl_world_seed(world()); }
int64_t oxl_std_test_sim_rand(void) { return (int64_t)(oxl_rand() >> 1); /* a non-negative Int */ }
int64_t oxl_std_test_sim_traceHash(void) { return (int64_t)oxl_world_trace_hash(world()); }

void oxl_std_test_sim_note(oxl_string msg) {
    oxl_node *n = oxl_node_current();
    oxl_node_id id = n ? oxl_node_world_id(n) : OXL_NO_NODE;
    if (id != OXL_NO_NODE && oxl_world_is_up(world(), id))
        oxl_ctx_trace(oxl_world_ctx(world(), id), "%s", oxl_str_cstr(msg));
    else
        oxl_world_note(world(), "%s", oxl_str_cstr(msg));
}

/* ---- cluster ---- */

oxl_list oxl_std_test_cluster_nodes(void) {
    oxl_world *w = world();
    oxl_list names = oxl_list_new(oxl_world_node_count(w));
    for (oxl_node_id i = 0; i < oxl_world_node_count(w); i++)
        oxl_list_push(names, (oxl_word)(uintptr_t)oxl_str_from_cstr(oxl_world_node_name(w, i)), STD_AT);
    return names;
}
