/* sim_history_test.c: histories and the register linearizability checker.
 *
 * Hand-written histories pin the register semantics (read, write, cas, info,
 * fail, never-completed ops), the per-key split, the choice of failing key,
 * shrinking, budgets and malformed use. A randomized cross-check compares the
 * checker with a brute-force search over every order consistent with real
 * time, and larger generated histories bound its running time. */
#include "oxl_sim.h"
#include "tap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- small helpers ------------------------------------------------------------------------ */
static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A history with a clock that advances 1ms per recorded event. */
typedef struct hist {
    oxl_history *h;
    oxl_time_ns t;
} hist;

static hist hist_new(void) {
    hist x = {oxl_history_new(), 0};
    if (!x.h) tap_bail("oxl_history_new returned NULL");
    return x;
}

static oxl_op_id inv(hist *x, int32_t client, uint64_t key, oxl_op_kind kind, int64_t a, int64_t b) {
    x->t += OXL_MS;
    return oxl_history_invoke(x->h, client, key, kind, a, b, x->t);
}
static void ok(hist *x, oxl_op_id op, int64_t v) {
    x->t += OXL_MS;
    oxl_history_ok(x->h, op, v, x->t);
}
static void fail(hist *x, oxl_op_id op) {
    x->t += OXL_MS;
    oxl_history_fail(x->h, op, x->t);
}
static void info(hist *x, oxl_op_id op) {
    x->t += OXL_MS;
    oxl_history_info(x->h, op, x->t);
}
/* Sequential ops: invoke and complete at once. */
static void write_ok(hist *x, int32_t client, uint64_t key, int64_t v) {
    ok(x, inv(x, client, key, OXL_OP_WRITE, v, 0), 0);
}
static void read_ok(hist *x, int32_t client, uint64_t key, int64_t v) {
    ok(x, inv(x, client, key, OXL_OP_READ, 0, 0), v);
}
static void cas_ok(hist *x, int32_t client, uint64_t key, int64_t expect, int64_t to, bool swapped) {
    ok(x, inv(x, client, key, OXL_OP_CAS, expect, to), swapped ? 1 : 0);
}

static oxl_lin_verdict verdict_of(hist *x, int64_t initial, uint64_t budget) {
    oxl_lin_result r = oxl_check_register(x->h, initial, budget);
    oxl_lin_verdict v = r.verdict;
    oxl_lin_result_free(&r);
    return v;
}

static void hist_free(hist *x) {
    oxl_history_free(x->h);
    x->h = NULL;
}

/* ---- scripted random histories -------------------------------------------------------------- */
static uint64_t prng_next(uint64_t *s) {
    /* splitmix64: tiny and good enough to drive test generation. */
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}
static uint64_t prng_below(uint64_t *s, uint64_t n) { return prng_next(s) % n; }
static bool prng_chance(uint64_t *s, unsigned percent) { return prng_below(s, 100) < percent; }

enum { ST_PENDING, ST_OK, ST_FAIL, ST_INFO };
enum { EV_INVOKE, EV_DONE };

typedef struct gen_op {
    int32_t client;
    uint64_t key;
    oxl_op_kind kind;
    int64_t a, b, out;
    int status;
    int inv_ev, done_ev; /* event positions: real-time order */
} gen_op;

typedef struct script {
    gen_op *ops;
    int n_ops;
    int *ev_op;   /* event i concerns op ev_op[i] */
    int *ev_type; /* EV_INVOKE or EV_DONE */
    int n_evs;
} script;

typedef struct gen_params {
    int n_ops, n_clients, n_keys, n_values;
    unsigned p_fail, p_info, p_abandon; /* percent */
} gen_params;

/* A linearizable history by construction: each client's op takes effect on a
 * sequential register at a random moment between its invoke and completion,
 * while the clients interleave at random. */
static script generate(uint64_t seed, gen_params p) {
    script s = {0};
    s.ops = calloc((size_t)p.n_ops, sizeof *s.ops);
    s.ev_op = calloc((size_t)p.n_ops * 2, sizeof *s.ev_op);
    s.ev_type = calloc((size_t)p.n_ops * 2, sizeof *s.ev_type);
    int64_t *reg = calloc((size_t)p.n_keys, sizeof *reg);
    int *cur = malloc((size_t)p.n_clients * sizeof *cur);
    bool *applied = calloc((size_t)p.n_clients, sizeof *applied);
    if (!s.ops || !s.ev_op || !s.ev_type || !reg || !cur || !applied) tap_bail("out of memory");
    for (int c = 0; c < p.n_clients; c++) cur[c] = -1;
    int busy = 0;
    uint64_t rng = seed * 7919 + 1;
    while (s.n_ops < p.n_ops || busy > 0) {
        int c = (int)prng_below(&rng, (uint64_t)p.n_clients);
        if (cur[c] < 0) {
            if (s.n_ops == p.n_ops) continue;
            gen_op *o = &s.ops[s.n_ops];
            *o = (gen_op){.client = c + 1,
                          .key = (uint64_t)prng_below(&rng, (uint64_t)p.n_keys),
                          .kind = (oxl_op_kind)prng_below(&rng, 3),
                          .a = (int64_t)prng_below(&rng, (uint64_t)p.n_values),
                          .b = (int64_t)prng_below(&rng, (uint64_t)p.n_values),
                          .status = ST_PENDING,
                          .inv_ev = s.n_evs,
                          .done_ev = -1};
            if (o->kind == OXL_OP_READ) o->a = o->b = 0;
            if (o->kind == OXL_OP_WRITE) o->b = 0;
            s.ev_op[s.n_evs] = s.n_ops;
            s.ev_type[s.n_evs++] = EV_INVOKE;
            cur[c] = s.n_ops++;
            applied[c] = false;
            busy++;
            continue;
        }
        gen_op *o = &s.ops[cur[c]];
        if (s.n_ops == p.n_ops && prng_chance(&rng, p.p_abandon)) {
            /* Left pending: the checker must treat it as info. */
            cur[c] = -1;
            busy--;
            continue;
        }
        int done = -1;
        if (!applied[c]) {
            if (prng_chance(&rng, p.p_fail)) {
                done = ST_FAIL;
            } else if (prng_chance(&rng, p.p_info)) {
                done = ST_INFO; /* never took effect */
            } else {
                int64_t *r = &reg[o->key];
                switch (o->kind) {
                case OXL_OP_READ: o->out = *r; break;
                case OXL_OP_WRITE: *r = o->a; break;
                case OXL_OP_CAS:
                    o->out = *r == o->a;
                    if (o->out) *r = o->b;
                    break;
                }
                applied[c] = true;
            }
        } else {
            done = prng_chance(&rng, p.p_info) ? ST_INFO : ST_OK; /* took effect */
        }
        if (done >= 0) {
            o->status = done;
            o->done_ev = s.n_evs;
            s.ev_op[s.n_evs] = cur[c];
            s.ev_type[s.n_evs++] = EV_DONE;
            cur[c] = -1;
            busy--;
        }
    }
    free(reg);
    free(cur);
    free(applied);
    return s;
}

static void script_free(script *s) {
    free(s->ops);
    free(s->ev_op);
    free(s->ev_type);
    memset(s, 0, sizeof *s);
}

/* Replays the script into a fresh history, event by event, 1ms apart. */
static oxl_history *replay(const script *s) {
    oxl_history *h = oxl_history_new();
    if (!h) tap_bail("oxl_history_new returned NULL");
    oxl_op_id *ids = malloc((size_t)(s->n_ops ? s->n_ops : 1) * sizeof *ids);
    if (!ids) tap_bail("out of memory");
    for (int e = 0; e < s->n_evs; e++) {
        const gen_op *o = &s->ops[s->ev_op[e]];
        oxl_time_ns t = (oxl_time_ns)(e + 1) * OXL_MS;
        if (s->ev_type[e] == EV_INVOKE) {
            ids[s->ev_op[e]] = oxl_history_invoke(h, o->client, o->key, o->kind, o->a, o->b, t);
        } else if (o->status == ST_OK) {
            oxl_history_ok(h, ids[s->ev_op[e]], o->out, t);
        } else if (o->status == ST_FAIL) {
            oxl_history_fail(h, ids[s->ev_op[e]], t);
        } else {
            oxl_history_info(h, ids[s->ev_op[e]], t);
        }
    }
    free(ids);
    return h;
}

/* Changes the output of one random completed read or cas; false if none. */
static bool mutate(script *s, uint64_t seed, int n_values) {
    int candidates = 0;
    for (int i = 0; i < s->n_ops; i++)
        candidates += s->ops[i].status == ST_OK && s->ops[i].kind != OXL_OP_WRITE;
    if (candidates == 0) return false;
    uint64_t rng = seed * 104729 + 3;
    int pick = (int)prng_below(&rng, (uint64_t)candidates);
    for (int i = 0; i < s->n_ops; i++) {
        gen_op *o = &s->ops[i];
        if (o->status != ST_OK || o->kind == OXL_OP_WRITE) continue;
        if (pick-- > 0) continue;
        if (o->kind == OXL_OP_CAS)
            o->out ^= 1;
        else
            o->out = (o->out + 1 + (int64_t)prng_below(&rng, (uint64_t)n_values - 1)) % n_values;
        return true;
    }
    return false;
}

/* ---- brute force: every order consistent with real time ------------------------------------ */
/* Tries to extend a sequence of placed ops: an op can go next when every ok
 * op that returned before its invoke is placed. Done when every ok op is
 * placed; info and pending ops may be placed or left out. Single key only. */
static bool brute_extend(const script *s, uint32_t placed, int64_t reg) {
    bool all_ok_placed = true;
    for (int i = 0; i < s->n_ops; i++)
        if (s->ops[i].status == ST_OK && !(placed & (1u << i))) all_ok_placed = false;
    if (all_ok_placed) return true;
    for (int i = 0; i < s->n_ops; i++) {
        const gen_op *o = &s->ops[i];
        if ((placed & (1u << i)) || o->status == ST_FAIL) continue;
        bool ready = true;
        for (int j = 0; j < s->n_ops; j++) {
            const gen_op *p = &s->ops[j];
            if (p->status == ST_OK && p->done_ev < o->inv_ev && !(placed & (1u << j))) ready = false;
        }
        if (!ready) continue;
        int64_t next = reg;
        bool fits = true;
        if (o->kind == OXL_OP_READ) {
            fits = o->status != ST_OK || o->out == reg;
        } else if (o->kind == OXL_OP_WRITE) {
            next = o->a;
        } else {
            bool swap = reg == o->a;
            if (swap) next = o->b;
            fits = o->status != ST_OK || o->out == (swap ? 1 : 0);
        }
        if (fits && brute_extend(s, placed | (1u << i), next)) return true;
    }
    return false;
}

static bool brute_linearizable(const script *s, int64_t initial) {
    if (s->n_ops > 16) tap_bail("brute force is for tiny histories");
    return brute_extend(s, 0, initial);
}

/* ---- the tests ------------------------------------------------------------------------------ */
static void test_empty(void) {
    hist x = hist_new();
    tap_is_uint(oxl_history_size(x.h), 0, "empty history has no ops");
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_OK, "empty history is linearizable");
    tap_ok(r.report == NULL, "OK has no report");
    tap_is_uint(r.key, 0, "OK has key 0");
    oxl_lin_result_free(&r);
    hist_free(&x);
}

static void test_sequential(void) {
    hist x = hist_new();
    write_ok(&x, 1, 0, 1);
    read_ok(&x, 2, 0, 1);
    write_ok(&x, 2, 0, 2);
    read_ok(&x, 1, 0, 2);
    read_ok(&x, 3, 0, 2);
    tap_is_uint(oxl_history_size(x.h), 5, "five ops recorded");
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_OK, "sequential writes and reads are linearizable");
    tap_ok(r.explored >= 5, "explored counts the states visited (%" PRIu64 ")", r.explored);
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    read_ok(&x, 1, 0, 42);
    tap_is_int(verdict_of(&x, 42, 0), OXL_LIN_OK, "a read of the initial value is linearizable");
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_VIOLATION, "with another initial value it is not");
    hist_free(&x);
}

static void test_stale_read(void) {
    hist x = hist_new();
    x.t = 10 * OXL_MS;
    oxl_op_id w = inv(&x, 1, 3, OXL_OP_WRITE, 5, 0);
    x.t += OXL_MS;
    ok(&x, w, 0);
    x.t += OXL_MS;
    oxl_op_id r0 = inv(&x, 2, 3, OXL_OP_READ, 0, 0);
    x.t += OXL_MS;
    ok(&x, r0, 0);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "a stale read after a completed write is a violation");
    tap_is_uint(r.key, 3, "the violation names key 3");
    tap_is_str(r.report,
               "not linearizable: key 3 (register starting at 0), "
               "2 of 2 operations form a minimal failing history (it fails whatever the register held "
               "before; without any one of them the rest is linearizable):\n"
               "  client 1  write(5)                 invoke @11.000ms  ok @13.000ms\n"
               "  client 2  read() -> 0              invoke @15.000ms  ok @17.000ms"
               "   <- no linearization once this returns\n",
               "the report shows the failing history");
    oxl_lin_result_free(&r);
    tap_ok(r.report == NULL, "oxl_lin_result_free clears the report");
    hist_free(&x);
}

static void test_concurrent_write(void) {
    /* Reads overlapping a write may see old then new. */
    hist x = hist_new();
    oxl_op_id w = inv(&x, 1, 0, OXL_OP_WRITE, 1, 0);
    read_ok(&x, 2, 0, 0);
    read_ok(&x, 3, 0, 1);
    read_ok(&x, 2, 0, 1);
    ok(&x, w, 0);
    read_ok(&x, 3, 0, 1);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "reads overlapping a write see old then new");
    hist_free(&x);

    /* ABD without write-back: new, then old, while the write is in flight. */
    x = hist_new();
    w = inv(&x, 1, 0, OXL_OP_WRITE, 1, 0);
    read_ok(&x, 2, 0, 1);
    read_ok(&x, 3, 0, 0);
    ok(&x, w, 0);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION,
               "new then old across sequential reads during a write is a violation");
    /* Nothing writes 0 after the read of 1: the two reads alone prove it. */
    tap_contains(r.report, "2 of 3 operations", "the two reads are the witness");
    tap_contains(r.report, "read() -> 1", "the report shows the read of the new value");
    tap_contains(r.report, "read() -> 0", "and the read of the old one after it");
    tap_ok(!strstr(r.report ? r.report : "", "write(1)"), "the write cannot explain a 0 and is left out");
    oxl_lin_result_free(&r);
    hist_free(&x);

    /* The same with the write never completing (treated as info). */
    x = hist_new();
    inv(&x, 1, 0, OXL_OP_WRITE, 1, 0);
    read_ok(&x, 2, 0, 1);
    read_ok(&x, 3, 0, 0);
    r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "new then old with a never-completed write is a violation");
    /* An op that may be left out can never be needed to fail. */
    tap_ok(r.witness_minimal && r.witness_len == 2, "the witness is the two reads (%zu ops)", r.witness_len);
    tap_ok(!strstr(r.report ? r.report : "", "write("), "a pending write is never part of a minimal witness");
    oxl_lin_result_free(&r);
    hist_free(&x);

    /* Two concurrent reads may disagree in either order while they overlap. */
    x = hist_new();
    w = inv(&x, 1, 0, OXL_OP_WRITE, 1, 0);
    oxl_op_id ra = inv(&x, 2, 0, OXL_OP_READ, 0, 0);
    oxl_op_id rb = inv(&x, 3, 0, OXL_OP_READ, 0, 0);
    ok(&x, ra, 1);
    ok(&x, rb, 0);
    ok(&x, w, 0);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "overlapping reads may see new and old");
    hist_free(&x);
}

static void test_cas(void) {
    hist x = hist_new();
    cas_ok(&x, 1, 0, 0, 1, true);
    read_ok(&x, 2, 0, 1);
    cas_ok(&x, 2, 0, 0, 2, false);
    read_ok(&x, 1, 0, 1);
    cas_ok(&x, 1, 0, 1, 3, true);
    read_ok(&x, 3, 0, 3);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "cas swaps on a match and fails otherwise");
    hist_free(&x);

    x = hist_new();
    cas_ok(&x, 1, 0, 0, 1, true);
    read_ok(&x, 2, 0, 0);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_VIOLATION, "a swapped cas must change the value");
    hist_free(&x);

    x = hist_new();
    cas_ok(&x, 1, 0, 0, 1, false);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "cas reporting failure when the value matched is a violation");
    tap_contains(r.report, "cas(0, 1) -> failed", "the report shows the failed cas");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    cas_ok(&x, 1, 0, 5, 1, true);
    r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "cas reporting a swap when the value differed is a violation");
    tap_contains(r.report, "cas(5, 1) -> swapped", "the report shows the swapped cas");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    cas_ok(&x, 1, 0, 5, 1, false);
    read_ok(&x, 2, 0, 0);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "a failed cas leaves the value alone");
    hist_free(&x);

    /* Two concurrent cas(0, x): exactly one may win. */
    x = hist_new();
    oxl_op_id c1 = inv(&x, 1, 0, OXL_OP_CAS, 0, 1);
    oxl_op_id c2 = inv(&x, 2, 0, OXL_OP_CAS, 0, 2);
    ok(&x, c1, 1);
    ok(&x, c2, 1);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_VIOLATION, "two concurrent cas(0, _) cannot both swap");
    hist_free(&x);

    x = hist_new();
    c1 = inv(&x, 1, 0, OXL_OP_CAS, 0, 1);
    c2 = inv(&x, 2, 0, OXL_OP_CAS, 0, 2);
    ok(&x, c2, 0);
    ok(&x, c1, 1);
    read_ok(&x, 3, 0, 1);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "one concurrent cas wins, the other fails");
    hist_free(&x);
}

static void test_info(void) {
    hist x = hist_new();
    oxl_op_id w = inv(&x, 1, 0, OXL_OP_WRITE, 7, 0);
    info(&x, w);
    read_ok(&x, 2, 0, 0);
    read_ok(&x, 2, 0, 7);
    read_ok(&x, 3, 0, 7);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_OK, "an info write whose effect shows up later is linearizable");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    w = inv(&x, 1, 0, OXL_OP_WRITE, 7, 0);
    info(&x, w);
    read_ok(&x, 2, 0, 0);
    read_ok(&x, 3, 0, 0);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "an info write that never shows up is linearizable");
    hist_free(&x);

    x = hist_new();
    w = inv(&x, 1, 0, OXL_OP_WRITE, 7, 0);
    info(&x, w);
    read_ok(&x, 2, 0, 7);
    read_ok(&x, 3, 0, 0);
    r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "an info write cannot be seen and then unseen");
    tap_contains(r.report, "client 2  read() -> 7 ", "the report names the read of 7");
    tap_contains(r.report, "client 3  read() -> 0 ", "and the later read of 0");
    tap_ok(!strstr(r.report ? r.report : "", "info (outcome unknown)"), "the info write may be left out: not named");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    oxl_op_id c = inv(&x, 1, 0, OXL_OP_CAS, 0, 4);
    info(&x, c);
    read_ok(&x, 2, 0, 4);
    cas_ok(&x, 2, 0, 4, 5, true);
    read_ok(&x, 3, 0, 5);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "an info cas may have swapped");
    hist_free(&x);

    x = hist_new();
    inv(&x, 1, 0, OXL_OP_WRITE, 9, 0); /* never completes */
    read_ok(&x, 2, 0, 0);
    read_ok(&x, 2, 0, 9);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "a never-completed write may take effect");
    hist_free(&x);
}

static void test_fail(void) {
    hist x = hist_new();
    oxl_op_id w = inv(&x, 1, 0, OXL_OP_WRITE, 4, 0);
    fail(&x, w);
    read_ok(&x, 2, 0, 4);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "a read seeing a failed write's value is a violation");
    tap_contains(r.report, "1 of 1 operations", "the failed write is not part of the history");
    tap_contains(r.report, "1 failed operation on this key left out", "the report says so");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    w = inv(&x, 1, 0, OXL_OP_WRITE, 4, 0);
    read_ok(&x, 2, 0, 0);
    fail(&x, w);
    read_ok(&x, 2, 0, 0);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_OK, "a failed write leaves the value alone");
    hist_free(&x);
}

static void test_per_key(void) {
    hist x = hist_new();
    for (uint64_t k = 1; k <= 10; k++) {
        if (k == 7) continue;
        write_ok(&x, 1, k, (int64_t)k);
        read_ok(&x, 2, k, (int64_t)k);
    }
    /* Key 7: two harmless reads, then a write and, after the other keys' reads, a stale read. */
    read_ok(&x, 3, 7, 0);
    read_ok(&x, 1, 7, 0);
    write_ok(&x, 2, 7, 70);
    for (uint64_t k = 1; k <= 10; k++)
        if (k != 7) read_ok(&x, 3, k, (int64_t)k);
    read_ok(&x, 1, 7, 0); /* stale */
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "one bad key makes the history non-linearizable");
    tap_is_uint(r.key, 7, "the result names key 7");
    tap_contains(r.report, "key 7 (register starting at 0)", "the report names key 7");
    tap_contains(r.report, "2 of 4 operations form a minimal failing history",
                 "the minimal history has exactly the two ops needed");
    tap_contains(r.report, "client 2  write(70)", "it has the write");
    tap_contains(r.report, "client 1  read() -> 0 ", "and the stale read");
    tap_diag("%s", r.report ? r.report : "(no report)");
    oxl_lin_result_free(&r);
    hist_free(&x);
}

static void test_smallest_key(void) {
    hist x = hist_new();
    /* Key 9 fails with 2 ops; key 2 fails with 5 ops. */
    write_ok(&x, 1, 2, 1);
    read_ok(&x, 1, 2, 1);
    write_ok(&x, 1, 2, 2);
    read_ok(&x, 2, 2, 2);
    read_ok(&x, 3, 2, 1);
    write_ok(&x, 1, 9, 1);
    read_ok(&x, 2, 9, 0);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "two failing keys: violation");
    tap_is_uint(r.key, 9, "the key with the fewest ops is reported");
    tap_contains(r.report, "also: 1 other key not linearizable", "the report mentions the other key");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    write_ok(&x, 1, 5, 1);
    read_ok(&x, 2, 5, 0);
    write_ok(&x, 1, 4, 1);
    read_ok(&x, 2, 4, 0);
    r = oxl_check_register(x.h, 0, 0);
    tap_is_uint(r.key, 4, "equal sizes: the smallest key is reported");
    oxl_lin_result_free(&r);
    hist_free(&x);
}

static void test_malformed(void) {
    hist x = hist_new();
    oxl_op_id w = inv(&x, 1, 0, OXL_OP_WRITE, 1, 0);
    oxl_op_id rd = inv(&x, 2, 0, OXL_OP_READ, 0, 0);
    tap_is_uint(w, 0, "op ids start at 0");
    tap_is_uint(rd, 1, "and follow call order");
    ok(&x, rd, 1);
    ok(&x, w, 0);
    info(&x, rd);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_UNKNOWN, "double completion makes the history malformed");
    tap_contains(r.report, "malformed", "the report says malformed");
    tap_contains(r.report, "op 1 completed twice", "and why");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    read_ok(&x, 1, 0, 0);
    ok(&x, 99, 0);
    fail(&x, UINT32_MAX);
    r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_UNKNOWN, "completing an unknown op makes the history malformed");
    tap_contains(r.report, "unknown op 99", "the report names the op");
    tap_contains(r.report, "2 misuses in all", "and counts every misuse");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    oxl_op_id bad = inv(&x, 1, 0, (oxl_op_kind)7, 0, 0);
    tap_is_uint(bad, UINT32_MAX, "an invalid kind is refused");
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_UNKNOWN, "and makes the history malformed");
    hist_free(&x);

    x = hist_new();
    ok(&x, inv(&x, 1, 0, OXL_OP_CAS, 0, 1), 2);
    tap_is_int(verdict_of(&x, 0, 0), OXL_LIN_UNKNOWN, "a cas completing with 2 is malformed");
    hist_free(&x);

    /* NULL history: nothing to count, nothing to crash. */
    tap_is_uint(oxl_history_invoke(NULL, 1, 0, OXL_OP_READ, 0, 0, 0), UINT32_MAX,
                "invoke on NULL is refused");
    oxl_history_ok(NULL, 0, 0, 0);
    oxl_history_fail(NULL, 0, 0);
    oxl_history_info(NULL, 0, 0);
    oxl_history_free(NULL);
    oxl_lin_result_free(NULL);
    tap_is_uint(oxl_history_size(NULL), 0, "NULL history has size 0");
    r = oxl_check_register(NULL, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_UNKNOWN, "checking NULL gives unknown");
    tap_contains(r.report, "malformed", "and says it is malformed");
    oxl_lin_result_free(&r);

    /* The op limit. */
    x = hist_new();
    uint32_t limit = 1u << 20;
    bool ids_ok = true;
    for (uint32_t i = 0; i < limit; i++)
        if (oxl_history_invoke(x.h, 1, i % 64, OXL_OP_READ, 0, 0, i) != i) ids_ok = false;
    tap_ok(ids_ok, "1<<20 ops are accepted with ids 0..1<<20-1");
    tap_is_uint(oxl_history_invoke(x.h, 1, 0, OXL_OP_READ, 0, 0, 0), UINT32_MAX, "one more is refused");
    tap_is_uint(oxl_history_size(x.h), limit, "the size stays at the limit");
    r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_UNKNOWN, "an overfull history is malformed");
    tap_contains(r.report, "more than 1048576 operations", "the report says why");
    oxl_lin_result_free(&r);
    hist_free(&x);
}

static gen_params big_params(void) {
    return (gen_params){.n_ops = 200, .n_clients = 5, .n_keys = 1, .n_values = 5,
                        .p_fail = 2, .p_info = 2, .p_abandon = 20};
}

static void test_budget(void) {
    script s = generate(42, big_params());
    oxl_history *h = replay(&s);
    oxl_lin_result r = oxl_check_register(h, 0, 10);
    tap_is_int(r.verdict, OXL_LIN_UNKNOWN, "budget 10 on a 200-op concurrent history: unknown");
    tap_is_uint(r.key, 0, "the undecided key is named");
    tap_contains(r.report, "budget of 10 states ran out", "the report says the budget ran out");
    tap_is_uint(r.explored, 10, "the search stopped at the budget");
    oxl_lin_result_free(&r);

    double t0 = now_seconds();
    r = oxl_check_register(h, 0, 0);
    double dt = now_seconds() - t0;
    tap_is_int(r.verdict, OXL_LIN_OK, "the default budget decides it: linearizable");
    tap_ok(r.explored < 100000, "200 ops from 5 clients take a small search (%" PRIu64 " states)", r.explored);
    tap_diag("checked in %.3fs", dt);
    oxl_lin_result_free(&r);
    oxl_history_free(h);

    /* A definite answer on one key wins over a budget that ran out on another. */
    hist x = {replay(&s), 300 * OXL_MS};
    write_ok(&x, 1, 5, 1);
    read_ok(&x, 2, 5, 0);
    r = oxl_check_register(x.h, 0, 10);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "violation on one key beats unknown on another");
    tap_is_uint(r.key, 5, "and names the failing key");
    tap_contains(r.report, "1 key undecided", "the report mentions the undecided key");
    oxl_lin_result_free(&r);
    hist_free(&x);
    script_free(&s);

    /* Shrinking has a limit too (8 budgets of work): past it the report says so. */
    x = hist_new();
    for (int64_t v = 1; v <= 4; v++) {
        write_ok(&x, 1, 0, v);
        read_ok(&x, 2, 0, v);
    }
    read_ok(&x, 3, 0, 3);
    r = oxl_check_register(x.h, 0, 8);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "a violation found within a tight budget");
    tap_contains(r.report, "may not be minimal", "is reported unshrunk when shrinking runs out");
    oxl_lin_result_free(&r);
    r = oxl_check_register(x.h, 0, 0);
    tap_contains(r.report, "2 of 9 operations form a minimal failing history",
                 "the default budget shrinks it to read() -> 4, read() -> 3");
    tap_contains(r.report, "client 2  read() -> 4 ", "the read of 4");
    tap_contains(r.report, "client 3  read() -> 3 ", "and the stale read after it");
    oxl_lin_result_free(&r);
    hist_free(&x);

    x = hist_new();
    write_ok(&x, 1, 0, 1);
    read_ok(&x, 1, 0, 1);
    write_ok(&x, 1, 0, 2);
    tap_is_int(verdict_of(&x, 0, 3), OXL_LIN_OK, "a budget of exactly the states needed suffices");
    tap_is_int(verdict_of(&x, 0, 2), OXL_LIN_UNKNOWN, "one less does not");
    hist_free(&x);
}

static void test_random_small(void) {
    int original_ok = 0, original_brute_ok = 0, agree = 0, mutated = 0, violations = 0, total = 300;
    for (int seed = 1; seed <= total; seed++) {
        gen_params p = {.n_ops = 1 + seed % 8, .n_clients = 3, .n_keys = 1, .n_values = 3,
                        .p_fail = 10, .p_info = 10, .p_abandon = 30};
        script s = generate((uint64_t)seed, p);
        oxl_history *h = replay(&s);
        oxl_lin_result r = oxl_check_register(h, 0, 0);
        original_ok += r.verdict == OXL_LIN_OK;
        original_brute_ok += brute_linearizable(&s, 0);
        oxl_lin_result_free(&r);
        oxl_history_free(h);

        if (mutate(&s, (uint64_t)seed, p.n_values)) mutated++;
        h = replay(&s);
        r = oxl_check_register(h, 0, 0);
        bool brute = brute_linearizable(&s, 0);
        bool same = r.verdict == (brute ? OXL_LIN_OK : OXL_LIN_VIOLATION);
        agree += same;
        violations += !brute;
        if (!same)
            tap_diag("seed %d: checker %d, brute force %s\n%s", seed, (int)r.verdict,
                     brute ? "ok" : "violation", r.report ? r.report : "(no report)");
        oxl_lin_result_free(&r);
        oxl_history_free(h);
        script_free(&s);
    }
    tap_is_int(original_ok, total, "every generated history is linearizable for the checker");
    tap_is_int(original_brute_ok, total, "and for the brute force");
    tap_is_int(agree, total, "checker and brute force agree on %d mutated histories", total);
    tap_ok(violations >= total / 5, "the mutations produce violations (%d of %d, %d mutated)", violations,
           total, mutated);
}

static void test_large(void) {
    /* 20,000 ops over 100 keys. */
    gen_params p = {.n_ops = 20000, .n_clients = 10, .n_keys = 100, .n_values = 5,
                    .p_fail = 2, .p_info = 2, .p_abandon = 20};
    script s = generate(7, p);
    oxl_history *h = replay(&s);
    tap_is_uint(oxl_history_size(h), 20000, "20,000 ops recorded");
    double t0 = now_seconds();
    oxl_lin_result r = oxl_check_register(h, 0, 0);
    double dt = now_seconds() - t0;
    tap_is_int(r.verdict, OXL_LIN_OK, "20,000 ops over 100 keys are linearizable");
    tap_ok(r.explored < 1000000, "split by key, the search stays small (%" PRIu64 " states)", r.explored);
    tap_diag("checked in %.3fs", dt);
    oxl_lin_result_free(&r);
    oxl_history_free(h);
    script_free(&s);

    /* Info ops stay open forever and multiply the configurations: 200 ops
     * from 5 clients with 10% of them info, as they are and mutated. */
    gen_params pi = big_params();
    pi.p_info = 10;
    int originals_ok = 0, decided = 0, runs = 0;
    double worst_info = 0;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        s = generate(seed + 100, pi);
        for (int k = 0; k < 3; k++) {
            if (k > 0) mutate(&s, seed * 10 + (uint64_t)k, pi.n_values);
            h = replay(&s);
            t0 = now_seconds();
            r = oxl_check_register(h, 0, 0);
            dt = now_seconds() - t0;
            if (dt > worst_info) worst_info = dt;
            if (k == 0) originals_ok += r.verdict == OXL_LIN_OK;
            decided += r.verdict != OXL_LIN_UNKNOWN;
            runs++;
            oxl_lin_result_free(&r);
            oxl_history_free(h);
        }
        script_free(&s);
    }
    tap_is_int(originals_ok, 10, "info-heavy generated histories are linearizable");
    tap_is_int(decided, runs, "every info-heavy history, mutated or not, gets a definite verdict");
    /* Speed is measured, not asserted: the budget above bounds the work. */
    tap_diag("the slowest info-heavy check took %.3fs", worst_info);

    /* A violation hidden in a 200-op concurrent history: found and shrunk. */
    s = generate(42, big_params());
    bool found = false;
    double worst = 0;
    for (int i = 0; i < s.n_ops && !found; i++) {
        gen_op *o = &s.ops[i];
        if (i < s.n_ops / 2 || o->kind != OXL_OP_READ || o->status != ST_OK) continue;
        int64_t saved = o->out;
        o->out = (o->out + 1) % 5;
        h = replay(&s);
        t0 = now_seconds();
        r = oxl_check_register(h, 0, 0);
        dt = now_seconds() - t0;
        if (dt > worst) worst = dt;
        if (r.verdict == OXL_LIN_VIOLATION) {
            found = true;
            oxl_lin_result again = oxl_check_register(h, 0, 0);
            tap_is_str(again.report, r.report, "a second check gives the same report");
            tap_is_uint(again.explored, r.explored, "after the same search");
            oxl_lin_result_free(&again);
            unsigned shown = 0, of = 0;
            const char *m = r.report ? strstr(r.report, "), ") : NULL;
            if (m) sscanf(m, "), %u of %u", &shown, &of);
            tap_ok(shown >= 1 && shown <= 8 && of >= 150, "op %d's bad read: shrunk to %u of %u ops", i,
                   shown, of);
            tap_diag("%s", r.report ? r.report : "(no report)");
        }
        oxl_lin_result_free(&r);
        oxl_history_free(h);
        o->out = saved;
    }
    tap_ok(found, "a mutated read in the second half is caught");
    tap_diag("each check with shrinking took at most %.3fs", worst);
    script_free(&s);
}

/* ---- the witness a violation names ---------------------------------------------------------- */
static bool witness_has(const oxl_lin_result *r, oxl_op_id op) {
    for (size_t i = 0; i < r->witness_len; i++)
        if (r->witness[i] == op) return true;
    return false;
}

static void test_witness_cases(void) {
    /* The culprit comes first; a failed cas later is explained by the write
     * before it. Dropping that write would leave "cas(0, 3) -> failed" from
     * 0 failing on its own: a report blaming an op that did nothing wrong. */
    hist x = hist_new();
    oxl_op_id bad = inv(&x, 1, 0, OXL_OP_READ, 0, 0);
    ok(&x, bad, 9);
    write_ok(&x, 2, 0, 1);
    oxl_op_id c = inv(&x, 3, 0, OXL_OP_CAS, 0, 3);
    ok(&x, c, 0);
    oxl_lin_result r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "a read of a value nobody wrote is a violation");
    tap_ok(r.witness_len == 1 && witness_has(&r, bad), "the witness is that read alone (%zu ops)", r.witness_len);
    tap_is_uint(r.witness_end, bad, "its completion ends the failing prefix");
    tap_ok(r.witness_needs_initial, "it fails only because the register starts at 0");
    tap_ok(!witness_has(&r, c), "the failed cas, explained by write(1), is not named");
    tap_contains(r.report, "it fails from this initial value only", "the report says the initial value matters");
    tap_contains(r.report, "read() -> 9", "and names the read");
    oxl_lin_result_free(&r);
    tap_ok(r.witness == NULL && r.witness_len == 0, "oxl_lin_result_free clears the witness");
    hist_free(&x);

    /* A stale read after a failed cas: the cas did nothing wrong. */
    x = hist_new();
    write_ok(&x, 1, 0, 1);
    c = inv(&x, 2, 0, OXL_OP_CAS, 0, 3);
    ok(&x, c, 0);
    oxl_op_id w2 = inv(&x, 1, 0, OXL_OP_WRITE, 2, 0);
    ok(&x, w2, 0);
    bad = inv(&x, 3, 0, OXL_OP_READ, 0, 0);
    ok(&x, bad, 1);
    r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "a read of 1 after write(2) completed is a violation");
    tap_ok(r.witness_len == 2 && witness_has(&r, w2) && witness_has(&r, bad),
           "the witness is write(2) and the stale read (%zu ops)", r.witness_len);
    tap_ok(!r.witness_needs_initial, "which fail whatever the register held");
    tap_ok(!witness_has(&r, c), "the failed cas is not named");
    oxl_lin_result_free(&r);
    hist_free(&x);

    /* Only the shortest failing prefix counts: a later, unrelated problem
     * on the same key is not what the report shows. */
    x = hist_new();
    write_ok(&x, 1, 0, 1);
    bad = inv(&x, 2, 0, OXL_OP_READ, 0, 0);
    ok(&x, bad, 0);
    write_ok(&x, 1, 0, 5);
    oxl_op_id later = inv(&x, 2, 0, OXL_OP_READ, 0, 0);
    ok(&x, later, 7);
    r = oxl_check_register(x.h, 0, 0);
    tap_is_int(r.verdict, OXL_LIN_VIOLATION, "two problems on one key: a violation");
    tap_is_uint(r.witness_end, bad, "the first one ends the shortest failing prefix");
    tap_ok(witness_has(&r, bad) && !witness_has(&r, later), "the witness is about the first one");
    tap_ok(r.witness_minimal, "and is minimal");
    oxl_lin_result_free(&r);
    hist_free(&x);
}

/* Replays only the ops `keep` of the script (by op index), and only the
 * events up to event `last`: later completions are left out (pending).
 * Failed ops are left out as the checker leaves them out. */
static oxl_history *replay_sub(const script *s, const bool *keep, int last) {
    oxl_history *h = oxl_history_new();
    oxl_op_id *ids = malloc((size_t)(s->n_ops ? s->n_ops : 1) * sizeof *ids);
    if (!h || !ids) tap_bail("out of memory");
    for (int e = 0; e < s->n_evs && e <= last; e++) {
        int k = s->ev_op[e];
        const gen_op *o = &s->ops[k];
        if (!keep[k] || o->status == ST_FAIL) continue; /* a failed op had no effect, whenever it returns */
        oxl_time_ns t = (oxl_time_ns)(e + 1) * OXL_MS;
        if (s->ev_type[e] == EV_INVOKE)
            ids[k] = oxl_history_invoke(h, o->client, o->key, o->kind, o->a, o->b, t);
        else if (o->status == ST_OK)
            oxl_history_ok(h, ids[k], o->out, t);
        else
            oxl_history_info(h, ids[k], t);
    }
    free(ids);
    return h;
}

/* Linearizable from `initial`, or (any) from some starting value: tried
 * independently of the checker's own way, over every value the script's
 * kept ops mention and one more. */
static oxl_lin_verdict verdict_sub(const script *s, const bool *keep, int last, bool any, int64_t initial) {
    oxl_history *h = replay_sub(s, keep, last);
    oxl_lin_verdict v;
    if (!any) {
        oxl_lin_result r = oxl_check_register(h, initial, 0);
        v = r.verdict;
        oxl_lin_result_free(&r);
    } else {
        int64_t top = 0;
        v = OXL_LIN_VIOLATION;
        for (int i = 0; i < s->n_ops; i++) {
            if (!keep[i]) continue;
            int64_t vals[3] = {s->ops[i].a, s->ops[i].b, s->ops[i].out};
            for (int j = 0; j < 3 && v == OXL_LIN_VIOLATION; j++) {
                if (vals[j] > top) top = vals[j];
                oxl_lin_result r = oxl_check_register(h, vals[j], 0);
                if (r.verdict != OXL_LIN_VIOLATION) v = r.verdict;
                oxl_lin_result_free(&r);
            }
        }
        if (v == OXL_LIN_VIOLATION) {
            oxl_lin_result r = oxl_check_register(h, top + 1, 0);
            v = r.verdict;
            oxl_lin_result_free(&r);
        }
    }
    oxl_history_free(h);
    return v;
}

/* The property of every violation report, on generated histories: the
 * witness lies in the shortest failing prefix and names the op that ends
 * it; it is not linearizable (from the initial value when it says it needs
 * it, else from any); removing any one of its ops makes it linearizable;
 * and one that needs the initial value is linearizable from another. */
static void test_witness_property(void) {
    static const gen_params params[] = {
        {.n_ops = 12, .n_clients = 3, .n_keys = 1, .n_values = 3, .p_fail = 10, .p_info = 10, .p_abandon = 30},
        {.n_ops = 40, .n_clients = 4, .n_keys = 1, .n_values = 4, .p_fail = 5, .p_info = 5, .p_abandon = 20},
        {.n_ops = 120, .n_clients = 5, .n_keys = 3, .n_values = 5, .p_fail = 2, .p_info = 5, .p_abandon = 20},
        {.n_ops = 60, .n_clients = 8, .n_keys = 1, .n_values = 2, .p_fail = 0, .p_info = 20, .p_abandon = 10},
    };
    int checked = 0, held = 0, needs_initial = 0, witness_ops = 0, biggest = 0, ends_at_first = 0;
    for (size_t p = 0; p < sizeof params / sizeof params[0]; p++) {
        for (int seed = 1; seed <= 400; seed++) {
            script s = generate((uint64_t)seed * 31 + p, params[p]);
            /* One or two mutated outputs: a violation somewhere, usually. */
            mutate(&s, (uint64_t)seed, params[p].n_values);
            if (seed % 2) mutate(&s, (uint64_t)seed + 1000, params[p].n_values);
            oxl_history *h = replay(&s);
            oxl_lin_result r = oxl_check_register(h, 0, 0);
            oxl_history_free(h);
            if (r.verdict != OXL_LIN_VIOLATION) {
                oxl_lin_result_free(&r);
                script_free(&s);
                continue;
            }
            checked++;
            bool good = r.witness_minimal && r.witness_len > 0 && r.witness_end != OXL_NO_OP &&
                        r.first_failure != OXL_NO_OP && witness_has(&r, r.witness_end);
            bool *keep = calloc((size_t)s.n_ops, sizeof *keep);
            bool *all = calloc((size_t)s.n_ops, sizeof *all);
            if (!keep || !all) tap_bail("out of memory");
            int last = good ? s.ops[r.witness_end].done_ev : 0;
            int first = good ? s.ops[r.first_failure].done_ev : 0;
            good = good && last <= first;
            for (int i = 0; good && i < s.n_ops; i++) all[i] = s.ops[i].key == s.ops[r.witness_end].key;
            for (size_t i = 0; good && i < r.witness_len; i++) {
                const gen_op *o = &s.ops[r.witness[i]];
                keep[r.witness[i]] = true;
                good = o->key == s.ops[r.witness_end].key && o->inv_ev < last; /* inside the prefix */
            }
            bool any = !r.witness_needs_initial;
            /* The prefix ending at witness_end fails; the one before it does not. */
            const char *why = good ? NULL : "no minimal witness ending inside it";
            if (!why && verdict_sub(&s, all, first, false, 0) != OXL_LIN_VIOLATION)
                why = "the key's history does not fail when first_failure returns";
            if (!why && verdict_sub(&s, all, first - 1, false, 0) != OXL_LIN_OK)
                why = "the key's history fails before first_failure returns";
            /* The witness's own shortest failing prefix ends at witness_end. */
            if (!why && verdict_sub(&s, keep, last - 1, any, 0) != OXL_LIN_OK)
                why = "the witness fails before witness_end returns";
            if (!why && verdict_sub(&s, keep, last, any, 0) != OXL_LIN_VIOLATION) why = "it does not fail";
            for (size_t i = 0; !why && i < r.witness_len; i++) {
                keep[r.witness[i]] = false;
                if (verdict_sub(&s, keep, last, any, 0) != OXL_LIN_OK) why = "it fails without one of its ops";
                keep[r.witness[i]] = true;
            }
            if (!why && !any && verdict_sub(&s, keep, last, true, 0) != OXL_LIN_OK)
                why = "it fails from other starting values too";
            good = !why;
            if (good) {
                held++;
            } else {
                tap_diag("params %zu seed %d: the witness does not hold (%s):\n%s", p, seed, why,
                         r.report ? r.report : "(no report)");
            }
            needs_initial += r.witness_needs_initial;
            ends_at_first += r.witness_end == r.first_failure;
            witness_ops += (int)r.witness_len;
            if ((int)r.witness_len > biggest) biggest = (int)r.witness_len;
            free(keep);
            free(all);
            oxl_lin_result_free(&r);
            script_free(&s);
        }
    }
    tap_ok(checked >= 600, "%d generated histories are not linearizable", checked);
    tap_is_int(held, checked, "every witness lies in the shortest failing prefix, fails, and is linearizable "
                              "without any one of its ops (%d needed the initial value; %.1f ops on average, "
                              "at most %d)",
               needs_initial, checked ? (double)witness_ops / checked : 0.0, biggest);
    tap_ok(ends_at_first * 10 >= checked * 9, "%d of %d witnesses end with the op that ends the failing prefix",
           ends_at_first, checked);
}

int main(void) {
    test_empty();
    test_sequential();
    test_stale_read();
    test_concurrent_write();
    test_cas();
    test_info();
    test_fail();
    test_per_key();
    test_smallest_key();
    test_malformed();
    test_budget();
    test_random_small();
    test_large();
    test_witness_cases();
    test_witness_property();
    return tap_done();
}
