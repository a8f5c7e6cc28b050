/* rpc_call_test: remote calls between NodeStates, as the compiler's
 * service tables drive them: results, local calls, each RpcError kind
 * (deadline after a drop, unavailable, crashed, panic), a duplicated
 * request run once, a late answer dropped, partitions, `to:`, the caller's
 * name, per-node state dropped by a crash and rebuilt with `on start`,
 * and the same trace hash for the same seed. */
#include "oxl_rpc.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const oxl_type_desc d_none = {.kind = OXL_TD_NONE, .name = "None"};
static const oxl_type_desc d_int = {.kind = OXL_TD_INT, .name = "Int"};
static const oxl_type_desc d_str = {.kind = OXL_TD_STRING, .name = "String"};
static const oxl_type_desc d_dur = {.kind = OXL_TD_DURATION, .name = "Duration"};
static const oxl_type_desc *const two_ints[] = {&d_int, &d_int};
static const oxl_type_desc *const one_dur[] = {&d_dur};

/* ---- the service: Counter { state hits: Int; on start; add, slow, boom, who, hits } ---- */

static int handler_runs, starts;
static const oxl_service counter;

static void counter_init(oxl_word *state) { state[0] = 0; }
static void counter_start(void) { starts++; }

static oxl_word *state(void) { return oxl_service_state(&counter, __FILE__, __LINE__); }

static oxl_word add(const oxl_word *a) {
    handler_runs++;
    state()[0]++;
    return (oxl_word)((int64_t)a[0] + (int64_t)a[1]);
}
static oxl_word slow(const oxl_word *a) {
    handler_runs++;
    oxl_sleep((int64_t)a[0]);
    return 0;
}
static oxl_word boom(const oxl_word *a) {
    (void)a;
    oxl_panic_at("counter.oxl", 42, "boom");
}
static oxl_word who(const oxl_word *a) {
    (void)a;
    oxl_string s;
    return oxl_word_from_str(oxl_rpc_caller(&s) ? s : oxl_str_from_cstr("nobody"));
}
static oxl_word hits(const oxl_word *a) {
    (void)a;
    return state()[0];
}
/* The handler's task, after a sleep of a[0]: which worker ran it. */
static oxl_word task_of(const oxl_word *a) {
    if ((int64_t)a[0] > 0) oxl_sleep((int64_t)a[0]);
    return (oxl_word)oxl_task_id(oxl_task_self());
}

enum { M_ADD, M_SLOW, M_BOOM, M_WHO, M_HITS, M_TASK };
static const oxl_rpc_method methods[] = {
    {"add", add, 2, two_ints, &d_int, "counter.oxl", 10},   {"slow", slow, 1, one_dur, &d_none, "counter.oxl", 20},
    {"boom", boom, 0, NULL, &d_none, "counter.oxl", 40},    {"who", who, 0, NULL, &d_str, "counter.oxl", 50},
    {"hits", hits, 0, NULL, &d_int, "counter.oxl", 60},     {"task", task_of, 1, one_dur, &d_int, "counter.oxl", 70},
};
static const oxl_service counter = {"Counter", 7, 1, counter_init, counter_start, 6, methods};

/* ---- a scenario: node a (the caller), b and c serving Counter ---- */

typedef struct outcome {
    int64_t status;
    char kind[32], message[256];
    int64_t value;
    char text[64];
    oxl_time_ns took;
} outcome;

static void *boot(void *arg) {
    (void)arg;
    oxl_service_boot(&counter);
    return NULL;
}

static oxl_node *serving(const char *name) {
    oxl_node *n = oxl_node_new(&(oxl_node_config){.name = name, .boot = boot, .panic_crashes = true});
    oxl_rpc_serve(n, &counter);
    return n;
}

static outcome call(int64_t method, int64_t x, int64_t y, int64_t deadline, const char *to) {
    oxl_word args[2] = {(oxl_word)x, (oxl_word)y}, out = 0;
    oxl_time_ns t0 = oxl_now();
    outcome o = {0};
    o.status = oxl_rpc_call(&counter, method, args, deadline, to ? oxl_str_from_cstr(to) : NULL, &out, __FILE__,
                            __LINE__);
    o.took = oxl_now() - t0;
    if (o.status == OXL_RPC_OK) {
        if (methods[method].result == &d_str)
            snprintf(o.text, sizeof o.text, "%s", oxl_str_cstr(oxl_word_to_str(out)));
        else
            o.value = (int64_t)out;
    } else {
        const oxl_word *e = oxl_word_to_ptr(out);
        snprintf(o.kind, sizeof o.kind, "%s", oxl_str_cstr(oxl_word_to_str(e[0])));
        snprintf(o.message, sizeof o.message, "%s", oxl_str_cstr(oxl_word_to_str(e[1])));
    }
    return o;
}

typedef void (*scenario_fn)(void *out);
typedef struct run_arg {
    scenario_fn fn;
    void *out;
    oxl_node *caller;
} run_arg;

static void *body_task(void *arg) {
    run_arg *ra = arg;
    ra->fn(ra->out);
    return NULL;
}

/* The scenario runs on node a (not panic_crashes: its panics end the run). */
static void *root(void *arg) {
    run_arg *ra = arg;
    ra->caller = oxl_node_new(&(oxl_node_config){.name = "a"});
    serving("b");
    serving("c");
    oxl_join(oxl_spawn_on_node(ra->caller, body_task, ra), NULL);
    return NULL;
}

static oxl_sched_result run(uint64_t seed, scenario_fn fn, void *out) {
    oxl_sched_options opt;
    oxl_sched_options_default(&opt, seed);
    opt.tail_events = 40;
    run_arg ra = {fn, out, NULL};
    handler_runs = starts = 0;
    return oxl_sched_run(root, &ra, &opt);
}

/* ---- scenarios ---- */

static void s_basic(void *p) {
    outcome *o = p;
    o[0] = call(M_ADD, 2, 3, OXL_RPC_NO_DEADLINE, NULL);
    o[1] = call(M_WHO, 0, 0, OXL_RPC_NO_DEADLINE, NULL);
    o[2] = call(M_ADD, 1, 1, OXL_RPC_NO_DEADLINE, "c");
    o[3] = call(M_HITS, 0, 0, OXL_RPC_NO_DEADLINE, "c");
}

static void s_drop(void *p) {
    oxl_net_drop(oxl_sched_world(), 1.0);
    *(outcome *)p = call(M_ADD, 1, 2, 250 * OXL_MS, NULL);
}

static void s_unavailable(void *p) {
    outcome *o = p;
    oxl_node_kill(oxl_node_by_name("b"));
    oxl_node_kill(oxl_node_by_name("c"));
    o[0] = call(M_ADD, 1, 2, OXL_RPC_NO_DEADLINE, NULL);
    o[1] = call(M_ADD, 1, 2, 100 * OXL_MS, "a"); /* a does not serve Counter */
}

static void s_crash(void *p) {
    oxl_world *w = oxl_sched_world();
    oxl_world_kill_after(w, oxl_world_node_by_name(w, "b"), 300 * OXL_MS);
    *(outcome *)p = call(M_SLOW, 10 * OXL_SEC, 0, 60 * OXL_SEC, "b");
}

static void s_panic(void *p) { *(outcome *)p = call(M_BOOM, 0, 0, OXL_RPC_NO_DEADLINE, "b"); }

static void s_duplicate(void *p) {
    outcome *o = p;
    oxl_net_duplicate(oxl_sched_world(), 1.0);
    o[0] = call(M_ADD, 20, 22, OXL_RPC_NO_DEADLINE, "b");
    oxl_sleep(OXL_SEC); /* the duplicates arrive and are dealt with */
    o[1].value = handler_runs;
}

static void s_late(void *p) {
    oxl_net_latency(oxl_sched_world(), 400 * OXL_MS, 400 * OXL_MS);
    outcome *o = p;
    o[0] = call(M_ADD, 1, 1, 500 * OXL_MS, "b"); /* 800 ms round trip */
    oxl_sleep(OXL_SEC);
    o[1].value = handler_runs;
}

static void s_partition(void *p) {
    oxl_world *w = oxl_sched_world();
    oxl_node_id a = oxl_world_node_by_name(w, "a"), bc[2] = {oxl_world_node_by_name(w, "b"), oxl_world_node_by_name(w, "c")};
    oxl_net_partition(w, &a, 1, bc, 2, 0);
    *(outcome *)p = call(M_ADD, 1, 1, OXL_RPC_NO_DEADLINE, NULL);
}

static void s_restart(void *p) {
    outcome *o = p;
    call(M_ADD, 1, 1, OXL_RPC_NO_DEADLINE, "b");
    call(M_ADD, 1, 1, OXL_RPC_NO_DEADLINE, "b");
    o[0] = call(M_HITS, 0, 0, OXL_RPC_NO_DEADLINE, "b");
    oxl_node_restart(oxl_node_by_name("b"));
    oxl_sleep(OXL_MS);
    o[1] = call(M_HITS, 0, 0, OXL_RPC_NO_DEADLINE, "b");
    o[2].value = starts;
}

/* A request in flight reaches the next incarnation of its node. */
static void s_next_incarnation(void *p) {
    oxl_world *w = oxl_sched_world();
    oxl_net_latency(w, 50 * OXL_MS, 50 * OXL_MS);
    oxl_world_kill_after(w, oxl_world_node_by_name(w, "b"), 10 * OXL_MS);
    oxl_world_restart_after(w, oxl_world_node_by_name(w, "b"), 20 * OXL_MS);
    *(outcome *)p = call(M_ADD, 4, 5, OXL_RPC_NO_DEADLINE, "b");
}

static void s_local(void *p) {
    outcome *o = p;
    oxl_node *a = oxl_node_current();
    oxl_rpc_serve(a, &counter);
    oxl_net_drop(oxl_sched_world(), 1.0); /* a local call does not touch the network */
    o[0] = call(M_ADD, 3, 4, OXL_RPC_NO_DEADLINE, NULL);
    o[1] = call(M_WHO, 0, 0, OXL_RPC_NO_DEADLINE, NULL);
}

/* Handler tasks are kept: calls one after another run on one task of b,
 * two at once on two, and a crash ends the parked ones with the node. */
static outcome concurrent[2];
static void *concurrent_caller(void *arg) {
    int i = (int)(intptr_t)arg;
    concurrent[i] = call(M_TASK, 100 * OXL_MS, 0, OXL_RPC_NO_DEADLINE, "b");
    return NULL;
}

static void s_workers(void *p) {
    outcome *o = p;
    o[0] = call(M_TASK, 0, 0, OXL_RPC_NO_DEADLINE, "b");
    o[1] = call(M_TASK, 0, 0, OXL_RPC_NO_DEADLINE, "b");
    oxl_node *a = oxl_node_current();
    oxl_task *t0 = oxl_spawn_on_node(a, concurrent_caller, (void *)(intptr_t)0);
    oxl_task *t1 = oxl_spawn_on_node(a, concurrent_caller, (void *)(intptr_t)1);
    oxl_join(t0, NULL);
    oxl_join(t1, NULL);
    o[2] = concurrent[0];
    o[3] = concurrent[1];
    o[4] = call(M_TASK, 0, 0, OXL_RPC_NO_DEADLINE, "b");
    o[5].value = oxl_task_unpark(oxl_task_self(), NULL, __FILE__, __LINE__); /* not parked: refused */
    int job = 1;
    o[5].value += oxl_task_hand(oxl_task_handle(oxl_task_self()), &job); /* not awaiting: refused */
    o[5].value += oxl_task_await_at(0, __FILE__, __LINE__) != NULL;      /* no time to wait: at once */
    /* a caller cancelled while it awaits its answer: the answer, when it
     * comes, finds no task to hand it to, and nothing breaks */
    oxl_task *gone = oxl_spawn_on_node(a, concurrent_caller, (void *)(intptr_t)0);
    oxl_sleep(10 * OXL_MS);
    oxl_task_cancel_at_wait(gone);
    o[5].text[0] = oxl_join(gone, NULL) == OXL_JOIN_CANCELLED ? 'c' : '?';
    oxl_sleep(200 * OXL_MS);
    oxl_node_restart(oxl_node_by_name("b"));
    oxl_sleep(OXL_MS);
    o[6] = call(M_TASK, 0, 0, OXL_RPC_NO_DEADLINE, "b");
    o[7] = call(M_BOOM, 0, 0, OXL_RPC_NO_DEADLINE, "b"); /* on a reused task */
    oxl_sleep(OXL_MS);
    o[8] = call(M_TASK, 0, 0, 100 * OXL_MS, "c");
    oxl_panic_at("scenario.c", 1, "the scenario's end"); /* a report, with c's worker parked */
}

/* More calls than a node remembers answers for, from tasks of several
 * nodes calling at once, every message duplicated with a latency of its own: the ring of
 * answered requests wraps while duplicates come late (other answers
 * remembered and the oldest forgotten meanwhile), its reused buffers and
 * records hold answers of every size, and each handler still runs once. */
#define MANY_TASKS 16
#define MANY_EACH 200
static int64_t many_wrong;

static void *many_caller(void *arg) {
    int64_t base = (int64_t)(intptr_t)arg * MANY_EACH;
    for (int64_t i = base; i < base + MANY_EACH; i++) {
        int64_t x = (i % 5 == 0) ? i << 40 : i, y = -i; /* answers of 1 to 7 bytes */
        outcome r = call(M_ADD, x, y, 10 * OXL_SEC, "b");
        if (r.status != OXL_RPC_OK || r.value != x + y) many_wrong++;
    }
    return NULL;
}

static void s_many_duplicated(void *p) {
    outcome *o = p;
    oxl_net_duplicate(oxl_sched_world(), 1.0);
    oxl_net_latency(oxl_sched_world(), OXL_MS, 40 * OXL_MS);
    many_wrong = 0;
    oxl_task *t[MANY_TASKS];
    oxl_node *callers[MANY_TASKS / 2];
    for (int i = 0; i < MANY_TASKS / 2; i++) { /* callers of their own: their ids overlap in b's index */
        char name[16];
        snprintf(name, sizeof name, "caller%d", i);
        callers[i] = oxl_node_new(&(oxl_node_config){.name = name});
    }
    for (int i = 0; i < MANY_TASKS; i++) t[i] = oxl_spawn_on_node(callers[i / 2], many_caller, (void *)(intptr_t)i);
    for (int i = 0; i < MANY_TASKS; i++) oxl_join(t[i], NULL);
    oxl_sleep(OXL_SEC); /* the last duplicates arrive and are answered again */
    o[0].value = many_wrong;
    o[1].value = handler_runs;
}

static void s_busy(void *p) {
    outcome *o = p;
    oxl_net_latency(oxl_sched_world(), OXL_MS, 30 * OXL_MS);
    oxl_net_reorder(oxl_sched_world(), 0.3);
    oxl_net_drop(oxl_sched_world(), 0.1);
    int64_t sum = 0, errors = 0;
    for (int i = 0; i < 60; i++) {
        outcome r = call(M_ADD, i, 1, 200 * OXL_MS, NULL);
        if (r.status == OXL_RPC_OK)
            sum += r.value;
        else
            errors++;
    }
    o[0].value = sum;
    o[1].value = errors;
}

int main(void) {
    oxl_rt_init();
    outcome o[4];
    oxl_sched_result r;

    memset(o, 0, sizeof o);
    r = run(1, s_basic, o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "a remote call runs: %s", r.report ? r.report : "finished");
    tap_is_int(o[0].status, OXL_RPC_OK, "Counter.add(2, 3) answers");
    tap_is_int(o[0].value, 5, "  with 5");
    tap_ok(o[0].took > 0, "  after the network's latency (%lld ns)", (long long)o[0].took);
    tap_is_str(o[1].text, "a", "cluster.caller() in the handler is the calling node");
    tap_is_int(o[2].value, 2, "a call to: c goes to c");
    tap_is_int(o[3].value, 1, "  and c's state counts its own calls only");
    oxl_sched_result_free(&r);

    r = run(2, s_drop, o);
    tap_is_str(o[0].kind, "deadline", "every message dropped: the call ends at its deadline");
    tap_is_int(o[0].took, 250 * OXL_MS, "  exactly 250 ms after it began");
    tap_contains(o[0].message, "within 250ms", "  and says which deadline (%s)", o[0].message);
    oxl_sched_result_free(&r);

    r = run(3, s_unavailable, o);
    tap_is_str(o[0].kind, "unavailable", "no live node serves Counter: unavailable");
    tap_contains(o[0].message, "no live node serves Counter (b, c down)", "  naming the nodes (%s)", o[0].message);
    tap_is_int(o[0].took, 0, "  at once");
    tap_is_str(o[1].kind, "unavailable", "a call to: a node that does not serve the service: unavailable");
    oxl_sched_result_free(&r);

    r = run(4, s_crash, o);
    tap_is_str(o[0].kind, "crashed", "the serving node killed while the handler ran: crashed");
    tap_ok(o[0].took >= 300 * OXL_MS && o[0].took < 400 * OXL_MS, "  learned at the kill (%lld ms)",
           (long long)(o[0].took / OXL_MS));
    tap_contains(o[0].message, "b crashed while Counter.slow ran", "  the message says so");
    oxl_sched_result_free(&r);

    r = run(5, s_panic, o);
    tap_is_str(o[0].kind, "panic", "a handler that panics: RpcError panic");
    tap_contains(o[0].message, "Counter.boom panicked on b: boom", "  with its message (%s)", o[0].message);
    tap_contains(o[0].message, "at counter.oxl:42", "  and the handler's file:line");
    tap_is_int(r.status, OXL_SCHED_PANICKED, "the run fails at its end because a node panicked");
    tap_contains(r.report ? r.report : "", "panic on node b (the node crashed and the run went on): boom",
                 "  the report names the node and the panic");
    oxl_sched_result_free(&r);

    memset(o, 0, sizeof o);
    r = run(6, s_duplicate, o);
    tap_is_int(o[0].value, 42, "every message duplicated: the call answers 42");
    tap_is_int(o[1].value, 1, "  and the handler ran once");
    tap_ok(r.status == OXL_SCHED_FINISHED, "  the run finishes");
    oxl_sched_result_free(&r);

    memset(o, 0, sizeof o);
    r = run(7, s_late, o);
    tap_is_str(o[0].kind, "deadline", "an answer later than the deadline: deadline");
    tap_is_int(o[1].value, 1, "  though the handler ran");
    oxl_sched_result_free(&r);

    r = run(8, s_partition, o);
    tap_is_str(o[0].kind, "deadline", "a partition between caller and servers: deadline");
    tap_is_int(o[0].took, OXL_SEC, "  the default deadline of 1 s");
    oxl_sched_result_free(&r);

    memset(o, 0, sizeof o);
    r = run(9, s_restart, o);
    tap_is_int(o[0].value, 2, "b counted two calls");
    tap_is_int(o[1].value, 0, "a restart drops b's state: it starts again from its initial value");
    tap_is_int(o[2].value, 3, "`on start` ran at every boot (b, c, then b again)");
    oxl_sched_result_free(&r);

    memset(o, 0, sizeof o);
    r = run(10, s_next_incarnation, o);
    tap_is_int(o[0].status, OXL_RPC_OK, "a request in flight while b restarts reaches b's next incarnation");
    tap_is_int(o[0].value, 9, "  and answers 9");
    oxl_sched_result_free(&r);

    memset(o, 0, sizeof o);
    r = run(11, s_local, o);
    tap_is_int(o[0].value, 7, "a call the caller's node serves runs locally, without the network");
    tap_is_int(o[0].took, 0, "  taking no virtual time");
    tap_is_str(o[1].text, "a", "  cluster.caller() there is the node itself");
    oxl_sched_result_free(&r);

    memset(o, 0, sizeof o);
    r = run(14, s_many_duplicated, o);
    tap_is_int(r.status, OXL_SCHED_FINISHED, "%d calls from %d tasks, every message duplicated: %s",
               MANY_TASKS * MANY_EACH, MANY_TASKS,
               r.report ? r.report : "finished");
    tap_is_int(o[0].value, 0, "  every one answers its own sum");
    tap_is_int(o[1].value, MANY_TASKS * MANY_EACH, "  and each handler ran once, past the %d answers a node remembers",
               OXL_RPC_DEDUP);
    oxl_sched_result_free(&r);

    outcome w[9];
    memset(w, 0, sizeof w);
    r = run(15, s_workers, w);
    tap_ok(w[0].status == OXL_RPC_OK && w[1].status == OXL_RPC_OK && w[0].value > 0,
           "calls to b one after another (handler task %lld)", (long long)w[0].value);
    tap_is_int(w[1].value, w[0].value, "  run on the same handler task: b keeps it parked between requests");
    tap_ok(w[2].status == OXL_RPC_OK && w[3].status == OXL_RPC_OK && w[2].value != w[3].value,
           "two calls at once run on two tasks (%lld, %lld)", (long long)w[2].value, (long long)w[3].value);
    tap_ok(w[2].value == w[0].value || w[3].value == w[0].value, "  one of them the parked one");
    tap_ok(w[4].value == w[2].value || w[4].value == w[3].value, "  and the next call runs on one of those two");
    tap_is_int(w[5].value, 0, "oxl_task_unpark of a task that is not parked, oxl_task_hand to one not awaiting: refused");
    tap_is_str(w[5].text, "c", "a caller cancelled while it awaits its answer ends so, the answer arriving later");
    tap_ok(w[6].status == OXL_RPC_OK && w[6].value > w[3].value && w[6].value > w[2].value,
           "after b's restart a call runs on a new task (%lld): the parked ones ended with the crash",
           (long long)w[6].value);
    tap_is_str(w[7].kind, "panic", "a handler that panics on a reused task: RpcError panic");
    tap_contains(w[7].message, "Counter.boom panicked on b: boom", "  naming the handler (%s)", w[7].message);
    tap_is_int(w[8].status, OXL_RPC_OK, "c answers");
    tap_contains(r.report ? r.report : "", "the scenario's end", "the scenario ends with a report");
    tap_contains(r.report ? r.report : "", "what everyone was doing", "  with what everyone was doing");
    tap_ok(!strstr(r.report ? r.report : "", " on c:") && !strstr(r.report ? r.report : "", "idle"),
           "  which leaves out c's parked handler task");
    oxl_sched_result_free(&r);

    /* the same seed: the same trace, in another run of this process */
    uint64_t h1, h2, h3;
    memset(o, 0, sizeof o);
    r = run(12, s_busy, o);
    h1 = r.trace_hash;
    int64_t sum1 = o[0].value, err1 = o[1].value;
    tap_is_int(r.status, OXL_SCHED_FINISHED, "60 calls with drops, reordering and latency: %s",
               r.report ? r.report : "finished");
    oxl_sched_result_free(&r);
    r = run(12, s_busy, o);
    h2 = r.trace_hash;
    oxl_sched_result_free(&r);
    r = run(13, s_busy, o);
    h3 = r.trace_hash;
    oxl_sched_result_free(&r);
    tap_ok(h1 == h2, "the same seed gives the same trace hash (%016llx)", (unsigned long long)h1);
    tap_ok(h1 != h3, "another seed gives another one");
    tap_ok(err1 > 0 && err1 < 60, "  some calls failed by the 10%% drop (%lld of 60)", (long long)err1);
    tap_ok(sum1 > 0, "  the others answered (sum %lld)", (long long)sum1);
    return tap_done();
}
