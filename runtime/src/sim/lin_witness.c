/* lin_witness.c: the few operations that prove a key is not linearizable.
 *
 * A report should name only operations that take part in the violation. So
 * the witness is searched inside the shortest failing prefix of the key's
 * history: the prefix that ends with the first completion after which no
 * linearization exists (prefixes of a linearizable history are
 * linearizable, so a binary search over completions finds it). The
 * operation whose completion ends it is the one that went wrong, and it is
 * never dropped. Every other operation of the prefix is dropped while the
 * rest still fails, chunks first and then one at a time until nothing more
 * can go; completions after the prefix's end count as unknown.
 *
 * Dropping a write can leave a read of its value, or a cas that failed
 * because of it, unexplained from the initial value, and the rest would
 * "fail" for a reason that is not the violation. So when the prefix fails
 * whatever value the register starts with, shrinking keeps that property:
 * the witness then fails from any starting value, and only operations of
 * the real conflict stay (a write and the stale read after it, not the
 * read alone). Only when the prefix fails because of the initial value
 * does the witness depend on it.
 *
 * At the end the witness is checked: without the final operation it must
 * be linearizable, and a witness that needs the initial value must be
 * linearizable from some other one. When either fails (a smaller failing
 * set exists) the search starts again inside that set, which is smaller or
 * has given up the initial value, so it ends. The result: a sub-history
 * that is not linearizable, from which removing any one operation leaves a
 * linearizable history. It usually ends with the op that ends the whole
 * history's failing prefix; when it does not (dropping the write that let
 * a cas explain a read leaves the read failing alone, and earlier), the
 * report names that op too. All work is bounded by SHRINK_BUDGET_FACTOR
 * budgets; past it the witness is the failing set reached so far. */
#include "history_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct witness_search {
    const oxl_history *h;
    int64_t initial;
    uint64_t budget;       /* states per check */
    uint64_t spent, limit; /* work so far (states plus ops per check) and its cap */
    uint32_t *trial;       /* scratch: a candidate set */
    uint32_t *cuts;        /* scratch: completion events */
} witness_search;

static sim_lin_outcome check(witness_search *s, const uint32_t *ids, size_t n, uint32_t cut, bool fixed) {
    uint64_t visited = 0;
    /* Every check costs at least its length, so the limit bounds the work. */
    s->spent += n;
    sim_lin_outcome out = sim_lin_check(s->h, ids, n, cut, fixed ? &s->initial : NULL, s->budget, &visited);
    s->spent += visited;
    return out;
}

static bool over_limit(const witness_search *s) { return s->spent > s->limit; }

static int cmp_u32(const void *x, const void *y) {
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The shortest failing prefix of ids as they stood at limit_cut: sets *cut
 * to the completion that ends it and *end to its op. False when no prefix
 * is known to fail (a check ran out of budget or memory). */
static bool shortest_failing_prefix(witness_search *s, const uint32_t *ids, size_t n, uint32_t limit_cut,
                                    bool fixed, uint32_t *cut, uint32_t *end) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const op_record *r = &s->h->ops[ids[i]];
        /* Only a completion with an outcome constrains the search. */
        if (r->status == OP_OK && r->done_seq <= limit_cut) s->cuts[k++] = r->done_seq;
    }
    if (k == 0) return false;
    qsort(s->cuts, k, sizeof *s->cuts, cmp_u32);
    /* Ops invoked after the last completion are optional, so the set fails
     * at cuts[k-1] exactly when it fails at limit_cut. */
    size_t lo = 0, hi = k - 1;
    if (check(s, ids, n, s->cuts[hi], fixed) != SIM_LIN_VIOLATION) return false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (check(s, ids, n, s->cuts[mid], fixed) == SIM_LIN_VIOLATION)
            hi = mid;
        else
            lo = mid + 1;
    }
    *cut = s->cuts[lo];
    for (size_t i = 0; i < n; i++)
        if (s->h->ops[ids[i]].status == OP_OK && s->h->ops[ids[i]].done_seq == *cut) {
            *end = ids[i];
            return true;
        }
    assert(!"a cut is some op's completion");
    return false;
}

/* True when ids without positions [at, at+len), except `keep`, still fails
 * at cut; then they are removed. */
static bool try_remove(witness_search *s, uint32_t *ids, size_t *n, size_t at, size_t len, uint32_t keep,
                       uint32_t cut, bool fixed) {
    assert(at + len <= *n);
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (i < at || i >= at + len || ids[i] == keep) s->trial[m++] = ids[i];
    if (m == *n) return false;
    if (check(s, s->trial, m, cut, fixed) != SIM_LIN_VIOLATION) return false;
    memcpy(ids, s->trial, m * sizeof *ids);
    *n = m;
    return true;
}

/* Drops ops (never `keep`) while the rest fails at cut: chunks first (cheap
 * on long histories), then single ops until a whole pass drops nothing.
 * False when the work limit stopped it. */
static bool shrink(witness_search *s, uint32_t *ids, size_t *n, uint32_t keep, uint32_t cut, bool fixed) {
    for (size_t chunk = *n / 2; chunk >= 2; chunk /= 2) {
        for (size_t at = 0; at + chunk <= *n;) {
            if (over_limit(s)) return false;
            if (!try_remove(s, ids, n, at, chunk, keep, cut, fixed)) at += chunk;
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t at = 0; at < *n;) {
            if (over_limit(s)) return false;
            if (ids[at] != keep && try_remove(s, ids, n, at, 1, keep, cut, fixed))
                changed = true;
            else
                at++;
        }
    }
    return true;
}

bool sim_lin_witness_find(const oxl_history *h, const uint32_t *ids, size_t n, int64_t initial, uint64_t budget,
                          sim_lin_witness *out) {
    memset(out, 0, sizeof *out);
    uint64_t limit = budget > UINT64_MAX / SHRINK_BUDGET_FACTOR ? UINT64_MAX : budget * SHRINK_BUDGET_FACTOR;
    witness_search s = {.h = h, .initial = initial, .budget = budget, .limit = limit,
                        .trial = malloc((n ? n : 1) * sizeof(uint32_t)),
                        .cuts = malloc((n ? n : 1) * sizeof(uint32_t))};
    uint32_t *cur = malloc((n ? n : 1) * sizeof *cur);
    if (!s.trial || !s.cuts || !cur) {
        free(s.trial);
        free(s.cuts);
        free(cur);
        return false;
    }
    memcpy(cur, ids, n * sizeof *cur);
    size_t m = n;
    uint32_t limit_cut = SIM_LIN_NO_CUT, cut = SIM_LIN_NO_CUT, end = HISTORY_NO_OP, first = HISTORY_NO_OP;
    bool fixed = true, minimal = false;
    for (;;) {
        uint32_t c, e;
        if (!shortest_failing_prefix(&s, cur, m, limit_cut, fixed, &c, &e)) break;
        cut = c;
        end = e;
        if (first == HISTORY_NO_OP) first = e;
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (h->ops[cur[i]].invoke_seq < cut) cur[k++] = cur[i];
        m = k;
        /* The prefix before this completion is linearizable from initial,
         * hence from some value: the same completion ends the prefix that
         * fails from any value, when one does. */
        if (fixed && check(&s, cur, m, cut, false) == SIM_LIN_VIOLATION) fixed = false;
        if (!shrink(&s, cur, &m, end, cut, fixed)) break;
        k = 0;
        for (size_t i = 0; i < m; i++)
            if (cur[i] != end) s.trial[k++] = cur[i];
        sim_lin_outcome without_end = check(&s, s.trial, k, cut, fixed);
        if (without_end == SIM_LIN_VIOLATION) {
            memcpy(cur, s.trial, k * sizeof *cur); /* a smaller failing set: search it */
            m = k;
            limit_cut = cut;
            continue;
        }
        if (without_end != SIM_LIN_OK) break;
        if (fixed) {
            sim_lin_outcome any = check(&s, cur, m, cut, false);
            if (any == SIM_LIN_VIOLATION) { /* it does not need the initial value after all */
                fixed = false;
                limit_cut = cut;
                continue;
            }
            if (any != SIM_LIN_OK) break;
        }
        minimal = true;
        break;
    }
    free(s.trial);
    free(s.cuts);
    /* A search that stopped early may have dropped the op of an earlier round. */
    bool end_present = false;
    for (size_t i = 0; i < m; i++) end_present |= cur[i] == end;
    if (!end_present) end = HISTORY_NO_OP;
    *out = (sim_lin_witness){.ids = cur, .n = m, .first = first, .end = end, .cut = cut, .needs_initial = fixed, .minimal = minimal};
    return true;
}
