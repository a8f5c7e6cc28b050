/* ptrmap.c: a map from pointers (syntax nodes) to small numbers, probed by
 * identity only and never iterated, so no output order depends on an
 * address. The code generator's sets (the vars that live in cells, the
 * function literals that stay in their function) are maps of it. */
#include "codegen/cg_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static size_t ptr_hash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return (size_t)x;
}

/* The position of key, or of the empty slot where it would go. */
static uint32_t probe(const cg_ptrmap *s, const void *key) {
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (uint32_t)(ptr_hash(key) & mask);; i = (i + 1) & mask)
        if (!s->keys[i] || s->keys[i] == key) return i;
}

bool cg_ptrmap_get(const cg_ptrmap *s, const void *key, uint32_t *val) {
    if (!s->cap || !key) return false;
    uint32_t i = probe(s, key);
    if (!s->keys[i]) return false;
    if (val) *val = s->vals[i];
    return true;
}

void cg_ptrmap_put(cg_ptrmap *s, const void *key, uint32_t val) {
    if (!key) return;
    if ((s->n + 1) * 2 > s->cap) {
        if (s->cap > UINT32_MAX / 4) {
            fputs("oxl: too many entries in one of the code generator's tables\n", stderr);
            abort();
        }
        cg_ptrmap old = *s;
        s->cap = old.cap ? old.cap * 2 : 16;
        s->n = 0;
        s->keys = calloc(s->cap, sizeof *s->keys);
        s->vals = calloc(s->cap, sizeof *s->vals);
        if (!s->keys || !s->vals) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.keys[i]) cg_ptrmap_put(s, old.keys[i], old.vals[i]);
        cg_ptrmap_free(&old);
    }
    uint32_t i = probe(s, key);
    if (!s->keys[i]) {
        s->keys[i] = key;
        s->n++;
    }
    s->vals[i] = val;
}

void cg_ptrmap_free(cg_ptrmap *s) {
    free(s->keys);
    free(s->vals);
    *s = (cg_ptrmap){0};
}
