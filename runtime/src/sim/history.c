/* history.c: operation histories and the linearizability checker for
 * registers.
 *
 * A history records invoke/complete events in call order; the call order is
 * the real-time order. The checker is P-compositional (Herlihy & Wing
 * locality): each key's register is checked on its own, in ascending key
 * order, by lin_search.c; the violation report names the witness that
 * lin_witness.c finds in the smallest failing key.
 *
 * Everything is bounded: ops per history, states per key, memo memory,
 * shrinking effort and report length.
 *
 * Depends on libc and oxl_sim.h only; no global mutable state.
 */
#include "history_internal.h"
#include "sim_sort.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the history ------------------------------------------------------------------------ */
static void note_misuse(oxl_history *h, const char *fmt, ...) OXL_PRINTF(2, 3);
static void note_misuse(oxl_history *h, const char *fmt, ...) {
    /* Only the first reason is kept: later ones are often its consequences. */
    if (h->misuses++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(h->first_misuse, sizeof h->first_misuse, fmt, ap);
        va_end(ap);
    }
}

oxl_history *oxl_history_new(void) {
    return calloc(1, sizeof(oxl_history));
}

void oxl_history_free(oxl_history *h) {
    if (!h) return;
    free(h->ops);
    free(h);
}

oxl_op_id oxl_history_invoke(oxl_history *h, int32_t client, uint64_t key,
                             oxl_op_kind kind, int64_t a, int64_t b, oxl_time_ns t) {
    if (!h) return HISTORY_NO_OP;
    if (kind != OXL_OP_READ && kind != OXL_OP_WRITE && kind != OXL_OP_CAS) {
        note_misuse(h, "invoke with invalid op kind %d by client %" PRId32, (int)kind, client);
        return HISTORY_NO_OP;
    }
    if (h->count >= HISTORY_MAX_OPS) {
        note_misuse(h, "more than %u operations invoked", HISTORY_MAX_OPS);
        return HISTORY_NO_OP;
    }
    if (h->count == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 64;
        if (cap > HISTORY_MAX_OPS) cap = HISTORY_MAX_OPS;
        op_record *ops = realloc(h->ops, (size_t)cap * sizeof *ops);
        if (!ops) {
            note_misuse(h, "out of memory recording operation %" PRIu32, h->count);
            return HISTORY_NO_OP;
        }
        h->ops = ops;
        h->cap = cap;
    }
    oxl_op_id id = h->count++;
    op_record *r = &h->ops[id];
    *r = (op_record){
        .key = key,
        .a = kind == OXL_OP_READ ? 0 : a,
        .b = kind == OXL_OP_CAS ? b : 0,
        .t_invoke = t,
        .invoke_seq = h->next_seq++,
        .client = client,
        .kind = (uint8_t)kind,
        .status = OP_PENDING,
    };
    return id;
}

static const char *status_name(uint8_t status) {
    switch (status) {
    case OP_OK: return "ok";
    case OP_FAIL: return "fail";
    case OP_INFO: return "info";
    default: return "pending";
    }
}

/* The op a completion refers to, or NULL (and a noted misuse) when it cannot
 * be completed. */
static op_record *completable(oxl_history *h, oxl_op_id op, const char *what) {
    if (op >= h->count) {
        note_misuse(h, "%s on unknown op %" PRIu32 " (%" PRIu32 " invoked)", what, op, h->count);
        return NULL;
    }
    op_record *r = &h->ops[op];
    if (r->status != OP_PENDING) {
        note_misuse(h, "op %" PRIu32 " completed twice (%s after %s)", op, what,
                    status_name(r->status));
        return NULL;
    }
    return r;
}

static void complete(oxl_history *h, op_record *r, op_status status, oxl_time_ns t) {
    r->status = (uint8_t)status;
    r->t_done = t;
    r->done_seq = h->next_seq++;
}

void oxl_history_ok(oxl_history *h, oxl_op_id op, int64_t value, oxl_time_ns t) {
    if (!h) return;
    op_record *r = completable(h, op, "ok");
    if (!r) return;
    if (r->kind == OXL_OP_CAS && value != 0 && value != 1)
        note_misuse(h, "op %" PRIu32 ": cas completed ok with %" PRId64 " (want 1 swapped or 0 failed)",
                    op, value);
    r->value = r->kind == OXL_OP_WRITE ? 0 : value;
    complete(h, r, OP_OK, t);
}

void oxl_history_fail(oxl_history *h, oxl_op_id op, oxl_time_ns t) {
    if (!h) return;
    op_record *r = completable(h, op, "fail");
    if (r) complete(h, r, OP_FAIL, t);
}

void oxl_history_info(oxl_history *h, oxl_op_id op, oxl_time_ns t) {
    if (!h) return;
    op_record *r = completable(h, op, "info");
    if (r) complete(h, r, OP_INFO, t);
}

size_t oxl_history_size(const oxl_history *h) {
    return h ? h->count : 0;
}

/* ---- reports ------------------------------------------------------------------------------ */
typedef struct strbuf {
    char *text;
    size_t len, cap;
    bool failed; /* an allocation failed: the text is dropped */
} strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...) OXL_PRINTF(2, 3);
static void sb_printf(strbuf *b, const char *fmt, ...) {
    if (b->failed) return;
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
        b->failed = true;
        return;
    }
    if (b->len + (size_t)need + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + (size_t)need + 1 > cap) cap *= 2;
        char *t = realloc(b->text, cap);
        if (!t) {
            b->failed = true;
            return;
        }
        b->text = t;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

static char *sb_take(strbuf *b) {
    if (b->failed) {
        free(b->text);
        return NULL;
    }
    return b->text;
}

/* Virtual ns as milliseconds with microsecond digits, e.g. 12.345ms. */
static void format_time(char *buf, size_t cap, oxl_time_ns t) {
    uint64_t mag = t < 0 ? 0 - (uint64_t)t : (uint64_t)t;
    snprintf(buf, cap, "%s%" PRIu64 ".%03" PRIu64 "ms", t < 0 ? "-" : "", mag / 1000000,
             mag % 1000000 / 1000);
}

static void format_op(char *buf, size_t cap, const op_record *r) {
    bool ok = r->status == OP_OK;
    switch (r->kind) {
    case OXL_OP_READ:
        if (ok)
            snprintf(buf, cap, "read() -> %" PRId64, r->value);
        else
            snprintf(buf, cap, "read()");
        break;
    case OXL_OP_WRITE:
        snprintf(buf, cap, "write(%" PRId64 ")", r->a);
        break;
    default:
        snprintf(buf, cap, "cas(%" PRId64 ", %" PRId64 ")%s", r->a, r->b,
                 !ok ? "" : r->value ? " -> swapped" : " -> failed");
        break;
    }
}

/* One op as the witness saw it: completions after the cut were not used. */
static void report_op(strbuf *b, const op_record *r, uint32_t cut, bool is_end) {
    char op[96], t_inv[32], t_done[32];
    format_op(op, sizeof op, r);
    format_time(t_inv, sizeof t_inv, r->t_invoke);
    format_time(t_done, sizeof t_done, r->t_done);
    sb_printf(b, "  client %-3" PRId32 "%-24s invoke @%s  ", r->client, op, t_inv);
    bool late = r->status != OP_PENDING && r->done_seq > cut;
    switch (r->status) {
    case OP_OK: sb_printf(b, "ok @%s", t_done); break;
    case OP_INFO: sb_printf(b, "info (outcome unknown) @%s", t_done); break;
    default: sb_printf(b, "never completed (outcome unknown)"); break;
    }
    if (late) sb_printf(b, " (after the failure: counted as unknown)");
    if (is_end) sb_printf(b, "   <- no linearization once this returns");
    sb_printf(b, "\n");
}

static char *report_text(const char *fmt, ...) OXL_PRINTF(1, 2);
static char *report_text(const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    strbuf b = {0};
    sb_printf(&b, "%s", line);
    return sb_take(&b);
}

/* ---- the checker -------------------------------------------------------------------------- */
typedef struct key_ref {
    uint64_t key;
    uint32_t id;
} key_ref;

static inline bool key_ref_less(const key_ref *a, const key_ref *b) {
    return a->key != b->key ? a->key < b->key : a->id < b->id;
}
SIM_SORT_DEFINE(sort_key_refs, key_ref, key_ref_less)

static const char *plural(size_t n) {
    return n == 1 ? "" : "s";
}

static oxl_lin_result unknown_result(uint64_t key, uint64_t explored, char *report) {
    return (oxl_lin_result){.verdict = OXL_LIN_UNKNOWN, .key = key, .explored = explored, .report = report,
                            .witness_end = OXL_NO_OP, .first_failure = OXL_NO_OP};
}

/* Finds the failing key's witness and describes it. On success the
 * witness goes to res. */
static char *violation_report(const oxl_history *h, uint64_t key, const uint32_t *ids, size_t n, int64_t initial,
                              uint64_t budget, size_t other_failing, size_t undecided, oxl_lin_result *res) {
    sim_lin_witness wit;
    if (!sim_lin_witness_find(h, ids, n, initial, budget, &wit)) {
        /* Without memory to shrink, name the key's whole history. */
        wit = (sim_lin_witness){.ids = malloc((n ? n : 1) * sizeof(uint32_t)), .n = n,
                                .first = HISTORY_NO_OP, .end = HISTORY_NO_OP,
                                .cut = SIM_LIN_NO_CUT, .needs_initial = true, .minimal = false};
        if (!wit.ids) return NULL;
        memcpy(wit.ids, ids, n * sizeof *wit.ids);
    }
    size_t failed = 0;
    for (uint32_t i = 0; i < h->count; i++) failed += h->ops[i].key == key && h->ops[i].status == OP_FAIL;

    strbuf b = {0};
    sb_printf(&b, "not linearizable: key %" PRIu64 " (register starting at %" PRId64 "), ", key, initial);
    if (wit.minimal)
        sb_printf(&b, "%zu of %zu operations form a minimal failing history (%s; without any one of them "
                      "the rest is linearizable):\n",
                  wit.n, n, wit.needs_initial ? "it fails from this initial value only"
                                               : "it fails whatever the register held before");
    else
        sb_printf(&b, "%zu of %zu operations form a failing history (shrinking stopped at its limit; "
                      "may not be minimal):\n", wit.n, n);
    for (size_t i = 0; i < wit.n && i < REPORT_MAX_OPS; i++)
        report_op(&b, &h->ops[wit.ids[i]], wit.cut, wit.ids[i] == wit.end);
    if (wit.n > REPORT_MAX_OPS) sb_printf(&b, "  ... %zu more operations\n", wit.n - REPORT_MAX_OPS);
    if (wit.first != HISTORY_NO_OP && wit.first != wit.end) {
        const op_record *f = &h->ops[wit.first];
        char op[96], t_done[32];
        format_op(op, sizeof op, f);
        format_time(t_done, sizeof t_done, f->t_done);
        sb_printf(&b, "  (the whole history first fails when client %" PRId32 "'s %s returns @%s; "
                      "the operations above fail on their own before that)\n", f->client, op, t_done);
    }
    if (failed)
        sb_printf(&b, "  (%zu failed operation%s on this key left out: no effect)\n", failed, plural(failed));
    if (other_failing || undecided)
        sb_printf(&b, "  (also: %zu other key%s not linearizable, %zu key%s undecided)\n", other_failing,
                  plural(other_failing), undecided, plural(undecided));
    res->witness = wit.ids;
    res->witness_len = wit.n;
    res->witness_end = wit.end;
    res->first_failure = wit.first;
    res->witness_needs_initial = wit.needs_initial;
    res->witness_minimal = wit.minimal;
    return sb_take(&b);
}

oxl_lin_result oxl_check_register(const oxl_history *h, int64_t initial, uint64_t budget) {
    if (!h) return unknown_result(0, 0, report_text("history is malformed: NULL history"));
    if (h->misuses)
        return unknown_result(0, 0, report_text("history is malformed: %s (%" PRIu64 " misuse%s in all)",
                                                h->first_misuse, h->misuses, plural(h->misuses)));
    if (budget == 0) budget = LIN_DEFAULT_BUDGET;

    /* Group the ops that may have had an effect by key, in invoke order. */
    key_ref *refs = malloc((h->count ? h->count : 1) * sizeof *refs);
    uint32_t *ids = malloc((h->count ? h->count : 1) * sizeof *ids);
    if (!refs || !ids) {
        free(refs);
        free(ids);
        return unknown_result(0, 0, report_text("out of memory checking %" PRIu32 " operations", h->count));
    }
    size_t n_refs = 0;
    for (uint32_t i = 0; i < h->count; i++)
        if (h->ops[i].status != OP_FAIL) refs[n_refs++] = (key_ref){.key = h->ops[i].key, .id = i};
    sort_key_refs(refs, n_refs);

    uint64_t explored = 0;
    size_t n_failing = 0, n_undecided = 0;
    bool have_fail = false, have_undecided = false;
    uint64_t fail_key = 0, undecided_key = 0;
    size_t fail_size = 0, fail_start = 0, undecided_size = 0;
    sim_lin_outcome undecided_why = SIM_LIN_BUDGET;
    for (size_t start = 0; start < n_refs;) {
        size_t end = start;
        uint64_t key = refs[start].key;
        while (end < n_refs && refs[end].key == key) {
            ids[end] = refs[end].id;
            end++;
        }
        size_t size = end - start;
        uint64_t visited = 0;
        sim_lin_outcome out = sim_lin_check(h, ids + start, size, SIM_LIN_NO_CUT, &initial, budget, &visited);
        explored += visited;
        if (out == SIM_LIN_VIOLATION) {
            n_failing++;
            /* Keys ascend, so strict < keeps the smallest key among equal sizes. */
            if (!have_fail || size < fail_size) {
                have_fail = true;
                fail_key = key;
                fail_size = size;
                fail_start = start;
            }
        } else if (out != SIM_LIN_OK) {
            n_undecided++;
            if (!have_undecided) {
                have_undecided = true;
                undecided_key = key;
                undecided_size = size;
                undecided_why = out;
            }
        }
        start = end;
    }
    free(refs);

    oxl_lin_result res = {.verdict = OXL_LIN_OK, .key = 0, .explored = explored, .report = NULL,
                          .witness_end = OXL_NO_OP, .first_failure = OXL_NO_OP};
    if (have_fail) {
        res.verdict = OXL_LIN_VIOLATION;
        res.key = fail_key;
        res.report = violation_report(h, fail_key, ids + fail_start, fail_size, initial, budget,
                                      n_failing - 1, n_undecided, &res);
    } else if (have_undecided) {
        char others[64] = "";
        if (n_undecided > 1)
            snprintf(others, sizeof others, "; %zu other key%s undecided too", n_undecided - 1,
                     plural(n_undecided - 1));
        char why[96];
        if (undecided_why == SIM_LIN_BUDGET)
            snprintf(why, sizeof why, "budget of %" PRIu64 " states ran out", budget);
        else
            snprintf(why, sizeof why, "ran out of memory (limit %zu MiB)", (size_t)MEMO_MAX_BYTES >> 20);
        res = unknown_result(undecided_key, explored,
                             report_text("undecided: key %" PRIu64 " (register starting at %" PRId64
                                         "): the search %s on its %zu operations%s",
                                         undecided_key, initial, why, undecided_size, others));
    }
    free(ids);
    return res;
}

void oxl_lin_result_free(oxl_lin_result *r) {
    if (!r) return;
    free(r->report);
    r->report = NULL;
    free(r->witness);
    r->witness = NULL;
    r->witness_len = 0;
}
