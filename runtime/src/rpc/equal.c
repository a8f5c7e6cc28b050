/* equal.c: OxL's structural == on values described by their type
 * descriptors (docs/language.md §7.5): lists element by element, maps key
 * by key whatever their order, structs field by field, unions by tag and
 * then value, String and Bytes by content, the rest as words.
 *
 * The walk keeps its own stack (a long linked list does not deepen the C
 * stack) and remembers the pairs of lists, maps and structs it has begun
 * to compare: meeting a pair again assumes it equal, so two cyclic values
 * compare in finite time, and equal exactly when no finite path from
 * their roots tells them apart. Nothing depends on an address's value:
 * the pair set is probed by identity only and never iterated. */
#include "rpc/rpc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct eq_item {
    const oxl_type_desc *t;
    oxl_word a, b;
} eq_item;

typedef struct eq_walk {
    eq_item *stack;
    size_t n, cap;
    oxl_word *seen; /* pairs (a, b), 2 words a slot; a == 0 is an empty slot */
    size_t nseen, cap_seen;
} eq_walk;

static void *eq_realloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (!q) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return q;
}

static void push(eq_walk *w, const oxl_type_desc *t, oxl_word a, oxl_word b) {
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        w->stack = eq_realloc(w->stack, w->cap * sizeof *w->stack);
    }
    w->stack[w->n++] = (eq_item){t, a, b};
}

static size_t pair_slot(oxl_word a, oxl_word b, size_t mask) {
    uint64_t h = (a * UINT64_C(0x9E3779B97F4A7C15)) ^ (b * UINT64_C(0xC2B2AE3D27D4EB4F));
    return (size_t)(h ^ (h >> 29)) & mask;
}

static void seen_put(oxl_word *tab, size_t cap, oxl_word a, oxl_word b) {
    size_t i = pair_slot(a, b, cap - 1);
    while (tab[2 * i]) i = (i + 1) & (cap - 1);
    tab[2 * i] = a;
    tab[2 * i + 1] = b;
}

/* True when (a, b) was met before; records it otherwise. a is an
 * object's address, never 0. */
static bool seen_before(eq_walk *w, oxl_word a, oxl_word b) {
    if (w->cap_seen) {
        for (size_t i = pair_slot(a, b, w->cap_seen - 1);; i = (i + 1) & (w->cap_seen - 1)) {
            if (!w->seen[2 * i]) break;
            if (w->seen[2 * i] == a && w->seen[2 * i + 1] == b) return true;
        }
    }
    if ((w->nseen + 1) * 2 > w->cap_seen) {
        size_t cap = w->cap_seen ? w->cap_seen * 2 : 64;
        oxl_word *tab = calloc(2 * cap, sizeof *tab);
        if (!tab) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        for (size_t i = 0; i < w->cap_seen; i++)
            if (w->seen[2 * i]) seen_put(tab, cap, w->seen[2 * i], w->seen[2 * i + 1]);
        free(w->seen);
        w->seen = tab;
        w->cap_seen = cap;
    }
    seen_put(w->seen, w->cap_seen, a, b);
    w->nseen++;
    return false;
}

/* Compares one pair, pushing the pairs inside it; false on a difference. */
static bool step(eq_walk *w, const oxl_type_desc *t, oxl_word a, oxl_word b) {
    if (a == b) return true; /* the same word: the same value (every type here is reflexive) */
    switch ((oxl_td_kind)t->kind) {
    case OXL_TD_NONE: return true;
    case OXL_TD_INT:
    case OXL_TD_BOOL:
    case OXL_TD_DURATION:
    case OXL_TD_INSTANT: return false;
    case OXL_TD_STRING:
    case OXL_TD_BYTES: {
        oxl_string x = oxl_word_to_str(a), y = oxl_word_to_str(b);
        return x->len == y->len && memcmp(x->data, y->data, (size_t)x->len) == 0;
    }
    case OXL_TD_LIST: {
        oxl_list x = oxl_word_to_ptr(a), y = oxl_word_to_ptr(b);
        if (x->len != y->len) return false;
        if (seen_before(w, a, b)) return true;
        for (int64_t i = x->len; i-- > 0;) push(w, t->items[0], x->items[i], y->items[i]);
        return true;
    }
    case OXL_TD_MAP: {
        oxl_map x = oxl_word_to_ptr(a), y = oxl_word_to_ptr(b);
        if (oxl_map_len(x) != oxl_map_len(y)) return false;
        if (seen_before(w, a, b)) return true;
        int64_t pos = 0;
        oxl_word k, vx, vy;
        while (oxl_map_next(x, &pos, &k, &vx)) {
            if (!oxl_map_get(y, k, &vy)) return false;
            push(w, t->items[1], vx, vy);
        }
        return true;
    }
    case OXL_TD_STRUCT: {
        const oxl_word *x = oxl_word_to_ptr(a), *y = oxl_word_to_ptr(b);
        if (seen_before(w, a, b)) return true;
        for (int64_t i = t->n; i-- > 0;) push(w, t->items[i], x[i], y[i]);
        return true;
    }
    case OXL_TD_UNION: {
        const oxl_box *x = oxl_word_to_ptr(a), *y = oxl_word_to_ptr(b);
        if (!x || !y || x->tag != y->tag) return false; /* none is NULL: both NULL was a == b */
        for (int64_t i = 0; i < t->n; i++)
            if (t->items[i]->kind != OXL_TD_NONE && t->tags[i] == x->tag) {
                push(w, t->items[i], x->word, y->word);
                return true;
            }
        return false; /* a member its type does not list: not produced by generated code */
    }
    }
    return false;
}

bool oxl_wire_equal(const oxl_type_desc *t, oxl_word a, oxl_word b) {
    eq_walk w = {0};
    bool eq = true;
    push(&w, t, a, b);
    while (eq && w.n) {
        eq_item it = w.stack[--w.n];
        eq = step(&w, it.t, it.a, it.b);
    }
    free(w.stack);
    free(w.seen);
    return eq;
}
