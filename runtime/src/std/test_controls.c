/* test_controls.c: the C side of std.test, the controls a `test sim` body
 * calls (std/test/test.oxl declares them as extern fns; the symbol of
 * `net.partition` is oxl_std_test_net_partition). They act on the running
 * scheduler's World; nodes are named as the World names them. A bad
 * argument (an unknown node, a rate outside 0..1000 per mille, a negative
 * duration) panics with a message naming the control and the value. */
#include "oxl_rpc.h"
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "oxl_std_test.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Panics and blocks name the OxL line that called the control. */
#define STD_AT oxl_extern_caller("(std.test)").file, oxl_extern_caller("(std.test)").line

static oxl_world *world(void) { return oxl_sched_world(); }

static void sb_c(oxl_sb *b, const char *s) { oxl_sb_lit(b, s, (int64_t)strlen(s)); }

/* The names a control may be given, for the message about a bad one. */
static oxl_string known_names(void) {
    oxl_world *w = world();
    oxl_sb b;
    oxl_sb_init(&b);
    sb_c(&b, "nodes:");
    for (oxl_node_id i = 0; i < oxl_world_node_count(w); i++) {
        sb_c(&b, i ? ", " : " ");
        sb_c(&b, oxl_world_node_name(w, i));
    }
    sb_c(&b, "; roles:");
    size_t nroles = 0;
    for (oxl_node_id i = 0; i < oxl_world_node_count(w); i++) {
        const oxl_node *n = oxl_node_by_name(oxl_world_node_name(w, i));
        for (size_t r = 0; n && r < oxl_node_role_count(n); r++) {
            const char *role = oxl_node_role(n, r);
            bool seen = false; /* listed once, in first-node order */
            for (oxl_node_id j = 0; j < i && !seen; j++)
                seen = oxl_node_has_role(oxl_node_by_name(oxl_world_node_name(w, j)), role);
            if (seen) continue;
            sb_c(&b, nroles++ ? ", " : " ");
            sb_c(&b, role);
        }
    }
    if (!nroles) sb_c(&b, " none");
    return oxl_sb_finish(&b);
}

/* A node's name, or a role's name standing for every node that serves it,
 * as World ids in node order (collected memory: a panic midway leaks
 * nothing). An unknown name panics, listing the known ones. */
static oxl_node_id *nodes_named(const char *control, oxl_string name, size_t *n) {
    oxl_world *w = world();
    const char *s = oxl_str_cstr(name);
    oxl_node_id id = oxl_world_node_by_name(w, s);
    if (id != OXL_NO_NODE) {
        oxl_node_id *one = oxl_alloc_atomic(sizeof *one);
        *one = id;
        *n = 1;
        return one;
    }
    int count = oxl_world_node_count(w);
    size_t k = 0;
    oxl_node_id *ids = oxl_alloc_atomic((count > 0 ? (size_t)count : 1) * sizeof *ids);
    for (oxl_node_id i = 0; i < count; i++)
        if (oxl_node_has_role(oxl_node_by_name(oxl_world_node_name(w, i)), s)) ids[k++] = i;
    if (!k) oxl_panic_at(STD_AT, "%s: unknown node or role '%s' (%s)", control, s, oxl_str_cstr(known_names()));
    *n = k;
    return ids;
}

static double permille(const char *control, int64_t p) {
    if (p < 0 || p > 1000)
        oxl_panic_at(STD_AT, "%s: rate %" PRId64 " is outside 0..1000 (per mille)", control, p);
    return (double)p / 1000.0;
}

/* A Duration as OxL writes it (1ms, 1.5s), so a message reads like the
 * call that caused it (collected memory: fine on the way to a panic). */
static const char *dur(int64_t ns) { return oxl_str_cstr(oxl_dur_to_str(ns)); }

static void no_negative(const char *control, int64_t d) {
    if (d < 0) oxl_panic_at(STD_AT, "%s: negative duration %s", control, dur(d));
}

/* ---- net ---- */

void oxl_std_test_net_latency(int64_t min, int64_t max) {
    no_negative("net.latency", min);
    if (max < min) oxl_panic_at(STD_AT, "net.latency: empty range %s..%s", dur(min), dur(max));
    oxl_net_latency(world(), min, max);
}

void oxl_std_test_net_drop(int64_t p) { oxl_net_drop(world(), permille("net.drop", p)); }
void oxl_std_test_net_duplicate(int64_t p) { oxl_net_duplicate(world(), permille("net.duplicate", p)); }
void oxl_std_test_net_reorder(int64_t p) { oxl_net_reorder(world(), permille("net.reorder", p)); }

/* A list of node or role names as World ids, each node once. */
static oxl_node_id *node_list(const char *control, oxl_list names, size_t *n) {
    int64_t len = oxl_list_len(names);
    if (len == 0) oxl_panic_at(STD_AT, "%s: an empty group", control);
    int cap = oxl_world_node_count(world());
    size_t k = 0;
    oxl_node_id *ids = oxl_alloc_atomic((cap > 0 ? (size_t)cap : 1) * sizeof *ids);
    for (int64_t i = 0; i < len; i++) {
        size_t m;
        oxl_node_id *some = nodes_named(control, (oxl_string)(uintptr_t)oxl_list_at(names, i, STD_AT), &m);
        for (size_t j = 0; j < m; j++) {
            bool dup = false;
            for (size_t q = 0; q < k && !dup; q++) dup = ids[q] == some[j];
            if (!dup) ids[k++] = some[j];
        }
    }
    *n = k;
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
    size_t nf, nt;
    oxl_node_id *f = nodes_named("net.block", from, &nf), *t = nodes_named("net.block", to, &nt);
    for (size_t i = 0; i < nf; i++)
        for (size_t j = 0; j < nt; j++)
            if (f[i] == t[j])
                oxl_panic_at(STD_AT, "net.block: node '%s' cannot block itself", oxl_world_node_name(world(), f[i]));
    for (size_t i = 0; i < nf; i++)
        for (size_t j = 0; j < nt; j++) oxl_net_block(world(), f[i], t[j]);
}

void oxl_std_test_net_heal(void) { oxl_net_heal(world()); }

/* For roles: true when every link from a `from` node to a `to` node is cut. */
bool oxl_std_test_net_isBlocked(oxl_string from, oxl_string to) {
    size_t nf, nt;
    oxl_node_id *f = nodes_named("net.isBlocked", from, &nf), *t = nodes_named("net.isBlocked", to, &nt);
    for (size_t i = 0; i < nf; i++)
        for (size_t j = 0; j < nt; j++)
            if (f[i] != t[j] && !oxl_net_is_blocked(world(), f[i], t[j])) return false;
    return true;
}

/* ---- node: a role's name acts on every node that serves it ---- */

/* Kills one node now. Killing the node the caller runs on ends the caller,
 * so the caller's own node goes last. */
static void kill_now(oxl_node_id id) {
    oxl_node *n = oxl_node_by_name(oxl_world_node_name(world(), id));
    if (n)
        oxl_node_kill(n); /* cancels its tasks; may end the calling task */
    else
        oxl_world_kill(world(), id);
}

void oxl_std_test_node_kill(oxl_string name, int64_t after) {
    oxl_call_site at = oxl_extern_caller("(std.test)"); /* before anything can switch */
    no_negative("node.kill", after);
    size_t k;
    oxl_node_id *ids = nodes_named("node.kill", name, &k);
    if (after > 0) {
        /* the kill happens later: its failure names the OxL line now */
        char who[512];
        snprintf(who, sizeof who, "%s:%d: node.kill", at.file, (int)at.line);
        for (size_t i = 0; i < k; i++) oxl_world_kill_after_by(world(), ids[i], after, who);
        return;
    }
    for (size_t i = 0; i < k; i++)
        if (!oxl_world_is_up(world(), ids[i]))
            oxl_panic_at(STD_AT, "node.kill: node '%s' is already down", oxl_world_node_name(world(), ids[i]));
    oxl_node_id self = oxl_node_world_id(oxl_node_current());
    bool self_too = false;
    for (size_t i = 0; i < k; i++) {
        if (ids[i] == self) self_too = true;
        else kill_now(ids[i]);
    }
    if (self_too) kill_now(self);
}

void oxl_std_test_node_restart(oxl_string name, int64_t after) {
    no_negative("node.restart", after);
    size_t k;
    oxl_node_id *ids = nodes_named("node.restart", name, &k);
    for (size_t i = 0; i < k; i++) {
        if (after > 0) {
            oxl_world_restart_after(world(), ids[i], after);
            continue;
        }
        oxl_node *n = oxl_node_by_name(oxl_world_node_name(world(), ids[i]));
        if (n)
            oxl_node_restart(n);
        else
            oxl_world_restart(world(), ids[i]);
    }
}

/* For a role: true when every node of it is up. */
bool oxl_std_test_node_isUp(oxl_string name) {
    size_t k;
    oxl_node_id *ids = nodes_named("node.isUp", name, &k);
    for (size_t i = 0; i < k; i++)
        if (!oxl_world_is_up(world(), ids[i])) return false;
    return true;
}

/* ---- disk ---- */

void oxl_std_test_disk_fail(oxl_string node, int64_t write, int64_t sync) {
    size_t k;
    oxl_node_id *ids = nodes_named("disk.fail", node, &k);
    double w = permille("disk.fail", write), y = permille("disk.fail", sync);
    for (size_t i = 0; i < k; i++) oxl_world_set_disk_fail_rate(world(), ids[i], w, y);
}

/* ---- clock: Instants are nanoseconds since the Unix epoch; virtual time 0
 * is 2026-01-01T00:00:00Z. ---- */

int64_t oxl_std_test_clock_now(void) { return OXL_STD_EPOCH_NS + oxl_now(); }

void oxl_std_test_clock_advance(int64_t d) {
    no_negative("clock.advance", d);
    oxl_clock_advance_at(d, STD_AT);
}

/* An Instant as OxL prints it (RFC 3339), for a message. */
static const char *instant(int64_t unix_ns) {
    oxl_sb b;
    oxl_sb_init(&b);
    oxl_sb_instant(&b, unix_ns);
    return oxl_str_cstr(oxl_sb_finish(&b));
}

void oxl_std_test_clock_set(int64_t t) {
    int64_t now = oxl_std_test_clock_now();
    if (t < now) oxl_panic_at(STD_AT, "clock.set: %s is in the past (now %s)", instant(t), instant(now));
    oxl_clock_set_at(t - OXL_STD_EPOCH_NS, STD_AT);
}

void oxl_std_test_clock_skew(oxl_string node, int64_t by) {
    size_t k;
    oxl_node_id *ids = nodes_named("clock.skew", node, &k);
    for (size_t i = 0; i < k; i++) oxl_world_set_clock_skew(world(), ids[i], by);
}

/* ---- sim ---- */

int64_t oxl_std_test_sim_seed(void) { return (int64_t)oxl_world_seed(world()); }
/* sim.rand(): one draw, its top 63 bits (a non-negative Int). Kept as it
 * was, so traces of programs that use it do not move. */
int64_t oxl_std_test_sim_anyRand(void) { return (int64_t)(oxl_rand() >> 1); }

/* A draw in [0, n) from the program's stream without modulo bias:
 * Lemire's multiply-and-reject, as oxl_rng_below does on a World stream. */
static uint64_t rand_below(uint64_t n) {
    unsigned __int128 m = (unsigned __int128)oxl_rand() * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = (unsigned __int128)oxl_rand() * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

int64_t oxl_std_test_sim_randBelow(int64_t n) {
    if (n < 1) oxl_panic_at(STD_AT, "sim.rand(%" PRId64 "): the bound must be at least 1", n);
    return (int64_t)rand_below((uint64_t)n);
}

int64_t oxl_std_test_sim_between(int64_t min, int64_t max) {
    if (max < min) oxl_panic_at(STD_AT, "sim.between: max %s is below min %s", dur(max), dur(min));
    uint64_t span = (uint64_t)max - (uint64_t)min;
    if (span == UINT64_MAX) return (int64_t)oxl_rand();
    return (int64_t)((uint64_t)min + rand_below(span + 1));
}
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

oxl_string oxl_std_test_cluster_self(void) { return oxl_rpc_self(); }

oxl_string oxl_std_test_cluster_callerName(void) {
    oxl_string name;
    return oxl_rpc_caller(&name) ? name : oxl_str_from_cstr("");
}
