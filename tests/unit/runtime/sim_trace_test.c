/* sim_trace_test: the trace (hash, render, first divergence, message
 * events on and off) and seed sweeps (reports, reproduction, commands). */
#include "oxl_sim.h"
#include "sim/sim_internal.h" /* sim_trace_record, to vary one field at a time */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* A ping-pong pair: each message is answered until a count runs out. */
typedef struct pinger {
    oxl_process base;
    int *budget;
} pinger;

static void ping_start(oxl_process *self, oxl_ctx c) {
    if (c.node == 0) oxl_ctx_send(c, 1, "ping", 4);
}
static void ping_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *d, size_t n) {
    pinger *p = (pinger *)self;
    if (--*p->budget > 0) oxl_ctx_send(c, from, d, n);
}
static void ping_destroy(oxl_process *self) { free(self); }
static const oxl_process_ops ping_ops = {ping_start, ping_message, ping_destroy};
static oxl_process *ping_new(oxl_ctx c, void *arg) {
    pinger *p = calloc(1, sizeof *p);
    p->base.ops = &ping_ops;
    p->budget = arg;
    return &p->base;
}

typedef struct scenario_opts {
    bool trace_messages;
    bool extra_note; /* perturb the run after some events */
    bool kill;       /* a fault */
} scenario_opts;

static oxl_world *ping_world(uint64_t seed, scenario_opts so, int *budget) {
    oxl_world_options o = oxl_world_options_default(seed);
    o.trace_messages = so.trace_messages;
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "alpha", ping_new, budget);
    oxl_world_add_node(w, "beta", ping_new, budget);
    oxl_net_latency(w, OXL_MS, 9 * OXL_MS);
    oxl_world_run_for(w, 20 * OXL_MS);
    if (so.extra_note) oxl_ctx_trace(oxl_world_ctx(w, 0), "surprise");
    if (so.kill) oxl_world_kill(w, 1);
    oxl_world_run(w);
    return w;
}

/* The last n events as oxl_world_trace_render writes them (the caller
 * frees it), and how many lines that is. */
static char *rendered(const oxl_world *w, size_t n, int *lines) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    oxl_world_trace_render(w, n, mem);
    fclose(mem);
    *lines = 0;
    for (char *p = buf; *p; p++) *lines += *p == '\n';
    return buf;
}

static void test_hash_and_render(void) {
    int b1 = 50, b2 = 50, b3 = 50;
    scenario_opts plain = {true, false, false};
    oxl_world *a = ping_world(7, plain, &b1), *b = ping_world(7, plain, &b2), *c = ping_world(8, plain, &b3);
    tap_is_uint(oxl_world_trace_hash(a), oxl_world_trace_hash(b), "same seed, same trace hash");
    tap_ok(oxl_world_trace_hash(a) != oxl_world_trace_hash(c), "another seed, another hash");
    tap_is_int(oxl_trace_first_divergence(a, b, NULL), -1, "identical runs do not diverge");

    int lines;
    char *buf = rendered(a, 3, &lines);
    tap_is_int(lines, 3, "render(3) prints three events");
    tap_contains(buf, "deliver", "rendered events are named");
    tap_contains(buf, "alpha", "with node names");
    free(buf);

    oxl_trace_event ev;
    tap_ok(oxl_world_trace_event(a, 0, &ev), "the first event is retained");
    char line[256];
    oxl_world_trace_format(a, &ev, line, sizeof line);
    tap_contains(line, "#0 @0.000000000s", "an event line starts with index and virtual time");
    oxl_world_free(a);
    oxl_world_free(b);
    oxl_world_free(c);
}

static void test_first_divergence(void) {
    int b1 = 50, b2 = 50;
    oxl_world *a = ping_world(7, (scenario_opts){true, false, false}, &b1);
    oxl_world *b = ping_world(7, (scenario_opts){true, true, false}, &b2);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int64_t at = oxl_trace_first_divergence(a, b, mem);
    fclose(mem);
    uint64_t before = 0;
    /* The extra note lands right after the first 20ms of events. */
    for (uint64_t i = 0; i < oxl_world_trace_count(a); i++) {
        oxl_trace_event ev;
        oxl_world_trace_event(a, i, &ev);
        if (ev.time > 20 * OXL_MS) break;
        before = i + 1;
    }
    tap_is_int(at, (int64_t)before, "the divergence is the first differing event (#%lld)", (long long)at);
    tap_contains(buf, "surprise", "and the report shows it");
    free(buf);
    oxl_world_free(a);
    oxl_world_free(b);
}

static void test_trace_messages_off(void) {
    int b1 = 50, b2 = 50, b3 = 50;
    oxl_world *on = ping_world(7, (scenario_opts){true, false, false}, &b1);
    oxl_world *off = ping_world(7, (scenario_opts){false, false, false}, &b2);
    oxl_world *off_kill = ping_world(7, (scenario_opts){false, false, true}, &b3);
    tap_ok(oxl_world_trace_count(off) < oxl_world_trace_count(on) / 4,
           "trace_messages=false records no message events (%llu against %llu)",
           (unsigned long long)oxl_world_trace_count(off), (unsigned long long)oxl_world_trace_count(on));
    bool any_msg = false;
    for (uint64_t i = 0; i < oxl_world_trace_count(off); i++) {
        oxl_trace_event ev;
        if (oxl_world_trace_event(off, i, &ev))
            any_msg = any_msg || ev.kind == OXL_EV_SEND || ev.kind == OXL_EV_DELIVER;
    }
    tap_ok(!any_msg, "no send or deliver in it");
    tap_ok(oxl_world_trace_hash(off) != oxl_world_trace_hash(off_kill), "the hash still covers faults");
    oxl_world_free(on);
    oxl_world_free(off);
    oxl_world_free(off_kill);
}

/* Two pingers exchanging budget messages in a World of that trace
 * capacity, run to its end. */
static oxl_world *ping_pair(uint64_t seed, uint32_t capacity, int *budget) {
    oxl_world_options o = oxl_world_options_default(seed);
    o.trace_capacity = capacity;
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "a", ping_new, budget);
    oxl_world_add_node(w, "b", ping_new, budget);
    oxl_world_run(w);
    return w;
}

static void test_ring_window(void) {
    int budget = 100;
    oxl_world *w = ping_pair(1, 16, &budget);
    oxl_trace_event ev;
    uint64_t n = oxl_world_trace_count(w);
    tap_ok(n > 100, "a long run records every event in the hash (%llu)", (unsigned long long)n);
    tap_ok(!oxl_world_trace_event(w, 0, &ev) && oxl_world_trace_event(w, n - 16, &ev),
           "but keeps only the last trace_capacity for rendering");
    oxl_world_free(w);
}

/* The ring is not zeroed when a World is made: a World made where the
 * last one's ring was freed shows only what it recorded itself. A small
 * ring is the heap's chunk, handed back at once; one of the default
 * capacity (4096) is the ring the last World kept for the next
 * (sim_trace_free). */
static void ring_of_a_new_world(uint32_t capacity) {
    int budget = 40;
    oxl_world *old = ping_pair(3, capacity, &budget);
    uint64_t old_count = oxl_world_trace_count(old);
    oxl_world_free(old);
    oxl_world_options o = oxl_world_options_default(3);
    o.trace_capacity = capacity;
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "alpha", ping_new, NULL);
    uint64_t n = oxl_world_trace_count(w);
    oxl_trace_event ev;
    bool past = false;
    for (uint64_t i = n; i < old_count; i++) past = past || oxl_world_trace_event(w, i, &ev);
    tap_ok(n > 0 && n < old_count && !past,
           "capacity %u: a new World keeps none of the last one's %llu events (it has %llu)", capacity,
           (unsigned long long)old_count, (unsigned long long)n);
    int lines;
    char *buf = rendered(w, 1000, &lines);
    tap_ok(lines == (int)n && !strstr(buf, "deliver") && !strstr(buf, "send"),
           "capacity %u: and renders its own %llu events only (%d lines)", capacity, (unsigned long long)n, lines);
    free(buf);
    oxl_world_free(w);
}

static void test_ring_of_a_new_world(void) {
    ring_of_a_new_world(64);
    ring_of_a_new_world(4096);
    /* two Worlds at once: the second has a ring of its own */
    int budget = 30, budget2 = 50, lines, lines2;
    oxl_world *a = ping_pair(5, 4096, &budget);
    char *before = rendered(a, 1000, &lines);
    oxl_world *b = ping_pair(6, 4096, &budget2);
    char *after = rendered(a, 1000, &lines2);
    tap_ok(lines > 0 && strcmp(before, after) == 0, "a second World alive beside the first leaves its ring as it was");
    free(before);
    free(after);
    oxl_world_free(a);
    oxl_world_free(b);
}

/* A note given as "%s" and its text (std.test's sim.note), interned as it
 * is, is the same event as the same text formatted. */
static uint64_t noted(bool plain) {
    oxl_world_options o = oxl_world_options_default(9);
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "a", ping_new, NULL);
    if (plain) oxl_world_note(w, "%s", "hello 7");
    else oxl_world_note(w, "hello %d", 7);
    uint64_t h = oxl_world_trace_hash(w);
    int lines;
    char *buf = rendered(w, 1, &lines);
    bool shown = strstr(buf, "hello 7") != NULL;
    free(buf);
    oxl_world_free(w);
    return shown ? h : 0;
}

static void test_plain_note(void) {
    uint64_t a = noted(true), b = noted(false);
    tap_ok(a != 0 && a == b, "a note of \"%%s\" and its text is the same event as the text formatted");
}

/* trace.c's claim: each event folds (kind, node, peer, time, seq, arg,
 * label text) into the hash. One event recorded into fresh Worlds, with
 * each field changed in turn: every change must change the hash. */
typedef struct one_event {
    oxl_event_kind kind;
    oxl_node_id node, peer;
    oxl_time_ns time;
    uint64_t seq, arg;
    const char *label;
} one_event;

static uint64_t hash_of(one_event e) {
    oxl_world_options o = oxl_world_options_default(5);
    oxl_world *w = oxl_world_new(&o);
    oxl_world_add_node(w, "a", ping_new, NULL);
    oxl_world_add_node(w, "b", ping_new, NULL);
    w->now = e.time;
    sim_trace_record(w, e.kind, e.node, e.peer, e.seq, e.arg, sim_intern(w, e.label));
    uint64_t h = oxl_world_trace_hash(w);
    oxl_world_free(w);
    return h;
}

static void test_every_field_in_hash(void) {
    one_event base = {OXL_EV_SEND, 0, 1, 7 * OXL_MS, 3, 24, "x"};
    uint64_t h = hash_of(base);
    tap_is_uint(hash_of(base), h, "the same event in a fresh World folds to the same hash");
    one_event e = base;
    e.kind = OXL_EV_DELIVER;
    tap_ok(hash_of(e) != h, "the event's kind is in the hash");
    e = base, e.node = 1;
    tap_ok(hash_of(e) != h, "its node is in the hash");
    e = base, e.peer = OXL_NO_NODE;
    tap_ok(hash_of(e) != h, "its peer is in the hash");
    e = base, e.time += 1;
    tap_ok(hash_of(e) != h, "its virtual time is in the hash (to the nanosecond)");
    e = base, e.seq += 1;
    tap_ok(hash_of(e) != h, "its sequence number is in the hash");
    e = base, e.arg += 1;
    tap_ok(hash_of(e) != h, "its arg (message size, drop reason, config value, task id) is in the hash");
    e = base, e.arg = 0;
    tap_ok(hash_of(e) != h, "an arg of 0 too");
    e = base, e.label = "y";
    tap_ok(hash_of(e) != h, "its label's text is in the hash");

    /* The same through the API: two runs that differ only in a message's
     * size (the arg of its send and deliver events) hash apart. */
    uint64_t sized[2];
    for (int run = 0; run < 2; run++) {
        oxl_world_options o = oxl_world_options_default(9);
        oxl_world *w = oxl_world_new(&o);
        int budget = 1; /* no answers */
        oxl_world_add_node(w, "a", ping_new, &budget);
        oxl_world_add_node(w, "b", ping_new, &budget);
        oxl_world_run(w);
        oxl_ctx_send(oxl_world_ctx(w, 1), 0, "abcdef", run ? 6 : 5);
        oxl_world_run(w);
        sized[run] = oxl_world_trace_hash(w);
        oxl_world_free(w);
    }
    tap_ok(sized[0] != sized[1], "a message one byte longer gives another hash");
}

/* ---- sweeps ---- */
static const char *every_seventh(oxl_world *w, void *arg) {
    int budget = 10;
    oxl_world_add_node(w, "a", ping_new, &budget);
    oxl_world_add_node(w, "b", ping_new, &budget);
    oxl_world_run(w);
    if (oxl_world_seed(w) % 7 == 0) oxl_world_fail(w, "seed %llu is cursed", (unsigned long long)oxl_world_seed(w));
    return NULL;
}

static const char *flaky(oxl_world *w, void *arg) {
    int *calls = arg;
    int budget = 10;
    oxl_world_add_node(w, "a", ping_new, &budget);
    oxl_world_add_node(w, "b", ping_new, &budget);
    /* Nondeterminism: a counter outside the world changes the scenario. */
    if (++*calls % 2 == 0) oxl_net_latency(w, 2 * OXL_MS, 3 * OXL_MS);
    oxl_world_run(w);
    return "always fails";
}

static void test_sweep(void) {
    oxl_sweep_options o = oxl_sweep_options_default(1, 30);
    o.rerun = "OXL_SIM_SEED={seed} ./sim_trace_test";
    oxl_sweep_report r;
    tap_is_uint(oxl_sweep(every_seventh, NULL, &o, &r), 4, "seeds 7, 14, 21, 28 fail");
    tap_is_uint(r.run, 30, "all 30 seeds run");
    tap_is_uint(r.failures[1].seed, 14, "failures are listed in seed order");
    tap_is_str(r.failures[1].reason, "seed 14 is cursed", "with their reason");
    tap_ok(r.failures[1].reproduced, "a deterministic failure reproduces");
    tap_is_str(r.failures[1].command, "OXL_SIM_SEED=14 ./sim_trace_test", "the rerun command names the seed");
    tap_contains(r.failures[1].tail, "fail", "the tail ends with the failure");
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    oxl_sweep_report_print(&r, mem);
    fclose(mem);
    tap_contains(buf, "sweep: 30 seeds run, 26 passed, 4 failed", "the report counts seeds");
    tap_contains(buf, "seed 21 failed: seed 21 is cursed\n  reproduced: yes", "and names each failing seed");
    free(buf);
    oxl_sweep_report_free(&r);

    o.stop_at_first = true;
    oxl_sweep(every_seventh, NULL, &o, &r);
    tap_is_uint(r.run, 7, "stop_at_first stops at the first failing seed");
    oxl_sweep_report_free(&r);

    int calls = 0;
    o = oxl_sweep_options_default(3, 1);
    oxl_sweep(flaky, &calls, &o, &r);
    tap_ok(r.failed == 1 && !r.failures[0].reproduced, "a failure whose rerun differs is not reproduced");
    mem = open_memstream(&buf, &len);
    oxl_sweep_report_print(&r, mem);
    fclose(mem);
    tap_contains(buf, "not deterministic", "and the report says so");
    free(buf);
    oxl_sweep_report_free(&r);
}

int main(void) {
    test_hash_and_render();
    test_first_divergence();
    test_trace_messages_off();
    test_ring_window();
    test_ring_of_a_new_world();
    test_plain_note();
    test_every_field_in_hash();
    test_sweep();
    return tap_done();
}
